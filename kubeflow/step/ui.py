"""Artifacts the Kubeflow Pipelines UI draws: the review page and the headline metrics.

KFP's UI shows a run's artifact under "Visualizations" by its ML-Metadata type name
only: ``system.HTML``, the file at its URI in a frame, and ``system.Metrics``, its
custom properties as a table, each needing a ``display_name`` (kubeflow/pipelines
``frontend/src/components/viewers/MetricsVisualizations.tsx``, getVerifiedMetrics-
Artifacts and getVertifiedHtmlArtifacts; the launcher defaults ``display_name`` to the
output's name in ``backend/src/v2/metadata/client.go``, RecordArtifact). TFX's opaque
``tfx.*`` types show as nothing there (tensorflow/tfx#5475). TFX's Kubeflow V2 compiler
writes a custom artifact's TYPE_NAME as its schema title
(``tfx/orchestration/kubeflow/v2/compiler_utils.py``, get_artifact_type_schema), the
launcher makes the title the ML-Metadata type name (SchemaToArtifactType), and TFX's
entry point imports the class by that title, which ``kubeflow/step/entrypoint.py``
resolves to this module.
"""

from __future__ import annotations

from tfx import v1 as tfx
from tfx.types import standard_artifacts


class HTML(standard_artifacts.String):
    """A self-contained HTML page; its URI is the file, as KFP's HTML viewer reads it.

    A value artifact, so TFX's local runner too makes its URI a file, not a folder.
    """

    TYPE_NAME = "system.HTML"


class Metrics(tfx.dsl.Artifact):
    """Scalar metrics as custom properties, which KFP's UI lists."""

    TYPE_NAME = "system.Metrics"

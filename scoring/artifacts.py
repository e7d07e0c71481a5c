"""The scoring pipeline's artifact types: the scored rows, and their skew.

Their type names are their schema titles on Kubeflow (``<namespace>.<Name>``, as TFX's
Kubeflow V2 compiler requires, ``compiler_utils.get_artifact_schema``), and TFX's entry
point imports a custom artifact class by that title: ``kubeflow/step/entrypoint.py``
makes ``wide_deep`` this module. ``wide-deep-score`` records its runs' skew under the
same type name (``pipeline_ops/metadata/scoring_runs.py``).
"""

from __future__ import annotations

from tfx import v1 as tfx

from scoring.names import SCORES_TYPE, SKEW_TYPE


class Scores(tfx.dsl.Artifact):
    """A folder holding ``scores.csv``: the rows of a span, scored in order."""

    TYPE_NAME = SCORES_TYPE


class ScoringSkew(tfx.dsl.Artifact):
    """A folder holding ``skew.json`` and the scored rows' ``FeatureStats.pb``."""

    TYPE_NAME = SKEW_TYPE

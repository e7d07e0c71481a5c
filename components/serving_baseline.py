"""ServingBaseline: the model that serves now, and the statistics of its training data.

Each candidate is judged against the model TF Serving serves (the newest version
under the push destination), and the new data's drift is measured against the data
that model was trained on, which AtomicPusher keeps beside it. This node reads both
at run time, with no Resolver, so it runs alike on the local orchestrator and on
open-source Kubeflow Pipelines, whose backend cannot execute Resolver steps. What it
reads is not among its inputs, so it must never be served from a cache.

With nothing serving yet, both outputs are empty and say so: their
``serving_version`` property is "" (the Evaluator then judges on the absolute bound
alone, and the validator checks drift between the run's own splits).
"""

# No `from __future__ import annotations`: TFX's @component reads the real type hints.
import os

from tfx import v1 as tfx
from tfx.types import artifact_utils

# Where the Evaluator looks for a Model artifact's SavedModel (not in tfx.v1).
from tfx.utils import path_utils
from tfx.v1.dsl.components import OutputArtifact, Parameter

from data_layout import serving_layout
from data_layout.properties import SERVING_SPAN, SERVING_VERSION

_artifacts = tfx.types.standard_artifacts


@tfx.dsl.components.component
def ServingBaseline(  # noqa: N802 - TFX names the component after the function
    serving_dir: Parameter[str],
    model: OutputArtifact[_artifacts.Model],
    statistics: OutputArtifact[_artifacts.ExampleStatistics],
) -> None:
    """Copy the newest version under ``serving_dir`` and its training statistics."""
    version = serving_layout.newest(serving_dir)
    found = str(version.number) if version else ""
    model.set_string_custom_property(SERVING_VERSION, found)
    trained_up_to = serving_layout.span_of(version) if version else None
    model.set_int_custom_property(SERVING_SPAN, -1 if trained_up_to is None else trained_up_to)
    statistics.set_string_custom_property(SERVING_VERSION, found)
    splits = []
    if version is not None:
        serving_layout.copy_tree(version.path, path_utils.serving_model_dir(model.uri))
        train_statistics = os.path.join(version.statistics_dir, serving_layout.TRAIN_SPLIT_DIR)
        if tfx.dsl.io.fileio.exists(train_statistics):
            serving_layout.copy_tree(
                train_statistics, os.path.join(statistics.uri, serving_layout.TRAIN_SPLIT_DIR)
            )
            splits = ["train"]
    statistics.split_names = artifact_utils.encode_split_names(splits)


def serving_version(artifact: tfx.dsl.Artifact) -> str | None:
    """The serving version a ServingBaseline output holds: "" for none, None if not one."""
    if not artifact.has_custom_property(SERVING_VERSION):
        return None
    return artifact.get_string_custom_property(SERVING_VERSION)

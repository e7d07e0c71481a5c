"""TFX's Tuner, recording what its search chose in ML-Metadata.

TFX's Tuner writes the best hyperparameters into a file of its artifact only. This
one also sets them on the artifact as custom properties, with the trials completed,
the best validation AUC among them and the search's seconds, so that the review and
``inspect`` read them from ML-Metadata, wherever the artifact's files are.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from tfx import v1 as tfx

# The executor hooks are not in tfx.v1: a standard component's executor is
# customized by subclassing it.
from tfx.components.tuner import executor as tuner_executor
from tfx.dsl.components.base import executor_spec
from tfx.types import artifact_utils, standard_component_specs
from tfx.utils import io_utils

from data_layout.properties import (
    BEST_VALIDATION_AUC,
    TUNED_HPARAMS,
    TUNING_SECONDS,
    TUNING_TRIALS,
)
from modules.hparams import tuned_values


def read_hyperparameters(uri: str) -> dict[str, Any]:
    """The KerasTuner config in a best_hyperparameters artifact's folder (what run_fn gets)."""
    return json.loads(io_utils.read_string_file(io_utils.get_only_uri_in_dir(uri)))


class RecordingTunerExecutor(tuner_executor.Executor):
    """The Tuner's executor, with the chosen values set on its best_hyperparameters."""

    def Do(  # noqa: N802 - TFX's executor interface
        self,
        input_dict: dict[str, list[tfx.dsl.Artifact]],
        output_dict: dict[str, list[tfx.dsl.Artifact]],
        exec_properties: dict[str, Any],
    ) -> None:
        """Search like TFX's Tuner, then record the result on the artifact."""
        started = time.monotonic()
        super().Do(input_dict, output_dict, exec_properties)
        best = artifact_utils.get_single_instance(
            output_dict[standard_component_specs.BEST_HYPERPARAMETERS_KEY]
        )
        config = read_hyperparameters(best.uri)
        results_uri = artifact_utils.get_single_uri(
            output_dict[standard_component_specs.TUNER_RESULTS_KEY]
        )
        # TFX writes one record per completed trial: its id, score and values.
        trials = json.loads(
            io_utils.read_string_file(os.path.join(results_uri, "tuner_results.json"))
        )
        best.set_string_custom_property(
            TUNED_HPARAMS, json.dumps(tuned_values(config), sort_keys=True)
        )
        best.set_int_custom_property(TUNING_TRIALS, len(trials))
        best.set_float_custom_property(
            BEST_VALIDATION_AUC, max((t["score"] for t in trials), default=float("nan"))
        )
        best.set_float_custom_property(TUNING_SECONDS, round(time.monotonic() - started, 1))


class RecordingTuner(tfx.components.Tuner):
    """tfx.components.Tuner with ``RecordingTunerExecutor``."""

    EXECUTOR_SPEC = executor_spec.ExecutorClassSpec(RecordingTunerExecutor)

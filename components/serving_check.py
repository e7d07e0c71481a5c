"""ServingCheck: the candidate served as a model server serves it, before the Pusher.

Between the Evaluator and the Pusher, in every runner. A candidate the Evaluator blessed
is loaded by a model server in a process of its own (TF Serving's binary where it is on
the PATH, else a stand-in that imports only TensorFlow: ``serving.standin_server``) and
asked in TF Serving's REST shapes about the test rows the Evaluator scored
(``serving.check``). Passed: an ``InfraBlessing`` marked blessed, as TFX's InfraValidator
marks it, with the figures measured; the Pusher requires it. Failed: the step fails with
the one line that says why, so the run ends there, nothing is pushed, and ML-Metadata
records the failed execution (where TFX's InfraValidator records a NOT BLESSED artifact
and the run still succeeds: tensorflow/tfx#3257).

A candidate the Evaluator did not bless is not checked (the Pusher would not push it):
its InfraBlessing is not blessed and says so.
"""

from __future__ import annotations

import json
import os
from typing import Any

from tfx import v1 as tfx
from tfx.dsl.components.base import base_component, base_executor, executor_spec
from tfx.dsl.io import fileio
from tfx.types import artifact_utils, component_spec, standard_component_specs
from tfx.utils import path_utils

import datasets
from data_layout.properties import SERVING_CHECK, SERVING_CHECK_NOTE
from modules.features import serving_argument
from serving import sample
from serving.check import ServingCheckError, check

_artifacts = tfx.types.standard_artifacts
DATASET_KEY = "dataset"
EVALUATION_KEY = "evaluation"
NOT_CHECKED = "not checked: the Evaluator did not bless the candidate"


def _mark(blessing: tfx.dsl.Artifact, blessed: bool) -> None:
    """The verdict as TFX's InfraValidator writes it: a file, and ``blessed`` 1 or 0."""
    name = "INFRA_BLESSED" if blessed else "INFRA_NOT_BLESSED"
    # Kubeflow's launcher hands the step an output path whose folder is not made yet.
    fileio.makedirs(blessing.uri)
    with fileio.open(os.path.join(blessing.uri, name), "w") as f:
        f.write("")
    blessing.set_int_custom_property("blessed", int(blessed))


class ServingCheckExecutor(base_executor.BaseExecutor):
    """Serves the blessed candidate and asks it what the Evaluator asked."""

    def Do(  # noqa: N802 - TFX's executor interface
        self,
        input_dict: dict[str, list[tfx.dsl.Artifact]],
        output_dict: dict[str, list[tfx.dsl.Artifact]],
        exec_properties: dict[str, Any],
    ) -> None:
        """Check the candidate; ServingCheckError (the step fails) where it is not served right."""
        model, evaluation, model_blessing, blessing = (
            artifact_utils.get_single_instance(found[key])
            for found, key in (
                (input_dict, standard_component_specs.MODEL_KEY),
                (input_dict, EVALUATION_KEY),
                (input_dict, standard_component_specs.MODEL_BLESSING_KEY),
                (output_dict, standard_component_specs.BLESSING_KEY),
            )
        )
        if model_blessing.get_int_custom_property("blessed") != 1:
            blessing.set_string_custom_property(SERVING_CHECK_NOTE, NOT_CHECKED)
            _mark(blessing, blessed=False)
            return
        scored = sample.read(evaluation.uri)
        if scored is None or not scored.examples:
            raise ServingCheckError(
                f"the Evaluator kept no scored test rows ({sample.SAMPLE_FILE} in "
                f"{evaluation.uri}): nothing to ask the served candidate"
            )
        dataset = datasets.load(exec_properties[DATASET_KEY])
        columns = {serving_argument(c): c for c in dataset.raw_feature_columns()}
        try:
            figures = check(path_utils.serving_model_path(model.uri), scored, columns)
        except ServingCheckError as failed:
            raise ServingCheckError(f"the served candidate failed the check: {failed}") from None
        blessing.set_string_custom_property(SERVING_CHECK, json.dumps(figures.as_dict()))
        _mark(blessing, blessed=True)


class ServingCheckSpec(component_spec.ComponentSpec):
    """The candidate, the Evaluator's evaluation (its scored rows) and blessing; a verdict."""

    PARAMETERS = {DATASET_KEY: component_spec.ExecutionParameter(type=str)}
    INPUTS = {
        standard_component_specs.MODEL_KEY: component_spec.ChannelParameter(type=_artifacts.Model),
        EVALUATION_KEY: component_spec.ChannelParameter(type=_artifacts.ModelEvaluation),
        standard_component_specs.MODEL_BLESSING_KEY: component_spec.ChannelParameter(
            type=_artifacts.ModelBlessing
        ),
    }
    OUTPUTS = {
        standard_component_specs.BLESSING_KEY: component_spec.ChannelParameter(
            type=_artifacts.InfraBlessing
        )
    }


class ServingCheck(base_component.BaseComponent):
    """Checks ``model`` as served, against ``evaluation``'s scores, when ``blessing`` blesses it."""

    SPEC_CLASS = ServingCheckSpec
    EXECUTOR_SPEC = executor_spec.ExecutorClassSpec(ServingCheckExecutor)

    def __init__(
        self,
        model: tfx.types.BaseChannel,
        evaluation: tfx.types.BaseChannel,
        model_blessing: tfx.types.BaseChannel,
        dataset: str,
    ) -> None:
        """Check ``model`` of ``dataset`` (its raw columns name the raw signature's inputs)."""
        super().__init__(
            spec=ServingCheckSpec(
                model=model,
                evaluation=evaluation,
                model_blessing=model_blessing,
                dataset=dataset,
                blessing=tfx.dsl.Channel(type=_artifacts.InfraBlessing),
            )
        )

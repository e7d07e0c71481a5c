"""TFX's Trainer with its number of training steps a run-time parameter.

The steps sit inside the ``train_args`` proto, which is compiled into the spec as one
JSON string and so cannot be changed when a run starts. Here they are a parameter of
their own (``train_steps``), which a Kubeflow run can set from the UI without
recompiling; the executor writes them into ``train_args`` before training.

It trains on the train split and validates (early stopping) on the validation split,
takes a Tuner's best hyperparameters when given them, and records on the model the
hyperparameters it trained with and the values the Tuner chose.
"""

from __future__ import annotations

import json
import os
from typing import Any

from tfx import v1 as tfx

# The executor hooks are not in tfx.v1: a standard component's executor is
# customized by subclassing it.
from tfx.components.trainer import executor as trainer_executor
from tfx.dsl.components.base import base_component, executor_spec
from tfx.types import artifact_utils, component_spec, standard_component_specs
from tfx.utils import io_utils, json_utils, proto_utils

from components.recording_tuner import read_hyperparameters
from components.serving_baseline import serving_version
from components.spec_extension import extended
from data_layout.properties import (
    HPARAMS,
    SERVING_SPAN,
    TUNED_HPARAMS,
    WARM_START_NOTE,
    WARM_STARTED_FROM,
)
from data_layout.splits import TRAIN, VALIDATION
from modules import warm_start
from modules.hparams import TRAINED_WITH_FILE, tuned_values

TRAIN_STEPS_KEY = "train_steps"


class StepsTrainerExecutor(trainer_executor.GenericExecutor):
    """The Trainer's executor, training for the ``train_steps`` parameter's steps."""

    def Do(  # noqa: N802 - TFX's executor interface
        self,
        input_dict: dict[str, list[tfx.dsl.Artifact]],
        output_dict: dict[str, list[tfx.dsl.Artifact]],
        exec_properties: dict[str, Any],
    ) -> None:
        """Train like TFX's Trainer, for ``train_steps`` steps."""
        steps = int(exec_properties[TRAIN_STEPS_KEY])
        if steps < 1:
            raise ValueError(f"train_steps must be positive, got {steps}")
        train_args = proto_utils.json_to_proto(
            exec_properties[standard_component_specs.TRAIN_ARGS_KEY], tfx.proto.TrainArgs()
        )
        train_args.num_steps = steps
        exec_properties = {
            **exec_properties,
            standard_component_specs.TRAIN_ARGS_KEY: proto_utils.proto_to_json(train_args),
        }
        input_dict = dict(input_dict)
        base = input_dict.get(standard_component_specs.BASE_MODEL_KEY) or []
        version = serving_version(base[0]) if base else ""
        examples = artifact_utils.get_single_instance(
            input_dict[standard_component_specs.EXAMPLES_KEY]
        )
        not_from = _not_from_serving(base[0] if version else None, examples.span)
        if not_from is not None:  # TFX would hand run_fn an empty folder, or the wrong model
            input_dict.pop(standard_component_specs.BASE_MODEL_KEY, None)
        super().Do(input_dict, output_dict, exec_properties)
        # What run_fn trained with, as it wrote it, and what the Tuner chose.
        model_run = artifact_utils.get_single_uri(
            output_dict[standard_component_specs.MODEL_RUN_KEY]
        )
        trained_with = io_utils.read_string_file(os.path.join(model_run, TRAINED_WITH_FILE))
        tuned = _tuner_config(input_dict.get(standard_component_specs.HYPERPARAMETERS_KEY))
        model = artifact_utils.get_single_instance(output_dict[standard_component_specs.MODEL_KEY])
        model.set_string_custom_property(HPARAMS, trained_with)
        model.set_string_custom_property(TUNED_HPARAMS, json.dumps(tuned_values(tuned)))
        outcome = warm_start.read_outcome(model_run)
        if not_from:
            outcome = {"warm_started": False, "why_not": not_from}
        model.set_string_custom_property(
            WARM_STARTED_FROM, version if outcome["warm_started"] else ""
        )
        model.set_string_custom_property(WARM_START_NOTE, str(outcome["why_not"]))


def _not_from_serving(base: tfx.dsl.Artifact | None, span: int) -> str | None:
    """Why the Trainer does not start from the serving model ``base`` ("": none serves).

    ``base`` is None when nothing serves, and also for a Resolver's model (Vertex),
    which records no serving version or span: no span rule can be checked for it.

    Only a model of strictly older spans is a starting point. One that learned newer
    spans is not (a backfill's window holds older spans' held-out rows, its test rows
    among them), nor one that learned this span: a rerun of a corrected span must not
    start from what the wrong files taught, and a flat root is always span 0.
    """
    if base is None:
        return ""
    served = base.get_int_custom_property(SERVING_SPAN)
    if served > span:
        return f"the serving model learned span {served}, newer than span {span}"
    if served == span:
        return f"the serving model learned span {span} already"
    return None


def _tuner_config(hyperparameters: list[tfx.dsl.Artifact] | None) -> dict[str, Any] | None:
    """The KerasTuner config a Tuner wrote (what run_fn gets), None without a Tuner."""
    if not hyperparameters:
        return None
    return read_hyperparameters(artifact_utils.get_single_uri(hyperparameters))


class StepsTrainerSpec(
    extended(
        standard_component_specs.TrainerSpec,
        parameters={TRAIN_STEPS_KEY: component_spec.ExecutionParameter(type=int)},
    )
):
    """Trainer's spec, plus the training steps as a parameter of their own."""


class StepsTrainer(base_component.BaseComponent):
    """Trains with ``run_fn`` for ``train_steps`` steps, with ``StepsTrainerExecutor``."""

    SPEC_CLASS = StepsTrainerSpec
    EXECUTOR_SPEC = executor_spec.ExecutorClassSpec(StepsTrainerExecutor)

    def __init__(
        self,
        examples: tfx.types.BaseChannel,
        transform_graph: tfx.types.BaseChannel,
        run_fn: str,
        train_steps: int | tfx.dsl.experimental.RuntimeParameter,
        eval_steps: int,
        custom_config: dict[str, Any],
        hyperparameters: tfx.types.BaseChannel | None = None,
        base_model: tfx.types.BaseChannel | None = None,
    ) -> None:
        """Train ``run_fn`` on ``examples`` through ``transform_graph``, tuned if given.

        With ``base_model`` (ServingBaseline's copy of the serving model) each member
        starts from its weights when the inputs match (``modules.warm_start``).
        """
        super().__init__(
            spec=StepsTrainerSpec(
                examples=examples,
                transform_graph=transform_graph,
                run_fn=run_fn,
                train_steps=train_steps,
                hyperparameters=hyperparameters,
                base_model=base_model,
                # Its steps are set from train_steps when the executor runs.
                train_args=tfx.proto.TrainArgs(splits=[TRAIN]),
                eval_args=tfx.proto.EvalArgs(splits=[VALIDATION], num_steps=eval_steps),
                custom_config=json_utils.dumps(custom_config),
                model=tfx.dsl.Channel(type=tfx.types.standard_artifacts.Model),
                model_run=tfx.dsl.Channel(type=tfx.types.standard_artifacts.ModelRun),
            )
        )

"""The Evaluator with its AUC bound set at run time and a baseline that may be absent.

Two things TFX's Evaluator cannot do on open-source Kubeflow Pipelines:

* take the bound from a run-time parameter: the bound sits inside ``eval_config``,
  which is compiled into the spec as one JSON string. ``min_auc`` is a parameter of
  its own here, written into every AUC value threshold before TFMA runs;
* compare with the model that serves without a Resolver: the baseline comes from
  ServingBaseline, whose output is empty (``serving_version`` "") while nothing
  serves. Such a baseline is dropped, and TFX then ignores the change thresholds
  (TFX's Evaluator "rubber-stamps" a candidate without a baseline).

With a model serving, the AUC change bound is judged beyond the test rows' noise:
both models score the same rows and the candidate fails it only when the paired
bootstrap's 95% interval of the difference lies wholly below the bound
(``components.paired_comparison``), where TFMA compares two point figures. Every
other threshold stays TFMA's.

The blessing records the serving version the candidate was compared with and the
comparison's interval; the evaluation, the split it was computed on.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import tensorflow as tf
import tensorflow_model_analysis as tfma
from tfx import v1 as tfx

# The executor hooks are not in tfx.v1: a standard component's executor is
# customized by subclassing it.
from tfx.components.evaluator import constants
from tfx.components.evaluator import executor as evaluator_executor
from tfx.dsl.components.base import base_component, executor_spec
from tfx.types import artifact_utils, component_spec, standard_component_specs
from tfx.utils import io_utils, json_utils, path_utils, proto_utils

from components import paired_comparison
from components.paired_comparison import GATED_METRIC, Comparison
from components.properties import AUC_CHANGE_INTERVAL, BASELINE_VERSION, EVALUATED_SPLITS
from components.serving_baseline import serving_version
from components.spec_extension import extended

MIN_AUC_KEY = "min_auc"


def _gated_thresholds(eval_config: tfma.EvalConfig) -> Iterator[tfma.MetricThreshold]:
    """Every per-slice threshold on ``GATED_METRIC`` in ``eval_config`` (mutable)."""
    for spec in eval_config.metrics_specs:
        for metric in spec.metrics:
            if json_utils.loads(metric.config or "{}").get("name") == GATED_METRIC:
                yield from (per_slice.threshold for per_slice in metric.per_slice_thresholds)


def with_min_auc(eval_config: tfma.EvalConfig, min_auc: float) -> tfma.EvalConfig:
    """``eval_config`` with every value threshold on ``GATED_METRIC`` at ``min_auc``."""
    updated = tfma.EvalConfig()
    updated.CopyFrom(eval_config)
    for threshold in _gated_thresholds(updated):
        if threshold.HasField("value_threshold"):
            threshold.value_threshold.lower_bound.value = min_auc
    return updated


def tolerated_drop(eval_config: tfma.EvalConfig) -> float | None:
    """How far below the baseline's AUC the candidate's may be (the change bound), if bound."""
    for threshold in _gated_thresholds(eval_config):
        if threshold.change_threshold.HasField("absolute"):
            return -threshold.change_threshold.absolute.value
    return None


def passes_but_for_auc_change(evaluation_uri: str) -> bool:
    """Whether TFMA's checks all passed, leaving aside the overall AUC change bound."""
    result = tfma.load_validation_result(evaluation_uri)
    if result.validation_ok:
        return True
    for per_slice in result.metric_validations_per_slice:
        overall = not per_slice.slice_key.single_slice_keys
        for failure in per_slice.failures:
            key = failure.metric_key
            if not (overall and key.is_diff and key.name == GATED_METRIC):
                return False
    return not (result.missing_slices or result.missing_cross_slices or result.missing_thresholds)


def _compare(
    spec: tfma.ModelSpec,
    examples: tfx.dsl.Artifact,
    models: tuple[tfx.dsl.Artifact, tfx.dsl.Artifact],
    split: str,
    tolerance: float,
) -> Comparison:
    """The candidate and the serving model (``models``) on the same rows of ``split``."""
    records = paired_comparison.split_records(examples.uri, split)
    candidate, baseline = (path_utils.serving_model_path(m.uri) for m in models)
    return paired_comparison.compare(
        paired_comparison.model_labels(candidate, records, spec.label_key),
        paired_comparison.model_scores(candidate, records, spec.prediction_key),
        paired_comparison.model_scores(baseline, records, spec.prediction_key),
        tolerance,
    )


def write_verdict(blessing: tfx.dsl.Artifact, blessed: bool) -> None:
    """Write the verdict as TFX's Evaluator does: a marker file and the ``blessed`` property."""
    for name in (constants.BLESSED_FILE_NAME, constants.NOT_BLESSED_FILE_NAME):
        path = os.path.join(blessing.uri, name)
        if tf.io.gfile.exists(path):
            tf.io.gfile.remove(path)
    name = constants.BLESSED_FILE_NAME if blessed else constants.NOT_BLESSED_FILE_NAME
    io_utils.write_string_file(os.path.join(blessing.uri, name), "")
    blessing.set_int_custom_property(
        constants.ARTIFACT_PROPERTY_BLESSED_KEY,
        constants.BLESSED_VALUE if blessed else constants.NOT_BLESSED_VALUE,
    )


class GatedEvaluatorExecutor(evaluator_executor.Executor):
    """Evaluator executor: the run-time bound, an absent baseline dropped, recorded."""

    def Do(  # noqa: N802 - TFX's executor interface
        self,
        input_dict: dict[str, list[tfx.dsl.Artifact]],
        output_dict: dict[str, list[tfx.dsl.Artifact]],
        exec_properties: dict[str, Any],
    ) -> None:
        """Evaluate like TFX's Evaluator, against the serving model when there is one."""
        exec_properties = dict(exec_properties)
        min_auc = float(exec_properties[MIN_AUC_KEY])
        if not 0.0 <= min_auc <= 1.0:
            raise ValueError(f"min_auc must be in [0, 1], got {min_auc}")
        config = proto_utils.json_to_proto(
            exec_properties[standard_component_specs.EVAL_CONFIG_KEY], tfma.EvalConfig()
        )
        exec_properties[standard_component_specs.EVAL_CONFIG_KEY] = proto_utils.proto_to_json(
            with_min_auc(config, min_auc)
        )
        input_dict = dict(input_dict)
        baseline = input_dict.get(standard_component_specs.BASELINE_MODEL_KEY) or []
        version = serving_version(baseline[0]) if baseline else ""
        if version == "":  # nothing serves: judge on the absolute bound alone
            input_dict.pop(standard_component_specs.BASELINE_MODEL_KEY, None)
        super().Do(input_dict, output_dict, exec_properties)
        evaluation = artifact_utils.get_single_instance(
            output_dict[standard_component_specs.EVALUATION_KEY]
        )
        splits = json_utils.loads(exec_properties[standard_component_specs.EXAMPLE_SPLITS_KEY])
        evaluation.set_string_custom_property(EVALUATED_SPLITS, ",".join(splits))
        blessing = artifact_utils.get_single_instance(
            output_dict[standard_component_specs.BLESSING_KEY]
        )
        # A Resolver's baseline (Vertex) has no serving version: name it by its URI.
        blessing.set_string_custom_property(
            BASELINE_VERSION, version if version is not None else baseline[0].uri
        )
        drop = tolerated_drop(config)
        if version == "" or drop is None:
            return
        examples, model = (
            artifact_utils.get_single_instance(input_dict[key])
            for key in (standard_component_specs.EXAMPLES_KEY, standard_component_specs.MODEL_KEY)
        )
        spec = config.model_specs[0]
        try:
            comparison = _compare(spec, examples, (model, baseline[0]), splits[0], drop)
        except ValueError as err:  # too few rows of a class: TFMA's point comparison stands
            blessing.set_string_custom_property(AUC_CHANGE_INTERVAL, f"no paired comparison: {err}")
            return
        paired_comparison.write(comparison, evaluation.uri)
        blessing.set_string_custom_property(AUC_CHANGE_INTERVAL, comparison.describe())
        write_verdict(blessing, passes_but_for_auc_change(evaluation.uri) and not comparison.worse)


class GatedEvaluatorSpec(
    extended(
        standard_component_specs.EvaluatorSpec,
        parameters={MIN_AUC_KEY: component_spec.ExecutionParameter(type=float)},
    )
):
    """Evaluator's spec, plus the AUC bound as a parameter of its own."""


class GatedEvaluator(base_component.BaseComponent):
    """Evaluates ``model`` on ``examples`` with ``GatedEvaluatorExecutor``."""

    SPEC_CLASS = GatedEvaluatorSpec
    EXECUTOR_SPEC = executor_spec.BeamExecutorSpec(GatedEvaluatorExecutor)

    def __init__(
        self,
        examples: tfx.types.BaseChannel,
        model: tfx.types.BaseChannel,
        baseline_model: tfx.types.BaseChannel,
        eval_config: tfma.EvalConfig,
        min_auc: float | tfx.dsl.experimental.RuntimeParameter,
        example_splits: list[str],
    ) -> None:
        """Gate ``model`` by ``eval_config`` on ``example_splits``, its AUC at least ``min_auc``."""
        super().__init__(
            spec=GatedEvaluatorSpec(
                examples=examples,
                model=model,
                baseline_model=baseline_model,
                eval_config=eval_config,
                min_auc=min_auc,
                example_splits=json_utils.dumps(example_splits),
                fairness_indicator_thresholds=json_utils.dumps(None),
                evaluation=tfx.dsl.Channel(type=tfx.types.standard_artifacts.ModelEvaluation),
                blessing=tfx.dsl.Channel(type=tfx.types.standard_artifacts.ModelBlessing),
            )
        )

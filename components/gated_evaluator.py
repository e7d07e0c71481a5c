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
(``review.paired_comparison``), where TFMA compares two point figures. The
dataset's slice bound (a change threshold on each slice of its slice columns) is
judged the same way on each slice's rows, and only on slices of at least its
``slice_min_rows`` rows: the paired comparison of every slice is written beside the
evaluation (``slice_comparisons.json``). With the dataset's error-rate bound
(``max_error_rate_rise``), a slice's false positive or negative rate above the
serving model's beyond it also holds the candidate back (``held_error_rates.json``),
also where too few rows of a class leave no paired comparison; a bound that can judge
no rate says why, in the blessing and the review, rather than pass in silence.
Every other threshold stays TFMA's. While nothing serves, the candidate's own AUC
intervals, overall and per slice, are written instead (``candidate_intervals.json``).

The blessing records the serving version the candidate was compared with, the
comparison's interval and the slices that held the candidate back; the evaluation,
the split it was computed on.

TFMA names a lone model "" and two models "candidate" and "baseline": a run with
nothing serving has its model renamed "candidate" in the evaluation's files, so
that ``tfma.load_eval_results`` follows the candidate across runs under one name.
"""

from __future__ import annotations

import functools
import json
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import tensorflow as tf
import tensorflow_model_analysis as tfma
from absl import logging
from google.protobuf import json_format
from tensorflow_model_analysis.proto import config_pb2, metrics_for_slice_pb2, validation_result_pb2
from tfx import v1 as tfx

# The executor hooks are not in tfx.v1: a standard component's executor is
# customized by subclassing it.
from tfx.components.evaluator import constants
from tfx.components.evaluator import executor as evaluator_executor
from tfx.dsl.components.base import base_component, executor_spec
from tfx.types import artifact_utils, component_spec, standard_component_specs
from tfx.utils import io_utils, json_utils, path_utils, proto_utils

from components.serving_baseline import serving_version
from components.spec_extension import extended
from data_layout.properties import (
    AUC_CHANGE_INTERVAL,
    BASELINE_VERSION,
    EVALUATED_SPLITS,
    HELD_SLICES,
)
from modules.features import SLICE_MIN_ROWS
from review import error_rates, paired_comparison, scored_rows
from review.curves import slice_name
from review.paired_comparison import GATED_METRIC, Comparison, SliceComparison
from review.reading import model_of
from serving import sample

MIN_AUC_KEY = "min_auc"
# The dataset's slice_min_rows; absent: the DatasetDeclaration default.
SLICE_MIN_ROWS_KEY = "slice_min_rows"
# The dataset's max_error_rate_rise; absent: the rates are not gated.
MAX_RATE_RISE_KEY = "max_error_rate_rise"
# The name of the candidate model in every evaluation: TFMA's own when two models are
# evaluated (tfma.CANDIDATE_KEY), given to the lone model of a run with nothing serving.
CANDIDATE_NAME = tfma.CANDIDATE_KEY
# TFMA's output files that name models: metrics, plots, attributions, validations.
_RECORD_FILES = {
    "metrics": metrics_for_slice_pb2.MetricsForSlice,
    "plots": metrics_for_slice_pb2.PlotsForSlice,
    "attributions": metrics_for_slice_pb2.AttributionsForSlice,
    "validations": validation_result_pb2.ValidationResult,
}


def _gated_thresholds(
    eval_config: config_pb2.EvalConfig, overall: bool | None = None
) -> Iterator[config_pb2.MetricThreshold]:
    """Every per-slice threshold on ``GATED_METRIC`` in ``eval_config`` (mutable).

    ``overall`` True: only those on the whole split; False: only those on slices.
    """
    for spec in eval_config.metrics_specs:
        for metric in spec.metrics:
            if json_utils.loads(metric.config or "{}").get("name") != GATED_METRIC:
                continue
            for per_slice in metric.per_slice_thresholds:
                whole = any(not s.feature_keys for s in per_slice.slicing_specs)
                if overall is None or overall == whole:
                    yield per_slice.threshold


def with_min_auc(eval_config: config_pb2.EvalConfig, min_auc: float) -> config_pb2.EvalConfig:
    """``eval_config`` with every value threshold on ``GATED_METRIC`` at ``min_auc``."""
    updated = config_pb2.EvalConfig()
    updated.CopyFrom(eval_config)
    for threshold in _gated_thresholds(updated):
        if threshold.HasField("value_threshold"):
            threshold.value_threshold.lower_bound.value = min_auc
    return updated


def tolerated_drop(eval_config: config_pb2.EvalConfig, overall: bool = True) -> float | None:
    """How far below the baseline's AUC the candidate's may be (the change bound), if bound.

    ``overall`` False: on a slice (the dataset's slice bound), if bound.
    """
    for threshold in _gated_thresholds(eval_config, overall):
        if threshold.change_threshold.HasField("absolute"):
            return -threshold.change_threshold.absolute.value
    return None


def _auc_change_failures(
    result: validation_result_pb2.ValidationResult,
) -> Iterator[tuple[str | None, bool]]:
    """Each failure TFMA reported: its slice (None: overall), and whether it is judged here.

    The paired comparison judges the AUC change bounds, overall or on one column's slice.
    """
    for per_slice in result.metric_validations_per_slice:
        keys = per_slice.slice_key.single_slice_keys
        name = slice_name(keys) if keys else None
        for failure in per_slice.failures:
            key = failure.metric_key
            yield name, key.is_diff and key.name == GATED_METRIC and len(keys) <= 1


def passes_but_for_auc_change(evaluation_uri: str) -> bool:
    """Whether TFMA's checks all passed, leaving aside the AUC change bounds (overall, slices)."""
    result = tfma.load_validation_result(evaluation_uri)
    if result.validation_ok:
        return True
    if not all(judged for _, judged in _auc_change_failures(result)):
        return False
    return not (result.missing_slices or result.missing_cross_slices or result.missing_thresholds)


def failed_slices(evaluation_uri: str) -> set[str]:
    """The slices ("column=value") whose AUC change bound TFMA found failed."""
    result = tfma.load_validation_result(evaluation_uri)
    return {name for name, judged in _auc_change_failures(result) if judged and name}


def judge_slices(slices: Sequence[SliceComparison], failed: Iterable[str]) -> list[SliceComparison]:
    """``slices`` with ``held`` set where a slice's failure of the slice bound stands.

    TFMA's failure on a slice stands only where the slice is ``gated`` (enough rows)
    and its paired interval lies wholly below the bound; a slice too small, of too
    few of a class, or within its noise is relaxed. A failed slice with no paired
    comparison at all stands: nothing judged it beyond noise.
    """
    failed = set(failed)
    known = {s.name for s in slices}
    judged = [
        replace(
            s,
            held=s.name in failed and s.gated and s.comparison is not None and s.comparison.worse,
        )
        for s in slices
    ]
    unjudged = [
        SliceComparison(*name.split("=", 1), rows=0, positives=0, comparison=None,
                        undefined="no paired comparison", gated=True, held=True)
        for name in sorted(failed - known)
    ]  # fmt: skip
    return judged + unjudged


def describe_held(slices: Sequence[SliceComparison]) -> str:
    """The slices that held the candidate back, for the verdict ("" when none did)."""
    held = [s for s in slices if s.held]
    if not held:
        return ""
    parts = [
        f"{s.name} {c.change_text(f'{c.rows:,} rows, {c.bound_text}')}"
        if (c := s.comparison) is not None
        else f"{s.name} (no paired comparison)"
        for s in held
    ]
    return f"held back on {len(held)} slice{'s' if len(held) > 1 else ''}: " + "; ".join(parts)


def name_the_candidate(evaluation_uri: str) -> None:
    """Rename TFMA's lone model "" to ``CANDIDATE_NAME`` in an evaluation's files.

    TFMA renames a lone ModelSpec "" whatever it is called, and a ModelSpec of two
    may not be "": only its output can carry one name for the candidate in every run.
    """
    for prefix, message in _RECORD_FILES.items():
        for path in tf.io.gfile.glob(os.path.join(evaluation_uri, f"{prefix}*")):
            records = [message.FromString(r.numpy()) for r in tf.data.TFRecordDataset(path)]
            with tf.io.TFRecordWriter(path) as writer:
                for record in records:
                    _rename_models(record)
                    writer.write(record.SerializeToString())
    path = os.path.join(evaluation_uri, "eval_config.json")
    with tf.io.gfile.GFile(path) as f:
        run = json_format.Parse(f.read(), config_pb2.EvalRun())
    for spec in run.eval_config.model_specs:
        spec.name = spec.name or CANDIDATE_NAME
    for spec in run.eval_config.metrics_specs:
        spec.model_names[:] = [n or CANDIDATE_NAME for n in spec.model_names]
    if "" in run.model_locations:
        run.model_locations[CANDIDATE_NAME] = run.model_locations.pop("")
    with tf.io.gfile.GFile(path, "w") as f:
        f.write(json_format.MessageToJson(run))


def _rename_models(message: Any, old: str = "", new: str = CANDIDATE_NAME) -> None:
    """Every ``model_name`` ``old`` in a TFMA output message set to ``new``, in place."""
    if "model_name" in message.DESCRIPTOR.fields_by_name and message.model_name == old:
        message.model_name = new
    for field, value in message.ListFields():
        # A plot's thousands of buckets name no model: they are not walked.
        if _model_fields(field) and _names_a_model(field.message_type):
            for item in value if field.label == field.LABEL_REPEATED else [value]:
                _rename_models(item, old, new)


def _model_fields(field: Any) -> bool:
    """Whether ``field`` holds messages to look into for model names."""
    # Map fields (legacy metrics by name) hold values, not keys that name a model.
    return field.message_type is not None and not field.message_type.GetOptions().map_entry


@functools.cache
def _names_a_model(descriptor: Any) -> bool:
    """Whether a message of this type can hold a ``model_name``, itself or in its fields."""
    seen, todo = set(), [descriptor]
    while todo:
        kind = todo.pop()
        if "model_name" in kind.fields_by_name:
            return True
        seen.add(kind.full_name)
        todo += [
            f.message_type
            for f in kind.fields
            if _model_fields(f) and f.message_type.full_name not in seen
        ]
    return False


def _scored(
    spec: config_pb2.ModelSpec,
    records: list[bytes],
    models: tuple[tfx.dsl.Artifact, tfx.dsl.Artifact],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The labels of ``records``, the candidate's and serving model's scores."""
    candidate, baseline = (path_utils.serving_model_path(m.uri) for m in models)
    labels, scores = scored_rows.labels_and_scores(
        candidate, records, spec.label_key, spec.prediction_key
    )
    return labels, scores, scored_rows.model_scores(baseline, records, spec.prediction_key)


def _slice_columns(config: config_pb2.EvalConfig) -> list[str]:
    """The columns the config slices by, one at a time."""
    return [c for spec in config.slicing_specs if len(spec.feature_keys) == 1
            for c in spec.feature_keys]  # fmt: skip


def write_estimates(
    config: config_pb2.EvalConfig,
    records: list[bytes],
    model: tfx.dsl.Artifact,
    evaluation: tfx.dsl.Artifact,
) -> np.ndarray:
    """The candidate's AUC interval on ``records`` and each slice, kept; its scores."""
    spec = config.model_specs[0]
    path = path_utils.serving_model_path(model.uri)
    labels, scores = scored_rows.labels_and_scores(
        path, records, spec.label_key, spec.prediction_key
    )
    values = scored_rows.slice_values(records, _slice_columns(config))
    paired_comparison.write_estimates(
        paired_comparison.estimates(labels, scores, values), evaluation.uri
    )
    return scores


def keep_scored_sample(
    config: config_pb2.EvalConfig,
    records: list[bytes],
    scores: np.ndarray | None,
    model: tfx.dsl.Artifact,
    evaluation: tfx.dsl.Artifact,
) -> None:
    """The first test rows and the candidate's scores of them, for the serving check.

    The serving check asks the served candidate about them again. ``scores``: every
    row's, where the judgement computed them; None: the sample is scored here.
    """
    rows = records[: sample.SAMPLE_ROWS]
    key = config.model_specs[0].prediction_key
    if scores is None:
        path = path_utils.serving_model_path(model.uri)
        scores = scored_rows.model_scores(path, rows, key)
    sample.write(evaluation.uri, sample.ScoredSample(tuple(rows), tuple(scores[: len(rows)]), key))


def compare_slices(
    config: config_pb2.EvalConfig,
    records: Sequence[bytes],
    scored: tuple[np.ndarray, np.ndarray, np.ndarray],
    min_rows: int,
) -> list[SliceComparison]:
    """Every slice of the config's slice columns compared, within the slice bound if any.

    Without a slice bound the slices are compared at the overall change bound, for
    the review, and none is ``gated``.
    """
    columns = _slice_columns(config)
    drop = tolerated_drop(config, overall=False)
    started = time.monotonic()
    slices = paired_comparison.slice_comparisons(
        *scored,
        scored_rows.slice_values(records, columns),
        drop if drop is not None else tolerated_drop(config) or 0.0,
        min_rows if drop is not None else len(records) + 1,
    )
    logging.info(
        "Compared %d slices of %s in %.1f s", len(slices), columns, time.monotonic() - started
    )
    return slices


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


def _at_run_time_bound(
    exec_properties: dict[str, Any], config: config_pb2.EvalConfig
) -> dict[str, Any]:
    """``exec_properties`` with ``min_auc`` written into ``config``'s AUC bounds.

    ValueError where ``min_auc`` is not in [0, 1]: a run started from the KFP UI may
    set it to anything.
    """
    min_auc = float(exec_properties[MIN_AUC_KEY])
    if not 0.0 <= min_auc <= 1.0:
        raise ValueError(f"min_auc must be in [0, 1], got {min_auc}")
    config_json = proto_utils.proto_to_json(with_min_auc(config, min_auc))
    return {**exec_properties, standard_component_specs.EVAL_CONFIG_KEY: config_json}


def compare_with_serving(
    scored: tuple[np.ndarray, np.ndarray, np.ndarray],
    drop: float,
    evaluation: tfx.dsl.Artifact,
    blessing: tfx.dsl.Artifact,
) -> Comparison | None:
    """The candidate against the serving model on the same rows, kept beside the evaluation.

    None where too few rows of a class leave no honest interval: the blessing says so,
    and TFMA's point comparison stands.
    """
    try:
        comparison = paired_comparison.compare(*scored, drop)
    except ValueError as err:
        blessing.set_string_custom_property(AUC_CHANGE_INTERVAL, f"no paired comparison: {err}")
        return None
    paired_comparison.write(comparison, evaluation.uri)
    return comparison


def write_slice_comparisons(
    config: config_pb2.EvalConfig,
    records: Sequence[bytes],
    scored: tuple[np.ndarray, np.ndarray, np.ndarray],
    min_rows: int,
    evaluation: tfx.dsl.Artifact,
) -> list[SliceComparison]:
    """Every slice compared and judged against TFMA's failures, kept beside the evaluation."""
    slices = judge_slices(
        compare_slices(config, records, scored, min_rows), failed_slices(evaluation.uri)
    )
    paired_comparison.write_slices(slices, evaluation.uri)
    return slices


def held_rates(
    evaluation: tfx.dsl.Artifact, min_rows: int, rise: float | None
) -> error_rates.HeldRates | None:
    """The error-rate bound's verdict, kept beside the evaluation (None: no bound declared)."""
    if rise is None:
        return None
    rates = error_rates.load_rates(evaluation.uri, model_of, min_rows)
    verdict = error_rates.HeldRates(
        float(rise), error_rates.beyond_bound(rates, float(rise)), error_rates.not_judged(rates)
    )
    error_rates.write_held(verdict, evaluation.uri)
    return verdict


def rates_said(verdict: error_rates.HeldRates | None) -> str:
    """The error-rate bound's part of the blessing's record ("": no bound, or none held)."""
    if verdict is None:
        return ""
    if verdict.not_judged:
        return f"error rates not judged ({verdict.not_judged})"
    return "held back on error rates: " + "; ".join(verdict.held) if verdict.held else ""


def hold_on_rates_alone(blessing: tfx.dsl.Artifact, verdict: error_rates.HeldRates | None) -> None:
    """Where no paired comparison could be made, gate on the error-rate bound alone.

    Too few rows of a class leave no honest AUC interval: TFMA's verdict stands, but a
    rate beyond the bound still holds the candidate back, and the blessing says what
    the bound found, or why it judged nothing.
    """
    said = rates_said(verdict)
    if not said:
        return
    recorded = blessing.get_string_custom_property(AUC_CHANGE_INTERVAL)
    blessing.set_string_custom_property(AUC_CHANGE_INTERVAL, f"{recorded}; {said}")
    if verdict.held:
        write_verdict(blessing, False)


def bless(
    blessing: tfx.dsl.Artifact,
    evaluation: tfx.dsl.Artifact,
    comparison: Comparison,
    slices: Sequence[SliceComparison],
    rates: error_rates.HeldRates | None = None,
) -> None:
    """Record the comparison and what held the candidate back, and write the verdict.

    Blessed where TFMA's checks pass but for the AUC change bounds, neither the whole
    split nor any slice is worse beyond its noise, and no error rate rose beyond the
    dataset's bound (``rates``: its verdict, None where none is declared).
    """
    held = "; ".join(filter(None, [describe_held(slices), rates_said(rates)]))
    blessing.set_string_custom_property(
        AUC_CHANGE_INTERVAL, comparison.describe() + (f"; {held}" if held else "")
    )
    blessing.set_string_custom_property(HELD_SLICES, json.dumps([s.name for s in slices if s.held]))
    write_verdict(
        blessing,
        passes_but_for_auc_change(evaluation.uri)
        and not comparison.worse
        and not any(s.held for s in slices)
        and not (rates and rates.held),
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
        config = proto_utils.json_to_proto(
            exec_properties[standard_component_specs.EVAL_CONFIG_KEY], config_pb2.EvalConfig()
        )
        baseline = input_dict.get(standard_component_specs.BASELINE_MODEL_KEY) or []
        version = serving_version(baseline[0]) if baseline else ""
        evaluation, blessing = self._run_tfma(
            input_dict, output_dict, exec_properties, config, version
        )
        examples, model = (
            artifact_utils.get_single_instance(input_dict[key])
            for key in (standard_component_specs.EXAMPLES_KEY, standard_component_specs.MODEL_KEY)
        )
        split = evaluation.get_string_custom_property(EVALUATED_SPLITS).split(",")[0]
        records = scored_rows.split_records(examples.uri, split)
        judged = (config, records, model, baseline, version)
        scores = self._judge(*judged, evaluation, blessing, exec_properties)
        keep_scored_sample(config, records, scores, model, evaluation)

    def _judge(
        self,
        config: config_pb2.EvalConfig,
        records: list[bytes],
        model: tfx.dsl.Artifact,
        baseline: list[tfx.dsl.Artifact],
        version: str | None,
        evaluation: tfx.dsl.Artifact,
        blessing: tfx.dsl.Artifact,
        exec_properties: dict[str, Any],
    ) -> np.ndarray | None:
        """Judge beyond TFMA's figures where a model serves; the candidate's scores.

        None where TFMA's verdict stands and nothing was scored here.
        """
        if version == "":  # nothing serves: TFMA's verdict stands; the candidate's intervals
            return write_estimates(config, records, model, evaluation)
        drop = tolerated_drop(config)
        if drop is None:
            return None  # no change bound: TFMA's verdict stands
        scored = _scored(config.model_specs[0], records, (model, baseline[0]))
        comparison = compare_with_serving(scored, drop, evaluation, blessing)
        min_rows = int(exec_properties.get(SLICE_MIN_ROWS_KEY) or SLICE_MIN_ROWS)
        rates = held_rates(evaluation, min_rows, exec_properties.get(MAX_RATE_RISE_KEY))
        if comparison is None:
            hold_on_rates_alone(blessing, rates)
            return scored[1]
        slices = write_slice_comparisons(config, records, scored, min_rows, evaluation)
        bless(blessing, evaluation, comparison, slices, rates)
        return scored[1]

    def _run_tfma(
        self,
        input_dict: dict[str, list[tfx.dsl.Artifact]],
        output_dict: dict[str, list[tfx.dsl.Artifact]],
        exec_properties: dict[str, Any],
        config: config_pb2.EvalConfig,
        version: str | None,
    ) -> tuple[tfx.dsl.Artifact, tfx.dsl.Artifact]:
        """TFX's Evaluator at the run-time AUC bound; the evaluation and the blessing.

        ``version`` is the serving model's ("": nothing serves, the baseline is dropped;
        None: a Resolver's baseline, named by its URI). The evaluation records the splits
        it was computed on; a lone candidate is named as beside a baseline.
        """
        exec_properties = _at_run_time_bound(exec_properties, config)
        input_dict = dict(input_dict)
        baseline = input_dict.get(standard_component_specs.BASELINE_MODEL_KEY) or []
        if version == "":  # nothing serves: judge on the absolute bound alone
            input_dict.pop(standard_component_specs.BASELINE_MODEL_KEY, None)
        super().Do(input_dict, output_dict, exec_properties)
        evaluation, blessing = (
            artifact_utils.get_single_instance(output_dict[key])
            for key in (
                standard_component_specs.EVALUATION_KEY,
                standard_component_specs.BLESSING_KEY,
            )
        )
        splits = json_utils.loads(exec_properties[standard_component_specs.EXAMPLE_SPLITS_KEY])
        evaluation.set_string_custom_property(EVALUATED_SPLITS, ",".join(splits))
        blessing.set_string_custom_property(
            BASELINE_VERSION, version if version is not None else baseline[0].uri
        )
        if not input_dict.get(standard_component_specs.BASELINE_MODEL_KEY):
            name_the_candidate(evaluation.uri)
        return evaluation, blessing


class GatedEvaluatorSpec(
    extended(
        standard_component_specs.EvaluatorSpec,
        parameters={
            MIN_AUC_KEY: component_spec.ExecutionParameter(type=float),
            SLICE_MIN_ROWS_KEY: component_spec.ExecutionParameter(type=int, optional=True),
            MAX_RATE_RISE_KEY: component_spec.ExecutionParameter(type=float, optional=True),
        },
    )
):
    """Evaluator's spec, plus the AUC bound and the slice bound's smallest slice."""


class GatedEvaluator(base_component.BaseComponent):
    """Evaluates ``model`` on ``examples`` with ``GatedEvaluatorExecutor``."""

    SPEC_CLASS = GatedEvaluatorSpec
    EXECUTOR_SPEC = executor_spec.BeamExecutorSpec(GatedEvaluatorExecutor)

    def __init__(
        self,
        examples: tfx.types.BaseChannel,
        model: tfx.types.BaseChannel,
        baseline_model: tfx.types.BaseChannel,
        eval_config: config_pb2.EvalConfig,
        min_auc: float | tfx.dsl.experimental.RuntimeParameter,
        example_splits: list[str],
        slice_min_rows: int = SLICE_MIN_ROWS,
        max_error_rate_rise: float | None = None,
    ) -> None:
        """Gate ``model`` by ``eval_config`` on ``example_splits``, its AUC at least ``min_auc``.

        ``slice_min_rows`` is the dataset's: the slice bound judges no smaller slice;
        ``max_error_rate_rise`` its error-rate bound (None: rates not gated).
        """
        super().__init__(
            spec=GatedEvaluatorSpec(
                examples=examples,
                model=model,
                baseline_model=baseline_model,
                eval_config=eval_config,
                min_auc=min_auc,
                slice_min_rows=slice_min_rows,
                max_error_rate_rise=max_error_rate_rise,
                example_splits=json_utils.dumps(example_splits),
                fairness_indicator_thresholds=json_utils.dumps(None),
                evaluation=tfx.dsl.Channel(type=tfx.types.standard_artifacts.ModelEvaluation),
                blessing=tfx.dsl.Channel(type=tfx.types.standard_artifacts.ModelBlessing),
            )
        )

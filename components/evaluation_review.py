"""An evaluation, read back for people: metrics by slice, the verdict, the curves.

Everything here comes from the Evaluator's output directory (TFMA's metrics, plots,
validation result and the eval config it actually used) plus the blessing and
push records, so the report component and the review command show the same thing.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import tensorflow_model_analysis as tfma
from tensorflow_model_analysis.writers import eval_config_writer

from components import paired_comparison
from components.paired_comparison import GATED_METRIC, Comparison
from components.properties import Outcome, PushRecord
from components.splits import TEST

OVERALL = "Overall"
CANDIDATE, BASELINE = "candidate", "baseline"


# Reviews leave out smaller slices: their metrics are noise. (TFMA's own
# min_slice_size option is not used: it makes the validator report the dropped
# slices' metrics as missing, and the model is then not blessed.)
MIN_SLICE_SIZE = 20


@dataclass(frozen=True)
class SliceMetrics:
    """The candidate's metrics on one slice (``column`` is None for the whole split)."""

    column: str | None
    value: str | None
    metrics: dict[str, float]

    @property
    def name(self) -> str:
        """``Overall`` or ``column=value``."""
        return OVERALL if self.column is None else f"{self.column}={self.value}"


@dataclass(frozen=True)
class Check:
    """One threshold of the validation: what was compared, with what, and the outcome."""

    metric: str
    kind: str  # "absolute" (candidate against a bound) or "change" (against the baseline)
    candidate: float | None
    baseline: float | None
    bound: str
    passed: bool


@dataclass(frozen=True)
class Curves:
    """Overall-slice curves: ROC (fpr, tpr), precision-recall, and calibration buckets."""

    roc: list[tuple[float, float]]
    pr: list[tuple[float, float]]
    calibration: list[tuple[float, float, float]]  # mean prediction, mean label, weight


@dataclass(frozen=True)
class Tuning:
    """What a Tuner chose for the candidate, as ML-Metadata records it."""

    values: dict[str, Any]  # the chosen values, by hyperparameter
    defaults: dict[str, Any]  # modules/hparams.py's defaults for the same names
    trials: int | None
    best_validation_auc: float | None
    seconds: float | None

    def lines(self) -> list[str]:
        """The search and each chosen value beside its default, for people."""
        found = []
        if self.trials is not None:
            found.append(f"{self.trials} trial(s)")
        if self.seconds is not None:
            found.append(f"{self.seconds:.0f} s")
        if self.best_validation_auc is not None:
            found.append(f"best validation AUC {self.best_validation_auc:.4f}")
        head = "Tuned hyperparameters" + (f" ({', '.join(found)})" if found else "")
        return [f"{head}:"] + [
            f"{name} = {value!r} (default {self.defaults.get(name)!r})"
            for name, value in sorted(self.values.items())
        ]


@dataclass(frozen=True)
class Review:
    """Everything the terminal review and the HTML report show."""

    evaluation_uri: str
    model_uri: str
    baseline_uri: str | None
    blessed: bool
    checks: list[Check]
    slices: list[SliceMetrics]  # those of at least MIN_SLICE_SIZE examples
    curves: Curves | None
    push: PushRecord | None
    run_id: str | None = None
    notes: list[str] = field(default_factory=list)
    # The examples split evaluated (recorded by the Evaluator on its evaluation).
    split: str = TEST
    tuning: Tuning | None = None

    @property
    def overall(self) -> dict[str, float]:
        """The candidate's metrics on the whole evaluated split."""
        return _overall(self.slices)


@dataclass(frozen=True)
class Column:
    """A column of the metrics-by-slice table: the metric and its headings."""

    metric: str  # as TFMA stores it
    heading: str  # in the HTML report
    short: str = ""  # in the terminal review; empty: left out there, for width


SLICE_COLUMNS: tuple[Column, ...] = (
    Column("example_count", "examples", "examples"),
    Column("auc", "AUC", "AUC"),
    Column("auc_pr", "AUC-PR", "AUC-PR"),
    Column("binary_accuracy", "accuracy", "accuracy"),
    Column("precision", "precision"),
    Column("recall", "recall"),
    Column("mean_label", "mean label", "label"),
    Column("mean_prediction", "mean prediction", "predicted"),
    Column("calibration", "calibration"),
)


def _overall(slices: Iterable[SliceMetrics]) -> dict[str, float]:
    return next((s.metrics for s in slices if s.column is None), {})


def overall_metrics(evaluation_uri: str) -> dict[str, float]:
    """The candidate's metrics on the whole split the Evaluator at ``evaluation_uri`` scored."""
    return _overall(_slices(evaluation_uri)[0])


def candidate_and_baseline(evaluation_uri: str) -> tuple[dict[str, float], dict[str, float]]:
    """The candidate's and the serving model's overall metrics on the same rows ({}: none)."""
    slices, baseline = _slices(evaluation_uri)
    return _overall(slices), baseline


def metric_text(value: float | None, name: str = "", missing: str = "-") -> str:
    """A metric for people: 4 decimals, a count whole; ``missing`` when absent or NaN."""
    if value is None or math.isnan(value):
        return missing
    return f"{int(value)}" if name == "example_count" else f"{value:.4f}"


def _slice_value(key: tfma.proto.metrics_for_slice_pb2.SingleSliceKey) -> str:
    kind = key.WhichOneof("kind")
    value = getattr(key, kind)
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _is_model(model_name: str, wanted: str) -> bool:
    # Without a baseline TFMA names the single model "" rather than "candidate".
    return model_name == wanted or (wanted == CANDIDATE and model_name == "")


def _slices(uri: str) -> tuple[list[SliceMetrics], dict[str, float]]:
    """The candidate's metrics per slice, and the baseline's on the overall slice."""
    slices, baseline = [], {}
    for per_slice in tfma.load_metrics(uri):
        keys = per_slice.slice_key.single_slice_keys
        if len(keys) > 1:
            continue
        metrics = {}
        for kv in per_slice.metric_keys_and_values:
            if kv.key.is_diff or not kv.value.HasField("double_value"):
                continue
            value = kv.value.double_value.value
            if _is_model(kv.key.model_name, CANDIDATE):
                metrics[kv.key.name] = value
            elif kv.key.model_name == BASELINE and not keys:
                baseline[kv.key.name] = value
        if keys and metrics.get("example_count", 0) < MIN_SLICE_SIZE:
            continue
        column, value = (keys[0].column, _slice_value(keys[0])) if keys else (None, None)
        slices.append(SliceMetrics(column, value, metrics))
    slices.sort(key=_slice_order)
    return slices, baseline


def _slice_order(s: SliceMetrics) -> tuple[bool, str, float, str]:
    """Overall first; then by column: numbers (hours, areas) in order, text by size."""
    try:
        rank = float(s.value or "")
    except ValueError:
        rank = -s.metrics.get("example_count", 0.0)
    return (s.column is not None, s.column or "", rank, s.value or "")


def _failures(uri: str) -> tuple[set[tuple[str, bool]], list[Check]]:
    """The failed overall thresholds, and a Check for every other failure TFMA reported.

    The first is a set of (metric name, is a change check); the others are failures
    on other slices or missing metrics, which also withhold the blessing.
    """
    result = tfma.load_validation_result(uri)
    overall, others = set(), []
    for per_slice in result.metric_validations_per_slice:
        keys = per_slice.slice_key.single_slice_keys
        for failure in per_slice.failures:
            key = failure.metric_key
            if not keys:
                overall.add((key.name, key.is_diff))
                continue
            where = ", ".join(f"{k.column}={_slice_value(k)}" for k in keys)
            value = (
                failure.metric_value.double_value.value
                if failure.HasField("metric_value")
                else None
            )
            others.append(
                Check(
                    f"{key.name} [{where}]",
                    "change" if key.is_diff else "absolute",
                    value,
                    None,
                    failure.message,
                    passed=False,
                )
            )
    return overall, others


def _thresholds(config: tfma.EvalConfig) -> Iterable[tuple[str, tfma.MetricThreshold]]:
    for spec in config.metrics_specs:
        for metric in spec.metrics:
            name = _metric_name(metric)
            for per_slice in metric.per_slice_thresholds:
                if any(
                    not s.feature_keys and not s.feature_values for s in per_slice.slicing_specs
                ):
                    yield name, per_slice.threshold
            if metric.HasField("threshold"):
                yield name, metric.threshold


def _metric_name(metric: tfma.MetricConfig) -> str:
    return json.loads(metric.config or "{}").get("name", metric.class_name)


def _checks(
    config: tfma.EvalConfig,
    candidate: dict[str, float],
    baseline: dict[str, float],
    failed: set[tuple[str, bool]],
) -> list[Check]:
    checks = []
    for name, threshold in _thresholds(config):
        value = threshold.value_threshold
        if value.HasField("lower_bound") or value.HasField("upper_bound"):
            parts = []
            if value.HasField("lower_bound"):
                parts.append(f">= {value.lower_bound.value:.4f}")
            if value.HasField("upper_bound"):
                parts.append(f"<= {value.upper_bound.value:.4f}")
            checks.append(
                Check(
                    name,
                    "absolute",
                    candidate.get(name),
                    None,
                    " and ".join(parts),
                    (name, False) not in failed,
                )
            )
        change = threshold.change_threshold
        if change.HasField("absolute") or change.HasField("relative"):
            higher = change.direction == tfma.MetricDirection.HIGHER_IS_BETTER
            if change.HasField("absolute"):
                bound = (
                    f"candidate - baseline {'>=' if higher else '<='} {change.absolute.value:+.4f}"
                )
            else:
                bound = f"relative change {'>=' if higher else '<='} {change.relative.value:+.2%}"
            checks.append(
                Check(
                    name,
                    "change",
                    candidate.get(name),
                    baseline.get(name),
                    bound,
                    (name, True) not in failed,
                )
            )
    return checks


def _beyond_noise(checks: list[Check], comparison: Comparison | None) -> list[Check]:
    """The AUC change check as the gate judged it: on the paired comparison's interval."""
    if comparison is None:
        return checks
    bound = (
        f"candidate - baseline >= {-comparison.tolerance:+.4f} unless the 95% interval "
        f"({comparison.low:+.4f} to {comparison.high:+.4f}, paired bootstrap on "
        f"{comparison.rows:,} rows) lies below it"
    )
    return [
        replace(c, bound=bound, passed=not comparison.worse)
        if (c.metric, c.kind) == (GATED_METRIC, "change")
        else c
        for c in checks
    ]


def _curves(uri: str) -> Curves | None:
    for per_slice in tfma.load_plots(uri):
        if per_slice.slice_key.single_slice_keys:
            continue
        roc, pr, calibration = [], [], []
        for kv in per_slice.plot_keys_and_values:
            if not _is_model(kv.key.model_name, CANDIDATE):
                continue
            for m in kv.value.confusion_matrix_at_thresholds.matrices:
                roc.append((m.false_positive_rate, m.recall))
                pr.append((m.recall, m.precision))
            for b in kv.value.calibration_histogram_buckets.buckets:
                weight = b.num_weighted_examples.value
                if weight > 0:
                    calibration.append(
                        (
                            b.total_weighted_refined_prediction.value / weight,
                            b.total_weighted_label.value / weight,
                            weight,
                        )
                    )
        return Curves(sorted(roc), sorted(pr), calibration)
    return None


def load_review(
    evaluation_uri: str,
    outcome: Outcome,
    run_id: str | None = None,
    split: str = TEST,
) -> Review:
    """Read the Evaluator's output at ``evaluation_uri``, computed on ``split``, into a Review."""
    config, _, _, model_locations = eval_config_writer.load_eval_run(evaluation_uri)
    baseline_spec = next((s for s in config.model_specs if s.is_baseline), None)
    slices, baseline_metrics = _slices(evaluation_uri)
    overall = _overall(slices)
    failed, other_failures = _failures(evaluation_uri)
    checks = _checks(config, overall, baseline_metrics, failed) + other_failures
    checks = _beyond_noise(checks, paired_comparison.read(evaluation_uri))
    candidate_name = next((s.name for s in config.model_specs if not s.is_baseline), "")
    notes = []
    if baseline_spec is None:
        notes.append(
            "No baseline: no model had been blessed before, so only the absolute bounds apply."
        )
    return Review(
        evaluation_uri=evaluation_uri,
        model_uri=model_locations.get(candidate_name, ""),
        baseline_uri=model_locations.get(baseline_spec.name) if baseline_spec else None,
        blessed=outcome.blessed,
        checks=checks,
        slices=slices,
        curves=_curves(evaluation_uri),
        push=outcome.push,
        run_id=run_id,
        notes=notes,
        split=split,
    )

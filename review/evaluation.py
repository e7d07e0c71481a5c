"""An evaluation, read back for people: metrics by slice, the verdict, the curves.

Everything here comes from the Evaluator's output directory (TFMA's metrics, plots,
validation result and the eval config it actually used) plus the blessing and
push records, so the report component and the review command show the same thing.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import tensorflow_model_analysis as tfma
from tensorflow_model_analysis.proto import config_pb2
from tensorflow_model_analysis.writers import eval_config_writer

from data_layout.properties import Outcome, PushRecord
from data_layout.splits import TEST
from review import paired_comparison
from review.calibration import BRIER_SCORE, Calibration, calibration_of
from review.curves import Curves, key_value, load_curves, slice_name
from review.error_rates import SliceRates, load_rates, read_held
from review.paired_comparison import (
    GATED_METRIC,
    OVERALL,
    Comparison,
    Estimate,
    SliceComparison,
    interval_text,
    slice_label,
    slice_order,
)

CANDIDATE, BASELINE = "candidate", "baseline"


# Reviews leave out smaller slices: their metrics are noise. (TFMA's own
# min_slice_size option is not used: it makes the validator report the dropped
# slices' metrics as missing, and the model is then not blessed.)
MIN_SLICE_SIZE = 20


# Metrics a slice of one class cannot have: TFMA writes 0.0 for them.
NEEDS_BOTH_CLASSES = frozenset({"auc", "auc_pr"})
NEEDS_POSITIVES = frozenset({"recall"})


def undefined_reason(rows: int, positives: int) -> str | None:
    """Why a slice of ``rows`` with ``positives`` has no AUC (None: it has both classes)."""
    return paired_comparison.class_shortfall(rows, positives)


def named_span(span: int, window: Sequence[object]) -> int | None:
    """The span a review names: none for a flat data root (span 0 and no window)."""
    return span if window else None


@dataclass(frozen=True)
class SliceMetrics:
    """The candidate's metrics on one slice (``column`` is None for the whole split).

    ``baseline`` holds the serving model's metrics on the same slice, as TFMA computed
    them ({} when no model served).
    """

    column: str | None
    value: str | None
    metrics: dict[str, float]
    baseline: dict[str, float] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """``Overall`` or ``column=value``."""
        return slice_label(self.column, self.value)

    @property
    def rows(self) -> int:
        """The slice's examples."""
        return int(self.metrics.get("example_count", 0))

    @property
    def positives(self) -> int:
        """Its positive examples: TFMA's mean label times its examples."""
        return round(self.metrics.get("mean_label", 0.0) * self.rows)

    @property
    def undefined(self) -> str | None:
        """Why the slice's AUC is undefined (one class only); None when it is defined."""
        return undefined_reason(self.rows, self.positives)

    def text(self, metric: str) -> str:
        """One metric for people: ``undefined`` where the slice's classes leave none."""
        reason = self.undefined
        if reason and (
            metric in NEEDS_BOTH_CLASSES or (metric in NEEDS_POSITIVES and self.positives == 0)
        ):
            return "undefined"
        return metric_text(self.metrics.get(metric), metric)


@dataclass(frozen=True)
class SliceChange:
    """One slice, candidate against the serving model on its rows (a row of the slice table).

    The interval is the paired bootstrap's (None: no serving model, or too few of a
    class for one); ``undefined`` says why the AUCs or the interval are missing.
    """

    column: str | None
    value: str | None
    rows: int
    positives: int
    candidate_auc: float | None
    serving_auc: float | None
    low: float | None = None
    high: float | None = None
    undefined: str | None = None
    beyond_bound: bool = False  # the verdict names the slice: it failed the slice bound

    @property
    def name(self) -> str:
        """``Overall`` or ``column=value``."""
        return slice_label(self.column, self.value)

    @property
    def change(self) -> float | None:
        """Candidate AUC minus the serving model's (None: either is missing)."""
        if self.candidate_auc is None or self.serving_auc is None:
            return None
        return round(self.candidate_auc - self.serving_auc, 4)

    @property
    def significantly_worse(self) -> bool:
        """Whether the 95% interval of the change lies wholly below 0."""
        return self.high is not None and self.high < 0

    @property
    def few(self) -> bool:
        """Whether the slice has too few of a class for an honest interval: flagged, not ranked."""
        return self.low is None and self.rows > 0 and self._short() is not None

    def _short(self) -> tuple[int, str] | None:
        """The class the slice has too few of for an interval (``short_class``)."""
        return paired_comparison.short_class(
            self.rows, self.positives, paired_comparison.MIN_CLASS_ROWS
        )

    @property
    def ranked(self) -> bool:
        """Whether its change may rank it among the worst slices.

        A change with an interval (or from a run before intervals were recorded) ranks;
        the change on a few rows of a class is noise.
        """
        return self.change is not None and not self.few and not self.undefined

    @property
    def mark(self) -> str:
        """``FAIL`` (beyond the slice bound), ``worse`` (significantly), ``few`` (of a class)."""
        if self.beyond_bound:
            return "FAIL"
        if self.significantly_worse:
            return "worse"
        return "few" if self.few else ""

    def _no_interval(self) -> str:
        """Why the interval cell is empty, in a few words: "1 positive", "no negative"."""
        found = self._short()
        if found is None:
            return self.undefined or ""
        count, kind = found
        return f"no {kind}" if count == 0 else f"{count} {kind}{'s' if count > 1 else ''}"

    @property
    def not_recorded(self) -> bool:
        """Whether TFMA's point figures stand alone: a run from before the gate compared slices."""
        return self.change is not None and self.low is None and not self.undefined and not self.few

    def cells(self, missing: str = "-", between: str = " to ") -> list[str]:
        """The row for people: name, examples, positives, both AUCs, change, interval, mark.

        ``missing`` stands for an absent figure, ``between`` joins the interval's ends
        (``interval_text``). Without an interval the cell says why: the slice's classes,
        or "not recorded" (``not_recorded``).
        """
        if self.low is not None and self.high is not None and self.serving_auc is None:
            interval = f"{self.low:.4f}{between}{self.high:.4f}"  # the candidate's AUC alone
        elif self.low is not None and self.high is not None:
            interval = interval_text(self.low, self.high, between)
        elif self.undefined or self.few:
            interval = f"none: {self._no_interval()}"
        else:
            interval = "not recorded" if self.not_recorded else missing
        candidate = metric_text(
            self.candidate_auc, missing="undefined" if self.undefined else missing
        )
        return [
            self.name,
            f"{self.rows:,}",
            f"{self.positives:,}",
            candidate,
            metric_text(self.serving_auc, missing=missing),
            missing if self.change is None else f"{self.change:+.4f}",
            interval,
            self.mark,
        ]


@dataclass(frozen=True)
class LeftOut:
    """The slices too small to show: their metrics are noise."""

    names: list[str]

    def line(self, shown: int = 8) -> str:
        """E.g. "17 slices under 20 rows left out: company=..., ..." ("" when none)."""
        if not self.names:
            return ""
        listed = ", ".join(self.names[:shown])
        more = f" and {len(self.names) - shown} more" if len(self.names) > shown else ""
        count = f"{len(self.names)} slice{'s' if len(self.names) != 1 else ''}"
        return f"{count} under {MIN_SLICE_SIZE} rows left out: {listed}{more}"


@dataclass(frozen=True)
class HistoryPoint:
    """One earlier (or this) run of the pipeline, as the review's history shows it."""

    run_id: str
    span: int | None
    candidate_auc: float | None
    serving_auc: float | None
    interval: tuple[float, float] | None  # of candidate - serving AUC
    blessed: bool
    pushed_version: str | None  # None: nothing new pushed (not blessed, or already serving)

    def cells(self, missing: str = "-", between: str = " to ") -> list[str]:
        """The run for people: run, span, both AUCs, the change's interval, blessed, pushed.

        ``missing`` stands for an absent figure, ``between`` joins the interval's ends.
        """
        return [
            self.run_id,
            missing if self.span is None else str(self.span),
            metric_text(self.candidate_auc, missing=missing),
            metric_text(self.serving_auc, missing=missing),
            interval_text(*self.interval, between, digits=3) if self.interval else missing,
            "yes" if self.blessed else "no",
            self.pushed_version or missing,
        ]


@dataclass(frozen=True)
class Drift:
    """One distance the ExampleValidator measured: what against what, on which feature."""

    against: str  # e.g. "test vs train", "span vs previous span"
    feature: str
    measure: str  # TFDV's: L_INFTY (categorical), JENSEN_SHANNON_DIVERGENCE (numeric)
    distance: float
    threshold: float
    drifted: bool

    def cells(self) -> list[str]:
        """The row for people: against, feature, measure, distance, threshold, mark."""
        return [
            self.against,
            self.feature,
            self.measure,
            f"{self.distance:.3f}",
            f"{self.threshold:.3f}",
            "DRIFT" if self.drifted else "",
        ]


DRIFT_HEADINGS = ("compared", "feature", "measure", "distance", "threshold", "")


@dataclass(frozen=True)
class Check:
    """One threshold of the validation: what was compared, with what, and the outcome."""

    metric: str
    kind: str  # "absolute" (candidate against a bound) or "change" (against the baseline)
    candidate: float | None
    baseline: float | None
    bound: str
    passed: bool
    # Why a failure TFMA reported does not stand (the gate set it aside), "" otherwise:
    # "within noise", "too small to gate" or "undefined: <reason>"; for a check that
    # could judge nothing, "not judged (<reason>)".
    relaxed: str = ""
    # A slice's check: the slice ("column=value"), its rows and the paired interval.
    slice: str | None = None
    rows: int | None = None
    interval: tuple[float, float] | None = None

    def slice_cells(self, between: str = "..", missing: str = "-") -> list[str]:
        """A slice's check for people: slice, rows, change, 95% interval, result."""
        return [
            self.slice or OVERALL,
            missing if self.rows is None else f"{self.rows:,}",
            _signed(self.candidate, missing),
            interval_text(*self.interval, between) if self.interval else missing,
            self.result,
        ]

    @property
    def result(self) -> str:
        """``FAIL``, ``pass``, or ``pass: <why the gate set TFMA's failure aside>``."""
        if not self.passed:
            return "FAIL"
        return f"pass: {self.relaxed}" if self.relaxed else "pass"


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
    # Slice name -> model (CANDIDATE, BASELINE) -> its curves; the overall slice at least.
    curves_by_slice: dict[str, dict[str, Curves]]
    push: PushRecord | None
    run_id: str | None = None
    notes: list[str] = field(default_factory=list)
    # The examples split evaluated (recorded by the Evaluator on its evaluation).
    split: str = TEST
    tuning: Tuning | None = None
    # Overall first, then every slice of at least MIN_SLICE_SIZE rows, worst change first.
    changes: list[SliceChange] = field(default_factory=list)
    left_out: LeftOut = field(default_factory=lambda: LeftOut([]))
    pipeline: str | None = None
    span: int | None = None
    candidate_version: str | None = None  # the version it was pushed as, else its model's
    serving_version: str | None = None  # None: nothing served
    history: list[HistoryPoint] = field(default_factory=list)  # oldest first
    # Each slice's error rates at the dataset's decision thresholds, both models.
    rates: list[SliceRates] = field(default_factory=list)
    # The whole split's calibration, by model (CANDIDATE, BASELINE where one served).
    calibration: dict[str, Calibration] = field(default_factory=dict)
    # What differs from the serving model's run: (what, serving's, candidate's), e.g.
    # ("hyperparameter dropout", "0.2", "0.25"), read from ML-Metadata by the review
    # command; [] when nothing does; None when the runs were not compared (the pipeline's
    # own page, or the serving model's run not found).
    differences: list[tuple[str, str, str]] | None = None
    # Every distance the validator measured for the run (read by the review command).
    drift: list[Drift] = field(default_factory=list)
    # The column the splits were keyed by (the dataset's entity); None: row by row.
    split_key: str | None = None
    # The test split's period (``year = 1987``: its newest value); None: hashed.
    test_period: str | None = None
    # The serving check's record (data_layout.properties.serving_check_of); None: none ran.
    serving_check: dict[str, Any] | None = None

    @property
    def overall(self) -> dict[str, float]:
        """The candidate's metrics on the whole evaluated split."""
        return _overall(self.slices)

    @property
    def title(self) -> str:
        """What the review is of, in a line: pipeline, run, span, the models compared."""
        # The pipeline step that writes the page knows neither pipeline nor run: left out.
        parts = [self.pipeline or "", f"run {self.run_id}" if self.run_id else ""]
        if self.span is not None:
            parts.append(f"span {self.span}")
        models = f"candidate {self.candidate_version or '?'}"
        models += f" vs serving {self.serving_version}" if self.serving_version else ""
        return f"Evaluation review: {', '.join([*filter(None, parts), models])}"


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
    slices, _ = _slices(evaluation_uri)
    overall = next((s for s in slices if s.column is None), None)
    return (overall.metrics, overall.baseline) if overall else ({}, {})


def metric_text(value: float | None, name: str = "", missing: str = "-") -> str:
    """A metric for people: 4 decimals, a count whole; ``missing`` when absent or NaN."""
    if value is None or math.isnan(value):
        return missing
    return f"{int(value)}" if name == "example_count" else f"{value:.4f}"


def _is_model(model_name: str, wanted: str) -> bool:
    # Without a baseline TFMA names the single model "" rather than "candidate".
    return model_name == wanted or (wanted == CANDIDATE and model_name == "")


def model_of(model_name: str) -> str | None:
    """CANDIDATE or BASELINE for TFMA's model name; None for any other model."""
    return next((m for m in (CANDIDATE, BASELINE) if _is_model(model_name, m)), None)


def _slices(uri: str) -> tuple[list[SliceMetrics], list[SliceMetrics]]:
    """Both models' metrics per slice: those of at least MIN_SLICE_SIZE, and the smaller."""
    slices, small = [], []
    for per_slice in tfma.load_metrics(uri):
        keys = per_slice.slice_key.single_slice_keys
        if len(keys) > 1:
            continue
        by_model: dict[str, dict[str, float]] = {CANDIDATE: {}, BASELINE: {}}
        for kv in per_slice.metric_keys_and_values:
            model = model_of(kv.key.model_name)
            if kv.key.is_diff or model is None or not kv.value.HasField("double_value"):
                continue
            by_model[model][kv.key.name] = kv.value.double_value.value
        column, value = (keys[0].column, key_value(keys[0])) if keys else (None, None)
        found = SliceMetrics(column, value, by_model[CANDIDATE], by_model[BASELINE])
        (small if keys and found.rows < MIN_SLICE_SIZE else slices).append(found)
    slices.sort(key=_slice_order)
    small.sort(key=_slice_order)
    return slices, small


def _slice_order(s: SliceMetrics) -> tuple:
    """Overall first; then by column: numbers (hours, areas) in order, text by size."""
    return slice_order(s.column, s.value, s.rows)


def _failures(uri: str) -> tuple[set[tuple[str, bool]], list[Check]]:
    """The failed overall thresholds, and a Check for every other failure TFMA reported.

    The first is a set of (metric name, is a change check); the others are failures
    on other slices or missing metrics, which also withhold the blessing, except a
    slice's AUC change failure the gate set aside (``_slice_bound_check``).
    """
    result = tfma.load_validation_result(uri)
    judged = {s.name: s for s in paired_comparison.read_slices(uri)}
    overall, others = set(), []
    for per_slice in result.metric_validations_per_slice:
        keys = per_slice.slice_key.single_slice_keys
        for failure in per_slice.failures:
            key = failure.metric_key
            if not keys:
                overall.add((key.name, key.is_diff))
                continue
            where = slice_name(keys)
            value = (
                failure.metric_value.double_value.value
                if failure.HasField("metric_value")
                else None
            )
            check = Check(
                key.name,
                "change" if key.is_diff else "absolute",
                value,
                None,
                failure.message,
                passed=False,
                slice=where,
            )
            gated_bound = key.is_diff and key.name == GATED_METRIC and len(keys) == 1
            others.append(_slice_bound_check(check, judged.get(where)) if gated_bound else check)
    return overall, others


def _slice_bound_check(check: Check, paired: SliceComparison | None) -> Check:
    """A slice's AUC change failure as the gate judged it on the slice's paired comparison.

    Held: the failure stands. Otherwise the gate set it aside: a gated slice within its
    noise (its interval not wholly below the bound), a slice too small to gate, or one
    without an interval (its reason). No comparison recorded: TFMA's failure stands.
    """
    if paired is None:
        return check
    c = paired.comparison
    check = replace(check, rows=paired.rows, interval=(c.low, c.high) if c is not None else None)
    if paired.held:
        return check
    if not paired.gated:
        return replace(check, passed=True, relaxed="too small to gate")
    if c is None:
        reason = paired.undefined or "no paired comparison"
        return replace(check, passed=True, relaxed=f"no interval: {reason}")
    return replace(check, passed=True, relaxed="within noise")


def _signed(value: float | None, missing: str) -> str:
    """A change for people: "+0.0012"; "undefined" for NaN (a slice of one class)."""
    if value is None:
        return missing
    return "undefined" if math.isnan(value) else f"{value:+.4f}"


def judged_on_noise(check: Check) -> bool:
    """Whether a slice's check was decided on its interval: held, or within its noise."""
    return not check.passed or check.relaxed == "within noise"


def slice_checks(checks: Sequence[Check]) -> list[Check]:
    """The checks on slices: failures, then those within noise, then the rest.

    The largest drop first in each group.
    """
    found = [c for c in checks if c.slice is not None]
    return sorted(
        found,
        key=lambda c: (
            c.passed,
            not judged_on_noise(c),
            c.candidate if c.candidate is not None and not math.isnan(c.candidate) else 0.0,
        ),
    )


def _thresholds(config: config_pb2.EvalConfig) -> Iterable[tuple[str, config_pb2.MetricThreshold]]:
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


def _metric_name(metric: config_pb2.MetricConfig) -> str:
    return json.loads(metric.config or "{}").get("name", metric.class_name)


def _checks(
    config: config_pb2.EvalConfig,
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
            higher = change.direction == config_pb2.MetricDirection.HIGHER_IS_BETTER
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


def _rate_check(evaluation_uri: str) -> list[Check]:
    """The error-rate bound's check, where the dataset declared one ([] otherwise)."""
    found = read_held(evaluation_uri)
    if found is None:
        return []
    bound = f"FPR, FNR at most {found.bound:+.3f} above serving's beyond noise"
    if found.held:
        bound += ": " + "; ".join(found.held)
    # A bound that could judge nothing holds nothing back, and says so in its result.
    judged = f"not judged ({found.not_judged})" if found.not_judged else ""
    return [Check("error rates", "rise", None, None, bound, not found.held, relaxed=judged)]


def _beyond_noise(checks: list[Check], comparison: Comparison | None) -> list[Check]:
    """The AUC change check as the gate judged it: on the paired comparison's interval."""
    if comparison is None:
        return checks
    interval = interval_text(comparison.low, comparison.high)
    bound = f"change >= {-comparison.tolerance:+.4f} unless its 95% interval {interval} is below"
    return [
        replace(c, bound=bound, passed=not comparison.worse)
        if (c.metric, c.kind, c.slice) == (GATED_METRIC, "change", None)
        else c
        for c in checks
    ]


def _failing_slices(checks: list[Check]) -> set[str]:
    """The slices the verdict names as failing a bound on the gated metric."""
    return {c.slice for c in checks if not c.passed and c.slice and c.metric == GATED_METRIC}


def _change_of(
    found: SliceMetrics | None, paired: SliceComparison | None, failing: set[str]
) -> SliceChange:
    """A slice's row: the paired comparison where there is one, else TFMA's figures."""
    column = paired.column if paired else found.column
    value = paired.value if paired else found.value
    rows = paired.rows if paired else found.rows
    positives = paired.positives if paired else found.positives
    undefined = undefined_reason(rows, positives)
    candidate = serving = low = high = None
    if paired is not None and paired.comparison is not None:
        c = paired.comparison
        candidate, serving, low, high = c.candidate_auc, c.baseline_auc, c.low, c.high
    elif undefined is None:
        if found is not None:
            candidate = found.metrics.get(GATED_METRIC)
            serving = found.baseline.get(GATED_METRIC)
        if paired is not None:  # both classes, too few of one for an honest interval
            undefined = f"no interval: {paired.undefined or 'too few of a class'}"
    held = paired is not None and paired.held
    return SliceChange(
        column,
        value,
        rows,
        positives,
        candidate,
        serving,
        low,
        high,
        undefined,
        slice_label(column, value) in failing or held,
    )


def _overall_change(
    whole: SliceMetrics | None, overall: Comparison | None, failing: set[str]
) -> SliceChange:
    """The whole split's row: the gate's paired comparison where it made one."""
    if overall is None:
        return (
            _change_of(whole, None, failing) if whole else SliceChange(None, None, 0, 0, None, None)
        )
    positives = whole.positives if whole else 0
    return SliceChange(
        None,
        None,
        overall.rows,
        positives,
        overall.candidate_auc,
        overall.baseline_auc,
        overall.low,
        overall.high,
        None,
        OVERALL in failing,
    )


def _worst_first(c: SliceChange) -> tuple:
    """Largest drop first among the ranked, then lowest AUC first where nothing served.

    The flagged (too few of a class) come last, in slice order: a slice's change on
    one positive is noise, not a regression.
    """
    if c.ranked:
        return (0, c.change, c.name)
    if c.candidate_auc is not None and not c.few:  # nothing served: lowest AUC first
        return (1, c.candidate_auc, c.name)
    return (2, slice_order(c.column, c.value, c.rows), c.name)


def _alone(change: SliceChange, found: Estimate | None) -> SliceChange:
    """``change`` with the candidate's own AUC interval, where nothing served to pair with."""
    if found is None or found.auc is None or change.serving_auc is not None:
        return change
    return replace(change, candidate_auc=found.auc, low=found.low, high=found.high)


def slice_changes(
    slices: list[SliceMetrics],
    paired: list[SliceComparison],
    overall: Comparison | None,
    failing: set[str],
    alone: Sequence[Estimate] = (),
) -> list[SliceChange]:
    """Overall first, then each slice of at least MIN_SLICE_SIZE rows, worst change first.

    ``slices`` are TFMA's (candidate, and the serving model's where one served);
    ``paired`` the gate's paired comparisons per slice ([]: none recorded, then
    TFMA's point figures stand, without an interval); ``alone`` the candidate's own
    intervals where nothing served.
    """
    by_name = {s.name: s for s in slices}
    estimates = {e.name: e for e in alone}
    head = [_overall_change(by_name.get(OVERALL), overall, failing)]
    rows = [_change_of(by_name.get(p.name), p, failing) for p in paired if p.rows >= MIN_SLICE_SIZE]
    seen = {r.name for r in rows}
    rows += [
        _change_of(s, None, failing) for s in slices if s.column is not None and s.name not in seen
    ]
    head, rows = ([_alone(c, estimates.get(c.name)) for c in group] for group in (head, rows))
    return head + sorted(rows, key=_worst_first)


def _left_out(small: list[SliceMetrics], paired: list[SliceComparison]) -> LeftOut:
    names = [s.name for s in small]
    # A held slice the gate could not match to its rows (rows 0) is shown as FAIL, not here.
    names += [
        p.name for p in paired if p.rows < MIN_SLICE_SIZE and not p.held and p.name not in names
    ]
    return LeftOut(names)


def load_review(
    evaluation_uri: str,
    outcome: Outcome,
    run_id: str | None = None,
    split: str = TEST,
) -> Review:
    """Read the Evaluator's output at ``evaluation_uri``, computed on ``split``, into a Review."""
    config, _, _, model_locations = eval_config_writer.load_eval_run(evaluation_uri)
    baseline_spec = next((s for s in config.model_specs if s.is_baseline), None)
    slices, small = _slices(evaluation_uri)
    whole = next((s for s in slices if s.column is None), None)
    failed, other_failures = _failures(evaluation_uri)
    checks = _checks(
        config, whole.metrics if whole else {}, whole.baseline if whole else {}, failed
    )
    comparison = paired_comparison.read(evaluation_uri)
    checks = _beyond_noise(checks + other_failures, comparison) + _rate_check(evaluation_uri)
    paired = paired_comparison.read_slices(evaluation_uri)
    candidate_name = next((s.name for s in config.model_specs if not s.is_baseline), "")
    notes = [comparison.describe()] if comparison is not None else []
    if baseline_spec is None:
        notes.append(
            "No baseline: no model had been blessed before, so only the absolute bounds apply."
        )
    curves = load_curves(evaluation_uri, model_of, MIN_SLICE_SIZE)
    return Review(
        evaluation_uri=evaluation_uri,
        model_uri=model_locations.get(candidate_name, ""),
        baseline_uri=model_locations.get(baseline_spec.name) if baseline_spec else None,
        blessed=outcome.blessed,
        checks=checks,
        slices=slices,
        curves_by_slice=curves,
        push=outcome.push,
        run_id=run_id,
        notes=notes,
        split=split,
        changes=slice_changes(
            slices,
            paired,
            comparison,
            _failing_slices(checks),
            paired_comparison.read_estimates(evaluation_uri),
        ),
        left_out=_left_out(small, paired),
        candidate_version=outcome.pushed_version or _model_id(model_locations.get(candidate_name)),
        serving_version=outcome.baseline,
        rates=load_rates(evaluation_uri, model_of, MIN_SLICE_SIZE),
        calibration=_calibration(curves.get(OVERALL, {}), whole),
    )


def _calibration(curves: dict[str, Curves], whole: SliceMetrics | None) -> dict[str, Calibration]:
    """Each model's calibration on the whole split: TFMA's buckets and Brier score."""
    metrics = {CANDIDATE: whole.metrics if whole else {}, BASELINE: whole.baseline if whole else {}}
    return {
        model: calibration_of(found.calibration, metrics[model].get(BRIER_SCORE))
        for model, found in curves.items()
        if found.calibration
    }


def _model_id(location: str | None) -> str | None:
    """An unpushed candidate's name: ``model <id>`` from ``.../model/<id>/Format-Serving``."""
    if not location:
        return None
    parts = location.rstrip("/").split("/")
    if parts[-1] == "Format-Serving":  # TFX's layout of a Trainer's model
        parts = parts[:-1]
    return f"model {parts[-1]}"

"""The review's records: a slice's metrics and change, a check, the drift, the tuning, the Review.

Plain data and its text for people: the page and the terminal draw them; ``reading.py``
reads TFMA's output into them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from data_layout.properties import PushRecord
from data_layout.splits import TEST
from review import paired_comparison
from review.calibration import Calibration
from review.curves import Curves
from review.error_rates import SliceRates
from review.paired_comparison import (
    OVERALL,
    interval_text,
    slice_label,
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
class Scoring:
    """A run of ``wide-deep-score`` with the run's pushed model, and the skew it measured."""

    when: str  # local time, to the minute
    input: str
    rows: int
    skewed: tuple[str, ...]  # the features over their skew threshold

    def cells(self) -> list[str]:
        """The row for people: when, input, rows, the skew found."""
        found = "skewed: " + ", ".join(self.skewed) if self.skewed else "no skew"
        return [self.when, self.input, f"{self.rows:,}", found]


SCORING_HEADINGS = ("scored", "input", "rows", "against the training data")


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
            signed_text(self.candidate, missing),
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
    # The validation split's period, the one before the test period's; None: none.
    validation_period: str | None = None
    # The serving check's record (data_layout.properties.serving_check_of); None: none ran.
    serving_check: dict[str, Any] | None = None
    # The newest wide-deep-score runs with the pushed model, newest first.
    scorings: list[Scoring] = field(default_factory=list)

    @property
    def overall(self) -> dict[str, float]:
        """The candidate's metrics on the whole evaluated split."""
        return overall_of(self.slices)

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


def metric_text(value: float | None, name: str = "", missing: str = "-") -> str:
    """A metric for people: 4 decimals, a count whole; ``missing`` when absent or NaN."""
    if value is None or math.isnan(value):
        return missing
    return f"{int(value)}" if name == "example_count" else f"{value:.4f}"


def signed_text(value: float | None, missing: str) -> str:
    """A change for people: "+0.0012"; "undefined" for NaN (a slice of one class)."""
    if value is None:
        return missing
    return "undefined" if math.isnan(value) else f"{value:+.4f}"


def overall_of(slices: Iterable[SliceMetrics]) -> dict[str, float]:
    """The candidate's metrics on the whole split ({}: not found)."""
    return next((s.metrics for s in slices if s.column is None), {})

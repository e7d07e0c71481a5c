"""Curves from TFMA's plots, per slice and per model: ROC, precision-recall, calibration.

TFMA's ConfusionMatrixPlot keeps, for each threshold, the counts of true and false
positives and negatives: from those come the ROC and precision-recall curves, the
threshold behind each of their points, and the false positive and negative rates at
a few thresholds (as Fairness Indicators shows them). Its CalibrationPlot keeps, per
bucket of predictions, the examples, their labels and predictions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from review.paired_comparison import OVERALL, slice_label
from review.tfma_files import load_plots

if TYPE_CHECKING:
    from tensorflow_model_analysis.proto.metrics_for_slice_pb2 import (
        PlotData,
        SingleSliceKey,
    )

# The thresholds at which the page shows each slice's rates: a decision threshold
# is usually one of these, and five fit a narrow table.
OPERATING_THRESHOLDS: tuple[float, ...] = (0.1, 0.25, 0.5, 0.75, 0.9)


def slice_name(keys: Iterable[SingleSliceKey]) -> str:
    """``Overall`` for no key, else ``column=value`` (joined by ``, `` for a cross)."""
    return ", ".join(slice_label(k.column, key_value(k)) for k in keys) or OVERALL


def key_value(key: SingleSliceKey) -> str:
    """A slice key's value as text (bytes decoded, numbers as written)."""
    value = getattr(key, key.WhichOneof("kind"))
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _rate(part: float, whole: float) -> float | None:
    return part / whole if whole > 0 else None


@dataclass(frozen=True)
class Operating:
    """The confusion matrix at one threshold (a score at or above it predicts positive)."""

    threshold: float
    tp: float
    fp: float
    tn: float
    fn: float

    @property
    def precision(self) -> float | None:
        """Of the rows predicted positive, the share that are (None: none predicted)."""
        return _rate(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float | None:
        """Of the positive rows, the share predicted positive (the true positive rate)."""
        return _rate(self.tp, self.tp + self.fn)

    @property
    def fpr(self) -> float | None:
        """Of the negative rows, the share predicted positive."""
        return _rate(self.fp, self.fp + self.tn)

    @property
    def fnr(self) -> float | None:
        """Of the positive rows, the share predicted negative."""
        return _rate(self.fn, self.fn + self.tp)


@dataclass(frozen=True)
class Bucket:
    """One calibration bucket: its rows, their mean prediction and observed positive rate."""

    low: float
    high: float
    count: float
    predicted: float
    observed: float


@dataclass(frozen=True)
class Curves:
    """One model's curves on one slice."""

    points: list[Operating]  # by threshold, ascending
    calibration: list[Bucket]  # non-empty buckets only

    @property
    def rows(self) -> int:
        """The examples the matrices count."""
        first = self.points[0] if self.points else None
        return int(first.tp + first.fp + first.tn + first.fn) if first else 0

    @property
    def roc(self) -> list[tuple[float, float]]:
        """(false positive rate, true positive rate), ascending; empty without both classes."""
        pairs = [(p.fpr, p.recall) for p in self.points]
        return sorted((x, y) for x, y in pairs if x is not None and y is not None)

    @property
    def pr(self) -> list[tuple[float, float, float]]:
        """(recall, precision, threshold), by recall; thresholds predicting nothing left out."""
        triples = [(p.recall, p.precision, p.threshold) for p in self.points]
        return sorted((r, p, t) for r, p, t in triples if r is not None and p is not None)

    def at(self, threshold: float) -> Operating | None:
        """The matrix at the recorded threshold nearest ``threshold`` (None: no points)."""
        return min(self.points, key=lambda p: abs(p.threshold - threshold), default=None)


def curves_of(plot: PlotData) -> Curves:
    """The Curves one model's PlotData holds (either plot may be absent: lists stay empty)."""
    points = [
        Operating(
            m.threshold, m.true_positives, m.false_positives, m.true_negatives, m.false_negatives
        )
        for m in plot.confusion_matrix_at_thresholds.matrices
        # TFMA adds thresholds just outside [0, 1] so both ends of the curve are drawn.
        if 0.0 <= m.threshold <= 1.0
    ]
    buckets = [
        Bucket(
            max(b.lower_threshold_inclusive, 0.0),
            min(b.upper_threshold_exclusive, 1.0),
            b.num_weighted_examples.value,
            b.total_weighted_refined_prediction.value / b.num_weighted_examples.value,
            b.total_weighted_label.value / b.num_weighted_examples.value,
        )
        for b in plot.calibration_histogram_buckets.buckets
        if b.num_weighted_examples.value > 0
    ]
    return Curves(sorted(points, key=lambda p: p.threshold), buckets)


def _merge(first: Curves | None, second: Curves) -> Curves:
    # TFMA keeps each plot under its own key: the matrices and the buckets arrive apart.
    if first is None:
        return second
    return Curves(first.points or second.points, first.calibration or second.calibration)


def load_curves(
    evaluation_uri: str, model_of: Callable[[str], str | None], min_rows: int = 0
) -> dict[str, dict[str, Curves]]:
    """Curves by slice name, then by model (``model_of`` maps TFMA's model name; None: skip).

    Single-column slices and the overall one; slices of fewer than ``min_rows`` left out.
    """
    found: dict[str, dict[str, Curves]] = {}
    for per_slice in load_plots(evaluation_uri):
        keys = per_slice.slice_key.single_slice_keys
        if len(keys) > 1:
            continue
        models = found.setdefault(slice_name(keys), {})
        for kv in per_slice.plot_keys_and_values:
            model = model_of(kv.key.model_name)
            if model is not None:
                models[model] = _merge(models.get(model), curves_of(kv.value))
    return {
        name: models
        for name, models in found.items()
        if name == OVERALL or max((c.rows for c in models.values()), default=0) >= min_rows
    }

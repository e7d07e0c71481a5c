"""Calibration a reviewer can read: bins of enough rows, their intervals, Brier and ECE.

TFMA's CalibrationPlot counts rows in 1,000 buckets of equal width; a confident
model puts two thirds of the taxi's rows in the first and three in others. Here
neighbouring buckets are merged into bins of about equal rows (at most ``MAX_BINS``,
each at least ``MIN_BIN_ROWS``), each with the 95% Wilson interval of its observed
rate. The expected calibration error is those bins' row-weighted mean gap between
mean prediction and observed rate; the Brier score is TFMA's mean squared error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from review.curves import Bucket
from review.proportions import wilson

# The name the Evaluator stores the Brier score under (TFMA's MeanSquaredError).
BRIER_SCORE = "brier_score"
MAX_BINS = 10
MIN_BIN_ROWS = 50


@dataclass(frozen=True)
class Bin:
    """Neighbouring buckets merged: their prediction range, rows, means and interval."""

    low: float
    high: float
    rows: int
    predicted: float
    observed: float
    interval: tuple[float, float]

    @property
    def gap(self) -> float:
        """Observed rate minus mean prediction (positive: the model under-predicts)."""
        return self.observed - self.predicted


def _merged(buckets: Sequence[Bucket]) -> Bin:
    rows = sum(b.count for b in buckets)
    positives = sum(b.observed * b.count for b in buckets)
    predicted = sum(b.predicted * b.count for b in buckets) / rows
    return Bin(
        buckets[0].low,
        buckets[-1].high,
        round(rows),
        predicted,
        positives / rows,
        wilson(positives, rows) or (0.0, 1.0),
    )


def bins(buckets: Sequence[Bucket]) -> list[Bin]:
    """``buckets`` (ascending, non-empty) merged into bins of about equal rows.

    A bin closes once it holds its share of the rows (the rows over ``MAX_BINS``, at
    least ``MIN_BIN_ROWS``); a short last bin joins the one before it.
    """
    total = sum(b.count for b in buckets)
    if total <= 0:
        return []
    target = max(total / MAX_BINS, MIN_BIN_ROWS)
    groups: list[list[Bucket]] = [[]]
    for bucket in buckets:
        groups[-1].append(bucket)
        if sum(b.count for b in groups[-1]) >= target:
            groups.append([])
    if not groups[-1]:
        groups.pop()
    if len(groups) > 1 and sum(b.count for b in groups[-1]) < target:
        groups[-2:] = [groups[-2] + groups[-1]]
    return [_merged(g) for g in groups]


def expected_calibration_error(found: Sequence[Bin]) -> float | None:
    """The row-weighted mean of |observed rate - mean prediction| over ``found`` bins."""
    rows = sum(b.rows for b in found)
    if not rows:
        return None
    return sum(b.rows * abs(b.gap) for b in found) / rows


@dataclass(frozen=True)
class Calibration:
    """One model's calibration on the whole split: its bins, Brier score and ECE."""

    bins: list[Bin]
    brier: float | None

    @property
    def ece(self) -> float | None:
        """The expected calibration error over ``bins``."""
        return expected_calibration_error(self.bins)


def calibration_of(buckets: Sequence[Bucket], brier: float | None) -> Calibration:
    """A model's Calibration from TFMA's buckets and Brier score."""
    return Calibration(bins(buckets), brier)

"""The candidate against the serving model on the same rows, honest about their noise.

A period's test split is a few hundred rows: two good models' AUCs on it move by
about ±0.03 with the draw of rows alone, so a candidate 0.01 below the serving
model is not shown worse by it. Both models score the same rows, and a paired
bootstrap (each round draws the rows with replacement and scores both on the same
draw, so what the rows share cancels out) gives the 95% interval of
AUC(candidate) - AUC(serving). The gate takes a candidate as worse only when that
whole interval lies below the tolerated drop: on a large split the interval is
narrow and this is TFMA's point comparison; on a small one, a difference within
the noise does not keep the fresher model out.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from data_layout import files

# The metric the blessing is gated on (eval_config names it so) and compared here.
GATED_METRIC = "auc"
BOOTSTRAP_ROUNDS = 2000
# Fewer rows of either class than this and a draw's AUC hangs on a row or two: the
# interval would claim a confidence it has not got.
MIN_CLASS_ROWS = 5
# What the reviews and the verdict call the whole split, beside its slices.
OVERALL = "Overall"
COMPARISON_FILE = "auc_comparison.json"
SLICES_FILE = "slice_comparisons.json"
ESTIMATES_FILE = "candidate_intervals.json"
_DRAWN_CELLS = 4_000_000


def slice_label(column: str | None, value: str | None) -> str:
    """How the reviews and the verdict name a slice: ``column=value``; ``OVERALL``: no column."""
    return OVERALL if column is None else f"{column}={value}"


def slice_order(column: str | None, value: str | None, rows: float = 0) -> tuple:
    """A slice's place in a list: Overall first, then by column.

    Numeric values (hours) in numeric order; text values largest slice first.
    """
    try:
        rank = float(value or "")
    except ValueError:
        rank = -rows
    return (column is not None, column or "", rank, value or "")


def interval_text(low: float, high: float, between: str = " to ", digits: int = 4) -> str:
    """A change's interval for people, both ends signed: "-0.0300 to +0.0060".

    ``between`` ".." is the terminal tables', for width; ``digits`` 3, the histories'.
    """
    return f"{low:+.{digits}f}{between}{high:+.{digits}f}"


@dataclass(frozen=True)
class Comparison:
    """Two models' AUCs on the same ``rows`` and the 95% interval of their difference.

    ``tolerance`` is how far below the baseline's the candidate's AUC may be (the gate's).
    """

    rows: int
    candidate_auc: float
    baseline_auc: float
    low: float
    high: float
    tolerance: float

    @property
    def difference(self) -> float:
        """AUC(candidate) - AUC(baseline) on all the rows."""
        return round(self.candidate_auc - self.baseline_auc, 4)

    @property
    def worse(self) -> bool:
        """Whether the candidate is below the baseline by more than the tolerance, beyond noise."""
        return self.high < -self.tolerance

    @property
    def bound_text(self) -> str:
        """The gate's bound on the change, for people: "bound -0.0100"."""
        return f"bound {-self.tolerance:+.4f}"

    def drawn_on(self, split: str = "") -> str:
        """What the interval was drawn on: "paired bootstrap on 800 rows" (of ``split``)."""
        return f"paired bootstrap on {self.rows:,} {split + ' ' if split else ''}rows"

    def change_text(self, detail: str) -> str:
        """The change and its interval: "-0.0120 (95% interval -0.0300 to +0.0060, <detail>)"."""
        return (
            f"{self.difference:+.4f} (95% interval {interval_text(self.low, self.high)}, {detail})"
        )

    def describe(self) -> str:
        """One line: the difference, its interval and the rows."""
        return f"candidate - serving AUC {self.change_text(self.drawn_on('test'))}"


@dataclass(frozen=True)
class SliceComparison:
    """One slice of the test rows: its size, and both models on it where they compare.

    ``comparison`` is None where the slice has too few of a class for an AUC or an
    honest interval; ``undefined`` then says why, in a few words.
    """

    column: str
    value: str
    rows: int
    positives: int
    comparison: Comparison | None
    undefined: str | None = None
    # Whether the slice bound applies to it (at least the dataset's ``slice_min_rows``
    # test rows), and whether its loss against the serving model held the candidate back.
    gated: bool = False
    held: bool = False

    @property
    def name(self) -> str:
        """``column=value``, as the review and the verdict name a slice."""
        return slice_label(self.column, self.value)


def _draw_counts(rng: np.random.Generator, rows: int, rounds: int) -> np.ndarray:
    """How often each of ``rows`` rows is drawn in each of ``rounds`` draws with replacement."""
    drawn = rng.integers(0, rows, (rounds, rows)) + np.arange(rounds)[:, None] * rows
    return np.bincount(drawn.ravel(), minlength=rounds * rows).reshape(rounds, rows)


def weighted_aucs(labels: np.ndarray, scores: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """ROC AUC of ``scores`` in each draw (a row of ``counts``); NaN for a draw of one class.

    The rows are sorted once and tied scores grouped once. A draw's AUC is then, over
    its positives, the negatives below each (half of those tied with it) over its
    pairs: one running count of the draw's negatives, read at each positive's group
    bounds, all draws at once. ``counts`` are whole numbers; they are summed as 64-bit
    integers and each draw's ratio divided once, so a figure is the exact ratio
    rounded once, whatever order the sums take.
    """
    counts = counts.astype(np.int64, copy=False)  # a narrower type would overflow the sums
    order = np.argsort(scores, kind="mergesort")
    ranked = scores[order]
    new_group = np.r_[True, ranked[1:] != ranked[:-1]]
    group = np.cumsum(new_group) - 1
    positive = labels[order] == 1
    bounds = np.r_[np.flatnonzero(new_group), len(ranked)]  # each group's first row, the end
    negatives_before = bounds - np.r_[0, np.cumsum(positive)][bounds]
    below = np.zeros((len(counts), int(np.sum(~positive)) + 1), dtype=counts.dtype)
    np.cumsum(counts[:, order[~positive]], axis=1, out=below[:, 1:])
    at = group[positive]
    # Twice the negatives below each positive's group plus half of those in it.
    twice = below[:, negatives_before[at]] + below[:, negatives_before[at + 1]]
    drawn = counts[:, order[positive]]
    pairs = drawn.sum(axis=1).astype(float) * below[:, -1]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pairs > 0, np.einsum("ij,ij->i", drawn, twice) / 2 / pairs, np.nan)


def _drawn_aucs(
    labels: np.ndarray, scores: Sequence[np.ndarray], rounds: int, seed: int
) -> list[np.ndarray]:
    """Each of ``scores``' AUC in the same ``rounds`` draws of the rows with replacement."""
    rng = np.random.default_rng(seed)
    # Draws in chunks of about _DRAWN_CELLS counts: a 25k-row split's 2,000 draws at
    # once would hold 50M counts per array.
    chunk = max(1, _DRAWN_CELLS // max(1, len(labels)))
    drawn: list[list[np.ndarray]] = [[] for _ in scores]
    for done in range(0, rounds, chunk):
        counts = _draw_counts(rng, len(labels), min(chunk, rounds - done))
        for found, s in zip(drawn, scores, strict=True):
            found.append(weighted_aucs(labels, s, counts))
    return [np.concatenate(d) if d else np.array([]) for d in drawn]


def _percentiles(kept: np.ndarray) -> tuple[float, float]:
    """The 2.5th and 97.5th percentiles of the draws that held both classes."""
    kept = kept[~np.isnan(kept)]  # a draw of one class has no AUC
    if not len(kept):
        raise ValueError("no draw of the rows held both classes")
    low, high = np.percentile(kept, [2.5, 97.5])
    return round(float(low), 4), round(float(high), 4)


def auc_difference_interval(
    labels: Sequence[int],
    first: Sequence[float],
    second: Sequence[float],
    *,
    rounds: int = BOOTSTRAP_ROUNDS,
    seed: int = 0,
) -> tuple[float, float]:
    """The 95% paired-bootstrap interval of AUC(first) - AUC(second) on the same rows."""
    y = np.asarray(labels).astype(int)
    a, b = _drawn_aucs(y, [np.asarray(first), np.asarray(second)], rounds, seed)
    return _percentiles(a - b)


def auc_interval(
    labels: Sequence[int], scores: Sequence[float], *, rounds: int = BOOTSTRAP_ROUNDS, seed: int = 0
) -> tuple[float, float]:
    """The 95% bootstrap interval of one model's AUC on the rows (nothing to pair it with)."""
    (drawn,) = _drawn_aucs(np.asarray(labels).astype(int), [np.asarray(scores)], rounds, seed)
    return _percentiles(drawn)


def compare(
    labels: np.ndarray, candidate: np.ndarray, baseline: np.ndarray, tolerance: float
) -> Comparison:
    """Two models' scores on the same labelled rows; ValueError when too few of a class."""
    if undefined_reason(labels) is not None:
        positives = int(np.sum(labels))
        raise ValueError(
            f"{len(labels)} rows with {positives} positive: fewer than {MIN_CLASS_ROWS} of a "
            "class leave no honest interval"
        )
    from modules.exact_auc import auc  # with TFMA's metric: only the Evaluator computes

    low, high = auc_difference_interval(labels, candidate, baseline)
    return Comparison(
        rows=len(labels),
        candidate_auc=round(auc(labels, candidate), 4),
        baseline_auc=round(auc(labels, baseline), 4),
        low=low,
        high=high,
        tolerance=tolerance,
    )


def short_class(rows: int, positives: int, fewest: int = 1) -> tuple[int, str] | None:
    """The class ``rows`` have too few of: (its count, "positive" or "negative").

    A class with none comes first; then one with fewer than ``fewest``; None when
    both have enough.
    """
    counts = ((positives, "positive"), (rows - positives, "negative"))
    return next(
        (found for found in counts if found[0] == 0),
        next((found for found in counts if found[0] < fewest), None),
    )


def class_shortfall(rows: int, positives: int, fewest: int = 1) -> str | None:
    """Why ``rows`` with ``positives`` among them have no AUC, or no honest interval.

    No rows, one class only, or fewer than ``fewest`` of a class; None when none of
    these. ``fewest`` 1 asks for an AUC; ``MIN_CLASS_ROWS``, for an honest interval.
    """
    if rows == 0:
        return "no example"
    found = short_class(rows, positives, fewest)
    if found is None:
        return None
    count, kind = found
    if count == 0:
        return f"no {kind} example"
    return f"{count} {kind}{'s' if count > 1 else ''}: fewer than {fewest} of a class"


def undefined_reason(labels: np.ndarray) -> str | None:
    """Why rows have no AUC comparison (one class, too few of one), or None when they have."""
    return class_shortfall(len(labels), int(np.sum(labels)), MIN_CLASS_ROWS)


def _rows_by_value(values: Sequence[Sequence[str]]) -> dict[str, np.ndarray]:
    """The row indices of each value, the largest slice first."""
    rows: dict[str, list[int]] = {}
    for i, row_values in enumerate(values):
        for value in dict.fromkeys(row_values):
            rows.setdefault(value, []).append(i)
    return {v: np.array(r) for v, r in sorted(rows.items(), key=lambda kv: (-len(kv[1]), kv[0]))}


def slice_comparisons(
    labels: np.ndarray,
    candidate: np.ndarray,
    baseline: np.ndarray,
    values: dict[str, list[list[str]]],
    tolerance: float,
    min_rows: int,
) -> list[SliceComparison]:
    """Both models on every slice of every column in ``values`` (``slice_values``'s).

    A slice of at least ``min_rows`` rows is ``gated``: its comparison may hold the
    candidate back (the evaluator decides, with TFMA's slice failures).
    """
    slices = []
    for column, column_values in values.items():
        for value, rows in _rows_by_value(column_values).items():
            y = labels[rows]
            undefined = undefined_reason(y)
            comparison = (
                None if undefined else compare(y, candidate[rows], baseline[rows], tolerance)
            )
            slices.append(
                SliceComparison(
                    column=column,
                    value=value,
                    rows=len(rows),
                    positives=int(y.sum()),
                    comparison=comparison,
                    undefined=undefined,
                    gated=len(rows) >= min_rows,
                )
            )
    return slices


@dataclass(frozen=True)
class Estimate:
    """The candidate alone on a slice (``column`` None: the whole split), nothing serving.

    ``low`` and ``high`` bound its AUC (95%, bootstrap); None with ``undefined``'s reason
    where too few rows of a class leave no honest interval.
    """

    column: str | None
    value: str | None
    rows: int
    positives: int
    auc: float | None
    low: float | None = None
    high: float | None = None
    undefined: str | None = None

    @property
    def name(self) -> str:
        """``Overall`` or ``column=value``."""
        return slice_label(self.column, self.value)


def _estimate(column: str | None, value: str | None, y: np.ndarray, s: np.ndarray) -> Estimate:
    from modules.exact_auc import auc  # with TFMA's metric: only the Evaluator computes

    undefined = undefined_reason(y)
    figure = auc(y, s) if len(y) else float("nan")
    low, high = (None, None) if undefined else auc_interval(y, s)
    return Estimate(
        column, value, len(y), int(y.sum()),
        None if np.isnan(figure) else round(figure, 4), low, high, undefined,
    )  # fmt: skip


def estimates(
    labels: np.ndarray, scores: np.ndarray, values: dict[str, list[list[str]]]
) -> list[Estimate]:
    """The candidate's AUC and its interval on the whole split and every slice of ``values``."""
    found = [_estimate(None, None, labels, scores)]
    for column, column_values in values.items():
        for value, rows in _rows_by_value(column_values).items():
            found.append(_estimate(column, value, labels[rows], scores[rows]))
    return found


def write_json(value: Any, folder: str, name: str) -> None:
    """Keep ``value`` as JSON in ``folder`` (an evaluation's, on any file system)."""
    files.write_text(os.path.join(folder, name), json.dumps(value))


def read_json(folder: str, name: str) -> Any:
    """What ``write_json`` kept under ``name`` in ``folder``; None where nothing was kept."""
    path = os.path.join(folder, name)
    return json.loads(files.read_text(path)) if files.exists(path) else None


def write_estimates(found: Sequence[Estimate], folder: str) -> None:
    """Keep the candidate's intervals in ``folder`` (the evaluation's), for the review."""
    write_json([asdict(e) for e in found], folder, ESTIMATES_FILE)


def read_estimates(folder: str) -> list[Estimate]:
    """What ``write_estimates`` kept in ``folder``; [] where a model served (or none kept)."""
    return [Estimate(**row) for row in read_json(folder, ESTIMATES_FILE) or []]


def write(comparison: Comparison, folder: str) -> None:
    """Keep ``comparison`` in ``folder`` (the evaluation's), for the review and the summary."""
    write_json(asdict(comparison), folder, COMPARISON_FILE)


def read(folder: str) -> Comparison | None:
    """What ``write`` kept in ``folder``; None where no serving model was compared."""
    found = read_json(folder, COMPARISON_FILE)
    return Comparison(**found) if found is not None else None


def write_slices(slices: Sequence[SliceComparison], folder: str) -> None:
    """Keep the per-slice comparisons in ``folder`` (the evaluation's), for the review."""
    write_json([asdict(s) for s in slices], folder, SLICES_FILE)


def read_slices(folder: str) -> list[SliceComparison]:
    """What ``write_slices`` kept in ``folder``; [] where no serving model was compared."""
    rows = read_json(folder, SLICES_FILE) or []
    return [
        SliceComparison(
            **{**row, "comparison": row["comparison"] and Comparison(**row["comparison"])}
        )
        for row in rows
    ]

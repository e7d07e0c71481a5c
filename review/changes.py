"""Each slice's AUC against the serving model's on the same rows, worst change first.

And the slices left out of the comparison as too small to judge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from review.paired_comparison import (
    GATED_METRIC,
    OVERALL,
    Comparison,
    Estimate,
    SliceComparison,
    slice_label,
    slice_order,
)
from review.records import MIN_SLICE_SIZE, LeftOut, SliceChange, SliceMetrics, undefined_reason


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


def left_out_of(small: list[SliceMetrics], paired: list[SliceComparison]) -> LeftOut:
    """The slices the comparison leaves out: too small, or too few of a class to pair."""
    names = [s.name for s in small]
    # A held slice the gate could not match to its rows (rows 0) is shown as FAIL, not here.
    names += [
        p.name for p in paired if p.rows < MIN_SLICE_SIZE and not p.held and p.name not in names
    ]
    return LeftOut(names)

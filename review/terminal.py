"""The evaluation review as terminal text: the verdict, the push, the slices, the history.

``wide-deep-review`` prints it; the page (``review/page.py``) draws the same ``Review``.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from data_layout.splits import split_lines
from review.text_table import clipped, print_table, table_lines

if TYPE_CHECKING:
    from review.records import HistoryPoint, Review

# The terminal shows this many slices, worst change first; the HTML page shows them all.
TERMINAL_SLICES = 12
# A slice's name in the terminal's error-rate table, cut to keep it within 120 columns.
SLICE_NAME_CHARS = 34


def print_review(
    review: Review, out: TextIO, limit: int = TERMINAL_SLICES, threshold: float | None = None
) -> None:
    """The review as terminal text: ``limit`` slices per table, rates at ``threshold``."""
    from review.records import SLICE_COLUMNS

    print(f"Evaluation review of run {review.run_id}", file=out)
    print(f"  {review.title}", file=out)
    print(f"  model     {review.model_uri}", file=out)
    print(f"  baseline  {review.baseline_uri or 'none'}", file=out)
    for line in split_lines(review.split_key, review.test_period, review.validation_period):
        print(f"  {line}", file=out)
    print("", file=out)
    print_verdict(review, out)
    print_differences(review, out)
    if review.tuning is not None:
        print("", file=out)
        head, *values = review.tuning.lines()
        print(head, file=out)
        for line in values:
            print(f"  {line}", file=out)
    print("", file=out)
    print_changes(review, out, limit)
    print_calibration(review, out)
    print_rates(review, out, threshold, limit)
    print_drift(review, out)
    print_scorings(review, out)
    print("", file=out)
    print(f"Candidate metrics by slice ({review.split} split):", file=out)
    columns = [c for c in SLICE_COLUMNS if c.short]
    rows = [["slice"] + [c.short for c in columns]]
    rows += [[s.name] + [s.text(c.metric) for c in columns] for s in review.slices]
    print_table(rows, out)
    if review.history:
        print("", file=out)
        print("History (oldest first):", file=out)
        print_history_points(review.history, out)


def print_verdict(review: Review, out: TextIO) -> None:
    """The verdict: each overall check, the slice bound's checks decided on noise, the push."""
    from review.checks import judged_on_noise, slice_checks
    from review.page import push_line
    from review.records import metric_text
    from review.served import served_lines

    verdict = "BLESSED" if review.blessed else "NOT BLESSED"
    print(f"Verdict: {verdict} (on the {review.split} split)", file=out)
    for note in review.notes:
        print(f"  {note}", file=out)
    rows = [["metric", "check", "candidate", "baseline", "bound", "result"]]
    rows += [
        [c.metric, c.kind, metric_text(c.candidate), metric_text(c.baseline), c.bound, c.result]
        for c in review.checks
        if c.slice is None
    ]
    print_table(rows, out)
    on_slices = slice_checks(review.checks)
    judged = [c for c in on_slices if judged_on_noise(c)]
    if judged:
        print("  The slice bound, on each slice TFMA found beyond it (failures first):", file=out)
        head = ["slice", "rows", "change", "95% interval", "result"]
        print_table([head] + [c.slice_cells() for c in judged], out)
    others = len(on_slices) - len(judged)
    if others:
        print(
            f"  {others} {'more ' if judged else ''}slice(s) TFMA found beyond the slice bound, "
            "each too small to gate or without an interval: the page lists them",
            file=out,
        )
    print(f"  {push_line(review)}", file=out)
    for served in served_lines(review.serving_check):
        print(f"  {served}", file=out)


def print_differences(review: Review, out: TextIO) -> None:
    """What differs from the serving model's run.

    Nothing printed when nothing serves, or when the runs were not compared.
    """
    if not review.serving_version or review.differences is None:
        return
    print("", file=out)
    if not review.differences:
        print("What changed against the serving model: nothing recorded differs.", file=out)
        return
    print("What changed against the serving model's run:", file=out)
    print_table([["what", "serving", "candidate"], *map(list, review.differences)], out)


def print_drift(review: Review, out: TextIO) -> None:
    """Each distance the validator measured, against its threshold (nothing: none recorded)."""
    from review.records import DRIFT_HEADINGS

    if not review.drift:
        return
    print("", file=out)
    print(
        "Drift the ExampleValidator measured (a distance over its threshold stops a run):", file=out
    )
    print_table([list(DRIFT_HEADINGS), *(d.cells() for d in review.drift)], out)


def print_scorings(review: Review, out: TextIO) -> None:
    """The newest scoring runs with the pushed model and their skew (nothing: none)."""
    from review.records import SCORING_HEADINGS

    if not review.scorings:
        return
    print("", file=out)
    print("Scored with the pushed model (newest first), skew against its training data:", file=out)
    print_table([list(SCORING_HEADINGS), *(s.cells() for s in review.scorings)], out)


def print_calibration(review: Review, out: TextIO) -> None:
    """Each model's Brier score and expected calibration error, and the bins behind them."""
    from review.records import BASELINE, CANDIDATE, metric_text

    if not review.calibration:
        return
    print("", file=out)
    bins = review.calibration[CANDIDATE].bins if CANDIDATE in review.calibration else []
    print(
        f"Calibration ({review.split} split, {len(bins)} bins of about equal rows):",
        file=out,
    )
    rows = [["model", "Brier", "ECE", "bins: mean prediction / observed (95% interval)"]]
    for key, name in ((CANDIDATE, "candidate"), (BASELINE, "serving")):
        found = review.calibration.get(key)
        if found is not None:
            rows.append([name, metric_text(found.brier), metric_text(found.ece), ""])
    print_table(rows, out)
    for b in bins:
        low, high = b.interval
        print(
            f"    {b.low:.3f}-{b.high:.3f}  {b.rows:>6,} rows  predicted {b.predicted:.3f}  "
            f"observed {b.observed:.3f} ({low:.3f}..{high:.3f})",
            file=out,
        )


def print_rates(
    review: Review, out: TextIO, threshold: float | None = None, limit: int = TERMINAL_SLICES
) -> None:
    """Each slice's false positive and negative rates at ``threshold`` (default: the first)."""
    from review.error_rates import HEADINGS

    thresholds = sorted({r.threshold for r in review.rates})
    if not thresholds:
        return
    chosen = thresholds[0] if threshold is None else threshold
    rates = [r for r in review.rates if r.threshold == chosen]
    # The whole split first, then the slices flagged, then the others in slice order.
    rates.sort(key=lambda r: (r.column is not None, not r.higher))
    print("", file=out)
    print(
        f"Error rates by slice at threshold {chosen:g} (a score above it predicts positive; "
        f"recorded: {', '.join(f'{t:g}' for t in thresholds)}):",
        file=out,
    )
    shown = rates[: limit + 1]
    cut = [[clipped(c[0], SLICE_NAME_CHARS), *c[1:]] for c in (r.cells() for r in shown)]
    print_table([list(HEADINGS), *cut], out)
    if len(rates) > len(shown):
        print(f"  {len(rates) - len(shown)} more slice(s): --all shows them all", file=out)
    print(
        "  FPR: false positives of the negatives; FNR: false negatives of the positives;", file=out
    )
    print("  higher: Newcombe's 95% interval of the gap to serving lies above 0", file=out)


def print_changes(review: Review, out: TextIO, limit: int = TERMINAL_SLICES) -> None:
    """The AUC of every slice against the serving model's, worst change first, ``limit`` shown."""
    from review.paired_comparison import MIN_CLASS_ROWS
    from review.records import MIN_SLICE_SIZE

    against = (
        "against the serving model"
        if review.serving_version
        else "(nothing serves: the candidate's own AUC intervals)"
    )
    print(
        f"AUC by slice {against}, {review.split} split, slices of at least {MIN_SLICE_SIZE} "
        "rows, worst first:",
        file=out,
    )
    head = ["slice", "examples", "positives", "candidate", "serving", "change", "95% interval", ""]
    shown = review.changes[: limit + 1]  # the overall row, then ``limit`` slices
    print_table([head] + [c.cells(between="..") for c in shown], out)
    hidden = len(review.changes) - len(shown)
    if hidden > 0:
        print(f"  {hidden} more slice(s): --all shows them all", file=out)
    print("  worse: the 95% interval lies below 0; FAIL: beyond the gate's slice bound;", file=out)
    print(f"  few: under {MIN_CLASS_ROWS} of a class, no interval, not ranked", file=out)
    if any(c.not_recorded for c in review.changes):
        print("  not recorded: the run's gate compared no slices (TFMA's point figures)", file=out)
    if review.left_out.names:
        print(
            textwrap.fill(
                review.left_out.line(), 118, initial_indent="  ", subsequent_indent="    "
            ),
            file=out,
        )


# Extra columns of a history table: a heading, and a cell per run.
Columns = Sequence[tuple[str, Sequence[str]]]


def print_history_points(
    points: Sequence[HistoryPoint],
    out: TextIO,
    read: Columns = (),
    more: Columns = (),
    notes: Sequence[str] = (),
) -> None:
    """A table of runs, oldest first: span, both AUCs, the change's interval, blessed, pushed.

    ``read`` adds columns after the span (what each run read), ``more`` after the push;
    ``notes`` a line under each run's ("": none).
    """
    rows = [["run", "span", *(h for h, _ in read), "candidate", "serving", "change 95%",
             "blessed", "pushed", *(h for h, _ in more)]]  # fmt: skip
    for i, p in enumerate(points):
        run, span, *shown = p.cells(between="..")
        rows.append([run, span, *(c[i] for _, c in read), *shown, *(c[i] for _, c in more)])
    lines = table_lines(rows)
    under = " " * (2 + max(len(row[0]) for row in rows) + 2)
    print(lines[0], file=out)
    for line, note in zip(lines[1:], notes or [""] * len(points), strict=True):
        print(line, file=out)
        if note:
            print(f"{under}{note}", file=out)

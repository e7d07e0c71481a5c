"""The review's slices against the serving model, its curves and its page, on small inputs.

Synthetic per-slice comparisons (written with paired_comparison.write_slices, as the
gate writes them) beside a recorded evaluation; the assertions hold behaviour
(order, marks, reasons, counts), not the recorded runs' numbers.
"""

from __future__ import annotations

import html
import io
import re

import pytest
from review_inputs import add_slice_plots, comparison, evaluation_of, write_slices

from data_layout.properties import Outcome, PushRecord
from review.checks import judged_on_noise, slice_checks
from review.curves import Operating
from review.error_rates import HeldRates, write_held
from review.evaluation import load_review
from review.page import render_html
from review.paired_comparison import SliceComparison
from review.records import MIN_SLICE_SIZE, HistoryPoint, LeftOut, SliceMetrics, undefined_reason
from review.terminal import print_changes

WORSE = SliceComparison(
    "payment_type", "Credit Card", 215, 136, comparison(0.6, 0.8, -0.3, -0.1, 215)
)
NOISE = SliceComparison("trip_start_hour", "19", 42, 11, comparison(0.85, 0.9, -0.2, 0.1, 42))
BETTER = SliceComparison("trip_start_hour", "22", 44, 10, comparison(0.95, 0.9, -0.05, 0.15, 44))
NO_POSITIVE = SliceComparison("payment_type", "Cash", 398, 0, None, "no positive example")
FEW = SliceComparison("trip_start_hour", "1", 30, 4, None, "4 positive: fewer than 5 of a class")
TINY = SliceComparison("company", "Top Cab Affiliation", 11, 1, None, "1 positive")
OUTCOME = Outcome(False, "1795448548", PushRecord(pushed=False))


@pytest.fixture
def evaluation(recorded_runs, tmp_path):
    """A recorded evaluation against the served model whose verdict names no slice (the
    rerun's), with these per-slice comparisons in place of the gate's."""
    folder = evaluation_of(recorded_runs, recorded_runs.rerun, tmp_path / "evaluation")
    write_slices(folder, [BETTER, NO_POSITIVE, WORSE, TINY, NOISE, FEW])
    return folder


def test_undefined_reasons_name_the_missing_class():
    assert undefined_reason(398, 0) == "no positive example"
    assert undefined_reason(4, 4) == "no negative example"
    assert undefined_reason(0, 0) == "no example"
    assert undefined_reason(30, 4) is None


def test_a_slice_of_one_class_shows_its_auc_as_undefined_never_zero():
    cash = SliceMetrics(
        "payment_type", "Cash", {"example_count": 398, "mean_label": 0.0, "auc": 0.0}
    )
    assert cash.positives == 0 and cash.undefined == "no positive example"
    assert cash.text("auc") == cash.text("auc_pr") == "undefined"
    assert cash.text("example_count") == "398"
    card = SliceMetrics(
        "payment_type", "Card", {"example_count": 10, "mean_label": 0.3, "auc": 0.5}
    )
    assert card.positives == 3 and card.text("auc") == "0.5000"


def test_left_out_slices_are_counted_and_named():
    line = LeftOut([f"company=c{i}" for i in range(17)]).line(shown=3)
    assert line == (
        f"17 slices under {MIN_SLICE_SIZE} rows left out: company=c0, company=c1, company=c2 "
        "and 14 more"
    )
    assert LeftOut([]).line() == ""


def test_operating_rates_come_from_the_counts():
    point = Operating(0.5, tp=30, fp=10, tn=50, fn=10)
    assert (point.precision, point.recall, point.fpr, point.fnr) == (0.75, 0.75, 1 / 6, 0.25)
    assert Operating(0.99, tp=0, fp=0, tn=60, fn=40).precision is None  # nothing predicted


def test_every_slice_against_the_serving_model_worst_first(evaluation):
    review = load_review(str(evaluation), OUTCOME, run_id="r1")
    names = [c.name for c in review.changes]
    assert names[0] == "Overall"
    shown = review.changes[1:]
    # Slices the gate compared and those with TFMA's point figures only, in one order;
    # then, never ranked among them, the slices with too few of a class for an interval.
    ranked = [c for c in shown if c.ranked]
    assert [c.change for c in ranked] == sorted(c.change for c in ranked) and len(ranked) > 3
    flagged = shown[len(ranked) :]
    assert flagged and not any(c.ranked for c in flagged)
    assert shown.index(next(c for c in shown if c.name == WORSE.name)) < shown.index(
        next(c for c in shown if c.name == BETTER.name)
    )
    worse = next(c for c in shown if c.name == WORSE.name)
    assert (worse.rows, worse.positives, worse.low, worse.high) == (215, 136, -0.3, -0.1)
    assert worse.change == pytest.approx(-0.2) and worse.mark == "worse"
    assert next(c for c in shown if c.name == NOISE.name).mark == ""  # its interval holds 0
    # No positive: undefined with its reason, never an AUC of 0.
    cash = next(c for c in shown if c.name == NO_POSITIVE.name)
    assert cash.candidate_auc is None and cash.undefined == "no positive example"
    # Both classes but too few for an interval: TFMA's point figures, the reason for no interval.
    few = next(c for c in shown if c.name == FEW.name)
    assert few.low is None and few.candidate_auc is not None
    assert few.undefined.startswith("no interval: 4 positive")
    assert few.mark == "few" and few in flagged and few.cells()[6] == "none: 4 positives"
    # Too small: left out, and named.
    assert TINY.name not in names and TINY.name in review.left_out.names
    assert all(c.rows >= MIN_SLICE_SIZE for c in shown)


def test_a_slice_the_verdict_holds_back_is_marked_fail(evaluation):
    review = load_review(str(evaluation), OUTCOME)
    # None of these comparisons held it back; what TFMA's verdict named (a slice of the
    # rerun's noise, or none) is FAIL before and after.
    assert [c for c in review.changes if c.beyond_bound] == []
    verdict = {c.name for c in review.changes if c.mark == "FAIL"}
    assert WORSE.name not in verdict
    held = SliceComparison(**{**WORSE.__dict__, "gated": True, "held": True})
    write_slices(evaluation, [held, NOISE, NO_POSITIVE])
    marked = load_review(str(evaluation), OUTCOME).changes
    assert {c.name for c in marked if c.mark == "FAIL"} == verdict | {held.name}
    from review.changes import slice_changes

    # A slice the verdict names as failing a bound is marked FAIL too.
    named = slice_changes(review.slices, [NOISE], None, {NOISE.name})
    assert next(c for c in named if c.name == NOISE.name).mark == "FAIL"
    # A held slice the gate could not match to its rows (rows 0) is not "left out".
    unmatched = SliceComparison("company", "Gone Cab", 0, 0, None, "no rows", gated=True, held=True)
    write_slices(evaluation, [held, unmatched])
    assert unmatched.name not in load_review(str(evaluation), OUTCOME).left_out.names


def test_without_comparisons_the_candidate_alone_sorted_by_auc(recorded_runs, tmp_path):
    folder = evaluation_of(recorded_runs, recorded_runs.good, tmp_path / "evaluation")
    review = load_review(str(folder), Outcome(True, None, PushRecord(pushed=True)))
    shown = review.changes[1:]
    assert all(c.serving_auc is None for c in shown)
    # The candidate's own intervals (nothing served to pair with), around its AUC.
    ranged = [c for c in shown if c.low is not None]
    assert ranged and all(c.low <= c.candidate_auc <= c.high for c in ranged)
    aucs = [c.candidate_auc for c in shown if c.candidate_auc is not None and not c.few]
    assert aucs == sorted(aucs)
    # Undefined slices and those of too few of a class come last, flagged.
    flagged = [c for c in shown if c.candidate_auc is None or c.few]
    assert flagged and shown[-len(flagged) :] == flagged
    assert all(c.undefined or c.mark == "few" for c in flagged)


def test_curves_per_slice_and_model(evaluation):
    add_slice_plots(evaluation, {("payment_type", "Credit Card"): 0.5, ("company", "Tiny"): 0.9})
    review = load_review(str(evaluation), OUTCOME)
    card = review.curves_by_slice["payment_type=Credit Card"]
    assert set(card) == {"candidate", "baseline"}  # a serving model: both drawn
    assert card["candidate"].roc != review.curves_by_slice["Overall"]["candidate"].roc
    assert all(0 <= p.threshold <= 1 for p in card["candidate"].points)
    overall = review.curves_by_slice["Overall"]["candidate"]
    assert overall.calibration and all(b.count > 0 for b in overall.calibration)
    assert sum(b.count for b in overall.calibration) == overall.rows


def test_the_terminal_shows_the_worst_slices_and_how_many_more(evaluation):
    review = load_review(str(evaluation), OUTCOME, run_id="r1")
    out = io.StringIO()
    print_changes(review, out, limit=2)
    text = out.getvalue()
    lines = text.splitlines()
    rows = [line for line in lines if re.match(r"^\s{2}\S+=\S", line)]
    assert len(rows) == 2 and review.changes[1].name in rows[0]
    assert all(line.rstrip().endswith("worse") == (WORSE.name in line) for line in lines)
    print_changes(review, out := io.StringIO(), limit=100)
    assert re.search(
        rf"^\s+{re.escape(WORSE.name)}\s.*-0\.3000\.\.-0\.1000\s+worse$", out.getvalue(), re.M
    )
    assert re.search(rf"^\s+{len(review.changes) - 3} more slice\(s\)", text, re.M)
    assert "slice under 20 rows left out:" in text or "slices under 20 rows left out:" in text


def _page_cells(page: str, name: str) -> list[str]:
    """The cells of the page's row of slice ``name`` in its table against the serving model."""
    row = re.search(rf"data-slice='{re.escape(html.escape(name))}'>(.*?)</tr>", page).group(1)
    return [html.unescape(cell) for cell in re.findall(r"<td>(.*?)</td>", row)]


@pytest.mark.parametrize("recorded", [True, False], ids=["compared", "not-recorded"])
def test_the_page_and_the_terminal_show_each_slice_with_the_same_cells(evaluation, recorded):
    if not recorded:
        write_slices(evaluation, [])  # a run from before the gate compared slices
    review = load_review(str(evaluation), OUTCOME)
    print_changes(review, out := io.StringIO(), limit=100)
    lines = out.getvalue().splitlines()
    page = render_html(review)
    for change in review.changes:
        # The page's dash and interval joint stand for the terminal's: else the same.
        cells = [c.replace("–", "-").replace(" to ", "..") for c in _page_cells(page, change.name)]
        (line,) = [line for line in lines if line.strip().startswith(f"{change.name} ")]
        assert re.fullmatch(r"\s*" + r"\s+".join(re.escape(c) for c in cells if c), line), line
    # Slices TFMA reported that the gate did not compare: its point figures stand.
    shown = {c.name for c in review.changes if c.not_recorded}
    assert shown and all(_page_cells(page, name)[6] == "not recorded" for name in shown)
    assert (WORSE.name in shown) is not recorded
    assert "not recorded: the run's gate compared no slices" in out.getvalue()


def _page(evaluation, **fields) -> str:
    import dataclasses

    add_slice_plots(evaluation, {("payment_type", "Credit Card"): 0.5})
    review = load_review(str(evaluation), OUTCOME, run_id="2026-01-01T00:00:00")
    history = [
        HistoryPoint("2025-12-01T00:00:00", 11, 0.93, None, None, True, "17"),
        HistoryPoint("2026-01-01T00:00:00", 12, 0.55, 0.93, (-0.41, -0.35), False, None),
    ]
    fields = {"pipeline": "taxi-wide-deep", "span": 12, "history": history, **fields}
    return render_html(dataclasses.replace(review, **fields))


def test_the_page_names_its_run_and_shows_each_section(evaluation):
    page = _page(evaluation)
    title = re.search(r"<title>(.*?)</title>", page).group(1)
    assert "taxi-wide-deep" in title and "run 2026-01-01T00:00:00" in title and "span 12" in title
    assert "candidate model " in title and "serving 1795448548" in title
    for section in (
        "id='changes'",
        "id='left-out'",
        "id='curve-slice'",
        "id='history'",
        "id='calibration'",
        "id='slices'",
        "id='history-chart'",
    ):
        assert section in page, section
    assert f"<tr class='worse' data-slice='{WORSE.name}'" in page
    assert "none: no positive" in page
    assert "<option value='payment_type=Credit Card'>" in page
    assert not re.search(r"""(src|href)=['"]?(https?:|//)""", page)  # nothing from the network
    assert "<script src" not in page and "<link" not in page


def test_the_page_without_history_says_where_it_comes_from(evaluation):
    page = _page(evaluation, history=[])
    assert "No history: this page was written without the metadata store" in page


def test_every_slice_under_the_size_tfma_wrote_is_left_out_by_name(recorded_runs, tmp_path):
    import tensorflow_model_analysis as tfma

    from review.curves import slice_name

    folder = evaluation_of(recorded_runs, recorded_runs.good, tmp_path / "evaluation")
    small = set()
    for per_slice in tfma.load_metrics(str(folder)):
        keys = per_slice.slice_key.single_slice_keys
        count = next(
            kv.value.double_value.value
            for kv in per_slice.metric_keys_and_values
            if kv.key.name == "example_count"
        )
        if len(keys) == 1 and count < MIN_SLICE_SIZE:
            small.add(slice_name(keys))
    review = load_review(str(folder), Outcome(True, None, PushRecord(pushed=True)))
    assert small and set(review.left_out.names) == small
    assert review.left_out.line().startswith(f"{len(small)} slices under {MIN_SLICE_SIZE} rows")
    assert not small & {c.name for c in review.changes}


def _recorded_review(recorded_runs, run_id, tmp_path):
    """The review of a recorded run's evaluation, with the gate's own slice comparisons."""
    from review import paired_comparison

    folder = evaluation_of(recorded_runs, run_id, tmp_path / "evaluation")
    review = load_review(str(folder), Outcome(False, "1", PushRecord(pushed=False)))
    return review, {s.name: s for s in paired_comparison.read_slices(str(folder))}


def test_a_slice_loss_within_its_noise_is_shown_and_not_failed(recorded_runs, tmp_path):
    review, judged = _recorded_review(recorded_runs, recorded_runs.slice_regression, tmp_path)
    card = next(c for c in review.changes if c.name == "payment_type=Credit Card")
    recorded = judged[card.name]
    assert recorded.gated and not recorded.held and recorded.comparison is not None
    assert card.change < 0 and (card.low, card.high) == (
        recorded.comparison.low,
        recorded.comparison.high,
    )
    assert card.mark == ("worse" if card.high < 0 else "")
    assert not any(c.mark == "FAIL" for c in review.changes)
    assert all(c.passed for c in review.checks), [c for c in review.checks if not c.passed]
    # TFMA's failure on the slice is shown, set aside with the interval the gate judged.
    check = next(c for c in review.checks if c.slice == card.name)
    assert check.result == "pass: within noise"
    assert check.interval == (card.low, card.high) and check.rows == card.rows
    assert check.slice_cells()[3] == f"{card.low:+.4f}..{card.high:+.4f}"
    out = io.StringIO()
    print_changes(review, out, limit=100)
    assert re.search(rf"^\s+{re.escape(card.name)}\s.*\s{card.mark}$", out.getvalue(), re.M)
    assert "FAIL" not in render_html(review).split("id='changes'", 1)[1]


def test_the_slices_that_held_the_candidate_back_fail_and_no_other(recorded_runs, tmp_path):
    review, judged = _recorded_review(recorded_runs, recorded_runs.worse, tmp_path)
    held = {name for name, s in judged.items() if s.held}
    assert {"payment_type=Credit Card", "company=Taxi Affiliation Services"} <= held
    assert {c.name for c in review.changes if c.mark == "FAIL"} == held
    failed = {c.slice for c in review.checks if not c.passed}
    assert held <= failed
    assert ("auc", "change") in {(c.metric, c.kind) for c in review.checks if not c.passed}
    # TFMA's other slice failures were set aside: each says why.
    relaxed = [c for c in review.checks if c.slice and c.passed]
    assert relaxed and all(c.relaxed for c in relaxed)
    reasons = ("pass: too small to gate", "pass: within noise", "pass: no interval: ")
    assert all(c.result.startswith(reasons) for c in relaxed)
    # The verdict lists the failures first, then those judged within noise, then the rest.
    ordered = slice_checks(review.checks)
    groups = [(c.passed, not judged_on_noise(c)) for c in ordered]
    assert groups == sorted(groups) and not ordered[0].passed
    small = next(c for c in relaxed if not judged[c.slice].gated)
    assert small.result == "pass: too small to gate"


def test_the_error_rate_bound_is_a_check_of_the_verdict(evaluation):
    assert not [c for c in load_review(str(evaluation), OUTCOME).checks if c.kind == "rise"]
    write_held(HeldRates(0.02, ["company=Cab FNR at 0.25: 0.060 against 0.005"]), str(evaluation))
    (check,) = [c for c in load_review(str(evaluation), OUTCOME).checks if c.kind == "rise"]
    assert check.result == "FAIL" and check.slice is None
    assert check.bound.endswith(": company=Cab FNR at 0.25: 0.060 against 0.005")
    write_held(HeldRates(0.02, []), str(evaluation))
    (check,) = [c for c in load_review(str(evaluation), OUTCOME).checks if c.kind == "rise"]
    assert check.result == "pass"
    write_held(HeldRates(0.02, [], "the evaluation recorded no error rates"), str(evaluation))
    (check,) = [c for c in load_review(str(evaluation), OUTCOME).checks if c.kind == "rise"]
    assert check.result == "pass: not judged (the evaluation recorded no error rates)"

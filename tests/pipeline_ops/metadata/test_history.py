"""The history's one printer: the review's runs and ``wide-deep-inspect history`` alike."""

from __future__ import annotations

import html
import io
import re

from run_records import FAILED, artifact, node

from pipeline_def import node_ids
from pipeline_def.metadata_stores import SqliteMetadata
from pipeline_ops.metadata.drift import DriftMeasure
from pipeline_ops.metadata.history import (
    HistoryRow,
    drift_cell,
    history_row,
    history_rows,
    print_history,
)
from pipeline_ops.metadata.reviews import review_of_run
from pipeline_ops.metadata.runs import PipelineRun, find_run, list_runs
from pipeline_ops.metadata.store import open_store
from review.page import render_html
from review.terminal import print_review


def _cells(text: str) -> dict[str, list[str]]:
    """Each table line's cells (two spaces or more apart), by its first cell."""
    lines = [line.strip() for line in text.splitlines() if line.startswith("  ")]
    return {cells[0]: cells for cells in (re.split(r"\s{2,}", line) for line in lines)}


def test_the_review_and_inspect_show_each_run_with_the_same_cells(recorded_runs):
    store = open_store(SqliteMetadata(str(recorded_runs.output_dir / "metadata.sqlite")))
    ids = (recorded_runs.good, recorded_runs.rerun)
    good, rerun = (find_run(store, "taxi-wide-deep", run_id) for run_id in ids)
    print_history([history_row(good), history_row(rerun)], inspected := io.StringIO())
    review = review_of_run(rerun, earlier=[good])
    print_review(review, reviewed := io.StringIO())
    history = reviewed.getvalue().split("History (oldest first):\n", 1)[1]
    inspect, shown = _cells(inspected.getvalue()), _cells(history)
    head = ["run", "span", "candidate", "serving", "change 95%", "blessed", "pushed"]
    assert shown["run"] == head
    # Inspect adds what each run read (window, rows, drift) after the span, and after the
    # push its warm start, the steps served from TFX's cache and what served after it.
    more = ["warm start", "cached", "serving after"]
    assert inspect["run"] == [*head[:2], "window", "rows", "drift", *head[2:], *more]
    for run_id in ids:
        assert inspect[run_id][5:9] == shown[run_id][2:6]  # AUCs, the change, blessed
    assert re.fullmatch(r"[+-]\d\.\d{3}\.\.[+-]\d\.\d{3}", shown[recorded_runs.rerun][4])
    # The page's history table: the same cells, but for its dash and interval joint.
    table = render_html(review).split("<table id='history'>", 1)[1].split("</table>", 1)[0]
    for row in re.findall(r"<tr><td>(.*?)</td></tr>", table):
        cells = [
            html.unescape(c).replace("–", "-").replace(" to ", "..") for c in row.split("</td><td>")
        ]
        assert cells == shown[cells[0]]
    assert len(re.findall(r"<tr><td>", table)) == len(ids)


def test_a_run_not_pushed_says_why_under_its_line():
    def row(run_id: str, pushed: str | None, why: str) -> HistoryRow:
        return HistoryRow(run_id, 3, [2, 3], 600, "-", 0.8, 0.85, [-0.08, -0.02],
                          pushed is not None, "17", pushed, why, "17",
                          ["CsvExampleGen", "StatisticsGen"], 3 if pushed else 2)  # fmt: skip

    print_history([row("r1", None, "not blessed"), row("r2", "18", "")], out := io.StringIO())
    lines = out.getvalue().splitlines()
    assert len(lines) == 4
    assert lines[1].split() == ["r1", "3", "2,3", "600", "-", "0.8000", "0.8500",
                                "-0.080..-0.020", "no", "-", "17", "2", "span", "2"]  # fmt: skip
    assert lines[2].strip() == "not pushed: not blessed"
    assert lines[2].index("not") > lines[1].index("r1") + len("r1")  # under the run's cells
    assert lines[3].split()[0] == "r2"
    assert lines[3].split()[-6:] == ["yes", "18", "17", "2", "span", "3"]


def test_a_run_stopped_before_it_read_the_serving_folder_leaves_what_served_before():
    pushed = PipelineRun("r1", 1, {
        node_ids.EXAMPLE_GEN: node(node_ids.EXAMPLE_GEN, examples=artifact(span=3)),
        node_ids.SERVING_BASELINE: node(node_ids.SERVING_BASELINE, model=artifact(serving_span=2)),
        node_ids.PUSHER: node(node_ids.PUSHER, pushed_model=artifact(
            pushed=1, pushed_destination="/out/serving/17")),
    })  # fmt: skip
    waited = PipelineRun("r2", 2, {node_ids.EXAMPLE_GEN: node(node_ids.EXAMPLE_GEN, FAILED)})
    held = PipelineRun("r3", 3, {
        node_ids.EXAMPLE_GEN: node(node_ids.EXAMPLE_GEN, examples=artifact(span=4)),
        node_ids.SERVING_BASELINE: node(node_ids.SERVING_BASELINE, model=artifact(serving_span=3)),
    })  # fmt: skip
    rows = history_rows([pushed, waited, held])
    assert [r.serving_span for r in rows] == [3, 3, 3]
    assert [r.pushed_version for r in rows] == ["17", None, None]
    assert history_rows([waited])[0].serving_span is None  # nothing known served


def _measure(feature: str, distance: float, threshold: float) -> DriftMeasure:
    return DriftMeasure("span vs previous span", feature, "L_INFTY", distance, threshold)


def test_the_drift_cell_shows_the_largest_distance_and_drift_first():
    company, payment = _measure("company", 0.019, 0.1316), _measure("payment_type", 0.015, 0.11)
    assert drift_cell([payment, company]) == "company 0.019/0.132"
    # Over its threshold: drift, however small beside another distance under its own.
    over = _measure("payment_type", 0.21, 0.13)
    assert drift_cell([_measure("company", 0.3, 0.5), over]) == "DRIFT payment_type 0.210>0.130"
    assert drift_cell([]) == "-"


def test_recorded_runs_say_drift_only_for_drift(recorded_runs):
    # The recorded set keeps no validator files, and its broken run stopped on text in
    # a numeric column (its statistics not kept either): nothing reads as drift.
    store = open_store(SqliteMetadata(str(recorded_runs.output_dir / "metadata.sqlite")))
    runs = list(reversed(list_runs(store, "taxi-wide-deep")))
    rows = {row.run_id: row for row in history_rows(runs)}
    assert {row.drift for row in rows.values()} == {"-"}
    broken = rows[recorded_runs.broken]
    assert (broken.stopped_in, broken.stopped_because) == (node_ids.EXAMPLE_VALIDATOR, [])
    assert {row.stopped_in for row in rows.values()} == {"", node_ids.EXAMPLE_VALIDATOR}
    print_history(list(rows.values()), out := io.StringIO())
    lines = out.getvalue().splitlines()
    (at,) = [i for i, line in enumerate(lines) if line.split()[0] == recorded_runs.broken]
    assert lines[at + 1].strip() == "stopped in ExampleValidator"

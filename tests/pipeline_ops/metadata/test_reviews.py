"""A run's review read from ML-Metadata: verdict, outcome and slices of each recorded run."""

from __future__ import annotations

import io
import shutil

import pytest

from pipeline_def.metadata_stores import SqliteMetadata
from pipeline_ops.metadata import scoring_runs
from pipeline_ops.metadata.reviews import NoEvaluationError, review_of_run
from pipeline_ops.metadata.runs import find_run
from pipeline_ops.metadata.store import open_store
from review.terminal import print_review


@pytest.fixture
def run_of(recorded_runs):
    store = open_store(SqliteMetadata(str(recorded_runs.output_dir / "metadata.sqlite")))
    return lambda run_id: find_run(store, "taxi-wide-deep", run_id)


def test_each_recorded_runs_outcome(recorded_runs, run_of):
    outcomes = {}
    for name in ("good", "rerun", "worse"):
        review = review_of_run(run_of(getattr(recorded_runs, name)))
        push = review.push
        outcomes[name] = (review.blessed, push.pushed, push.already_serving, review.baseline_uri)
    assert outcomes["good"][:3] == (True, True, False) and outcomes["good"][3] is None
    assert outcomes["rerun"][:3] == (True, True, True) and outcomes["rerun"][3]
    assert outcomes["worse"][:3] == (False, False, False) and outcomes["worse"][3]


def test_the_overall_slice_comes_first_and_small_slices_are_left_out(recorded_runs, run_of):
    review = review_of_run(run_of(recorded_runs.good))
    assert review.slices[0].name == "Overall" and review.split == "test"
    assert review.overall["example_count"] == review.slices[0].metrics["example_count"]
    assert all(s.metrics["example_count"] >= 20 for s in review.slices[1:])
    assert review.tuning is None  # nothing was tuned


def test_a_run_stopped_before_the_evaluator_has_no_review(recorded_runs, run_of):
    with pytest.raises(NoEvaluationError, match="ExampleValidator failed"):
        review_of_run(run_of(recorded_runs.broken))


def test_the_terminal_table_shows_the_short_headings(recorded_runs, run_of):
    out = io.StringIO()
    print_review(review_of_run(run_of(recorded_runs.good)), out)
    lines = out.getvalue().splitlines()
    after = lines[lines.index("Candidate metrics by slice (test split):") :]
    heading = next(line for line in after if line.lstrip().startswith("slice"))
    assert heading.split() == [
        "slice",
        "examples",
        "AUC",
        "AUC-PR",
        "accuracy",
        "label",
        "predicted",
    ]


def test_scorings_of_the_serving_model_show_under_the_run_that_pushed_it_and_its_reblessing(
    recorded_runs, tmp_path
):
    # A copy: the recorded store is shared by the session's tests.
    shutil.copy(recorded_runs.output_dir / "metadata.sqlite", tmp_path / "metadata.sqlite")
    store = open_store(SqliteMetadata(str(tmp_path / "metadata.sqlite")))
    good = find_run(store, "taxi-wide-deep", recorded_runs.good)
    serving = review_of_run(good).push.destination
    report = {"scored_rows": 12, "over": ["fare"]}
    scoring_runs.record(store, serving, ("in.csv", "out.csv"), report, str(tmp_path))
    shown = {
        name: review_of_run(find_run(store, "taxi-wide-deep", getattr(recorded_runs, name)),
                            store=store).scorings
        for name in ("good", "rerun", "worse")
    }  # fmt: skip
    assert [(s.input, s.rows, s.skewed) for s in shown["good"]] == [("in.csv", 12, ("fare",))]
    assert shown["rerun"] == shown["good"]  # blessed again, copied nothing: still serving
    assert shown["worse"] == []  # pushed nothing

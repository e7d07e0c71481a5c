"""A run's summary from what ML-Metadata recorded: metrics, blessing, push, baseline."""

from __future__ import annotations

import dataclasses
import io
import json

import pytest

from pipeline_def.metadata_stores import SqliteMetadata
from pipeline_ops.metadata.runs import find_run
from pipeline_ops.metadata.store import open_store
from pipeline_ops.session.progress import ComponentTiming
from pipeline_ops.session.summary import (
    FAILED,
    STOPPED,
    SUCCEEDED,
    RunSummary,
    print_closing,
    summarize,
    write_json,
)


@pytest.fixture
def summary_of(recorded_runs):
    store = open_store(SqliteMetadata(str(recorded_runs.output_dir / "metadata.sqlite")))

    def summary(run_id: str, failed: str | None = None) -> RunSummary:
        run = find_run(store, "taxi-wide-deep", run_id)
        return summarize("taxi-wide-deep", run, {"Trainer": ComponentTiming("ran", 1.5)}, failed)

    return summary


def test_the_first_run_is_blessed_on_the_bound_and_pushed(recorded_runs, summary_of):
    summary = summary_of(recorded_runs.good)
    assert summary.status == SUCCEEDED and summary.blessed and summary.baseline is None
    assert summary.pushed_model_path.startswith(str(recorded_runs.output_dir / "serving"))
    assert not summary.already_serving
    assert 0.9 < summary.metrics["auc"] <= 1 and summary.metrics["example_count"] > 500
    assert summary.components == {"Trainer": {"state": "ran", "seconds": 1.5}}


def test_the_rerun_names_the_version_it_was_compared_with(recorded_runs, summary_of):
    first, rerun = summary_of(recorded_runs.good), summary_of(recorded_runs.rerun)
    assert rerun.blessed and rerun.already_serving
    assert rerun.pushed_model_path == first.pushed_model_path
    assert first.pushed_model_path.endswith(f"/{rerun.baseline}")
    out = io.StringIO()
    print_closing(rerun, out)
    assert f"model blessed against serving version {rerun.baseline}" in out.getvalue()
    assert "pushed: nothing new, this model already serves as " in out.getvalue()


def test_a_worse_model_is_neither_blessed_nor_pushed(recorded_runs, summary_of):
    summary = summary_of(recorded_runs.worse)
    assert not summary.blessed and summary.pushed_model_path is None and summary.baseline
    assert summary.metrics["auc"] < 0.8
    out = io.StringIO()
    print_closing(summary, out)
    assert "model NOT blessed against serving version" in out.getvalue()
    assert "pushed: nothing pushed" in out.getvalue()


def test_a_failed_run_has_no_metrics_and_is_written_as_json(recorded_runs, summary_of, tmp_path):
    summary = summary_of(recorded_runs.broken, failed="ExampleValidator")
    assert summary.status == FAILED and summary.metrics == {} and not summary.blessed
    written = json.loads(write_json(summary, tmp_path).read_text())
    assert written["failed_component"] == "ExampleValidator"
    assert written["run_id"] == recorded_runs.broken


def test_a_run_stopped_where_asked_says_so_and_no_verdict(recorded_runs, summary_of):
    summary = summary_of(recorded_runs.good)
    stopped = dataclasses.replace(summary, status=STOPPED, failed_component="Transform")
    out = io.StringIO()
    print_closing(stopped, out)
    said = out.getvalue()
    assert f"Run {summary.run_id} stopped after Transform, as asked, in " in said
    assert "blessed" not in said and "pushed" not in said


def test_the_summary_says_what_the_splits_are_keyed_by(recorded_runs, summary_of):
    summary = summary_of(recorded_runs.good)
    assert summary.split_keyed_by is None  # the taxi's rows are split one by one
    keyed = dataclasses.replace(summary, split_keyed_by="customer_id")
    out = io.StringIO()
    print_closing(keyed, out)
    assert "  splits keyed by customer_id: each of its values in one split" in out.getvalue()
    plain = io.StringIO()
    print_closing(summary, plain)
    assert "splits keyed by" not in plain.getvalue()
    assert summary.test_period is None and "test split" not in plain.getvalue()
    panel = io.StringIO()
    periods = {"test_period": "year = 1987", "validation_period": "year = 1986"}
    print_closing(dataclasses.replace(summary, **periods), panel)
    assert (
        "  test split: the newest period, year = 1987\n"
        "  validation split: the period before, year = 1986\n"
        "  train: the older periods\n"
    ) in panel.getvalue()


def test_the_summary_says_when_the_steps_code_changed_since_the_run_before(
    recorded_runs, summary_of
):
    summary = summary_of(recorded_runs.rerun)
    assert summary.code_changed == ""
    plain = io.StringIO()
    print_closing(summary, plain)
    assert "code changed" not in plain.getvalue()
    changed = dataclasses.replace(summary, code_changed="since run R (sha256 aaa -> bbb)")
    out = io.StringIO()
    print_closing(changed, out)
    assert (
        "  the steps' code changed since run R (sha256 aaa -> bbb): its steps ran again"
        in out.getvalue()
    )

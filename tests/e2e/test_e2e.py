"""The whole pipeline, for real: LocalDagRunner in a subprocess, checked through MLMD."""

from __future__ import annotations

import importlib.metadata
import json
import os
import pstats
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tensorflow as tf
from run_commands import inspect_cli

from data_layout.splits import TEST
from pipeline_def import node_ids
from pipeline_def.metadata_stores import SqliteMetadata
from pipeline_def.stack import STACK_PROPERTY
from pipeline_ops.metadata.runs import PipelineRun, latest_run, list_runs
from pipeline_ops.metadata.store import open_store
from pipeline_ops.session.progress import FAILED, component_line
from pipeline_ops.session.summary import SUMMARY_FILE

pytestmark = pytest.mark.slow

PROJECT = Path(__file__).resolve().parents[2]
# Reused from cache by a rerun on unchanged data. ServingBaseline is never cached (it
# reads the push destination), so the validator and the Evaluator judge again against
# what serves now.
CACHED_ON_RERUN = (
    node_ids.EXAMPLE_GEN,
    node_ids.STATISTICS_GEN,
    node_ids.SCHEMA_GEN,
    node_ids.CURATED_SCHEMA,
    node_ids.TRANSFORM,
    node_ids.TRAINER,
)


def _store_run(output_dir: Path) -> PipelineRun:
    store = open_store(_sqlite(output_dir))
    run = latest_run(store, "taxi-wide-deep")
    assert run is not None
    return run


def test_console_has_a_line_per_component_and_a_summary(first_run):
    _, result = first_run
    lines = result.stdout.splitlines()
    for node in node_ids.NODE_IDS:
        assert any(line.split()[:2] == [node, "ran"] for line in lines), node
    assert any("test AUC" in line for line in lines)
    assert any(line.strip().startswith("full log:") for line in lines)
    assert "Epoch" not in result.stdout  # Keras' progress output goes to the log
    assert result.stderr.strip() == ""


def test_run_summary_for_machines(first_run):
    output_dir, _ = first_run
    summary = json.loads((output_dir / SUMMARY_FILE).read_text())
    assert summary["pipeline_name"] == "taxi-wide-deep"
    assert summary["status"] == "succeeded"
    assert set(summary["components"]) == set(node_ids.NODE_IDS)
    assert all(c["state"] == "ran" and c["seconds"] >= 0 for c in summary["components"].values())
    assert 0.85 < summary["metrics"]["auc"] <= 1.0
    assert 0.0 < summary["metrics"]["binary_accuracy"] <= 1.0
    # Scored on the test split alone: every example of it, no other.
    examples = _store_run(output_dir).output(node_ids.EXAMPLE_GEN, "examples")
    test_files = [str(f) for f in Path(examples.uri, f"Split-{TEST}").iterdir()]
    test_rows = sum(1 for _ in tf.data.TFRecordDataset(test_files, compression_type="GZIP"))
    assert summary["metrics"]["example_count"] == test_rows > 900
    assert summary["blessed"] is True
    assert summary["baseline"] is None  # nothing served yet: judged on the bound alone
    pushed = Path(summary["pushed_model_path"])
    assert pushed.parent == output_dir / "serving"
    # The training data's statistics are published with the model, for later drift checks.
    stats = pushed / "assets.extra" / "training_statistics" / "Split-train" / "FeatureStats.pb"
    assert stats.stat().st_size > 1000
    assert summary["run_id"] == _store_run(output_dir).run_id
    assert Path(summary["log_file"]).is_file()


def test_every_execution_is_complete_in_mlmd(first_run):
    output_dir, _ = first_run
    run = _store_run(output_dir)
    assert set(run.nodes) == set(node_ids.NODE_IDS)
    assert {node: e.state for node, e in run.nodes.items()} == dict.fromkeys(
        node_ids.NODE_IDS, "complete"
    )


def test_the_report_page_names_its_pipeline_run_and_span(first_run):
    # The page the KFP UI shows, here as the local run's EvaluationReport wrote it.
    output_dir, _ = first_run
    run = _store_run(output_dir)
    (report,) = run.nodes[node_ids.REPORT].outputs["report"]
    page = Path(report.uri).read_text()
    facts = re.search(r"<p class='run' id='run'>(.*?)</p>", page).group(1)
    assert facts.startswith(
        f"pipeline <b>taxi-wide-deep</b> · run <b>{run.run_id}</b> · "
        "span <b>none (a flat data root)</b> · "
    )
    assert f"<h1>Evaluation review: taxi-wide-deep, run {run.run_id}, " in page


def test_one_auc_for_the_model_in_every_place(first_run):
    """TFMA's metric, the summary, the review's interval and the page: the exact AUC."""
    from modules.exact_auc import auc
    from review import paired_comparison, scored_rows

    output_dir, _ = first_run
    run = _store_run(output_dir)
    summary = json.loads((output_dir / SUMMARY_FILE).read_text())
    examples = run.output(node_ids.EXAMPLE_GEN, "examples")
    model = Path(summary["pushed_model_path"])
    records = scored_rows.split_records(examples.uri, TEST)
    exact = auc(
        *scored_rows.labels_and_scores(str(model), records, "big_tip_xf", "tip_probability")
    )
    assert summary["metrics"]["auc"] == pytest.approx(exact, abs=1e-9)
    evaluation = run.output(node_ids.EVALUATOR, "evaluation")
    # Nothing served: the candidate's own interval, around the same figure.
    overall, *slices = paired_comparison.read_estimates(evaluation.uri)
    assert overall.name == "Overall" and overall.auc == round(exact, 4)
    assert overall.low < overall.auc < overall.high and slices
    page = output_dir / "review.html"
    review = subprocess.run(
        [str(Path(sys.executable).parent / "wide-deep-review"), "--output-dir", str(output_dir),
         "--html", str(page)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    figure = f"{exact:.4f}"
    assert re.search(rf"^\s+auc\s+absolute\s+{figure}\s", review.stdout, re.M)
    assert re.search(rf"^\s+Overall\s+[\d,]+\s+\d+\s+{figure}\s", review.stdout, re.M)
    assert max(len(line) for line in review.stdout.splitlines()) <= 120
    # The page: the same figure in the verdict and the Overall row; the run's drift.
    html = page.read_text()
    assert re.search(rf"<tr data-slice='Overall'><td>Overall</td><td>[\d,]+</td><td>\d+</td>"
                     rf"<td>{figure}</td>", html)  # fmt: skip
    assert re.search(rf"<td>auc</td><td>absolute</td><td>{figure}</td>", html)
    assert "<table id='drift'>" in html and "test vs train" in review.stdout


def test_pushed_model_loads_and_scores_raw_examples(first_run):
    output_dir, _ = first_run
    summary = json.loads((output_dir / SUMMARY_FILE).read_text())
    model = tf.saved_model.load(summary["pushed_model_path"])
    serve = model.signatures["serving_default"]
    test_files = sorted(
        (output_dir / "pipeline" / node_ids.EXAMPLE_GEN).glob("examples/*/Split-test/*")
    )
    records = tf.data.TFRecordDataset([str(f) for f in test_files], compression_type="GZIP")
    examples = next(iter(records.batch(50)))
    probabilities = serve(examples=examples)["tip_probability"].numpy()
    assert probabilities.shape == (50, 1)
    assert ((probabilities >= 0) & (probabilities <= 1)).all()


def test_rerun_with_unchanged_inputs_reuses_everything_upstream(
    first_run, small_data_root, run_pipeline
):
    output_dir, _ = first_run
    first_id = _store_run(output_dir).run_id
    first_pushed = json.loads((output_dir / SUMMARY_FILE).read_text())["pushed_model_path"]
    # Asked for its verdict as CI asks: the model already serving is blessed, exit 0.
    result = run_pipeline(small_data_root, output_dir, "--detailed-exitcode")
    assert result.returncode == 0, result.stdout + result.stderr
    run = _store_run(output_dir)
    assert run.run_id != first_id
    for node in CACHED_ON_RERUN:
        assert run.nodes[node].state == "cached", node
    # The Evaluator's inputs did change: the first run's pushed model is now its baseline.
    for node in (node_ids.SERVING_BASELINE, node_ids.EXAMPLE_VALIDATOR, node_ids.EVALUATOR):
        assert run.nodes[node].state == "complete", node
    second = json.loads((output_dir / SUMMARY_FILE).read_text())
    assert second["baseline"] == Path(first_pushed).name
    # The same model again: compared with itself, blessed, and not copied a second time.
    assert second["blessed"] is True and second["already_serving"] is True
    assert second["pushed_model_path"] == first_pushed
    store = open_store(_sqlite(output_dir))
    assert len(list_runs(store, "taxi-wide-deep")) == 2
    console = {
        line.split()[0]: line.split()[1]
        for line in result.stdout.splitlines()
        if line.startswith("  ") and len(line.split()) >= 2
    }
    assert all(console[node] == "cached" for node in CACHED_ON_RERUN)


def _sqlite(output_dir: Path) -> SqliteMetadata:
    return SqliteMetadata(str(output_dir / "metadata.sqlite"))


def test_a_failing_component_is_named_and_exits_1(failed_run):
    output_dir, result = failed_run
    assert result.returncode == 1
    assert f"error: {node_ids.EXAMPLE_VALIDATOR} failed" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    summary = json.loads((output_dir / SUMMARY_FILE).read_text())
    assert summary["status"] == "failed"
    assert summary["failed_component"] == node_ids.EXAMPLE_VALIDATOR
    assert summary["pushed_model_path"] is None
    assert not (output_dir / "serving").exists()


def test_a_profiled_run_leaves_a_profile_of_each_step_it_ran_the_failed_one_too(failed_run):
    output_dir, result = failed_run
    profiles = output_dir.parent / "profile"
    ran = [line for line in map(component_line, result.stdout.splitlines()) if line]
    assert (node_ids.EXAMPLE_VALIDATOR, FAILED) in ran
    assert sorted(p.name for p in profiles.iterdir()) == sorted(
        f"{node}.{suffix}" for node, _ in ran for suffix in ("prof", "txt")
    )
    statistics = pstats.Stats(str(profiles / f"{node_ids.STATISTICS_GEN}.prof"))
    assert any("tensorflow_data_validation" in path for path, _, _ in statistics.stats)
    # The failed step's profile ends with the pipeline, not with the run's bookkeeping.
    validator = pstats.Stats(str(profiles / f"{node_ids.EXAMPLE_VALIDATOR}.prof"))
    assert "summarize" not in {name for _, _, name in validator.stats}
    assert f"  step profiles: {profiles}" in result.stdout.splitlines()


def _scalar_tags(folder: Path) -> set[str]:
    tags = set()
    for events in folder.glob("events.out.tfevents.*"):
        for event in tf.compat.v1.train.summary_iterator(str(events)):
            tags.update(v.tag for v in event.summary.value)
    return tags


def test_trainer_leaves_tensorboard_logs_a_profile_and_a_diagram(first_run):
    output_dir, _ = first_run
    (run_dir,) = (output_dir / "pipeline" / node_ids.TRAINER / "model_run").iterdir()
    for split in ("train", "validation"):
        assert {"epoch_loss", "epoch_auc"} <= _scalar_tags(run_dir / split), split
    traces = list((run_dir / "plugins" / "profile").glob("*/*.xplane.pb"))
    assert traces and traces[0].stat().st_size > 0
    diagram = run_dir / "model.png"
    assert diagram.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert diagram.stat().st_size > 10_000


def test_the_run_names_the_stack_it_ran_on(first_run):
    output_dir, _ = first_run
    summary = json.loads((output_dir / SUMMARY_FILE).read_text())
    version = importlib.metadata.version
    assert summary["stack"] == {
        "python": ".".join(map(str, sys.version_info[:3])),
        "tfx": version("tfx"),
        "tensorflow": version("tensorflow"),
        "apache_beam": version("apache-beam"),
        "kfp": version("kfp"),
        "libc": os.confstr("CS_GNU_LIBC_VERSION"),  # "glibc 2.36"
    }
    run = _store_run(output_dir)
    assert json.loads(run.properties[STACK_PROPERTY]) == summary["stack"]
    shown = inspect_cli("--output-dir", str(output_dir), "runs")
    assert f"    on python {summary['stack']['python']}, tfx {version('tfx')}," in shown.stdout

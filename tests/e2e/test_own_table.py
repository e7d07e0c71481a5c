"""Your own table, for real: draft it with the command, then run and compile the pipeline on it."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf
import tensorflow_transform as tft
from project_copy import copy_project, run_in
from run_commands import PROJECT, TEST_TRAIN_STEPS

from modules.hparams import HParams

# Column names that are not Python identifiers, as people's tables have them.
RENAMED = {"Seniority": "years at job", "Home": "home-type", "Income": "income ($)"}


def _status(row: dict[str, str]) -> str:
    """A label ruled by columns together, which deeper trees find and added-up ones do not."""
    new_at_job = int(row["Seniority"]) <= 2 and int(row["Amount"]) > 1000
    return "bad" if new_at_job or (row["Records"] == "yes" and row["Job"] != "fixed") else "good"


def _table(path: Path, rows: int) -> Path:
    """credit_data's first ``rows`` rows, columns renamed, Status ruled: the draft adds leaves."""
    with (PROJECT / "data" / "credit_data" / "credit_data.csv").open(newline="") as src:
        reader = csv.DictReader(src)
        head = [row for _, row in zip(range(rows), reader, strict=False)]
    for row in head:
        row["Status"] = _status(row)
    with path.open("w", newline="") as dst:
        writer = csv.writer(dst)
        writer.writerow([RENAMED.get(c, c) for c in head[0]])
        writer.writerows(row.values() for row in head)
    return path


@pytest.mark.slow
def test_a_drafted_table_runs_end_to_end_and_compiles_for_kubeflow(tmp_path):
    project = copy_project(tmp_path / "project")
    table = _table(tmp_path / "loans.csv", 1500)

    drafted = run_in(
        project, "-m", "pipeline_ops.cli.draft_dataset", "loans", str(table), "Status", "bad"
    )
    assert drafted.returncode == 0, drafted.stderr
    lines = drafted.stdout.splitlines()
    assert lines[0].startswith("1500 rows; label Status == 'bad': ")
    assert any(line.split()[:3] == ["income", "($)", "numeric"] for line in lines), lines
    assert "missing indicator" in next(line for line in lines if "income ($)" in line)
    assert any(line.split()[:2] == ["home-type", "vocabulary"] for line in lines), lines
    assert (project / "data" / "loans" / "loans.csv").read_bytes() == table.read_bytes()
    assert (project / "datasets" / "loans" / "schema.pbtxt").is_file()

    out = tmp_path / "out"
    run = run_in(
        project, "local_runner.py", "--dataset", "loans", "--output-dir", str(out),
        "--train-steps", TEST_TRAIN_STEPS,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith(f"Pipeline loans-wide-deep: data {project / 'data' / 'loans'}\n")
    summary = json.loads((out / "run_summary.json").read_text())
    assert summary["status"] == "succeeded" and summary["blessed"] is True, summary
    versions = list((out / "serving").iterdir())
    assert len(versions) == 1
    # A small table's draft trains an ensemble: five towers of one model, in one fit.
    (run_dir,) = (out / "pipeline" / "Trainer" / "model_run").iterdir()
    assert any((run_dir / "validation").glob("events.out.tfevents.*"))
    assert json.loads((run_dir / "hparams.json").read_text())["ensemble_members"] == 5
    kept = np.load(versions[0] / "assets.extra" / "warm_start" / "weights.npz")
    assert kept["linear/kernel:0"].shape[-1] == 5
    # Its boosted trees: fit by the run's Transform, a leaf id per tree for the wide part.
    assert any(line.startswith("  tree leaves: 30 boosted trees of depth 3") for line in lines)
    (graph,) = (out / "pipeline" / "Transform" / "transform_graph").iterdir()
    spec = tft.TFTransformOutput(str(graph)).transformed_feature_spec()
    assert spec["tree_leaves_xf"] == tf.io.FixedLenFeature([30], tf.int64)

    # The benchmark against the trees: on the run's splits, over 3 folds of the rows the
    # run learned and chose from (retraining the run's Transform and Trainer), and the
    # run's Trainer again with the run's own seed and with another.
    bench = run_in(
        project, "benchmarks/bench_dataset.py", "--dataset", "loans", "--output-dir", str(out),
        "--folds", "3", "--seeds", str(HParams().seed), "7",
    )  # fmt: skip
    assert bench.returncode == 0, bench.stderr
    figures = json.loads(bench.stdout)
    assert 0.5 < figures["pipeline_auc"] <= 1.0 and 0.5 < figures["trees_auc"] <= 1.0, figures
    folds = figures["cross_validation"]
    assert folds["rows"] == figures["rows"]["train"] + figures["rows"]["validation"]
    assert len(folds["rounds"]) == 3
    assert all(
        0.5 < r["pipeline_auc"] <= 1.0 and 0.5 < r["trees_auc"] <= 1.0 for r in folds["rounds"]
    )
    assert [
        line.split(":")[0] for line in bench.stderr.splitlines() if line.startswith("round ")
    ] == [f"round {k} of 3" for k in (1, 2, 3)]
    # Retrained as the run trained, with its seed, the model scores what the run's did.
    # Another seed trains another model.
    # One AUC: TFMA's (the summary's) is the exact AUC the benchmark computes itself.
    assert round(summary["metrics"]["auc"], 4) == figures["pipeline_auc"], figures
    again, other = figures["seeds"]["runs"]
    assert again["test_auc"] == figures["pipeline_auc"], figures
    assert again["validation_auc"] == figures["pipeline_validation_auc"], figures
    aucs = [(r["validation_auc"], r["test_auc"]) for r in (again, other)]
    assert aucs[0] != aucs[1], aucs
    ahead = [r["test_auc"] >= figures["trees_auc"] for r in (again, other)]
    assert figures["seeds"]["seeds_at_least_trees"] == sum(ahead)

    serve = tf.saved_model.load(str(versions[0]))
    raw = serve.signatures["serving_raw"]
    assert {"years_at_job", "home_type", "income____"} <= set(raw.structured_input_signature[1])
    example = tf.train.Example()
    example.features.feature["home-type"].bytes_list.value.append(b"owner")
    example.features.feature["income ($)"].float_list.value.append(150.0)
    answer = serve.signatures["serving_default"](
        examples=tf.constant([example.SerializeToString()])
    )
    probability = float(answer["probability"].numpy().ravel()[0])
    assert 0.0 < probability < 1.0

    package = tmp_path / "loans.yaml"
    compiled = run_in(
        project, "kubeflow_runner.py", "--dataset", "loans", "--image", "registry/x:1",
        "--pipeline-root", "s3://bucket/root", "--data-root", "s3://bucket/loans",
        "--output", str(package),
    )  # fmt: skip
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    assert compiled.stdout == f"compiled loans-wide-deep to {package} (image registry/x:1)\n"
    assert "datasets/loans/schema.pbtxt" in package.read_text()

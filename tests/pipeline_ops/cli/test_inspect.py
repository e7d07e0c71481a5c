"""The MLMD inspector on recorded runs: runs, artifacts, lineage, diff, and its errors."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from fixtures.make_runs import SLICE_RUN
from run_commands import inspect_cli, lineage_components

from pipeline_def import node_ids
from pipeline_ops import commands
from pipeline_ops.cli import inspect_metadata


def test_no_store_and_empty_store_are_clear_errors(tmp_path):
    result = inspect_cli("--output-dir", str(tmp_path), "runs")
    assert result.returncode == 2 and "no metadata store at" in result.stderr
    (tmp_path / "metadata.sqlite").touch()
    result = inspect_cli("--output-dir", str(tmp_path), "runs")
    assert result.returncode == 2 and "has no runs of pipeline taxi-wide-deep" in result.stderr


def test_store_options_are_taken_before_or_after_the_subcommand(tmp_path):
    (tmp_path / "metadata.sqlite").touch()
    for args in (("--output-dir", str(tmp_path), "runs"), ("runs", "--output-dir", str(tmp_path))):
        result = inspect_cli(*args, "--pipeline-name", "other")
        assert result.returncode == 2, args
        assert f"{tmp_path}" in result.stderr and "no runs of pipeline other" in result.stderr


def test_lineage_needs_one_target(tmp_path):
    result = inspect_cli("--output-dir", str(tmp_path), "lineage")
    assert result.returncode == 2 and "ARTIFACT_ID or --pushed-model latest" in result.stderr


@pytest.fixture
def inspect(recorded_runs, capsys):
    """The inspect command in this process on the recorded runs: (exit code, stdout, stderr)."""

    def run(*args: str) -> tuple[int, str, str]:
        code = inspect_metadata.main([*args, "--output-dir", str(recorded_runs.output_dir)])
        out, err = capsys.readouterr()
        return code, out, err

    return run


def test_runs_lists_each_run_newest_first_with_its_steps(recorded_runs, inspect):
    code, out, _ = inspect("runs")
    assert code == commands.EXIT_OK
    heads = [line.split() for line in out.splitlines() if not line.startswith(" ")]
    r = recorded_runs
    states = {r.good: "complete", r.rerun: "complete", r.worse: "complete", r.broken: "failed"}
    states[r.slice_regression] = "complete"
    listed = [(h[0], h[-1]) for h in heads]
    assert listed == sorted(states.items(), reverse=True)  # run ids are start times
    stack, *blocks = out.split("\n" + recorded_runs.good)[1].splitlines()[1:]
    assert stack.split()[:2] == ["on", "python"]  # the stack the steps ran on
    assert [line.split()[0] for line in blocks] == list(node_ids.NODE_IDS)
    assert {line.split()[1] for line in blocks} == {"complete"}
    rerun = out.split(recorded_runs.rerun)[1].split(recorded_runs.good)[0]
    assert re.search(rf"^\s+{node_ids.TRAINER}\s+cached\s", rerun, re.M)


def test_artifacts_by_type_show_the_push_and_already_serving(recorded_runs, inspect):
    code, out, _ = inspect("artifacts", "--type", "PushedModel")
    assert code == commands.EXIT_OK
    lines = [line for line in out.splitlines() if line.startswith("#")]
    assert all(" Pusher " in line for line in lines)
    # (pushed, already serving) of each run's push; the broken run stopped before one.
    r = recorded_runs
    pushes = {
        r.good: (True, False), r.rerun: (True, True), r.worse: (False, False),
        r.slice_regression: (True, False),
    }  # fmt: skip
    assert len(lines) == len(pushes)
    for run, state in pushes.items():
        (line,) = [line for line in lines if f" {run} " in line]
        assert ("pushed=1" in line, "already_serving=1" in line) == state, line
    code, _, err = inspect("artifacts", "--type", "Nope")
    assert code == commands.EXIT_BAD_INPUT and "no artifacts of type Nope" in err


def _nodes(tree: dict) -> list[dict]:
    """Every artifact node of a ``lineage --format json`` tree."""
    made = tree.get("produced_by") or {}
    return [tree, *(n for sub in made.get("inputs", []) for n in _nodes(sub))]


def test_lineage_of_the_pushed_model_reaches_the_input_files(recorded_runs, inspect):
    code, out, _ = inspect("lineage", "--pushed-model", "latest", "--format", "json")
    assert code == commands.EXIT_OK
    tree = json.loads(out)
    assert tree["type"] == "PushedModel" and tree["properties"]["pushed"] == 1
    assert {
        node_ids.PUSHER,
        node_ids.EVALUATOR,
        node_ids.TRAINER,
        node_ids.TRANSFORM,
        node_ids.EXAMPLE_GEN,
        node_ids.CURATED_SCHEMA,
        node_ids.SERVING_BASELINE,
    } <= lineage_components(tree)
    trainer = next(i for i in tree["produced_by"]["inputs"] if i["key"] == "model")
    # The newest push is the slice regression's, trained longer than the served model.
    assert trainer["produced_by"]["parameters"]["train_steps"] == int(SLICE_RUN[1])
    # Pushed after the good run's: its blessing names the version it was compared with.
    blessing = next(i for i in tree["produced_by"]["inputs"] if i["key"] == "model_blessing")
    baseline = next(i for i in blessing["produced_by"]["inputs"] if i["key"] == "baseline_model")
    version = baseline["properties"]["serving_version"]
    assert version and blessing["properties"]["baseline_version"] == version
    # A new version beside the one it was compared with (serving versions are times).
    serving, pushed = tree["properties"]["pushed_destination"].rsplit("/", 1)
    assert serving.endswith("/serving") and int(pushed) > int(version)
    (examples,) = [n for n in _nodes(tree) if n["type"] == "Examples" and "produced_by" in n]
    params = examples["produced_by"]["parameters"]
    # The window's digest, which the driver records (data_layout.spans.window_digest).
    assert re.fullmatch("[0-9a-f]{64}", params["input_fingerprint"])
    code, text, _ = inspect("lineage", "--pushed-model", "latest")
    assert "made by Trainer" in text and "(lineage shown above)" in text


def test_diff_names_what_changed_between_two_runs(recorded_runs, inspect):
    code, out, _ = inspect("diff", recorded_runs.good, recorded_runs.worse, "--format", "json")
    assert code == commands.EXIT_OK
    diff = json.loads(out)
    fingerprints = diff["inputs"]["input_fingerprint"]
    assert fingerprints[0] == fingerprints[1] and re.fullmatch("[0-9a-f]{64}", fingerprints[0])
    hparams = [
        json.loads(v)["hparams"] for v in diff["parameters"][node_ids.TRAINER]["custom_config"]
    ]
    assert hparams[0]["deep_learning_rate"] > 1e-4 and hparams[1]["deep_learning_rate"] == 1e-9
    auc_a, auc_b = diff["metrics"]["auc"]
    assert auc_a > 0.9 and auc_b < 0.8
    code, _, err = inspect("diff", recorded_runs.good, "no-such-run")
    assert code == commands.EXIT_BAD_INPUT and "no run 'no-such-run'" in err


def test_the_text_diff_writes_metrics_as_the_review_does(recorded_runs, inspect):
    code, out, _ = inspect("diff", recorded_runs.good, recorded_runs.worse)
    assert code == commands.EXIT_OK
    assert re.search(r"^\s+example_count\s+\d+\s+\d+\s", out, re.M), out  # a count is whole
    assert re.search(r"^\s+auc\s+0\.9\d{3}\s+0\.\d{4}\s+-0\.\d{4}$", out, re.M), out


def test_a_run_that_stopped_has_no_metrics_in_a_diff(recorded_runs, inspect):
    code, out, _ = inspect("diff", recorded_runs.good, recorded_runs.broken)
    assert code == commands.EXIT_OK
    assert re.search(r"^\s+auc\s+0\.9\d{3}\s+-\s*$", out, re.M), out
    assert re.search(rf"^\s+{node_ids.EXAMPLE_VALIDATOR}\s+complete\s+-> failed$", out, re.M), out


def test_the_text_diff_names_each_changed_hyperparameter_with_both_whole_values(
    recorded_runs, inspect
):
    _, as_json, _ = inspect("diff", recorded_runs.good, recorded_runs.worse, "--format", "json")
    configs = json.loads(as_json)["parameters"][node_ids.TRAINER]["custom_config"]
    a, b = (json.loads(config)["hparams"] for config in configs)
    changed = sorted(k for k in a if a[k] != b[k])
    assert changed == ["deep_learning_rate", "wide_learning_rate"]
    code, out, _ = inspect("diff", recorded_runs.good, recorded_runs.worse)
    assert code == commands.EXIT_OK
    shown = out.split("Parameters that differ:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    # Each change by its path, old -> new: not the whole config cut at a common prefix.
    trainer = [line for line in shown if line.startswith(f"  {node_ids.TRAINER}.")]
    assert trainer == [
        f"  {node_ids.TRAINER}.custom_config.hparams.{k}: {a[k]} -> {b[k]}" for k in changed
    ]
    # The run's fingerprint holds the settings, so the Pusher records the change too.
    assert f"  {node_ids.PUSHER}.run_fingerprint:" in shown
    assert "..." not in out


def test_a_cached_step_is_compared_with_the_execution_it_reused(recorded_runs, inspect):
    # The rerun's ExampleGen was served from TFX's cache: its execution has no input
    # fingerprint or span of its own, and they are those of the Examples it reused.
    code, out, _ = inspect("diff", recorded_runs.good, recorded_runs.rerun, "--format", "json")
    assert code == commands.EXIT_OK
    diff = json.loads(out)
    assert diff["states"][node_ids.EXAMPLE_GEN] == ["complete", "cached"]
    assert diff["parameters"] == {}
    code, out, _ = inspect("diff", recorded_runs.good, recorded_runs.rerun)
    assert "\nInput data: same\n" in out and "\nParameters: same\n" in out
    assert "null" not in out


def test_a_step_only_one_run_reached_differs_in_state_not_in_each_parameter(recorded_runs, inspect):
    code, out, _ = inspect("diff", recorded_runs.good, recorded_runs.broken)
    assert code == commands.EXIT_OK
    assert re.search(rf"^\s+{node_ids.TRAINER}\s+complete\s+-> -$", out, re.M), out
    parameters = out.split("Parameters that differ:\n", 1)[1].split("\n\n", 1)[0]
    assert {line.split(".")[0].strip() for line in parameters.splitlines() if line[2] != " "} == {
        node_ids.EXAMPLE_GEN
    }
    assert "null" not in out


def test_a_change_deep_in_a_long_config_is_shown_whole():
    long_path = "gs://bucket/" + "x" * 200
    a = {"hparams": {"dropout": 0.2, "hidden_units": [128, 64]}, "module": long_path}
    b = {"hparams": {"dropout": 0.25, "hidden_units": [128, 64, 32]}, "module": long_path + "y"}
    diff = {
        "runs": ["r1", "r2"],
        "inputs": {"input_fingerprint": ["f", "f"], "span": [1, 1]},
        "states": {},
        "parameters": {node_ids.TRAINER: {"custom_config": [json.dumps(a), json.dumps(b)]}},
        "metrics": {},
    }
    inspect_metadata.print_diff(diff, out := io.StringIO())
    trainer = f"  {node_ids.TRAINER}.custom_config"
    assert out.getvalue().split("Parameters that differ:\n")[1].splitlines()[:6] == [
        f"{trainer}.hparams.dropout: 0.2 -> 0.25",
        f"{trainer}.hparams.hidden_units: [128, 64] -> [128, 64, 32]",
        f"{trainer}.module:",
        f"    A: {long_path}",
        f"    B: {long_path}y",
        "",
    ]


def test_a_reader_gone_away_ends_the_listing_quietly(recorded_runs):
    # `wide-deep-inspect runs | head -1`, with the reader gone before the first write.
    reader, writer = os.pipe()
    os.close(reader)
    try:
        listed = subprocess.run(
            [str(Path(sys.executable).parent / commands.INSPECT),
             "--output-dir", str(recorded_runs.output_dir), "runs"],
            stdout=writer, stderr=subprocess.PIPE, text=True, timeout=120,
        )  # fmt: skip
    finally:
        os.close(writer)
    assert listed.returncode == commands.EXIT_READER_GONE
    assert listed.stderr == ""

"""The MLMD inspector on real runs: runs, artifacts, lineage, diff, and its errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from run_commands import inspect_cli, lineage_components, summary_run_id

from pipeline_def import node_ids as P

PROJECT = Path(__file__).resolve().parents[3]


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


@pytest.mark.slow
def test_runs_lists_each_component_with_state_and_seconds(first_run):
    output_dir, _ = first_run
    result = inspect_cli("--output-dir", str(output_dir), "runs")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    ours = next(i for i, line in enumerate(lines) if line.startswith(summary_run_id(output_dir)))
    assert lines[ours].split()[-1] == "complete"
    block = lines[ours + 1 : ours + 1 + len(P.NODE_IDS)]
    assert [line.split()[0] for line in block] == list(P.NODE_IDS)
    assert all(line.split()[1] in ("complete", "cached") for line in block)


@pytest.mark.slow
def test_artifacts_by_type_show_the_push(first_run):
    output_dir, _ = first_run
    result = inspect_cli("--output-dir", str(output_dir), "artifacts", "--type", "PushedModel")
    assert result.returncode == 0, result.stderr
    assert "pushed_version=" in result.stdout and "Pusher" in result.stdout
    assert (
        inspect_cli("--output-dir", str(output_dir), "artifacts", "--type", "Nope").returncode == 2
    )


def _nodes(tree: dict) -> list[dict]:
    """Every artifact node of a ``lineage --format json`` tree."""
    made = tree.get("produced_by") or {}
    return [tree, *(n for sub in made.get("inputs", []) for n in _nodes(sub))]


@pytest.mark.slow
def test_lineage_of_the_pushed_model_reaches_the_input_files(first_run, small_data_root):
    output_dir, _ = first_run
    result = inspect_cli("--output-dir", str(output_dir), "lineage", "--pushed-model", "latest",
                     "--format", "json")  # fmt: skip
    assert result.returncode == 0, result.stderr
    tree = json.loads(result.stdout)
    assert tree["type"] == "PushedModel" and tree["properties"]["pushed"] == 1
    assert {
        P.PUSHER, P.EVALUATOR, P.TRAINER, P.TRANSFORM, P.EXAMPLE_GEN, P.CURATED_SCHEMA,
        P.SERVING_BASELINE,
    } <= lineage_components(tree)  # fmt: skip
    trainer = next(i for i in tree["produced_by"]["inputs"] if i["key"] == "model")
    assert trainer["produced_by"]["parameters"]["train_steps"] == 300
    blessing = next(i for i in tree["produced_by"]["inputs"] if i["key"] == "model_blessing")
    baseline = next(i for i in blessing["produced_by"]["inputs"] if i["key"] == "baseline_model")
    # The blessing names the version its baseline held: "" when nothing served (the
    # first run), else a version of the serving dir (after the rerun test).
    version = baseline["properties"]["serving_version"]
    assert blessing["properties"]["baseline_version"] == version
    assert version in {"", *(p.name for p in (output_dir / "serving").iterdir())}
    # The tree shows each artifact's lineage once, where it is first reached.
    (examples,) = [n for n in _nodes(tree) if n["type"] == "Examples" and "produced_by" in n]
    params = examples["produced_by"]["parameters"]
    assert params["input_base"] == str(small_data_root)
    assert params["input_fingerprint"].startswith("split:single_split,num_files:1")
    text = inspect_cli("--output-dir", str(output_dir), "lineage", "--pushed-model", "latest")
    assert "made by Trainer" in text.stdout and "(lineage shown above)" in text.stdout


@pytest.mark.slow
def test_diff_names_what_changed_between_two_runs(first_run, regression):
    output_dir, _, _ = regression
    first, worse = summary_run_id(first_run[0]), summary_run_id(output_dir)
    result = inspect_cli("--output-dir", str(output_dir), "diff", first, worse, "--format", "json")
    assert result.returncode == 0, result.stderr
    diff = json.loads(result.stdout)
    fingerprints = diff["inputs"]["input_fingerprint"]
    assert fingerprints[0] == fingerprints[1] and fingerprints[0].startswith("split:")
    hparams = [json.loads(v)["hparams"] for v in diff["parameters"][P.TRAINER]["custom_config"]]
    assert hparams[0]["deep_learning_rate"] > 1e-4 and hparams[1]["deep_learning_rate"] == 1e-9
    auc_a, auc_b = diff["metrics"]["auc"]
    assert auc_a > 0.9 and auc_b < 0.8
    unknown = inspect_cli("--output-dir", str(output_dir), "diff", first, "no-such-run")
    assert unknown.returncode == 2 and "no run 'no-such-run'" in unknown.stderr

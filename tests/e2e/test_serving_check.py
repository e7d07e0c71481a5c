"""The serving check in a real run: a candidate whose raw signature answers wrong is not pushed.

The Trainer's export is damaged by a test hook (``tests/fixtures/damaged_raw_signature``:
its ``serving_raw`` answers 1 - p); ``serving_default``, which the Evaluator scores with,
stays right, so the Evaluator blesses it. The model server, asked in the raw form, answers
otherwise: the run fails at the check with one line, exits 1, and the version that served
before still serves.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from run_commands import runner_command

from data_layout.properties import STANDIN
from pipeline_def import node_ids
from pipeline_def.metadata_stores import SqliteMetadata
from pipeline_ops.metadata.runs import PipelineRun, latest_run
from pipeline_ops.metadata.store import open_store
from pipeline_ops.session.summary import SUMMARY_FILE

pytestmark = pytest.mark.slow

HOOK = Path(__file__).resolve().parents[1] / "fixtures" / "damaged_raw_signature"


def _latest_run(output_dir: Path) -> PipelineRun:
    store = open_store(SqliteMetadata(str(output_dir / "metadata.sqlite")))
    return latest_run(store, "taxi-wide-deep")


def test_the_pushed_model_was_served_and_asked_first(first_run):
    output_dir, _ = first_run
    summary = json.loads((output_dir / SUMMARY_FILE).read_text())
    check = summary["serving_check"]
    assert check["passed"] is True
    assert check["server"] == STANDIN
    assert check["rows_checked"]["serving_default (base64 tf.Examples)"] == 100
    assert 0 < check["p50_ms"] <= check["p99_ms"] and check["load_s"] > 0
    pushed = Path(summary["pushed_model_path"])
    assert check["model_bytes"] < sum(f.stat().st_size for f in pushed.rglob("*") if f.is_file())
    run = _latest_run(output_dir)
    (blessing,) = run.nodes[node_ids.SERVING_CHECK].outputs["blessing"]
    assert blessing.custom_properties["blessed"].int_value == 1
    assert (Path(blessing.uri) / "INFRA_BLESSED").is_file()
    # The Pusher required it.
    assert [a.id for a in run.nodes[node_ids.PUSHER].inputs["infra_blessing"]] == [blessing.id]


def test_a_candidate_served_wrong_is_not_pushed_and_the_run_fails(
    first_run, small_data_root, tmp_path
):
    output_dir = tmp_path / "out"
    shutil.copytree(first_run[0] / "serving", output_dir / "serving")
    serving_before = sorted(p.name for p in (output_dir / "serving").iterdir())
    env = {**os.environ, "PYTHONPATH": str(HOOK)}
    result = subprocess.run(
        runner_command(small_data_root, output_dir), env=env, capture_output=True, text=True,
        timeout=900, check=False,
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(
        f"error: {node_ids.SERVING_CHECK} failed: ServingCheckError: the served candidate "
        "failed the check: "
        "serving_raw (rows): row "
    ), line
    summary = json.loads((output_dir / SUMMARY_FILE).read_text())
    assert summary["blessed"] is True  # the Evaluator, which scores through serving_default
    assert summary["failed_component"] == node_ids.SERVING_CHECK
    assert summary["serving_check"] == {"passed": False}
    assert summary["pushed_model_path"] is None
    assert sorted(p.name for p in (output_dir / "serving").iterdir()) == serving_before
    run = _latest_run(output_dir)
    assert run.nodes[node_ids.EVALUATOR].state == "complete"
    assert run.nodes[node_ids.SERVING_CHECK].state == "failed"
    assert node_ids.PUSHER not in run.nodes
    assert "serving_raw (rows): row " in summary["error"]

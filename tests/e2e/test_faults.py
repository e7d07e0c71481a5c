"""Runs killed or interrupted midway: the next run completes and nothing partial is used."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest
from run_commands import start_runner

from pipeline_def import node_ids
from pipeline_def.metadata_stores import SqliteMetadata
from pipeline_ops.metadata.runs import list_runs
from pipeline_ops.metadata.store import open_store
from pipeline_ops.session.summary import SUMMARY_FILE

pytestmark = pytest.mark.slow

# What finished before Transform and is reused from the cache. The validator finished
# too, but runs again in every run: its drift reference, ServingBaseline, is never cached.
FINISHED_BEFORE_TRANSFORM = (
    node_ids.EXAMPLE_GEN,
    node_ids.STATISTICS_GEN,
    node_ids.SCHEMA_GEN,
    node_ids.CURATED_SCHEMA,
)


def _wait_for_line(process: subprocess.Popen, node: str) -> None:
    """Read the console until ``node``'s line (it finished); the next node is then running."""
    for line in process.stdout:
        if line.split()[:1] == [node]:
            return
    pytest.fail(f"the run ended before {node} finished: {process.stderr.read()}")


def _store_runs(output_dir: Path):
    return list_runs(
        open_store(SqliteMetadata(str(output_dir / "metadata.sqlite"))), "taxi-wide-deep"
    )


def test_killed_then_interrupted_then_a_run_that_completes(small_data_root, tmp_path, run_pipeline):
    out = tmp_path / "out"
    # 1. SIGKILL during Transform: no chance to clean up.
    killed = start_runner(small_data_root, out)
    _wait_for_line(killed, node_ids.EXAMPLE_VALIDATOR)
    time.sleep(3)
    killed.kill()
    killed.wait(timeout=30)
    (killed_run,) = _store_runs(out)
    assert killed_run.nodes[node_ids.TRANSFORM].state in ("running", "new")  # never completed
    assert node_ids.TRAINER not in killed_run.nodes

    # 2. Ctrl-C during the Trainer: a one-line message within seconds, exit 130.
    interrupted = start_runner(small_data_root, out)
    _wait_for_line(interrupted, node_ids.TRANSFORM)
    time.sleep(3)
    sent = time.monotonic()
    interrupted.send_signal(signal.SIGINT)
    stdout, stderr = interrupted.communicate(timeout=60)
    assert time.monotonic() - sent < 20
    assert interrupted.returncode == 130, stdout + stderr
    assert stderr.strip() == (
        f"interrupted: stopped during {node_ids.TRAINER}; the next run reuses what finished"
    )
    assert "Traceback" not in stdout
    summary = json.loads((out / SUMMARY_FILE).read_text())
    assert summary["status"] == "interrupted" and summary["pushed_model_path"] is None
    second = _store_runs(out)[0]
    assert second.nodes[node_ids.TRAINER].state == "canceled"
    for node in (node_ids.EXAMPLE_GEN, node_ids.STATISTICS_GEN, node_ids.SCHEMA_GEN):
        assert second.nodes[node].state == "cached", node
    # The validator ran again: the serving baseline, its drift reference, is never cached.
    assert second.nodes[node_ids.EXAMPLE_VALIDATOR].state == "complete"
    assert second.nodes[node_ids.TRANSFORM].state == "complete"  # the killed one was not reused

    # 3. The next run completes, reusing what finished and nothing that did not.
    result = run_pipeline(small_data_root, out)
    assert result.returncode == 0, result.stdout + result.stderr
    third, second, first = _store_runs(out)
    for node in (*FINISHED_BEFORE_TRANSFORM, node_ids.TRANSFORM):
        assert third.nodes[node].state == "cached", node
    assert third.nodes[node_ids.EXAMPLE_VALIDATOR].state == "complete"
    assert third.nodes[node_ids.TRAINER].state == "complete"
    (graph_used,) = (
        a
        for a in open_store(
            SqliteMetadata(str(out / "metadata.sqlite"))
        ).get_events_by_execution_ids([third.nodes[node_ids.TRAINER].execution.id])
        if a.type == a.INPUT and a.path.steps[0].key == "transform_graph"
    )
    (second_graph,) = second.nodes[node_ids.TRANSFORM].outputs["transform_graph"]
    assert graph_used.artifact_id == second_graph.id
    killed_outputs = [
        a.id for arts in first.nodes[node_ids.TRANSFORM].outputs.values() for a in arts
    ]
    assert graph_used.artifact_id not in killed_outputs
    assert json.loads((out / SUMMARY_FILE).read_text())["blessed"] is True

"""ML-Metadata on a real MariaDB server, and two runs at once on each kind of store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from commands import inspect_cli, lineage_components

from pipeline_def.store import METADATA_ENV
from pipeline_def.summary import SUMMARY_FILE

pytestmark = pytest.mark.slow

PROJECT = Path(__file__).resolve().parent.parent
QUICK = ("--train-steps", "50")


def _runner(data_root: Path, output_dir: Path, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(PROJECT / "local_runner.py"), "--data-root", str(data_root),
         "--output-dir", str(output_dir), *QUICK],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip


def _finish(process: subprocess.Popen) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=1200)
    return process.returncode, out, err


def _run_id(output_dir: Path) -> str:
    return json.loads((output_dir / SUMMARY_FILE).read_text())["run_id"]


def test_pipeline_on_mariadb_then_inspected_there(
    mysql_server, small_data_root, run_pipeline, tmp_path
):
    result = run_pipeline(small_data_root, tmp_path / "out", "--metadata", mysql_server, *QUICK)
    assert result.returncode == 0, result.stdout + result.stderr
    assert not (tmp_path / "out" / "metadata.sqlite").exists()
    runs = inspect_cli("--metadata", mysql_server, "runs")
    assert runs.returncode == 0, runs.stderr
    assert _run_id(tmp_path / "out") in runs.stdout
    # The URI can come from the environment instead, keeping any password off the command line.
    env = {**os.environ, METADATA_ENV: mysql_server}
    lineage = inspect_cli("lineage", "--pushed-model", "latest", "--format", "json", env=env)
    assert lineage.returncode == 0, lineage.stderr
    assert {"Pusher", "Trainer", "Transform", "CsvExampleGen"} <= lineage_components(
        json.loads(lineage.stdout)
    )


def test_two_runs_at_once_on_mariadb_both_complete(mysql_server, small_data_root, tmp_path):
    env = {**os.environ, METADATA_ENV: mysql_server}
    runs = [_runner(small_data_root, tmp_path / name, env) for name in ("a", "b")]
    results = [_finish(p) for p in runs]
    for code, out, err in results:
        assert code == 0, out + err
    listing = inspect_cli("runs", env=env)
    assert listing.returncode == 0, listing.stderr
    for name in ("a", "b"):
        run_id = _run_id(tmp_path / name)
        line = next(x for x in listing.stdout.splitlines() if x.startswith(run_id))
        assert line.split()[-1] == "complete"
    assert _run_id(tmp_path / "a") != _run_id(tmp_path / "b")


def test_two_runs_at_once_on_sqlite_wait_or_name_the_lock(small_data_root, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != METADATA_ENV}
    output = tmp_path / "shared"
    runs = [_runner(small_data_root, output, env) for _ in range(2)]
    results = [_finish(p) for p in runs]
    for code, out, err in results:
        assert code in (0, 1), out + err
        if code == 1:
            assert "lock" in err.lower(), err
            assert "Traceback" not in err
    assert any(code == 0 for code, _, _ in results)
    listing = inspect_cli("--output-dir", str(output), "runs")
    assert listing.returncode == 0, listing.stderr
    assert listing.stdout.count(" complete") + listing.stdout.count(" failed") >= 2

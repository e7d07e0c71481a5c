"""ML-Metadata on a real MariaDB server, and two runs at once on each kind of store."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess

import pytest
from run_commands import (
    inspect_cli,
    lineage_components,
    start_runner,
    summary_run_id,
)

from pipeline_ops.metadata.store import METADATA_ENV

pytestmark = pytest.mark.slow

QUICK = ("--train-steps", "50")
# A run's line in `inspect runs`: its id (a start time), then when, how long, its state.
RUN_LINE = re.compile(r"^\d{4}-\d\d-\d\dT\S+  started ")


def _finish(process: subprocess.Popen) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=1200)
    return process.returncode, out, err


def test_two_runs_at_once_on_mariadb_both_complete_and_are_inspected_there(
    mysql_server, small_data_root, tmp_path
):
    # One run names the store with --metadata, the other takes it from the environment
    # (keeping any password off the command line); both write to the one server at once.
    env = {**os.environ, METADATA_ENV: mysql_server}
    no_env = {k: v for k, v in os.environ.items() if k != METADATA_ENV}
    runs = [
        start_runner(
            small_data_root, tmp_path / "a", "--metadata", mysql_server, *QUICK, env=no_env
        ),
        start_runner(small_data_root, tmp_path / "b", *QUICK, env=env),
    ]
    results = [_finish(p) for p in runs]
    for code, out, err in results:
        assert code == 0, out + err
    assert not list(tmp_path.glob("*/metadata.sqlite"))
    listing = inspect_cli("--metadata", mysql_server, "runs")
    assert listing.returncode == 0, listing.stderr
    for name in ("a", "b"):
        run_id = summary_run_id(tmp_path / name)
        line = next(x for x in listing.stdout.splitlines() if x.startswith(run_id))
        assert line.split()[-1] == "complete"
    assert summary_run_id(tmp_path / "a") != summary_run_id(tmp_path / "b")
    lineage = inspect_cli("lineage", "--pushed-model", "latest", "--format", "json", env=env)
    assert lineage.returncode == 0, lineage.stderr
    assert {"Pusher", "Trainer", "Transform", "CsvExampleGen"} <= lineage_components(
        json.loads(lineage.stdout)
    )
    # Each run's closing hint reviews that run, even without the store in the environment.
    for name, (_, out, _) in zip(("a", "b"), results, strict=True):
        hint = next(x for x in out.splitlines() if x.strip().startswith("review:"))
        # The hint itself, run as printed: the console script, the store and the run.
        review = subprocess.run(
            shlex.split(hint.split(":", 1)[1]), capture_output=True, text=True, env=no_env
        )
        assert review.returncode == 0, review.stderr
        assert f"Evaluation review of run {summary_run_id(tmp_path / name)}" in review.stdout


def test_two_runs_at_once_on_one_output_dir_one_runs_the_other_names_it(small_data_root, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != METADATA_ENV}
    output = tmp_path / "shared"
    runs = [start_runner(small_data_root, output, *QUICK, env=env) for _ in range(2)]
    results = [_finish(p) for p in runs]
    assert [code for code, _, _ in results] == [0, 0], results
    # The one that found the other under way named it, its process, and ran nothing.
    gave_way = [
        i for i, (_, out, _) in enumerate(results) if out.rstrip().endswith("nothing to do")
    ]
    assert len(gave_way) == 1, [out for _, out, _ in results]
    ran = runs[1 - gave_way[0]]
    said = results[gave_way[0]][1].strip().splitlines()[-1]
    assert f"(process {ran.pid} on " in said and f"holds {output / '.run.lock'}" in said
    listing = inspect_cli("--output-dir", str(output), "runs")
    assert listing.returncode == 0, listing.stderr
    states = [line.split()[-1] for line in listing.stdout.splitlines() if RUN_LINE.match(line)]
    assert states == ["complete"]

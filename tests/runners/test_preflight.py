"""The runner's pre-flight: what it refuses before any component runs, and what it leaves.

Each data case is a broken data root beside an output dir where a model already serves:
one ``error:`` line naming the file and the fault, exit 2, the serving dir as it was,
and no metadata store created (nothing started). So is a run too large for the disk
its output dir is on. The runner runs as people run it.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from bad_data import PREFLIGHT_CASES, taxi_rows
from conftest import write_head
from run_commands import runner_command

from pipeline_ops import commands


@pytest.fixture
def serving_output_dir(tmp_path):
    """An output dir with a served model's files in it."""
    version = tmp_path / "out" / "serving" / "1700000000"
    version.mkdir(parents=True)
    (version / "saved_model.pb").write_bytes(b"model")
    return tmp_path / "out"


def _files(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("name", list(PREFLIGHT_CASES))
def test_preflight_refuses_before_any_component(name, tmp_path, serving_output_dir):
    case = PREFLIGHT_CASES[name]
    root = tmp_path / "bad"
    root.mkdir()
    case.make(root, taxi_rows())
    before = _files(serving_output_dir)
    result = subprocess.run(
        runner_command(root, serving_output_dir), capture_output=True, text=True, timeout=120
    )
    assert result.returncode == commands.EXIT_BAD_INPUT == case.exit_code, result.stderr
    error = result.stderr.strip()
    assert len(error.splitlines()) == 1, error
    assert error.startswith("error: ") and case.message in error, error
    assert str(root) in error
    assert "Traceback" not in result.stdout + result.stderr
    assert _files(serving_output_dir) == before
    assert not (serving_output_dir / "metadata.sqlite").exists()


@pytest.fixture
def small_disk(tmp_path) -> Iterator[Path]:
    """A real file system of 4 MB (a tmpfs mounted for the test), unmounted after it."""
    folder = tmp_path / "small-disk"
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(folder)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small file system here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        # Lazily: a run still holding a file there must not hide the test's own failure.
        subprocess.run(["umount", "--lazy", str(folder)], check=False)


def test_a_run_too_large_for_the_disk_is_refused_before_any_component(small_disk, tmp_path):
    output_dir = small_disk / "out"
    version = output_dir / "serving" / "1700000000"
    version.mkdir(parents=True)
    (version / "saved_model.pb").write_bytes(b"model")
    before = _files(output_dir)
    data = tmp_path / "data"
    write_head(5000, data)
    result = subprocess.run(
        runner_command(data, output_dir), capture_output=True, text=True, timeout=120
    )
    assert result.returncode == commands.EXIT_BAD_INPUT, result.stdout + result.stderr
    error = result.stderr.strip()
    assert len(error.splitlines()) == 1, error
    assert error.startswith("error: not enough disk for this run: 0.0 GB of CSV needs about ")
    assert f"free under {output_dir}, and 0.0 GB is free there" in error
    # The run lock is the one file more: the check is made once the output dir is the run's.
    assert {k: v for k, v in _files(output_dir).items() if k != ".run.lock"} == before
    assert not (output_dir / "metadata.sqlite").exists()

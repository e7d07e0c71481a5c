"""The runner's pre-flight: data it refuses before any component runs, and what it leaves.

Each case is a broken data root beside an output dir where a model already serves:
one ``error:`` line naming the file and the fault, exit 2, the serving dir as it was,
and no metadata store created (nothing started). The runner runs as people run it.
"""

from __future__ import annotations

import subprocess

import pytest
from bad_data import PREFLIGHT_CASES, taxi_rows
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

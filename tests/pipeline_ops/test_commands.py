"""The commands people type: installed from pyproject, named in one place, each one runs."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import distribution
from pathlib import Path

import pytest

from pipeline_ops import commands
from pipeline_ops.cli import inspect_metadata

# The console scripts the installed project declares ([project.scripts]).
SCRIPTS = {
    e.name: e.value
    for e in distribution("wide-deep-tfx").entry_points
    if e.group == "console_scripts"
}
NAMES = (
    commands.RUN,
    commands.KUBEFLOW,
    commands.INSPECT,
    commands.REVIEW,
    commands.SCHEMA_REVIEW,
    commands.DRAFT_DATASET,
    commands.SCORE,
)


def test_every_command_is_declared_once_under_its_name():
    assert sorted(SCRIPTS) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_each_command_answers_help_under_its_own_name(name):
    result = subprocess.run(
        [str(Path(sys.executable).parent / name), "--help"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"usage: {name} ")


@pytest.mark.parametrize("sub", ["runs", "history", "artifacts", "lineage", "diff"])
def test_each_inspect_subcommand_answers_help_with_its_defaults(sub, capsys):
    with pytest.raises(SystemExit) as done:
        inspect_metadata.parse_args([sub, "--help"])
    assert done.value.code == 0
    assert "(default: taxi)" in " ".join(capsys.readouterr().out.split())

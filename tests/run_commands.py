"""The commands, run as users run them (a subprocess), and a free port, for the tests."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
from pathlib import Path

from pipeline_ops import commands

PROJECT = Path(__file__).resolve().parent.parent
TEST_TRAIN_STEPS = "300"


# TensorFlow 2.21 (the current stack) logs its start through absl before absl is set up,
# whatever TF_CPP_MIN_LOG_LEVEL says (abseil/abseil-cpp#1957, open): these lines reach
# stderr from any process that loads it.
_TF_START = re.compile(r"^(WARNING: All log messages before absl::InitializeLog\(\)|[IWE]\d{4} )")


def stderr_for_people(stderr: str) -> str:
    """``stderr`` without TensorFlow 2.21's start-up lines (what a command itself said)."""
    return "".join(line for line in stderr.splitlines(keepends=True) if not _TF_START.match(line))


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def runner_command(data_root: Path, output_dir: Path, *extra: str) -> list[str]:
    """``local_runner.py`` on (data root, output dir) with 300 steps; later flags win."""
    return [
        sys.executable, str(PROJECT / "local_runner.py"), "--data-root", str(data_root),
        "--output-dir", str(output_dir), "--train-steps", TEST_TRAIN_STEPS, *extra,
    ]  # fmt: skip


def start_runner(
    data_root: Path, output_dir: Path, *extra: str, env: dict[str, str] | None = None
) -> subprocess.Popen:
    """The runner started in the background, stdout and stderr piped as text."""
    return subprocess.Popen(
        runner_command(data_root, output_dir, *extra),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip


def summary_run_id(output_dir: Path) -> str:
    """The run id the runner wrote to ``<output_dir>/run_summary.json``."""
    # The summary's module loads TensorFlow: only where a run's summary is read.
    from pipeline_ops.session.summary import SUMMARY_FILE

    return json.loads((output_dir / SUMMARY_FILE).read_text())["run_id"]


def console_command(
    name: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """The console script ``name`` of this environment (pyproject's [project.scripts])."""
    return subprocess.run(
        [str(Path(sys.executable).parent / name), *args],
        capture_output=True, text=True, cwd=PROJECT, timeout=300, check=False, env=env,
    )  # fmt: skip


def inspect_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``wide-deep-inspect ARGS``."""
    return console_command(commands.INSPECT, *args, env=env)


def review_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``wide-deep-review ARGS``."""
    return console_command(commands.REVIEW, *args, env=env)


def lineage_components(tree: dict) -> set[str]:
    """Every component named in a ``lineage --format json`` tree."""
    made = tree.get("produced_by")
    if not made:
        return set()
    found = {made["component"]}
    for sub in made["inputs"]:
        found |= lineage_components(sub)
    return found

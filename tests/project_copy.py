"""A copy of the project to draft datasets into, and commands run in it, as users run them.

Drafts write into the project's own ``datasets`` and ``data``; the end-to-end
tests draft into a copy, and run the commands with the copy's packages first.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from run_commands import PROJECT

from kubeflow.harness.image_env import build_context

# Besides what the Dockerfile copies: the commands people run, and what the Kubeflow
# harness reads to build its image.
_TOOLS = ("pipeline_ops", "kubeflow", "drafting")
_FILES = ("local_runner.py", "kubeflow_runner.py", "benchmarks/bench_dataset.py",
          "Dockerfile", "scripts/find_python.sh")  # fmt: skip


def copy_project(to: Path) -> Path:
    """The project's code, without outputs or environment: drafts land in the copy.

    The copy holds the Dockerfile's build context, so the Kubeflow harness run in it
    builds its image from the copy (drafted datasets included).
    """
    build_context(PROJECT / "Dockerfile", to)
    for part in _TOOLS:
        shutil.copytree(
            PROJECT / part,
            to / part,
            ignore=shutil.ignore_patterns("__pycache__"),
            dirs_exist_ok=True,
        )
    for file in _FILES:
        (to / file).parent.mkdir(exist_ok=True)
        shutil.copy(PROJECT / file, to / file)
    return to


def run_in(cwd: Path, *args: str, program: str = sys.executable) -> subprocess.CompletedProcess:
    """``program ARGS`` (Python by default) in the copy ``cwd``, its packages first."""
    # The copy's packages before the installed checkout's, for scripts/ too.
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    return subprocess.run(
        [program, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=900,
        check=False,
    )  # fmt: skip

"""The read-only commands, run as users run them (a subprocess), for the tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent


def _module(
    module: str, args: tuple[str, ...], env: dict[str, str] | None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        capture_output=True, text=True, cwd=PROJECT, timeout=300, check=False, env=env,
    )  # fmt: skip


def inspect_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``python -m pipeline_def.inspect ARGS``."""
    return _module("pipeline_def.inspect", args, env)


def review_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``python -m pipeline_def.review ARGS``."""
    return _module("pipeline_def.review", args, env)


def lineage_components(tree: dict) -> set[str]:
    """Every component named in a ``lineage --format json`` tree."""
    made = tree.get("produced_by")
    if not made:
        return set()
    found = {made["component"]}
    for sub in made["inputs"]:
        found |= lineage_components(sub)
    return found

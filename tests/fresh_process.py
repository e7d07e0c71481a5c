"""A script run by a Python of its own: what a process that starts cold does."""

from __future__ import annotations

import subprocess
import sys


def printed_by(script: str) -> list[str]:
    """The words ``script`` prints, run by this environment's Python in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split()

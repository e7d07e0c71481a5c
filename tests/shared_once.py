"""Work that several test files need, done once per test session, whichever worker asks first.

``make test`` runs two xdist workers, and a session fixture runs once in each: work
both need (a pipeline run, an installed image) is then done twice. Here the first
worker to ask does it into a folder of the session's common temporary folder, under a
file lock; the other waits for it and reads the same folder.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

_DONE = ".done"


def shared_folder(
    tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]
) -> Path:
    """The folder ``name`` as ``make`` filled it, made once for all of the session's workers.

    A ``make`` that raised leaves its folder unfinished: the next to ask starts it again.
    """
    base = tmp_path_factory.getbasetemp()
    # A worker's basetemp is popen-gwN inside the session's: its parent is common to all.
    common = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = common / "shared" / name
    folder.parent.mkdir(exist_ok=True)
    with (folder.parent / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / _DONE).exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            make(folder)
            (folder / _DONE).touch()
    return folder

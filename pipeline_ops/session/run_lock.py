"""One run per output folder at a time, and a firing that finds another says which.

A cron line fires every hour; a run may outlast the hour, or hang. The lock is an
``flock`` on ``<output>/.run.lock``, which the kernel releases when its process ends,
however it ends. Its holder writes who it is in the file (process, host, start time),
and clears it when it is done. A firing that finds the lock held names that run and
gives up at once, or after waiting up to the seconds the user allows
(``--wait-for-lock``); one that takes a lock whose file still names a run was handed
it by a run that did not end cleanly (killed, out of memory), and says so.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import IO

LOCK_FILE = ".run.lock"
# How often a waiting firing tries the lock again.
_POLL_S = 0.2


@dataclass(frozen=True)
class Holder:
    """The run that holds (or held) an output folder's lock."""

    pid: int
    host: str
    started: str  # ISO 8601, UTC

    def describe(self) -> str:
        """The run as a person reads it: when it started, and which process on which host."""
        return f"the run started {self.started} (process {self.pid} on {self.host})"


class LockHeldError(Exception):
    """Another run holds the output folder's lock; the message names it."""


@contextlib.contextmanager
def one_run_at_a_time(output_dir: Path, wait_s: float = 0.0) -> Iterator[None]:
    """Hold ``output_dir``'s run lock while the block runs.

    LockHeldError, naming the holder, where another run still holds it after ``wait_s``
    seconds; a lock left by a run that did not end cleanly is taken over, and said.
    """
    path = output_dir / LOCK_FILE
    # "a+": opening must not clear the holder's note before the lock is ours.
    with path.open("a+") as lock:
        if not _take(lock, wait_s):
            holder = read_holder(lock)
            who = holder.describe() if holder else "a run that has not yet said which"
            waited = f" after waiting {wait_s:g} s" if wait_s else ""
            raise LockHeldError(f"{who} holds {path}{waited}")
        left = read_holder(lock)
        if left is not None:
            print(f"note: taking over {path} from {left.describe()}, which ended without "
                  "releasing it (killed?)", flush=True)  # fmt: skip
        _write(lock, Holder(os.getpid(), socket.gethostname(), _now()))
        try:
            yield
        finally:
            lock.truncate(0)
            fcntl.flock(lock, fcntl.LOCK_UN)


def read_holder(lock: IO[str]) -> Holder | None:
    """The run the lock file names (None: none, or a note this version cannot read)."""
    lock.seek(0)
    try:
        return Holder(**json.loads(lock.read()))
    except (ValueError, TypeError):
        return None


def _take(lock: IO[str], wait_s: float) -> bool:
    """Whether the lock was taken within ``wait_s`` seconds."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(_POLL_S)


def _write(lock: IO[str], holder: Holder) -> None:
    lock.truncate(0)
    lock.write(json.dumps(asdict(holder)))
    lock.flush()


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")

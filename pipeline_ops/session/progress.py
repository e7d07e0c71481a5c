"""Console progress for people, full logs to a file.

TFX's LocalDagRunner logs "Component X is running." / "... is finished." around
each node; its launcher logs "Going to run a new execution N" before an executor
runs, or "A cached execution N is used." when it reuses a result.
``ComponentProgress`` listens for exactly those records and prints one line per
component with its state and seconds; everything else goes to the log file. The
execution ids it keeps name this process's run in ML-Metadata, even when other runs
write to the same store at the same time.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from absl import logging as absl_logging

RUNNING = "Component %s is running."
FINISHED = "Component %s is finished."
CACHED_EXECUTION = "A cached execution %d is used."
_NEW = "Going to run a new execution %d"

RAN, CACHED, FAILED = "ran", "cached", "failed"


@dataclass
class ComponentTiming:
    """What one component did in this run and how long it took."""

    state: str
    seconds: float


@dataclass(eq=False)  # handlers must stay hashable
class ComponentProgress(logging.Handler):
    """A logging handler that turns runner records into one console line per component."""

    out: TextIO = sys.stdout
    timings: dict[str, ComponentTiming] = field(default_factory=dict)
    execution_ids: list[int] = field(default_factory=list)
    _current: str | None = None
    _started: float = 0.0
    _cached: bool = False

    def __post_init__(self) -> None:
        logging.Handler.__init__(self, level=logging.INFO)

    def emit(self, record: logging.LogRecord) -> None:
        """Follow the runner's component records; ignore everything else."""
        if record.msg == RUNNING:
            self._current, self._started, self._cached = record.args[0], time.monotonic(), False
        elif record.msg == CACHED_EXECUTION:
            self._cached = True
            self.execution_ids.append(record.args[0])
        elif record.msg == _NEW:
            self.execution_ids.append(record.args[0])
        elif record.msg == FINISHED and self._current is not None:
            self._finish(CACHED if self._cached else RAN)

    def fail_current(self) -> str | None:
        """Mark the component that was running as failed; its id, or None."""
        node = self._current
        if node is not None:
            self._finish(FAILED)
        return node

    def _finish(self, state: str) -> None:
        seconds = time.monotonic() - self._started
        self.timings[self._current] = ComponentTiming(state, seconds)
        print(format_component_line(self._current, state, seconds), file=self.out, flush=True)
        self._current = None


def format_component_line(node: str, state: str, seconds: float) -> str:
    """The console line of one component: its id, state and seconds."""
    return f"  {node:<28} {state:<7} {seconds:6.1f} s"


def component_line(line: str) -> tuple[str, str] | None:
    """(component id, state) of a ``format_component_line`` line; None for other lines."""
    parts = line.split()
    if len(parts) == 4 and parts[1] in (RAN, CACHED, FAILED) and parts[3] == "s":
        return parts[0], parts[1]
    return None


@contextmanager
def logs_to_file(log_file: Path, verbose: bool) -> Iterator[TextIO]:
    """Send all Python, absl, Beam and TensorFlow (C++) logging to ``log_file``.

    Yields a stream on the original stderr for messages meant for people. Without
    ``verbose`` the process's stderr (file descriptor 2, where TensorFlow's C++ code
    writes) is pointed at the log file; with it, logs go to both.
    """
    log_file.parent.mkdir(parents=True, exist_ok=True)
    stream = log_file.open("a", encoding="utf-8", buffering=1)
    formatter = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    handlers = [logging.StreamHandler(stream)]
    if verbose:
        handlers.append(logging.StreamHandler(sys.stderr))
    root = logging.getLogger()
    # absl's own handler would print to stderr a second time.
    root.removeHandler(absl_logging.get_absl_handler())
    absl_logging.set_verbosity(absl_logging.INFO)
    root.setLevel(logging.INFO)
    for handler in handlers:
        handler.setFormatter(formatter)
        root.addHandler(handler)
    saved_stderr = os.dup(2)
    people = os.fdopen(os.dup(saved_stderr), "w", buffering=1)
    if not verbose:
        sys.stderr.flush()
        os.dup2(stream.fileno(), 2)
    try:
        yield people
    finally:
        sys.stderr.flush()
        os.dup2(saved_stderr, 2)
        os.close(saved_stderr)
        for handler in handlers:
            root.removeHandler(handler)
        stream.close()
        people.flush()


@contextmanager
def attached(handler: logging.Handler) -> Iterator[None]:
    """``handler`` on the root logger for the duration: it sees the runner's records."""
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield
    finally:
        root.removeHandler(handler)


@contextmanager
def component_progress(out: TextIO = sys.stdout) -> Iterator[ComponentProgress]:
    """Attach a ``ComponentProgress`` to the root logger for the duration."""
    progress = ComponentProgress(out=out)
    with attached(progress):
        yield progress

"""Where each step's seconds go: a Python profile per component of a local run.

``wide-deep-run --profile DIR`` (and ``make bench ARGS="--profile DIR"``) profiles each
component that runs, from the runner's "Component X is running." record to its
"is finished." one (the records ``progress.ComponentProgress`` follows), with
``cProfile``. Each step that runs leaves ``DIR/<component>.prof`` (for ``pstats`` or
snakeviz) and ``DIR/<component>.txt``: the functions that took the most time, with
their callees (cumulative) and in themselves. A step served from the cache leaves
nothing (an earlier run's files for it stay). On Python 3.10 and 3.11 the profile sees
the thread that runs the component (TFX's local runner runs each in its main thread);
from 3.12 it sees every thread of the process. A Beam worker process, or TensorFlow's
own threads, show only as the time of the call that waited for them.

Where another profiler is already active in the process (``python -m cProfile``,
Beam's ``--profile_cpu``), that one is left alone and the step's ``.txt`` says so.
"""

from __future__ import annotations

import cProfile
import io
import logging
import pstats
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from pipeline_ops.session import progress

# The functions listed per step, by cumulative and by own time: enough to see the
# framework's stages and the hot spots under them on one screen each.
LISTED = 30
NOT_PROFILED = "not profiled: another profiler is active in this process"


@dataclass(eq=False)  # handlers must stay hashable
class StepProfiler(logging.Handler):
    """A logging handler that profiles each component between its runner records."""

    folder: Path
    written: list[Path] = field(default_factory=list)  # each profiled step's summary
    _node: str | None = field(default=None, init=False, repr=False)
    _profile: cProfile.Profile | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        logging.Handler.__init__(self, level=logging.INFO)

    def emit(self, record: logging.LogRecord) -> None:
        """Start a profile when a component runs; write it when the component finishes."""
        try:
            if record.msg == progress.RUNNING:
                self.finish()
                self._start(record.args[0])
            elif record.msg == progress.CACHED_EXECUTION:
                self._drop()
            elif record.msg == progress.FINISHED:
                self.finish()
        except Exception:  # noqa: BLE001 - a profile must never fail the step it watches
            self.handleError(record)

    def _start(self, node: str) -> None:
        profile = cProfile.Profile()
        try:
            if sys.getprofile() is not None:  # 3.10, 3.11: enable() would take its place
                raise ValueError(NOT_PROFILED)
            profile.enable()  # 3.12 and later raise ValueError themselves
        except ValueError:
            self.written.append(_write_text(self.folder, node, NOT_PROFILED + "\n"))
            return
        self._node, self._profile = node, profile

    def _drop(self) -> None:
        """A cached step: nothing ran worth a profile."""
        if self._profile is not None:
            self._profile.disable()
        self._node, self._profile = None, None

    def finish(self) -> None:
        """Write the running component's profile, if one is running (a failed step's too)."""
        if self._profile is None:
            return
        self._profile.disable()
        self.written.append(write(self._profile, self.folder, self._node))
        self._node, self._profile = None, None


def _write_text(folder: Path, node: str, text: str) -> Path:
    summary = folder / f"{node}.txt"
    summary.write_text(f"{node}: {text}")
    return summary


def write(profile: cProfile.Profile, folder: Path, node: str) -> Path:
    """``node``'s profile as ``<node>.prof`` and its summary as ``<node>.txt``; the summary."""
    profile.dump_stats(folder / f"{node}.prof")
    text = io.StringIO()
    stats = pstats.Stats(profile, stream=text)
    for order in (pstats.SortKey.CUMULATIVE, pstats.SortKey.TIME):
        stats.sort_stats(order).print_stats(LISTED)
    return _write_text(folder, node, f"{stats.total_tt:.1f} s profiled\n{text.getvalue()}")


@contextmanager
def step_profiles(folder: Path | None) -> Iterator[StepProfiler | None]:
    """Profile each component into ``folder`` for the duration (nothing where None).

    The folder is made where missing. ``wide-deep-run`` makes it before the run, so that
    one it cannot make is named (exit 2) before any step; here it raises OSError.
    """
    if folder is None:
        yield None
        return
    folder.mkdir(parents=True, exist_ok=True)
    profiler = StepProfiler(folder)
    try:
        with progress.attached(profiler):
            yield profiler
    finally:
        profiler.finish()

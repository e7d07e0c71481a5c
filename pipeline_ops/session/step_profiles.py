"""Where each step's seconds go: a Python profile per component of a local run.

``wide-deep-run --profile DIR`` (and ``make bench ARGS=--profile``) profiles each
component that runs, from the runner's "Component X is running." record to its
"is finished." one (the records ``progress.ComponentProgress`` follows), with
``cProfile``. Each step leaves ``DIR/<component>.prof`` (for ``pstats`` or snakeviz)
and ``DIR/<component>.txt``: the functions that took the most time, with callees
(cumulative) and in themselves. Only this process's threads that Python runs are
seen: the time of a Beam worker process, or of TensorFlow's own threads while Python
waits on them, shows in the call that waited.
"""

from __future__ import annotations

import cProfile
import io
import logging
import pstats
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from pipeline_ops.session import progress

# The functions listed per step, by cumulative and by own time: enough to see the
# framework's stages and the hot spots under them on one screen each.
LISTED = 30


@dataclass(eq=False)  # handlers must stay hashable
class StepProfiler(logging.Handler):
    """A logging handler that profiles each component between its runner records."""

    folder: Path
    written: list[Path] = field(default_factory=list)
    _node: str | None = None
    _profile: cProfile.Profile | None = None

    def __post_init__(self) -> None:
        logging.Handler.__init__(self, level=logging.INFO)

    def emit(self, record: logging.LogRecord) -> None:
        """Start a profile when a component runs; write it when the component finishes."""
        if record.msg == progress.RUNNING:
            self.finish()
            self._node, self._profile = record.args[0], cProfile.Profile()
            self._profile.enable()
        elif record.msg == progress.FINISHED:
            self.finish()

    def finish(self) -> None:
        """Write the running component's profile, if one is running (a failed step's too)."""
        if self._profile is None:
            return
        self._profile.disable()
        self.written.append(write(self._profile, self.folder, self._node))
        self._node, self._profile = None, None


def write(profile: cProfile.Profile, folder: Path, node: str) -> Path:
    """``node``'s profile as ``<node>.prof`` and its summary as ``<node>.txt``; the summary."""
    folder.mkdir(parents=True, exist_ok=True)
    profile.dump_stats(folder / f"{node}.prof")
    text = io.StringIO()
    stats = pstats.Stats(profile, stream=text).strip_dirs()
    for order in (pstats.SortKey.CUMULATIVE, pstats.SortKey.TIME):
        stats.sort_stats(order).print_stats(LISTED)
    summary = folder / f"{node}.txt"
    summary.write_text(f"{node}: {stats.total_tt:.1f} s profiled\n{text.getvalue()}")
    return summary


@contextmanager
def step_profiles(folder: Path | None) -> Iterator[StepProfiler | None]:
    """Profile each component into ``folder`` for the duration (nothing where None)."""
    if folder is None:
        yield None
        return
    profiler = StepProfiler(folder)
    try:
        with progress.attached(profiler):
            yield profiler
    finally:
        profiler.finish()

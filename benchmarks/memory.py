"""What a benchmarked command costs: its seconds and the resident memory of its processes.

The runs these benchmarks time start worker processes (Beam's, one per core), so the
memory that matters is that of the whole process tree, sampled from ``/proc``.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path


def _children(pid: int) -> set[int]:
    found, frontier = {pid}, [pid]
    while frontier:
        parent = frontier.pop()
        try:
            tasks = Path(f"/proc/{parent}/task").iterdir()
            kids = {int(k) for t in tasks for k in (t / "children").read_text().split()}
        except OSError:
            continue
        frontier += list(kids - found)
        found |= kids
    return found


def _rss_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class PeakMemory(threading.Thread):
    """Samples the RSS of a process and its descendants; the largest single process.

    ``peak_total_mib`` is the largest sum over the tree at one sample (shared pages counted
    in each process: an upper bound), for work spread over worker processes.

    ``take()`` returns the peak since the previous ``take()``: the runner prints a
    component's line when it finishes and runs components one at a time, so the
    peak between two lines is that component's.
    """

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak_mib, self.stopped = pid, 0.0, threading.Event()
        self.peak_total_mib = 0.0
        self._since_take, self._lock = 0.0, threading.Lock()

    def run(self) -> None:
        """Sample every 0.2 s until stopped."""
        while not self.stopped.wait(0.2):
            each = [_rss_mib(pid) for pid in _children(self.pid)]
            largest = max(each, default=0.0)
            with self._lock:
                self.peak_mib = max(self.peak_mib, largest)
                self.peak_total_mib = max(self.peak_total_mib, sum(each))
                self._since_take = max(self._since_take, largest)

    def take(self) -> float:
        """The peak RSS (MiB) since the previous call."""
        with self._lock:
            peak, self._since_take = self._since_take, 0.0
        return peak


def measured_run(
    command: list[str], what: str, env: dict[str, str] | None = None
) -> tuple[float, float]:
    """Seconds ``command`` took and the peak RSS of its processes together (MiB).

    On failure, exit with its output, naming ``what``.
    """
    with tempfile.TemporaryFile("w+") as output:
        started = time.monotonic()
        process = subprocess.Popen(
            command, env=env, stdout=output, stderr=subprocess.STDOUT, text=True
        )
        memory = PeakMemory(process.pid)
        memory.start()
        code = process.wait()
        memory.stopped.set()
        seconds = time.monotonic() - started
        if code != 0:
            output.seek(0)
            sys.exit(f"{what} failed (exit {code}):\n{output.read()}")
    return seconds, memory.peak_total_mib

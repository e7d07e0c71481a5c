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


def _field_mib(path: str, field: str) -> float:
    """A ``Name: N kB`` field of a /proc file, in MiB (0 once the process is gone)."""
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _rss_mib(pid: int) -> float:
    return _field_mib(f"/proc/{pid}/status", "VmRSS:")


def _pss_mib(pid: int) -> float:
    """The process's proportional set size: each shared page split among its sharers."""
    return _field_mib(f"/proc/{pid}/smaps_rollup", "Pss:")


class PeakMemory(threading.Thread):
    """Samples the RSS of a process and its descendants; the largest single process.

    ``peak_total_mib`` is the largest sum over the tree at one sample (shared pages counted
    in each process: an upper bound), for work spread over worker processes;
    ``peak_pss_mib`` the largest sum of their proportional set sizes (shared pages
    counted once), what the tree holds of the machine's memory.

    ``take()`` returns the peak since the previous ``take()``: the runner prints a
    component's line when it finishes and runs components one at a time, so the
    peak between two lines is that component's.
    """

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak_mib, self.stopped = pid, 0.0, threading.Event()
        self.peak_total_mib, self.peak_pss_mib = 0.0, 0.0
        self._since_take, self._lock = 0.0, threading.Lock()

    def run(self) -> None:
        """Sample every 0.2 s until stopped."""
        while not self.stopped.wait(0.2):
            tree = _children(self.pid)
            each = [_rss_mib(pid) for pid in tree]
            largest = max(each, default=0.0)
            proportional = sum(_pss_mib(pid) for pid in tree)
            with self._lock:
                self.peak_pss_mib = max(self.peak_pss_mib, proportional)
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
    """Seconds ``command`` took and the peak memory of its processes together (PSS, MiB).

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
    return seconds, memory.peak_pss_mib

"""A benchmark's figures as a section of ``docs/benchmarks/speed.md``: machine, date, table.

The machines are shared and their speed drifts, so a figure means something only
beside the machine, the day, the stack and the commit it was measured on, and a
ratio only between runs made side by side. Each section says all of them.
"""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
RECORD = "docs/benchmarks/speed.md"


def _os_name() -> str:
    """The distribution's name and version, as /etc/os-release gives them."""
    release = Path("/etc/os-release")
    if release.exists():
        for line in release.read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip('"')
    return platform.platform()


def _memory_gib() -> float:
    """The machine's memory (MemTotal)."""
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) / (1 << 20)
    return 0.0


def commit() -> str:
    """The checkout's short commit, ``+changes`` when its code differs from it.

    The speed record itself is left out: a benchmark's earlier sections change no code.
    Read when a benchmark starts, before anything it measures runs.
    """
    git = ["git", "-C", str(PROJECT)]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(
        [*git, "status", "--porcelain", "--untracked-files=no", "--", ".", f":!{RECORD}"],
        capture_output=True, text=True,
    )  # fmt: skip
    return (head.stdout.strip() or "no commit") + ("+changes" if dirty.stdout.strip() else "")


def machine(at: str) -> str:
    """One line: the system, cores, memory, Python and TFX, the commit ``at``."""
    return (
        f"{_os_name()}, {os.cpu_count()} cores, {_memory_gib():.1f} GiB; Python "
        f"{platform.python_version()}, TFX {metadata.version('tfx')}; at {at}"
    )


def _seconds(value: float | None) -> str:
    return "" if value is None else f"{value:.1f} s"


def _ratio(ours: float | None, theirs: float | None, least: float) -> str:
    """``ours / theirs``; blank where either is missing or below ``least`` (noise)."""
    if ours is None or theirs is None or min(ours, theirs) < least:
        return ""
    return f"{ours / theirs:.2f}"


def _runs(runs: int, reference: bool) -> str:
    """How the figures were taken."""
    if runs == 1:
        return (
            "One run, followed by one of TFX's example on the same data" if reference else "One run"
        )
    figures = f"Medians of {runs} runs"
    if reference:
        return f"{figures}, each followed by one of TFX's example on the same data"
    return figures


def _row(name: str, ours: float | None, theirs: float | None, shown: str = "") -> str:
    """One table row: this pipeline's figure, the reference's and their ratio.

    Seconds under one are not compared: a step of a tenth of a second is noise.
    """
    show = (lambda v: "" if v is None else shown.format(v)) if shown else _seconds
    ratio = _ratio(ours, theirs, 0.0 if shown else 1.0)
    return f"| {name} | {show(ours)} | {show(theirs)} | {ratio} |"


def section(figures: dict, rows: int, command: str, at: str) -> str:
    """The markdown section of one benchmark at commit ``at``: heading, machine, table."""
    ours = figures["component_seconds_median"]
    reference = figures.get("reference", {})
    theirs = reference.get("component_seconds_median", {})
    steps = list(ours) + [name for name in theirs if name not in ours]
    lines = [
        f"### {datetime.date.today().isoformat()}, {rows:,} rows, TFX {metadata.version('tfx')}",
        "",
        f"{machine(at)}. {_runs(figures['runs'], bool(reference))}: `{command}`.",
        "",
        "| step | this pipeline | TFX's example | this / example |",
        "|---|---|---|---|",
        *(_row(step, ours.get(step), theirs.get(step)) for step in steps),
        _row(
            "**end to end**", figures["wall_seconds_median"], reference.get("wall_seconds_median")
        ),
        _row(
            "peak memory, all processes (PSS)",
            figures["peak_memory_mib_median"] / 1024,
            reference["peak_memory_mib_median"] / 1024 if reference else None,
            "{:.2f} GiB",
        ),
        "",
        f"Test AUC of each run: {', '.join(f'{a:.4f}' for a in figures['auc'] if a is not None)}.",
        "",
    ]
    return "\n".join(lines)

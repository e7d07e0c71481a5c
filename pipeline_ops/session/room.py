"""Room for a run: the disk and memory a run of this input needs, checked before it starts.

A large run that finds too little disk or memory half way dies inside a step: a write
error deep in Beam, or the kernel's out-of-memory kill, which says nothing at all. What
a local run needs grows with its input as ``make bench-scale`` measured it
(docs/decisions/speed-and-scale.md, "15M rows"), so the runner compares that estimate
with what the machine has free before the first step, and refuses in one line naming
both. The estimates are a little above the measurements: a run that fits is never
refused, and a run refused would not have fitted by much.
"""

from __future__ import annotations

import argparse
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

# The output dir's growth over a run, per byte of CSV read: the encoded examples (a
# third to a half of the CSV's size), Beam's temporary copies while they are written,
# and what is fixed (the models, the statistics, the review) on top.
DISK_PER_INPUT_BYTE = 0.6
DISK_FIXED_BYTES = 64 << 20
# The largest moment of the runner's processes together: the runner itself (TFX,
# TensorFlow and the step's work), and each Beam worker process beside it.
MEMORY_RUNNER_BYTES = 2 << 30
MEMORY_PER_BEAM_WORKER_BYTES = 1 << 30


class NotEnoughRoomError(ValueError):
    """The machine has less free disk or memory than a run of this input needs."""


@dataclass(frozen=True)
class Room:
    """Bytes of disk (where the output dir is) and of memory (None: not known here)."""

    disk: int
    memory: int | None


def beam_workers(beam_args: tuple[str, ...]) -> int:
    """How many worker processes the DirectRunner starts beside the runner with these args.

    Read as Beam reads them (``--flag=value`` or ``--flag value``); ValueError for a
    worker count that is not a number.
    """
    parser = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    parser.add_argument("--direct_running_mode", default="in_memory")
    parser.add_argument("--direct_num_workers", type=int, default=1)  # Beam's default
    try:
        known, _ = parser.parse_known_args(list(beam_args))
    except argparse.ArgumentError as err:
        raise ValueError(f"--beam-arg: {err}") from None
    if known.direct_running_mode != "multi_processing":
        return 0
    return known.direct_num_workers or os.cpu_count() or 1  # 0 asks for a worker per core


def workers_that_fit(cores: int, available: int | None) -> int:
    """Beam workers for a large input: one per core, but no more than the memory holds."""
    if available is None:
        return cores
    room_for = (available - MEMORY_RUNNER_BYTES) // MEMORY_PER_BEAM_WORKER_BYTES
    return max(1, min(cores, room_for))


def needed(input_bytes: int, beam_args: tuple[str, ...]) -> Room:
    """What a run reading ``input_bytes`` of CSV with ``beam_args`` needs, at most."""
    return Room(
        disk=DISK_FIXED_BYTES + round(DISK_PER_INPUT_BYTE * input_bytes),
        memory=MEMORY_RUNNER_BYTES + beam_workers(beam_args) * MEMORY_PER_BEAM_WORKER_BYTES,
    )


def free(output_dir: Path) -> Room:
    """The disk free where ``output_dir`` is (or will be made), and the memory available."""
    existing = next(p for p in (output_dir, *output_dir.parents) if p.exists())
    return Room(disk=shutil.disk_usage(existing).free, memory=available_memory())


def available_memory() -> int | None:
    """Linux's estimate of the memory new work can take (MemAvailable); None elsewhere."""
    meminfo = Path("/proc/meminfo")
    if not meminfo.is_file():
        return None
    for line in meminfo.read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return None


def _gb(size: int) -> str:
    return f"{size / 1e9:.1f} GB"


def shortfall(need: Room, have: Room, input_bytes: int, output_dir: Path) -> str:
    """What there is too little of, in one line for people; "" when the run fits."""
    if have.disk < need.disk:
        return (
            f"not enough disk for this run: {_gb(input_bytes)} of CSV needs about "
            f"{_gb(need.disk)} free under {output_dir}, and {_gb(have.disk)} is free there; "
            "free some, or give --output-dir on a larger disk"
        )
    if have.memory is not None and have.memory < need.memory:
        return (
            f"not enough memory for this run: {_gb(input_bytes)} of CSV needs about "
            f"{_gb(need.memory)} of memory, and {_gb(have.memory)} is available; close "
            "other programs, or run Beam with fewer workers (--beam-arg=--direct_num_workers=1)"
        )
    return ""


def check(output_dir: Path, input_bytes: int, beam_args: tuple[str, ...]) -> None:
    """Raise NotEnoughRoomError when this machine cannot hold the run, before anything runs."""
    problem = shortfall(needed(input_bytes, beam_args), free(output_dir), input_bytes, output_dir)
    if problem:
        raise NotEnoughRoomError(problem)

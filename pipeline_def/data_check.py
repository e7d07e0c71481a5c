"""Checks on the data root before any component runs, with messages for people."""

from __future__ import annotations

from pathlib import Path


class DataRootError(ValueError):
    """The data root cannot feed the pipeline; the message names the path and why."""


def check_data_root(root: Path, pattern: str) -> list[Path]:
    """The CSV files matching ``pattern`` in ``root``, or DataRootError saying what is wrong."""
    if not root.exists():
        raise DataRootError(f"data root {root} does not exist")
    if not root.is_dir():
        raise DataRootError(
            f"data root {root} is not a directory (give the folder holding the CSV files)"
        )
    files = sorted(p for p in root.glob(pattern) if p.is_file())
    if not files:
        others = sorted(p.name for p in root.iterdir() if not p.name.startswith("."))
        found = f"it holds {', '.join(others[:5])}" if others else "it is empty"
        raise DataRootError(f"data root {root} has no {pattern} files: {found}")
    for path in files:
        with path.open("rb") as f:
            lines = [f.readline() for _ in range(2)]
        if not lines[0].strip():
            raise DataRootError(f"data file {path} is empty")
        if not lines[1].strip():
            raise DataRootError(f"data file {path} has a header but no rows")
    return files

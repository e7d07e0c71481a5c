"""A generated panel table (people observed each year, a planted effect per person), drafted."""

from __future__ import annotations

import csv
import io
import random
from collections.abc import Callable
from pathlib import Path

from pipeline_ops.cli import draft_dataset

PEOPLE, YEARS = 150, 6


def panel(path: Path, edit: Callable[[list[list]], list[list]] | None = None) -> Path:
    """People observed each year, with an age (a repeating number) and a planted effect."""
    rng = random.Random(3)
    rows = []
    for person in range(PEOPLE):
        effect, age = rng.gauss(0, 2), rng.randint(20, 60)
        for year in range(YEARS):
            income = rng.gauss(50, 15)
            z = effect + 0.03 * (income - 50) - 1
            leave = rng.random() < 1 / (1 + 2.718**-z)
            rows.append([f"P{person:04d}", 2015 + year, age + year, round(income, 1),
                         "yes" if leave else "no"])  # fmt: skip
    if edit:
        rows = edit(rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["person nr", "year", "age", "income", "left"])
        writer.writerows(rows)
    return path


def draft(tmp_path: Path, table: Path, *flags: str) -> tuple[int, str]:
    """The drafting command's exit code, and the declaration it wrote ("": none)."""
    code = draft_dataset.main(
        ["panel", str(table), "left", "yes", "--datasets-dir", str(tmp_path / "ds"),
         "--data-dir", str(tmp_path / "data"), *flags]
    )  # fmt: skip
    source = tmp_path / "ds" / "panel" / "__init__.py"
    return code, source.read_text() if source.exists() else ""


def drafted_in_process(tmp_path: Path, **options: str | bool | None) -> tuple[str, str]:
    """The panel drafted by ``draft_dataset.draft`` itself: what it printed, the declaration.

    ``options`` are the draft's keyword arguments (``test_period=""``, ...).
    """
    out = io.StringIO()
    folder = draft_dataset.draft(
        "panel", panel(tmp_path / "panel.csv"), "left", "yes",
        datasets_dir=tmp_path / "ds", data_dir=tmp_path / "data", out=out, **options,
    )  # fmt: skip
    return out.getvalue(), (folder / "__init__.py").read_text()

"""Shared fixtures: small slices of the shipped data, and Transform run for real."""

from __future__ import annotations

import csv
import itertools
from pathlib import Path

import pytest

from pipeline_def.config import DEFAULT_DATA_ROOT

SHIPPED_CSV = DEFAULT_DATA_ROOT / "taxi.csv"


def write_head(rows: int, folder: Path) -> Path:
    """Write the header and the first ``rows`` rows of the shipped CSV into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "taxi.csv"
    with SHIPPED_CSV.open(newline="") as src, target.open("w", newline="") as dst:
        for i, line in enumerate(src):
            if i > rows:
                break
            dst.write(line)
    return target


@pytest.fixture(scope="session")
def sample_rows() -> list[dict[str, str]]:
    """The first 400 rows of the shipped data, as CSV strings by column."""
    with SHIPPED_CSV.open(newline="") as f:
        reader = csv.DictReader(f)
        return list(itertools.islice(reader, 400))


@pytest.fixture(scope="session")
def small_data_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data root holding the first 5,000 rows of the shipped data."""
    root = tmp_path_factory.mktemp("data")
    write_head(5000, root)
    return root

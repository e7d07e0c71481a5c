"""Broken copies of the taxi sample, each with who stops it and what they say.

Shared by the runner's fast pre-flight tests and the end-to-end bad-input runs.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pipeline_def.project_paths import sample_csv

ROWS = 1500  # enough for statistics, small enough for a quick ExampleGen
Rows = list[dict[str, str]]


def taxi_rows() -> Rows:
    with sample_csv("taxi").open(newline="") as f:
        return [row for _, row in zip(range(ROWS), csv.DictReader(f), strict=False)]


def write_rows(
    path: Path, rows: Rows, columns: list[str] | None = None, delimiter: str = ","
) -> None:
    columns = columns or list(rows[0])
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(
            f, columns, extrasaction="ignore", delimiter=delimiter, lineterminator="\n"
        )
        writer.writeheader()
        writer.writerows(rows)


def set_every(column: str, value: str, every: int = 50) -> Callable[[Rows], Rows]:
    def change(rows: Rows) -> Rows:
        for row in rows[::every]:
            row[column] = value
        return rows

    return change


@dataclass(frozen=True)
class Case:
    """A broken data root: how to make it, who stops it, and what they say."""

    make: Callable[[Path, Rows], None]
    exit_code: int
    stopped_by: str | None  # None: the runner's pre-flight check, before any component
    message: str


def one_file(change: Callable[[Rows], Rows], **kw: object) -> Callable[[Path, Rows], None]:
    return lambda root, rows: write_rows(root / "taxi.csv", change(rows), **kw)


def cash_to_card(rows: Rows) -> Rows:
    """Half the cash trips paid by card instead: values in the domain, shares shifted."""
    cash = [row for row in rows if row["payment_type"] == "Cash"]
    for row in cash[::2]:
        row["payment_type"] = "Credit Card"
    return rows


def with_bytes(placeholder: str, raw: bytes) -> Callable[[Path, Rows], None]:
    """Write the rows with ``placeholder`` in some company cells, then put ``raw`` there."""

    def make(root: Path, rows: Rows) -> None:
        write_rows(root / "taxi.csv", set_every("company", placeholder, every=100)(rows))
        path = root / "taxi.csv"
        path.write_bytes(path.read_bytes().replace(placeholder.encode(), raw))

    return make


def ragged(root: Path, rows: Rows) -> None:
    """A row that lost its last cell."""
    path = root / "taxi.csv"
    write_rows(path, rows)
    lines = path.read_text().splitlines(keepends=True)
    lines[10] = lines[10].rsplit(",", 1)[0] + "\n"
    path.write_text("".join(lines))


PREFLIGHT_CASES = {
    "non-utf8": Case(
        with_bytes("CAFE", b"Caf\xe9"), 2, None,
        "taxi.csv is not UTF-8 text (byte 0xe9 at line 2, offset ",
    ),
    "repeated-header": Case(
        lambda root, rows: (
            write_rows(root / "taxi.csv", rows),
            (root / "taxi.csv").write_text((root / "taxi.csv").read_text() * 2),
        ),
        2, None, f"repeats its header at line {ROWS + 2}",
    ),
    "semicolon-delimited": Case(
        one_file(lambda r: r, delimiter=";"), 2, None, "is semicolon-delimited",
    ),
    "good-and-bad-files": Case(
        lambda root, rows: (
            write_rows(root / "a_good.csv", rows),
            write_rows(root / "b_bad.csv", rows, columns=[c for c in rows[0] if c != "fare"]),
        ),
        2, None, "b_bad.csv has other columns than a_good.csv: missing ['fare']",
    ),
}  # fmt: skip

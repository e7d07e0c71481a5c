"""Files as people export them: the same table written the ways exports write it.

The Arrow ExampleGen tests check that each gives the examples the plain file gives;
the pre-flight tests, that each passes the runner's check of the data root.
"""

from __future__ import annotations

import csv
import gzip
import io
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from pipeline_def.project_paths import sample_csv


def table() -> tuple[list[str], list[list[str]]]:
    """The header and 300 rows of the shipped sample, quotes and commas in some cells."""
    with sample_csv("taxi").open(newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = [row for _, row in zip(range(300), reader, strict=False)]
    company = header.index("company")
    for row in rows[::25]:
        row[company] = 'Taxi "Best", Inc.'
    return header, rows


def csv_text(header: list[str], rows: list[list[str]], **format: object) -> str:
    """The table as CSV text, written by Python's csv module with ``format``."""
    out = io.StringIO()
    writer = csv.writer(out, **{"lineterminator": "\n", **format})
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def pandas_export(text: str) -> str:
    """``text`` read and written back by pandas: integer columns with gaps become 10.0."""
    return pd.read_csv(io.StringIO(text)).to_csv(index=False)


# How people's exports of the same table differ from the plain file: each writes the
# files of a data root from the plain file's header and rows.
Habit = Callable[[Path, list[str], list[list[str]]], None]
HABITS: dict[str, Habit] = {
    "byte-order-mark": lambda root, header, rows: (root / "t.csv").write_text(
        "\ufeff" + csv_text(header, rows)
    ),
    "gzip": lambda root, header, rows: (root / "t.csv.gz").write_bytes(
        gzip.compress(csv_text(header, rows).encode())
    ),
    "whole-floats-from-pandas": lambda root, header, rows: (root / "t.csv").write_text(
        pandas_export(csv_text(header, rows))
    ),
    "crlf": lambda root, header, rows: (root / "t.csv").write_bytes(
        csv_text(header, rows, lineterminator="\r\n").encode()
    ),
    "every-field-quoted": lambda root, header, rows: (root / "t.csv").write_text(
        csv_text(header, rows, quoting=csv.QUOTE_ALL)
    ),
    "no-final-newline": lambda root, header, rows: (root / "t.csv").write_text(
        csv_text(header, rows).rstrip("\n")
    ),
    "trailing-empty-lines": lambda root, header, rows: (root / "t.csv").write_text(
        csv_text(header, rows) + "\n\n"
    ),
    # A spreadsheet's "CSV UTF-8" (mark and CRLF), a gzipped part and a pandas part.
    "several-files-several-habits": lambda root, header, rows: (
        (root / "a.csv").write_bytes(
            b"\xef\xbb\xbf" + csv_text(header, rows[:100], lineterminator="\r\n").encode()
        ),
        (root / "b.csv.gz").write_bytes(gzip.compress(csv_text(header, rows[100:200]).encode())),
        (root / "c.csv").write_text(pandas_export(csv_text(header, rows[200:]))),
    ),
}

"""The table a dataset is drafted from: read as people export it, and checked.

Every check names the file and what is wrong (``DraftError``), before anything is
written: a missing or empty file, duplicate columns, a label that is not there or
cannot be learned, too few rows, a name that is taken. Rows whose label cell is empty
are set aside, never read as negatives: the draft sees, and copies, the labelled rows.
"""

from __future__ import annotations

import csv
import io
import keyword
import re
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from data_layout import csv_files

# Below this many rows a 2:1 split leaves too few examples to train on and judge.
MIN_ROWS = 100
# Each class needs examples in both splits.
MIN_PER_CLASS = 10
NAME_PATTERN = re.compile(r"[a-z][a-z0-9_]*\Z")


class DraftError(ValueError):
    """The input cannot be drafted; the message says what and where."""


@dataclass(frozen=True)
class Table:
    """A CSV file's header and cells (as text), read once."""

    path: Path
    columns: tuple[str, ...]
    cells: dict[str, list[str]]
    # The file's CSV text as ExampleGen reads it: without a byte-order mark, unzipped.
    text: str
    # Each row's lines of the text: [first, end), counted from 0 (a quoted cell may
    # hold line breaks).
    spans: tuple[tuple[int, int], ...] = ()

    @property
    def rows(self) -> int:
        """The number of data rows."""
        return len(self.cells[self.columns[0]])

    def line(self, row: int) -> int:
        """The line of the file where data row ``row`` (from 0) starts, from 1."""
        return self.spans[row][0] + 1

    def without(self, rows: Collection[int]) -> Table:
        """The table without data rows ``rows`` (from 0): its text too, line for line."""
        lines = _lines(self.text)
        for row in rows:
            first, end = self.spans[row]
            lines[first:end] = [""] * (end - first)
        return _parsed(self.path, "".join(lines))


def _lines(text: str) -> list[str]:
    """The text's lines with their ends, split as the csv module reads them."""
    return list(io.StringIO(text, newline=""))


@dataclass(frozen=True)
class Labelled:
    """The rows a label was given: the table of them, their 0/1 labels, the rows set aside."""

    table: Table
    labels: list[int]
    # The lines (from 1) of the rows whose label cell is empty: left out of the draft.
    unlabelled: tuple[int, ...]


def read_text(path: Path) -> str:
    """The CSV text of ``path`` as people export it: a BOM dropped, .csv.gz unzipped.

    DraftError for a missing file, one that is not UTF-8 or a broken gzip file.
    """
    if not path.is_file():
        raise DraftError(f"{path}: no such file")
    try:
        with path.open("rb") as raw, csv_files.gzip_errors(str(path)):
            data = csv_files.decompressed(raw, str(path)).read()
        return "".join(
            chunk.decode("utf-8") for chunk in csv_files.utf8_checked([data], str(path))
        ).removeprefix("\ufeff")
    except csv_files.CsvFormatError as err:
        raise DraftError(str(err)) from None


def read_table(path: Path) -> Table:
    """The table at ``path``; DraftError for a missing, empty or malformed file."""
    table = _parsed(path, read_text(path))
    _check_rows(table, table.rows)
    return table


def _parsed(path: Path, text: str) -> Table:
    """The table the CSV ``text`` holds; DraftError for an empty or malformed one."""
    reader = csv.reader(_lines(text))
    header = next(reader, None)
    if not header or not any(h.strip() for h in header):
        raise DraftError(f"{path}: the file is empty (no header row)")
    duplicates = sorted(name for name, n in Counter(header).items() if n > 1)
    if duplicates:
        raise DraftError(f"{path}: duplicate column name(s) {', '.join(duplicates)}")
    cells: dict[str, list[str]] = {name: [] for name in header}
    spans = []
    first = reader.line_num
    for row in reader:
        span, first = (first, reader.line_num), reader.line_num
        if not row:
            continue  # an empty line, as at the end of many exports
        if len(row) != len(header):
            raise DraftError(
                f"{path}:{span[0] + 1}: a row has {len(row)} cells where the header has "
                f"{len(header)}"
            )
        for name, value in zip(header, row, strict=True):
            cells[name].append(value.strip())
        spans.append(span)
    return Table(path, tuple(header), cells, text, tuple(spans))


def _check_rows(table: Table, rows: int, unlabelled: int = 0) -> None:
    """DraftError when ``rows`` (those with a label, of ``table``) are too few to split."""
    if rows < MIN_ROWS:
        aside = f" with a label ({unlabelled} without one set aside)" if unlabelled else ""
        raise DraftError(
            f"{table.path}: too few rows to split: {rows}{aside}, at least {MIN_ROWS} are "
            "needed (a third of them judge the model)"
        )


def check_label(table: Table, label: str, positive: str) -> Labelled:
    """The rows with a label, and their 0/1 labels; DraftError when it cannot be learned.

    Rows whose label cell is empty are set aside: an unknown label is no negative.
    """
    if label not in table.cells:
        raise DraftError(
            f"{table.path}: no label column {label!r}; the columns are {', '.join(table.columns)}"
        )
    counts = Counter(v for v in table.cells[label] if v)
    if positive not in counts:
        seen = ", ".join(repr(v) for v, _ in counts.most_common(10))
        raise DraftError(
            f"{table.path}: POSITIVE {positive!r} never occurs in column {label!r} "
            f"(its values: {seen or 'none'})"
        )
    empty = [row for row, v in enumerate(table.cells[label]) if not v]
    labelled = table.without(empty) if empty else table
    _check_rows(table, labelled.rows, len(empty))
    labels = [int(v == positive) for v in labelled.cells[label]]
    positives = sum(labels)
    if positives == len(labels):
        rows = "labelled row" if empty else "row"
        raise DraftError(
            f"{table.path}: the label {label} == {positive!r} has one class only "
            f"(every {rows} is positive)"
        )
    fewest = min(positives, len(labels) - positives)
    if fewest < MIN_PER_CLASS:
        raise DraftError(
            f"{table.path}: too few rows to split: the label {label} == {positive!r} has "
            f"{fewest} row(s) of one class, at least {MIN_PER_CLASS} are needed"
        )
    return Labelled(labelled, labels, tuple(table.line(row) for row in empty))


def check_name(name: str, datasets_dir: Path, data_dir: Path, csv_path: Path, overwrite: bool):
    """DraftError unless ``name`` is a valid dataset name that is free (or may be replaced)."""
    if not NAME_PATTERN.match(name) or keyword.iskeyword(name):
        raise DraftError(
            f"NAME {name!r} must be lower-case letters, digits and _ , starting with a letter"
        )
    taken = [p for p in (datasets_dir / name, data_dir / name / f"{name}.csv") if p.exists()]
    taken = [p for p in taken if not (p.is_file() and p.samefile(csv_path))]
    if taken and not overwrite:
        raise DraftError(
            f"dataset {name!r} already exists ({', '.join(map(str, taken))}): choose another "
            "NAME, or add --overwrite (make dataset ... ARGS=--overwrite) to replace it"
        )

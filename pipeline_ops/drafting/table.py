"""The table a dataset is drafted from: read as people export it, and checked.

Every check names the file and what is wrong (``DraftError``), before anything is
written: a missing or empty file, duplicate columns, a label that is not there or
cannot be learned, too few rows, a name that is taken.
"""

from __future__ import annotations

import csv
import io
import keyword
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from components import csv_files

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

    @property
    def rows(self) -> int:
        """The number of data rows."""
        return len(self.cells[self.columns[0]])


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
    text = read_text(path)
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if not header or not any(h.strip() for h in header):
        raise DraftError(f"{path}: the file is empty (no header row)")
    duplicates = sorted(name for name, n in Counter(header).items() if n > 1)
    if duplicates:
        raise DraftError(f"{path}: duplicate column name(s) {', '.join(duplicates)}")
    cells: dict[str, list[str]] = {name: [] for name in header}
    for line, row in enumerate(reader, start=2):
        if not row:
            continue  # an empty line, as at the end of many exports
        if len(row) != len(header):
            raise DraftError(
                f"{path}:{line}: a row has {len(row)} cells where the header has {len(header)}"
            )
        for name, value in zip(header, row, strict=True):
            cells[name].append(value.strip())
    table = Table(path, tuple(header), cells, text)
    if table.rows < MIN_ROWS:
        raise DraftError(
            f"{path}: too few rows to split: {table.rows}, at least {MIN_ROWS} are needed "
            "(a third of them judge the model)"
        )
    return table


def check_label(table: Table, label: str, positive: str) -> list[int]:
    """The 0/1 label of every row; DraftError when it cannot be learned."""
    if label not in table.cells:
        raise DraftError(
            f"{table.path}: no label column {label!r}; the columns are {', '.join(table.columns)}"
        )
    values = table.cells[label]
    counts = Counter(v for v in values if v)
    if positive not in counts:
        seen = ", ".join(repr(v) for v, _ in counts.most_common(10))
        raise DraftError(
            f"{table.path}: POSITIVE {positive!r} never occurs in column {label!r} "
            f"(its values: {seen or 'none'})"
        )
    labels = [int(v == positive) for v in values]
    positives = sum(labels)
    if positives == len(labels) or len(counts) < 2 and positives + values.count("") == len(labels):
        raise DraftError(
            f"{table.path}: the label {label} == {positive!r} has one class only "
            f"(every row is {'positive' if positives == len(labels) else 'negative'})"
        )
    fewest = min(positives, len(labels) - positives)
    if fewest < MIN_PER_CLASS:
        raise DraftError(
            f"{table.path}: too few rows to split: the label {label} == {positive!r} has "
            f"{fewest} row(s) of one class, at least {MIN_PER_CLASS} are needed"
        )
    return labels


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

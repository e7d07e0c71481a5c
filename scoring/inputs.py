"""The rows to score, in blocks of text cells, from CSV files or JSON lines.

CSV is read by ExampleGen's reader (``data_layout.csv_examples.read_batches``):
the same bytes become the same cells as in training, gzip, a byte-order mark, quoting
and ragged rows alike. JSON lines (one object per line, as REST clients send rows)
become the same cells: a number as it is written, text as it is, null or an absent key
as an empty cell. Column order and extra columns do not matter.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from data_layout.csv_examples import read_batches, read_header
from data_layout.csv_files import SUFFIXES

JSONL = ".jsonl"
# Rows per JSON-lines block: about the CSV reader's block (4 MB, some 35k taxi rows).
JSONL_ROWS = 32_768


class ScoringInputError(ValueError):
    """Rows that cannot be scored; the message names the file, and the row where one."""


@dataclass(frozen=True)
class Block:
    """Rows of one file as text cells (null: empty), and the number of its first row."""

    path: Path
    first_row: int
    cells: pa.RecordBatch


def input_files(path: Path) -> list[Path]:
    """The files ``path`` names: itself, or the CSV and JSON-lines files of a folder."""
    if path.is_dir():
        found = sorted(p for p in path.iterdir() if p.name.endswith((*SUFFIXES, JSONL)))
        if not found:
            raise ScoringInputError(f"{path}: no .csv, .csv.gz or .jsonl file in the folder")
        return found
    if not path.is_file():
        raise ScoringInputError(f"{path}: no such file or folder")
    if not path.name.endswith((*SUFFIXES, JSONL)):
        raise ScoringInputError(f"{path}: not a .csv, .csv.gz or .jsonl file")
    return [path]


def history_files(path: Path) -> list[Path]:
    """The CSV files under ``path`` (a file, or a data root of files or span folders)."""
    if path.is_file():
        return [path]
    found = sorted(
        p
        for p in path.rglob("*")
        if p.is_file()
        and p.name.endswith(SUFFIXES)
        # hidden and marker files, and such folders, are no data (as ExampleGen skips them)
        and not any(part.startswith((".", "_")) for part in p.relative_to(path).parts)
    )
    if not found:
        raise ScoringInputError(
            f"{path}: no CSV file to read the entities' history from (--history PATH)"
        )
    return found


def _missing(path: Path, columns: Sequence[str], needed: Sequence[str]) -> None:
    """ScoringInputError naming the first needed column ``columns`` lacks."""
    absent = [c for c in needed if c not in columns]
    if absent:
        raise ScoringInputError(
            f"{path}: no column {absent[0]!r}"
            + (f" (nor {', '.join(map(repr, absent[1:]))})" if absent[1:] else "")
            + "; the model reads it, or it was asked to be kept"
        )


def csv_blocks(path: Path, needed: Sequence[str]) -> Iterator[Block]:
    """The rows of a CSV file in blocks; ScoringInputError if a ``needed`` column is absent."""
    names = read_header(str(path))
    _missing(path, names, needed)
    first = 1
    for batch in read_batches(str(path), names):
        yield Block(path, first, batch)
        first += batch.num_rows


def _cell(value: Any, path: Path, number: int, column: str) -> str | None:
    """A JSON value as the text cell a CSV would hold; None for null."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else None
    if isinstance(value, str):
        return value
    raise ScoringInputError(f"{path}: line {number}, {column!r} holds {json.dumps(value)[:60]}")


def _rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each line's object with its line number; blank lines skipped."""
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as err:
                raise ScoringInputError(f"{path}: line {number} is not JSON: {err.msg}") from None
            if not isinstance(row, dict):
                raise ScoringInputError(f"{path}: line {number} is not a JSON object")
            yield number, row


def jsonl_blocks(path: Path, needed: Sequence[str]) -> Iterator[Block]:
    """The objects of a JSON-lines file in blocks of the ``needed`` columns' cells.

    A key absent from an object is an empty cell; one absent from every object of the
    file is a ScoringInputError (found at its end: the caller writes nothing then).
    """
    seen: set[str] = set()
    chunk: list[tuple[int, dict[str, Any]]] = []
    first = 1
    for number, row in _rows(path):
        seen.update(row)
        chunk.append((number, row))
        if len(chunk) == JSONL_ROWS:
            yield Block(path, first, _batch(path, chunk, needed))
            first += len(chunk)
            chunk = []
    if chunk:
        yield Block(path, first, _batch(path, chunk, needed))
    _missing(path, sorted(seen), needed)


def _batch(path: Path, chunk: list[tuple[int, dict]], needed: Sequence[str]) -> pa.RecordBatch:
    columns = {
        c: pa.array([_cell(row.get(c), path, n, c) for n, row in chunk], pa.string())
        for c in needed
    }
    return pa.RecordBatch.from_pydict(columns)


def blocks(path: Path, needed: Sequence[str]) -> Iterator[Block]:
    """The rows of one input file (CSV or JSON lines), in blocks."""
    reader = jsonl_blocks if path.name.endswith(JSONL) else csv_blocks
    yield from reader(path, needed)

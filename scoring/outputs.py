"""Scored rows written as CSV, Parquet or JSON lines, chosen by the output's extension.

Rows are appended block by block (memory stays bounded) to a hidden temporary file
beside the output, renamed into place only when every row is written: a scoring run
that stops leaves no half-written output, and an earlier output stays until replaced.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

FORMATS = (".csv", ".parquet", ".jsonl")


class OutputPathError(ValueError):
    """An output path that cannot take the scores."""


def checked(path: Path, inputs: Sequence[Path] = ()) -> Path:
    """``path`` if it can be written as scores over none of ``inputs``; OutputPathError if not."""
    if any(path.resolve() == i.resolve() for i in inputs):
        raise OutputPathError(f"{path} is an input: name another file for the scores")
    if path.is_dir():
        raise OutputPathError(f"{path} is a folder: name a file ending in {', '.join(FORMATS)}")
    if path.suffix not in FORMATS:
        raise OutputPathError(f"{path}: the output's extension is one of {', '.join(FORMATS)}")
    return path


class ScoresWriter:
    """Appends record batches to ``path`` (by its extension); the file appears at the end."""

    def __init__(self, path: Path) -> None:
        """A writer of ``path``, which must be ``checked``."""
        self.path = path
        self.partial = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.partial")
        self._writer: Any = None
        self._lines: Any = None
        self._raw: Any = None  # the parts' bytes, where appended

    def write(self, batch: pa.RecordBatch) -> None:
        """Append ``batch``'s rows."""
        if self.path.suffix == ".jsonl":
            if self._lines is None:
                self.partial.parent.mkdir(parents=True, exist_ok=True)
                self._lines = self.partial.open("w", encoding="utf-8")
            for row in batch.to_pylist():
                self._lines.write(json.dumps(row) + "\n")
            return
        if self._writer is None:
            self.partial.parent.mkdir(parents=True, exist_ok=True)
            kind = pacsv.CSVWriter if self.path.suffix == ".csv" else pq.ParquetWriter
            self._writer = kind(str(self.partial), batch.schema)
        self._writer.write_batch(batch)

    def append(self, part: Path) -> None:
        """Append the rows of ``part``: scores of this format a worker wrote (one file's).

        CSV and JSON lines are copied as bytes, each CSV part's header left out but the
        first's, so no value is parsed and written again.
        """
        if self.path.suffix == ".parquet":
            with pq.ParquetFile(part) as rows:
                for batch in rows.iter_batches():
                    self.write(batch)
            return
        with part.open("rb") as source:
            if self._raw is None:
                self.partial.parent.mkdir(parents=True, exist_ok=True)
                self._raw = self.partial.open("wb")
            elif self.path.suffix == ".csv":
                source.readline()
            shutil.copyfileobj(source, self._raw)

    def __enter__(self) -> ScoresWriter:
        """The writer; the output appears at the end of the block, or not at all."""
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        """Close; rename into place after success, else remove what was written."""
        for handle in (self._writer, self._lines, self._raw):
            if handle is not None:
                handle.close()
        if kind is None and self.partial.exists():
            os.replace(self.partial, self.path)
        else:
            self.partial.unlink(missing_ok=True)

"""Checks on the data root before any component runs, with messages for people.

These catch what would otherwise fail deep inside Beam with a parser traceback, or
pass silently: no files, empty files, files that disagree on their columns, another
delimiter, bytes that are not UTF-8, and a header repeated inside a file. Which files
are data, gzip and the byte-order mark follow ``data_layout/csv_files.py``, the rules
ExampleGen reads by. What the values mean (types, ranges, domains) is the curated
schema's business, checked by the pipeline's ExampleValidator.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

from data_layout import csv_files, spans
from data_layout.csv_files import CsvFormatError

OTHER_DELIMITERS = {";": "semicolon", "\t": "tab", "|": "pipe"}


class DataRootError(ValueError):
    """The data root cannot feed the pipeline; the message names the path and why."""


def _files(root: Path, pattern: str) -> list[Path]:
    if not root.exists():
        raise DataRootError(f"data root {root} does not exist")
    if not root.is_dir():
        raise DataRootError(
            f"data root {root} is not a directory (give the folder holding the CSV files)"
        )
    names = spans.data_names(spans.LOCAL, str(root), pattern)
    files = [Path(p) for p in csv_files.data_files(str(root / n) for n in names)]
    if not files:
        others = sorted(p.name for p in root.iterdir() if not p.name.startswith("."))
        found = f"it holds {', '.join(others[:5])}" if others else "it is empty"
        accepted = " or ".join(csv_files.SUFFIXES)
        raise DataRootError(f"data root {root} has no {accepted} files: {found}")
    return files


def _open(path: Path) -> BinaryIO:
    return csv_files.decompressed(path.open("rb"), str(path))


def _header(path: Path) -> bytes:
    """The header line's bytes, without byte-order mark or line end."""
    with _open(path) as f:
        header, first_row = f.readline(), f.readline()
    if not header.strip():
        raise DataRootError(f"data file {path} is empty")
    if not first_row.strip():
        raise DataRootError(f"data file {path} has a header but no rows")
    text = header.decode("utf-8", "replace")
    if "," not in text:
        for delimiter, name in OTHER_DELIMITERS.items():
            if delimiter in text:
                raise DataRootError(
                    f"data file {path} is {name}-delimited: its header has no commas "
                    f"({text.strip()[:60]!r}); the pipeline reads comma-separated files"
                )
    return header.removeprefix(csv_files.BOM).rstrip(b"\r\n")


def _scan(path: Path, header: bytes) -> None:
    """Fail on bytes that are not UTF-8, or the header line repeated inside the file."""
    repeats = (b"\n" + header + b"\n", b"\n" + header + b"\r\n")
    line, tail = 1, b""
    with _open(path) as f:
        for chunk in csv_files.utf8_checked(csv_files.chunks_of(f), str(path)):
            window = tail + chunk
            found = min((i for i in (window.find(r) for r in repeats) if i >= 0), default=-1)
            if found >= 0:
                at = line - tail.count(b"\n") + window[: found + 1].count(b"\n")
                raise DataRootError(
                    f"data file {path} repeats its header at line {at}: "
                    "files were probably concatenated; remove the extra header lines"
                )
            line += chunk.count(b"\n")
            tail = chunk[-len(repeats[1]) :]


def check_data_root(root: Path, pattern: str) -> list[Path]:
    """The CSV files matching ``pattern`` in ``root``, or DataRootError saying what is wrong."""
    try:
        files = _files(root, pattern)
        first_header = None
        for path in files:
            with csv_files.gzip_errors(str(path)):
                header = _header(path)
                if first_header is None:
                    first_header = header
                elif header != first_header:
                    _different_columns(path, header, files[0], first_header)
                _scan(path, header)
    except CsvFormatError as err:
        raise DataRootError(f"data file {err}") from None
    return files


def check_spans(root: Path, span: int, window: int) -> tuple[spans.Window, list[Path]]:
    """The spans a run reads from ``root`` and their CSV files, checked as ``check_data_root``.

    A flat root is one span. DataRootError for a missing root, a span that is not there
    (naming those found), mixed span folders and files, an empty span folder, or a
    span whose columns differ from the run's span. spans.SpanNotReady when there is
    nothing to read yet (an empty root, a span still being written).
    """
    if not root.is_dir():
        _files(root, csv_files.PATTERN)  # the same message as a flat root's
    try:
        resolved = spans.read_root(spans.LOCAL, str(root), csv_files.PATTERN, span, window)
    except spans.SpanError as err:
        raise DataRootError(str(err)) from None
    by_span = {s: check_data_root(root / f, csv_files.PATTERN) for s, f in resolved.folders.items()}
    newest = by_span[resolved.span][0]
    with csv_files.gzip_errors(str(newest)):
        newest_header = _header(newest)
    for files in by_span.values():
        with csv_files.gzip_errors(str(files[0])):
            header = _header(files[0])
        if header != newest_header:
            _different_columns(files[0], header, newest, newest_header)
    return resolved, [f for _, files in sorted(by_span.items()) for f in files]


def _different_columns(path: Path, header: bytes, first: Path, first_header: bytes) -> None:
    ours = set(header.decode("utf-8", "replace").split(","))
    theirs = set(first_header.decode("utf-8", "replace").split(","))
    missing, extra = sorted(theirs - ours), sorted(ours - theirs)
    raise DataRootError(
        f"data file {path} has other columns than "
        f"{first.name if first.parent == path.parent else first}: "
        f"missing {missing or 'none'}, extra {extra or 'none'}"
        + ("; same columns in another order" if not missing and not extra else "")
    )

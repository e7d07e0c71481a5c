"""Checks on the data root before any component runs, with messages for people.

These catch what would otherwise fail deep inside Beam with a parser traceback, or
pass silently: no files, empty files, files that disagree on their columns, another
delimiter, bytes that are not UTF-8, and a header repeated inside a file. What the
values mean (types, ranges, domains) is the curated schema's business, checked by
the pipeline's ExampleValidator.
"""

from __future__ import annotations

import codecs
from pathlib import Path

CHUNK_BYTES = 8 << 20
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
    files = sorted(p for p in root.glob(pattern) if p.is_file())
    if not files:
        others = sorted(p.name for p in root.iterdir() if not p.name.startswith("."))
        found = f"it holds {', '.join(others[:5])}" if others else "it is empty"
        raise DataRootError(f"data root {root} has no {pattern} files: {found}")
    return files


def _header(path: Path) -> bytes:
    with path.open("rb") as f:
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
    return header.rstrip(b"\r\n")


def _scan(path: Path, header: bytes) -> None:
    """Fail on bytes that are not UTF-8, or the header line repeated inside the file."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    repeats = (b"\n" + header + b"\n", b"\n" + header + b"\r\n")
    offset, line, tail = 0, 1, b""
    with path.open("rb") as f:
        while chunk := f.read(CHUNK_BYTES):
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as err:
                bad = offset + err.start
                at = line + chunk[: err.start].count(b"\n")
                raise DataRootError(
                    f"data file {path} is not UTF-8: byte {chunk[err.start]:#04x} at line {at} "
                    f"(offset {bad}); re-export it as UTF-8"
                ) from None
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
            offset += len(chunk)


def check_data_root(root: Path, pattern: str) -> list[Path]:
    """The CSV files matching ``pattern`` in ``root``, or DataRootError saying what is wrong."""
    files = _files(root, pattern)
    first_header = None
    for path in files:
        header = _header(path)
        if first_header is None:
            first_header = header
        elif header != first_header:
            ours = set(header.decode("utf-8", "replace").split(","))
            theirs = set(first_header.decode("utf-8", "replace").split(","))
            missing, extra = sorted(theirs - ours), sorted(ours - theirs)
            raise DataRootError(
                f"data file {path} has other columns than {files[0].name}: "
                f"missing {missing or 'none'}, extra {extra or 'none'}"
                + ("; same columns in another order" if not missing and not extra else "")
            )
        _scan(path, header)
    return files

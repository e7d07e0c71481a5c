"""The CSV files the pipeline reads, and how their bytes become text.

One place for the rules that the ExampleGen executor and the runner's pre-flight
check of the data root share:

* which files are data: names ending in one of ``SUFFIXES`` (plain CSV, and gzip, the
  usual shape of a large export); ``PATTERN`` is the glob that finds them all;
* a ``.gz`` file is read through gzip, transparently;
* the text is UTF-8 (what a spreadsheet's "CSV UTF-8" export writes), and a byte-order
  mark before the header is not part of the first column's name;
* every message names the file first.

Only the standard library: the pre-flight check imports this before TFX is loaded.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import gzip
import io
import zlib
from collections.abc import Iterable, Iterator
from typing import BinaryIO

SUFFIXES = (".csv", ".csv.gz")
# A glob that matches every name ending in one of SUFFIXES (and a few more, which
# data_files refuses by name rather than leaving them unread without a word).
PATTERN = "*.csv*"
BOM = codecs.BOM_UTF8
CHUNK_BYTES = 8 << 20


class CsvFormatError(ValueError):
    """A CSV file that cannot be read as rows of the header's columns."""


def data_files(paths: Iterable[str]) -> list[str]:
    """``paths`` in order; CsvFormatError for one whose name has no accepted suffix."""
    files = sorted(paths)
    for path in files:
        if not path.endswith(SUFFIXES):
            accepted = " or ".join(SUFFIXES)
            raise CsvFormatError(
                f"{path} is not a file the pipeline reads: data files end in {accepted}"
            )
    return files


def decompressed(stream: BinaryIO, path: str) -> BinaryIO:
    """The bytes of the CSV text in ``stream``, opened from ``path``: gunzipped for .gz."""
    return gzip.GzipFile(fileobj=stream, mode="rb") if path.endswith(".gz") else stream


@contextlib.contextmanager
def gzip_errors(path: str) -> Iterator[None]:
    """Turn gzip's errors while reading ``path`` into a CsvFormatError naming it."""
    try:
        yield
    except (gzip.BadGzipFile, EOFError, zlib.error) as error:
        raise CsvFormatError(f"{path} is not a complete gzip file: {error}") from None


def _not_utf8(
    path: str, data: bytes, error: UnicodeDecodeError, offset: int, line: int
) -> CsvFormatError:
    """The error for ``data``, read from ``offset`` at ``line``, failing to decode."""
    line += data[: error.start].count(b"\n")
    return CsvFormatError(
        f"{path} is not UTF-8 text (byte {data[error.start]:#04x} at line {line}, offset "
        f"{offset + error.start}); export it as CSV UTF-8"
    )


def utf8_checked(chunks: Iterable[bytes], path: str) -> Iterator[bytes]:
    """``chunks`` (the file at ``path``, in order), each yielded once checked as UTF-8.

    CsvFormatError at the first byte that is not UTF-8, with its line and its offset
    in the (decompressed) text.
    """
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset, line = 0, 1
    for chunk in chunks:
        # The decoder holds back a character cut off at the end of the last chunk.
        pending = decoder.getstate()[0]
        try:
            decoder.decode(chunk)
        except UnicodeDecodeError as error:
            raise _not_utf8(path, pending + chunk, error, offset - len(pending), line) from None
        yield chunk
        offset += len(chunk)
        line += chunk.count(b"\n")
    try:
        decoder.decode(b"", final=True)  # a sequence cut off by the end of the file
    except UnicodeDecodeError:
        tail = len(decoder.getstate()[0])
        raise CsvFormatError(
            f"{path} is not UTF-8 text (it ends inside a character, at offset "
            f"{offset - tail}); export it as CSV UTF-8"
        ) from None


def chunks_of(stream: BinaryIO) -> Iterator[bytes]:
    """The bytes of ``stream`` in chunks of CHUNK_BYTES."""
    while chunk := stream.read(CHUNK_BYTES):
        yield chunk


def read_header(stream: BinaryIO, path: str) -> list[str]:
    """The column names in the first line of ``stream`` (the CSV text of ``path``)."""
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", newline="")
    try:
        header = next(csv.reader(text), None)
    except UnicodeDecodeError:
        # Locate the byte from the start: the wrapper has read ahead of it.
        text.detach()
        stream.seek(0)
        for _ in utf8_checked(chunks_of(stream), path):
            pass
        raise
    text.detach()
    if not header:
        raise CsvFormatError(f"{path} is empty: no header line")
    return header

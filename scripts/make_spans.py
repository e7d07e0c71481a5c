"""Write the taxi sample as quarterly span folders, the layout of TFX's ``{SPAN}`` convention.

    python scripts/make_spans.py [--source CSV] [--out DIR]

Each row of the sample goes to the span of the calendar quarter its
``trip_start_timestamp`` (Unix seconds) falls in, in UTC: span 0 is 2013-Q1, span 1
2013-Q2, ..., span 15 2016-Q4, written as ``<out>/span-<NN>/taxi.csv`` (NN two digits,
``span-00`` .. ``span-15``; every span gets its folder, with the header alone when no
row falls in it). Rows outside those quarters, or whose timestamp is not a number, are
left out, and the console says how many. Every file has the sample's header line, and
each row is copied as the text it has in the sample (quoted fields and line endings
included), in the sample's order. ``<out>/SPANS.md`` tables which span is which quarter.

A re-run replaces the whole ``<out>`` folder: the spans are written into a sibling
folder first, which then takes the old one's place, so a half-written set never stays.
``<out>`` may hold only span folders and SPANS.md: anything else there is refused
rather than deleted. The default ``<out>`` is ``data/taxi-spans`` in the project.
"""

from __future__ import annotations

from startup import process

process.prepare()  # Keras 2 before TensorFlow loads (startup/process.py)

# ruff: noqa: E402 - the imports below follow that choice

import argparse
import csv
import datetime
import math
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

PROJECT = Path(__file__).resolve().parent.parent
SAMPLE = PROJECT / "data" / "taxi" / "taxi.csv"
DEFAULT_OUT = PROJECT / "data" / "taxi-spans"
TIMESTAMP = "trip_start_timestamp"
FIRST_YEAR = 2013  # span 0 is this year's first quarter
SPAN_COUNT = 16  # 2013-Q1 .. 2016-Q4
INDEX = "SPANS.md"


class SpanSourceError(ValueError):
    """The source or the output folder cannot give spans; the message says why."""


class Spans:
    """The sample's records dealt into spans, each as its original text.

    A plain class, not a dataclass: the tests load this script by path, outside
    ``sys.modules``, where dataclasses cannot resolve string annotations.
    """

    def __init__(self, header: str) -> None:
        self.header = header  # the header line, with its line ending
        self.records: list[list[str]] = [[] for _ in range(SPAN_COUNT)]  # per span, in order
        self.outside = 0  # rows whose quarter is not one of the spans
        self.unreadable = 0  # rows without a numeric timestamp

    @property
    def kept(self) -> int:
        """How many rows the spans hold."""
        return sum(map(len, self.records))


def span_folder(span: int) -> str:
    """The folder name of ``span``: ``span-00`` for span 0."""
    return f"span-{span:02d}"


def quarter_name(span: int) -> str:
    """The quarter ``span`` holds, as ``2013-Q1`` for span 0."""
    return f"{FIRST_YEAR + span // 4}-Q{span % 4 + 1}"


def span_of(seconds: int) -> int | None:
    """The span of a trip starting at Unix time ``seconds`` (UTC); None outside the spans."""
    start = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)
    span = (start.year - FIRST_YEAR) * 4 + (start.month - 1) // 3
    return span if 0 <= span < SPAN_COUNT else None


def _timestamp_span(value: str) -> int | None:
    """``span_of`` a timestamp cell; ValueError when the cell is not a time."""
    seconds = float(value)
    if not math.isfinite(seconds):
        raise ValueError(f"not a time: {value!r}")
    try:
        return span_of(math.floor(seconds))
    except (OverflowError, OSError):  # far outside any calendar the platform knows
        return None


def _records(f: TextIO) -> Iterator[tuple[list[str], str]]:
    """Each CSV record of ``f`` (opened with ``newline=""``): its fields and its exact text.

    The csv reader pulls one physical line at a time and no more than a record needs,
    so the lines pulled since the last record are that record's text, line breaks
    inside quoted fields included.
    """
    pulled: list[str] = []

    def lines() -> Iterator[str]:
        for line in f:
            pulled.append(line)
            yield line

    for fields in csv.reader(lines()):
        text = "".join(pulled)
        pulled.clear()
        if fields:  # a blank line is no record
            yield fields, text


def _line_ending(text: str) -> str:
    """The line ending ``text`` ends with, "" for none."""
    for ending in ("\r\n", "\n", "\r"):
        if text.endswith(ending):
            return ending
    return ""


def read_spans(source: Path) -> Spans:
    """The records of the CSV file ``source`` dealt into spans by ``trip_start_timestamp``.

    SpanSourceError when the file is missing, unreadable as UTF-8 CSV, or has no such column.
    """
    if not source.is_file():
        raise SpanSourceError(f"no source file {source}")
    try:
        with source.open(encoding="utf-8-sig", newline="") as f:
            records = _records(f)
            first = next(records, None)
            if first is None:
                raise SpanSourceError(f"{source} is empty: no header line")
            columns, header = first
            if TIMESTAMP not in columns:
                raise SpanSourceError(f"{source} has no {TIMESTAMP} column")
            column = columns.index(TIMESTAMP)
            ending = _line_ending(header) or "\n"
            spans = Spans(header if _line_ending(header) else header + ending)
            for fields, text in records:
                try:
                    span = _timestamp_span(fields[column])
                except (IndexError, ValueError):
                    spans.unreadable += 1
                    continue
                if span is None:
                    spans.outside += 1
                    continue
                spans.records[span].append(text if _line_ending(text) else text + ending)
    except (UnicodeDecodeError, csv.Error) as err:
        raise SpanSourceError(f"{source} cannot be read as UTF-8 CSV: {err}") from None
    return spans


def _shown(path: Path, base: Path | None = None) -> str:
    """``path`` relative to ``base`` (the working folder) when it lies inside it, else whole."""
    try:
        return str(path.resolve().relative_to((base or Path.cwd()).resolve()))
    except ValueError:
        return str(path.resolve())


def left_out(spans: Spans) -> str:
    """The sentence saying which rows no span holds; "" when every row is in one."""
    parts = []
    if spans.outside:
        last = quarter_name(SPAN_COUNT - 1)
        parts.append(f"{spans.outside:,} outside {quarter_name(0)}..{last}")
    if spans.unreadable:
        parts.append(f"{spans.unreadable:,} without a numeric {TIMESTAMP}")
    if not parts:
        return ""
    return f"left out {spans.outside + spans.unreadable:,} rows: {', '.join(parts)}"


def index_text(spans: Spans, source: Path) -> str:
    """The text of SPANS.md: which span is which quarter, and how many rows it holds."""
    lines = [
        "# Taxi sample spans",
        "",
        f"Written by `scripts/make_spans.py` from `{_shown(source, PROJECT)}`: its rows by the",
        f"quarter of `{TIMESTAMP}` in UTC, one folder per quarter (TFX's `{{SPAN}}`).",
        "",
        "| span | quarter | rows |",
        "|---|---|---|",
        *(
            f"| {span_folder(s)} | {quarter_name(s)} | {len(rows):,} |"
            for s, rows in enumerate(spans.records)
        ),
        "",
        f"{spans.kept:,} rows in {SPAN_COUNT} spans."
        + (f" {left_out(spans).capitalize()}." if left_out(spans) else ""),
        "",
    ]
    return "\n".join(lines)


def _check_out(out: Path) -> None:
    """SpanSourceError when replacing ``out`` would delete anything but earlier spans."""
    if not out.exists():
        return
    if not out.is_dir():
        raise SpanSourceError(f"{out} is a file, not a folder of spans")
    foreign = sorted(
        p.name
        for p in out.iterdir()
        if not (p.name == INDEX or (p.is_dir() and p.name.startswith("span-")))
    )
    if foreign:
        raise SpanSourceError(
            f"{out} holds more than spans ({', '.join(foreign[:3])}): "
            "choose another --out, or move those away"
        )


def write_spans(spans: Spans, source: Path, out: Path) -> None:
    """Write ``spans`` as ``out/span-NN/<source name>`` and ``out/SPANS.md``, replacing ``out``.

    The new set is written next to ``out`` first, then swapped in: ``out`` holds either
    the old set or the new one, whole.
    """
    _check_out(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.parent / f".{out.name}.partial"
    old = out.parent / f".{out.name}.old"
    for leftover in (staging, old):  # from a run that was stopped
        if leftover.exists():
            shutil.rmtree(leftover)
    staging.mkdir()
    try:
        for span, records in enumerate(spans.records):
            folder = staging / span_folder(span)
            folder.mkdir()
            with (folder / source.name).open("w", encoding="utf-8", newline="") as f:
                f.write(spans.header)
                f.writelines(records)
        (staging / INDEX).write_text(index_text(spans, source), encoding="utf-8")
        if out.exists():
            out.rename(old)
        staging.rename(out)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
        if old.exists() and not out.exists():
            old.rename(out)  # the swap failed halfway: put the old set back
    if old.exists():
        shutil.rmtree(old)


def make_spans(source: Path, out: Path) -> Spans:
    """Read ``source``, write its spans into ``out`` and print one line per span."""
    spans = read_spans(source)
    write_spans(spans, source, out)
    width = len(f"{max(map(len, spans.records)):,}")
    for span, records in enumerate(spans.records):
        print(f"{span_folder(span)}  {quarter_name(span)}  {len(records):>{width},} rows")
    if left_out(spans):
        print(left_out(spans))
    print(f"{spans.kept:,} rows in {SPAN_COUNT} spans written to {_shown(out)}")
    return spans


def main(argv: list[str] | None = None) -> int:
    """Command line entry point; the exit status (2 for a source that gives no spans)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, default=SAMPLE, help="the CSV to split")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the folder of spans")
    args = parser.parse_args(argv)
    try:
        make_spans(args.source, args.out)
    except SpanSourceError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

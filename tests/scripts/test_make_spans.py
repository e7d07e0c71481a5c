"""The span writer: the taxi sample as one folder per quarter, span-00 = 2013-Q1."""

from __future__ import annotations

import contextlib
import csv
import datetime
import io
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "taxi" / "taxi.csv"
FOLDERS = [f"span-{i:02d}" for i in range(16)]


@pytest.fixture(scope="module")
def spans(load_script):
    return load_script("make_spans")


@pytest.fixture(scope="module")
def written(spans, tmp_path_factory):
    """The sample's spans, written once for the module, and what the run printed."""
    out = tmp_path_factory.mktemp("spans") / "taxi-spans"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert spans.main(["--out", str(out)]) == 0
    return out, printed.getvalue()


def _quarter_bounds(span: int) -> tuple[int, int]:
    """Unix seconds of the first instant of span's quarter and of the next quarter, UTC."""

    def start(n: int) -> int:
        moment = datetime.datetime(2013 + n // 4, 1 + 3 * (n % 4), 1, tzinfo=datetime.timezone.utc)
        return int(moment.timestamp())

    return start(span), start(span + 1)


def _lines(path: Path) -> list[str]:
    with path.open(newline="") as f:
        return f.readlines()


def _timestamp(line: str, header: str) -> int:
    column = next(csv.reader([header])).index("trip_start_timestamp")
    return int(next(csv.reader([line]))[column])


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_every_sample_row_lands_in_the_span_of_its_quarter(written):
    out, printed = written
    header, *rows = _lines(SAMPLE)
    assert len(rows) == 15002
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == FOLDERS
    low, high = _quarter_bounds(0)[0], _quarter_bounds(15)[1]
    inside = [r for r in rows if low <= _timestamp(r, header) < high]
    order = {row: i for i, row in enumerate(rows)}
    assert len(order) == len(rows)  # no duplicate lines: a line's position says where it was
    counts, landed = [], Counter()
    for span, name in enumerate(FOLDERS):
        first, *span_rows = _lines(out / name / "taxi.csv")
        assert first == header
        start, end = _quarter_bounds(span)
        for row in span_rows:
            assert start <= _timestamp(row, header) < end, (name, row)
        positions = [order[r] for r in span_rows]
        assert positions == sorted(positions), name  # the sample's order
        counts.append(len(span_rows))
        landed.update(span_rows)
    assert sum(counts) == len(inside)
    assert landed == Counter(inside)  # each row once, byte for byte
    assert min(counts) > 0
    # Which span is which quarter, on the console and in SPANS.md.
    table = (out / "SPANS.md").read_text()
    assert f"| span-00 | 2013-Q1 | {counts[0]:,} |" in table
    assert f"| span-15 | 2016-Q4 | {counts[15]:,} |" in table
    assert printed.splitlines()[0].split() == ["span-00", "2013-Q1", f"{counts[0]:,}", "rows"]
    assert len(inside) == len(rows) and "left out" not in printed  # no sample row is outside
    assert str(sum(counts)) in printed.splitlines()[-1].replace(",", "")


def test_span_of_is_the_utc_quarter(spans):
    for span in range(16):
        start, end = _quarter_bounds(span)
        assert spans.span_of(start) == span
        assert spans.span_of(end - 1) == span
        assert spans.quarter_name(span) == f"{2013 + span // 4}-Q{span % 4 + 1}"
    assert spans.span_of(_quarter_bounds(0)[0] - 1) is None
    assert spans.span_of(_quarter_bounds(15)[1]) is None


def test_rows_outside_the_quarters_are_left_out_and_kept_text_is_untouched(spans, tmp_path, capsys):
    source = tmp_path / "trips.csv"
    q1, q2 = _quarter_bounds(0)[0], _quarter_bounds(1)[0]
    source.write_bytes(
        b"company,trip_start_timestamp,fare\r\n"
        + f'"Taxi, ""Best""\r\nCo.",{q1},1.50\r\n'.encode()  # a quoted comma, quote, line break
        + b"Late,1483228800,2\r\n"  # 2017-01-01: after the last span
        + b"Early,1356998399,3\r\n"  # 2012-12-31 23:59:59
        + b"Blank,,4\r\n"
        + f"Next,{q2},5".encode()  # no line break at the end of the file
    )
    out = tmp_path / "out"
    assert spans.main(["--source", str(source), "--out", str(out)]) == 0
    assert "left out 3 rows: 2 outside 2013-Q1..2016-Q4, 1 without" in capsys.readouterr().out
    assert (out / "span-00" / "trips.csv").read_bytes() == (
        b'company,trip_start_timestamp,fare\r\n"Taxi, ""Best""\r\nCo.",' + f"{q1},1.50\r\n".encode()
    )
    assert (out / "span-01" / "trips.csv").read_bytes().endswith(f"Next,{q2},5\r\n".encode())
    assert (out / "span-02" / "trips.csv").read_bytes() == b"company,trip_start_timestamp,fare\r\n"


def test_a_missing_source_exits_2_with_one_error_line(tmp_path):
    script = Path(__file__).resolve().parents[2] / "scripts" / "make_spans.py"
    missing = tmp_path / "nope.csv"
    run = subprocess.run(
        [sys.executable, str(script), "--source", str(missing), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2
    assert run.stderr == f"error: no source file {missing}\n"
    assert not (tmp_path / "out").exists()


def test_a_source_without_timestamps_exits_2(spans, tmp_path, capsys):
    source = tmp_path / "plain.csv"
    source.write_text("fare,tips\n1,2\n")
    assert spans.main(["--source", str(source), "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == f"error: {source} has no trip_start_timestamp column\n"


def test_a_rerun_leaves_exactly_the_same_files(spans, written, tmp_path, capsys):
    first, _ = written
    out = tmp_path / "taxi-spans"
    assert spans.main(["--out", str(out)]) == 0
    before = _snapshot(out)
    assert before == _snapshot(first)
    # What an older run might have left: a span that no longer exists, a stray file.
    (out / "span-16").mkdir()
    (out / "span-16" / "taxi.csv").write_text("old\n")
    (out / "span-03" / "old.csv").write_text("old\n")
    assert spans.main(["--out", str(out)]) == 0
    assert _snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taxi-spans"]  # no staging left


def test_an_out_folder_holding_other_things_is_refused_not_deleted(spans, tmp_path, capsys):
    out = tmp_path / "data"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    assert spans.main(["--out", str(out)]) == 2
    assert "holds more than spans (notes.txt)" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]
    assert (out / "notes.txt").read_text() == "mine\n"

"""The runner's pre-flight check of the data root, on files as people export them."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from csv_habits import HABITS, csv_text, table

from data_layout import csv_files, spans
from pipeline_ops.session.data_check import DataRootError, check_data_root, check_spans


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An empty data root."""
    folder = tmp_path / "data"
    folder.mkdir()
    return folder


@pytest.mark.parametrize("habit", list(HABITS))
def test_exported_files_pass(habit, root):
    HABITS[habit](root, *table())
    files = check_data_root(root, csv_files.PATTERN)
    assert files == sorted(p for p in root.iterdir())


def test_a_gzipped_file_is_checked_after_decompressing(root):
    header, rows = table()
    text = csv_text(header, rows[:5]).replace("Taxi", "Café", 1).encode("latin-1")
    (root / "t.csv.gz").write_bytes(gzip.compress(text))
    at = text.index(b"\xe9")
    line = text[:at].count(b"\n") + 1
    message = rf"t\.csv\.gz is not UTF-8 text \(byte 0xe9 at line {line}, offset {at}\)"
    with pytest.raises(DataRootError, match=message):
        check_data_root(root, csv_files.PATTERN)


def test_a_header_repeated_inside_a_gzipped_file_is_found(root):
    header, rows = table()
    (root / "t.csv.gz").write_bytes(gzip.compress(csv_text(header, rows[:5]).encode() * 2))
    with pytest.raises(DataRootError, match=r"t\.csv\.gz repeats its header at line 7"):
        check_data_root(root, csv_files.PATTERN)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("t.csv.gz", b"a,b\n1,2\n", r"data file .*t\.csv\.gz is not a complete gzip file"),
        ("t.csv.zip", b"PK\x03\x04", r"data file .*t\.csv\.zip is not a file the pipeline reads"),
    ],
    ids=["not-gzip", "zip"],
)
def test_files_it_cannot_read_are_named(name, content, message, root):
    (root / "a.csv").write_text("a,b\n1,2\n")
    (root / name).write_bytes(content)
    with pytest.raises(DataRootError, match=message):
        check_data_root(root, csv_files.PATTERN)


def _span(root: Path, span: int, header: str, marker: bool = True) -> None:
    folder = root / f"span-{span}"
    folder.mkdir()
    (folder / "part-0.csv").write_text(f"{header}\n1,2,3\n")
    if marker:
        (folder / spans.SUCCESS_MARKER).touch()


def test_a_newest_span_with_a_column_renamed_is_refused_naming_its_file(root):
    _span(root, 1, "fare,tips,company")
    _span(root, 2, "fare,tip,company")
    with pytest.raises(DataRootError, match=r"span-1/part-0.csv has other columns than .*"
                       r"span-2/part-0.csv: missing \['tip'\], extra \['tips'\]"):  # fmt: skip
        check_spans(root, spans.LATEST, 2)


def test_a_newest_span_being_written_is_passed_over_and_its_columns_not_read(root):
    _span(root, 1, "fare,tips,company")
    _span(root, 2, "fare,half", marker=False)
    window, files = check_spans(root, spans.LATEST, 2)
    assert (window.span, [f.parent.name for f in files]) == (1, ["span-1"])
    assert window.unfinished.startswith("span 2 (span-2/) has no _SUCCESS yet")


def test_a_writers_hidden_files_are_not_data(root):
    # What Spark leaves beside its part files on a local disk, and a copy in flight.
    _span(root, 1, "fare,tips,company")
    (root / "span-1" / ".part-0.csv.crc").write_bytes(b"\x00crc")
    (root / "span-1" / ".part-1.csv.AbCd").write_text("fare,tips\n1,")
    window, files = check_spans(root, spans.LATEST, 1)
    assert [f.name for f in files] == ["part-0.csv"]

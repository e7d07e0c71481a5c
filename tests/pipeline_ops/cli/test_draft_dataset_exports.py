"""make dataset on tables written as spreadsheets and databases export them, through the drafter.

Rows without a label are set aside (said, left out of the sample, and stopped by the
schema later); money written as text is numeric; dates and timestamps give time features.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
import tensorflow as tf
import tensorflow_data_validation as tfdv
from conftest import write_head
from exported_table import HEADER, orders, write_export
from google.protobuf import text_format
from tensorflow_metadata.proto.v0 import schema_pb2

from components.gating_validator import describe
from data_layout.csv_examples import encode_blocks, file_kinds
from drafting.render import curated_schema, statistics
from drafting.table import MIN_ROWS, read_table
from modules.features import DatasetDeclaration, NumberText, TimeFormat
from pipeline_ops import commands
from pipeline_ops.cli import draft_dataset

# Seconds a test: each test drafts a table, boosted trees included.
pytestmark = pytest.mark.slow

ROWS = 300


def _draft(tmp_path: Path, csv_path: Path) -> int:
    """``make dataset`` of ``csv_path`` (label: late status) into tmp_path; its exit code."""
    return draft_dataset.main(
        [
            "orders", str(csv_path), "status", "late",
            "--datasets-dir", str(tmp_path / "datasets"), "--data-dir", str(tmp_path / "data"),
        ]
    )  # fmt: skip


@pytest.fixture(scope="module")
def drafted(tmp_path_factory):
    """The orders table drafted once: its rows, file, printed lines and written files."""
    tmp_path = tmp_path_factory.mktemp("orders")
    rows = orders(ROWS)
    path = write_export(tmp_path / "orders.csv", rows)
    datasets_dir, data_dir = tmp_path / "datasets", tmp_path / "data"
    out = io.StringIO()
    draft_dataset.draft(
        "orders", path, "status", "late", datasets_dir=datasets_dir, data_dir=data_dir, out=out
    )
    return rows, path, out.getvalue().splitlines(), datasets_dir / "orders", data_dir / "orders"


def _line_of(lines: list[str], column: str) -> str:
    return next(line for line in lines if line.split()[:1] == [column])


def test_rows_without_a_label_are_set_aside_counted_and_named(drafted):
    rows, _, lines, _, _ = drafted
    unlabelled = [i for i, row in enumerate(rows) if not row[0]]
    labelled = [row for row in rows if row[0]]
    assert 5 < len(unlabelled) < 30
    # Positives are counted among the labelled rows only: the others are no negatives.
    positives = sum(row[0] == "late" for row in labelled)
    assert lines[0] == f"{len(labelled)} rows; label status == 'late': {positives} positive"
    # The file's lines: the header is line 1.
    first = ", ".join(str(i + 2) for i in unlabelled[:5])
    assert lines[1].startswith(
        f"  {len(unlabelled)} rows without a status set aside (lines {first}, ...), not in "
    )
    assert lines[1].endswith("orders.csv")


def test_the_sample_holds_the_labelled_rows_as_the_file_wrote_them(drafted):
    rows, path, _, _, data = drafted
    sample = (data / "orders.csv").read_bytes()
    # The export's own lines (CRLF ends), without the byte-order mark and the unlabelled rows.
    lines = path.read_bytes().removeprefix(b"\xef\xbb\xbf").split(b"\r\n")
    kept = [line for line in lines if not line.startswith(b",")]
    assert sample == b"\r\n".join(kept)
    read = list(csv.reader(io.StringIO(sample.decode(), newline="")))
    assert read[0] == HEADER and read[1:] == [row for row in rows if row[0]]


def _schema(folder: Path) -> schema_pb2.Schema:
    return text_format.Parse((folder / "schema.pbtxt").read_text(), schema_pb2.Schema())


def _problems(path: Path, schema: schema_pb2.Schema, tmp_path: Path) -> list[str]:
    """The anomalies of the CSV file as ExampleGen encodes it and the ExampleValidator judges it."""
    records = tmp_path / f"{path.stem}.tfrecord"
    with tf.io.TFRecordWriter(str(records)) as writer:
        for block in encode_blocks(str(path), HEADER, file_kinds(str(path), HEADER)):
            for record in block:
                writer.write(record)
    stats = tfdv.generate_statistics_from_tfrecord(str(records))
    return describe(tfdv.validate_statistics(statistics=stats, schema=schema), "train")


def test_the_schema_requires_the_label_and_stops_a_file_with_empty_labels(drafted, tmp_path):
    _, path, _, folder, data = drafted
    schema = _schema(folder)
    assert next(f for f in schema.feature if f.name == "status").value_count.min == 1
    # The export itself, with its empty labels: the label's column is named.
    problems = _problems(path, schema, tmp_path)
    assert [p.split(": ")[1] for p in problems] == ["status"], problems
    # The sample the draft copied passes.
    assert _problems(data / "orders.csv", schema, tmp_path) == []


def test_money_written_as_text_is_numeric_in_its_habit(drafted):
    _, _, lines, folder, _ = drafted
    dollars = _line_of(lines, "amount")
    assert dollars.split()[1] == "numeric"
    assert re.search(
        r"numbers written \(\$[\d,]+\.\d\d\): thousands ',', decimal '\.', currency \$, "
        r"negatives in parentheses;",
        dollars,
    ), dollars
    euros = _line_of(lines, "betrag")
    assert euros.split()[1] == "numeric"
    assert re.search(
        r"numbers written -?[\d.]+,\d\d €: thousands '\.', decimal ',', currency €;", euros
    ), euros
    dataset = _declared(folder)
    text = {n.name: n.text for n in dataset.numeric}
    assert text == {"amount": NumberText.DECIMAL_POINT, "betrag": NumberText.DECIMAL_COMMA}


def test_dates_and_timestamps_give_time_features_in_their_order(drafted):
    _, _, lines, folder, _ = drafted
    ordered = _line_of(lines, "ordered")
    assert ordered.split()[2] == "time", ordered
    assert "timestamps like 20" in ordered and "year first: time of day, day of week" in ordered
    shipped = _line_of(lines, "shipped")
    assert re.search(
        r"dates like \d\d/\d\d/\d{4}, month first "
        r"\(\d\d/(1[3-9]|2\d|3[01])/\d{4} reads no other way\): day of week",
        shipped,
    ), shipped
    geliefert = _line_of(lines, "geliefert")
    assert re.search(
        r"day first \((1[3-9]|2\d|3[01])\.\d\d\.\d{4} reads no other way\)", geliefert
    ), geliefert
    created = _line_of(lines, "created")
    assert "unix seconds (its name says so): time of day" in created
    stamps = {t.name: (t.written, t.time_of_day) for t in _declared(folder).timestamps}
    assert stamps == {
        "ordered at": (TimeFormat.YMD, True),
        "shipped": (TimeFormat.MDY, False),
        "geliefert": (TimeFormat.DMY, False),
        "billed": (TimeFormat.YMD, False),
        "created": (TimeFormat.UNIX_SECONDS, True),
    }


def test_numbers_and_dates_written_as_text_have_no_list_of_values_in_the_schema(drafted):
    _, _, _, folder, _ = drafted
    schema = _schema(folder)
    # A month's first day: a few distinct dates, which TFDV lists; a new month is no anomaly.
    assert {d.name for d in schema.string_domain} == {"status", "channel"}
    assert [f.name for f in schema.feature if f.HasField("domain")] == ["status", "channel"]


def _declared(folder: Path) -> DatasetDeclaration:
    namespace: dict = {}
    exec((folder / "__init__.py").read_text(), namespace)  # noqa: S102 - the draft
    return namespace["DATASET"]


def test_too_few_labelled_rows_are_refused_and_say_how_many_were_set_aside(tmp_path, capsys):
    rows = orders(MIN_ROWS + 10)
    for row in rows[::5]:
        row[0] = ""
    path = write_export(tmp_path / "orders.csv", rows)
    assert _draft(tmp_path, path) == commands.EXIT_BAD_INPUT
    err = capsys.readouterr().err
    labelled = sum(bool(row[0]) for row in rows)
    assert (
        f"too few rows to split: {labelled} with a label ({len(rows) - labelled} without one "
        f"set aside), at least {MIN_ROWS}" in err
    )
    assert not (tmp_path / "datasets").exists() and not (tmp_path / "data").exists()


def _comparator(feature: schema_pb2.Feature) -> str:
    kinds = ("infinity_norm", "jensen_shannon_divergence")
    return next((k for k in kinds if feature.skew_comparator.HasField(k)), "none")


def test_text_columns_get_l_infinity_and_columns_read_from_text_none(drafted):
    *_, folder, _ = drafted
    comparators = {f.name: _comparator(f) for f in _schema(folder).feature}
    # Money and dates written as text (or as epoch seconds) are read by the dataset's hooks.
    read = ["amount", "betrag", "ordered at", "shipped", "geliefert", "billed", "created"]
    assert comparators == {
        "status": "none",
        **dict.fromkeys(read, "none"),
        "channel": "infinity_norm",
    }


def test_numbers_get_jensen_shannon_and_the_period_or_entity_none(tmp_path):
    sample = write_head(400, tmp_path)
    table = read_table(sample)
    text = curated_schema(statistics(sample), "tips", "1", table, (), ["company"])
    comparators = {
        f.name: _comparator(f) for f in text_format.Parse(text, schema_pb2.Schema()).feature
    }
    assert comparators["fare"] == comparators["trip_start_hour"] == "jensen_shannon_divergence"
    assert comparators["payment_type"] == "infinity_norm"
    assert comparators["company"] == comparators["tips"] == "none"

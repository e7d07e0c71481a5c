"""The Arrow CSV ExampleGen writes the examples TFX's CsvExampleGen writes, split for split.

Both executors run for real (Beam DirectRunner) on the same files, and their output
TFRecords are compared example for example. CsvExampleGen serializes features in
hash-map order, so records are compared in deterministic serialization. Files as
people export them (byte-order mark, gzip, whole numbers written as floats, CRLF,
quoting, several files) give the examples the plain file gives.
"""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path

import pyarrow as pa
import pytest
import tensorflow as tf
from csv_habits import HABITS, table
from tfx import v1 as tfx
from tfx.components.example_gen.csv_example_gen import executor as tfx_csv
from tfx.types import standard_component_specs as keys
from tfx.utils import proto_utils

import datasets
from components.example_gen.executor import ArrowCsvExecutor
from components.example_gen.keys import ENTITY_HISTORY_KEY, INT_COLUMNS_KEY, TEST_PERIOD_KEY
from data_layout import csv_examples, csv_files
from data_layout.csv_examples import (
    ColumnKind,
    column_kind,
    encode_blocks,
    file_kinds,
    integer_columns,
    read_header,
)
from data_layout.csv_files import CsvFormatError
from data_layout.properties import (
    SPLIT_KEY_PROPERTY,
    TEST_PERIOD_PROPERTY,
    VALIDATION_PERIOD_PROPERTY,
)
from data_layout.splits import TEST, TRAIN, VALIDATION
from modules.features import HistoryColumns
from pipeline_def import node_ids
from pipeline_def.config import PipelineConfig
from pipeline_def.pipeline import create_pipeline
from pipeline_def.project_paths import sample_csv

# Seconds a test: each test runs ExampleGen's Beam pipeline.
pytestmark = pytest.mark.slow

INT_COLUMNS = integer_columns(datasets.schema_path(datasets.DEFAULT))

# Cells CsvExampleGen types in particular ways, one column each.
TRICKY_HEADER = ["id", "mixed_number", "big_int", "spaced_int", "empty", "text", "special"]
TRICKY_ROWS = [
    ["1", "2", "99999999999999999999", " 3", "", 'a "quoted", comma', "nan"],
    ["2", "2.5", "1", "+4", "", "line\nbreak", "inf"],
    ["3", "", "", "", "", "", "-inf"],
    ["4", "-7", "5", "6 ", "", "Zürich", "1e3"],
]


def _write_csv(path: Path, header: list[str], rows: list[list[str]]) -> None:
    with path.open("w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def _run(
    executor: object,
    data_root: Path,
    out: Path,
    int_columns: list[str] | None = None,
    partition: str = "",
    examples: tfx.types.standard_artifacts.Examples | None = None,
    test_period: str = "",
    history: HistoryColumns | None = None,
) -> dict[str, list[bytes]]:
    """Run an ExampleGen executor on the data files under ``data_root``; examples per split.

    ``partition`` names the column the splits are keyed by ("": whole examples);
    ``examples`` is the output artifact, to read its properties after; a
    ``test_period`` column adds a test split of its newest value's rows.
    """
    examples = examples or tfx.types.standard_artifacts.Examples()
    examples.uri = str(out)
    # A test period's splits are the pipeline's names: its previous period validates.
    held = VALIDATION if test_period else "eval"
    splits = [("train", 2), (held, 1)] + ([(TEST, 1)] if test_period else [])
    output = tfx.proto.Output(
        split_config=tfx.proto.SplitConfig(
            splits=[tfx.proto.SplitConfig.Split(name=n, hash_buckets=b) for n, b in splits],
            partition_feature_name=partition or None,
        )
    )
    input_config = tfx.proto.Input(
        splits=[tfx.proto.Input.Split(name="all", pattern=csv_files.PATTERN)]
    )
    properties = {
        keys.INPUT_BASE_KEY: str(data_root),
        keys.INPUT_CONFIG_KEY: proto_utils.proto_to_json(input_config),
        keys.OUTPUT_CONFIG_KEY: proto_utils.proto_to_json(output),
    }
    if int_columns is not None:
        properties[INT_COLUMNS_KEY] = json.dumps(int_columns)
    if test_period:
        properties[TEST_PERIOD_KEY] = test_period
    if history:
        properties[ENTITY_HISTORY_KEY] = history.to_json()
    executor.Do({}, {keys.EXAMPLES_KEY: [examples]}, properties)
    return {
        name: sorted(
            tf.train.Example.FromString(record.numpy()).SerializeToString(deterministic=True)
            for record in tf.data.TFRecordDataset(
                [str(p) for p in (out / f"Split-{name}").iterdir()], compression_type="GZIP"
            )
        )
        for name, _ in splits
    }


@pytest.fixture
def data_root(tmp_path: Path) -> Path:
    """Two files: 600 rows of the shipped sample, and the same columns plus tricky cells."""
    root = tmp_path / "data"
    root.mkdir()
    with sample_csv("taxi").open(newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = [row for _, row in zip(range(600), reader, strict=False)]
    _write_csv(root / "a.csv", header, rows[:300])
    # A fare written as an integer in one file only: the column is FLOAT over both.
    rows[300][header.index("fare")] = "12"
    _write_csv(root / "b.csv", header, rows[300:])
    return root


@pytest.mark.parametrize("small_blocks", [False, True])
def test_writes_the_records_and_splits_csv_example_gen_writes(
    small_blocks, data_root, tmp_path, monkeypatch
):
    if small_blocks:
        monkeypatch.setattr(csv_examples, "BLOCK_BYTES", 16 << 10)
    expected = _run(tfx_csv.Executor(), data_root, tmp_path / "tfx")
    written = _run(ArrowCsvExecutor(), data_root, tmp_path / "arrow")
    assert len(written["train"]) + len(written["eval"]) == 600
    assert written == expected
    # One file per input file and block (small blocks: several per input file).
    files = len(list((tmp_path / "arrow" / "Split-train").iterdir()))
    assert files > 2 if small_blocks else files == 2


@pytest.mark.parametrize("column", ["company", "trip_start_hour"], ids=["text", "integer"])
def test_splits_keyed_by_a_column_are_csv_example_gens(column, data_root, tmp_path):
    expected = _run(tfx_csv.Executor(), data_root, tmp_path / "tfx", partition=column)
    artifact = tfx.types.standard_artifacts.Examples()
    written = _run(ArrowCsvExecutor(), data_root, tmp_path / "arrow", None, column, artifact)
    assert written == expected
    assert artifact.get_string_custom_property(SPLIT_KEY_PROPERTY) == column
    # Every value of the column in one split only (the whole point of keying by it).
    values = {
        name: {
            bytes(tf.train.Example.FromString(e).features.feature[column].SerializeToString())
            for e in found
        }
        for name, found in written.items()
    }
    assert values["train"] and values["eval"] and not values["train"] & values["eval"]


def test_a_float_or_absent_partition_column_is_named(data_root, tmp_path):
    with pytest.raises(Exception, match="'fare' holds floats"):
        _run(ArrowCsvExecutor(), data_root, tmp_path / "float", partition="fare")
    with pytest.raises(CsvFormatError, match=r"a.csv: no column 'customer', the entity the"):
        _run(ArrowCsvExecutor(), data_root, tmp_path / "absent", partition="customer")


def _panel(root: Path, periods: list[str], people: int = 60) -> Path:
    """Each person's rows, one per period, in two files; a ``year`` and a ``person`` column."""
    root.mkdir()
    rows = [[str(p), period, str(p % 7)] for p in range(people) for period in periods]
    _write_csv(root / "a.csv", ["person", "year", "x"], rows[: len(rows) // 2])
    _write_csv(root / "b.csv", ["person", "year", "x"], rows[len(rows) // 2 :])
    return root


def _column(examples: list[bytes], name: str) -> list[int | str]:
    values = []
    for record in examples:
        feature = tf.train.Example.FromString(record).features.feature[name]
        kind = feature.WhichOneof("kind")
        value = getattr(feature, kind).value[0]
        values.append(value.decode() if isinstance(value, bytes) else value)
    return values


@pytest.mark.parametrize(
    ("periods", "newest"),
    [
        ([str(y) for y in range(1980, 1988)], 1987),
        # Dates as ISO text sort as they run; "2024-10" after "2024-09", not after "2024-1".
        ([f"2024-{m:02d}" for m in range(1, 13)], "2024-12"),
    ],
    ids=["years", "iso-months"],
)
def test_a_test_period_tests_its_newest_rows_and_validates_on_the_period_before(
    periods, newest, tmp_path
):
    root = _panel(tmp_path / "data", periods)
    artifact = tfx.types.standard_artifacts.Examples()
    written = _run(ArrowCsvExecutor(), root, tmp_path / "out", None, "person", artifact, "year")
    previous = periods[-2] if isinstance(newest, str) else int(periods[-2])
    assert _column(written[TEST], "year") == [newest] * 60
    assert _column(written[VALIDATION], "year") == [previous] * 60
    train = _column(written[TRAIN], "year")
    assert newest not in train and previous not in train and len(train) == 60 * (len(periods) - 2)
    # Split by the period alone: every person is in all three, as the next period asks.
    assert {s: set(_column(written[s], "person")) for s in written} == {
        s: set(range(60)) for s in (TRAIN, VALIDATION, TEST)
    }
    assert artifact.get_string_custom_property(TEST_PERIOD_PROPERTY) == f"year = {newest}"
    assert artifact.get_string_custom_property(VALIDATION_PERIOD_PROPERTY) == f"year = {previous}"
    assert artifact.get_string_custom_property(SPLIT_KEY_PROPERTY) == ""


def test_each_row_gets_what_its_entity_s_earlier_periods_say(tmp_path):
    root = _panel(tmp_path / "data", ["2019", "2020", "2021", "2022"])
    history = HistoryColumns("person", "year", "x", "1")
    written = _run(
        ArrowCsvExecutor(), root, tmp_path / "out", None, "person", None, "year", history
    )
    rows_before, rate, last = history.names()
    for split, year in ((TRAIN, 2020), (VALIDATION, 2021), (TEST, 2022)):
        examples = [tf.train.Example.FromString(e) for e in written[split]]
        # Person 1 (x = 1 every year) and person 2 (x = 2): rows and rates of earlier years.
        for example in examples:
            feature = example.features.feature
            person, when = (
                feature["person"].int64_list.value[0],
                feature["year"].int64_list.value[0],
            )
            if when != year or person not in (1, 2):
                continue
            assert feature[rows_before].int64_list.value == [year - 2019]
            assert feature[rate].float_list.value == [1.0 if person == 1 else 0.0]
            assert feature[last].float_list.value == [1.0 if person == 1 else 0.0]
    first = [
        tf.train.Example.FromString(e) for e in written[TRAIN]
        if tf.train.Example.FromString(e).features.feature["year"].int64_list.value[0] == 2019
    ]  # fmt: skip
    assert first and all(not e.features.feature[rate].float_list.value for e in first)


@pytest.mark.parametrize(
    ("cells", "message"),
    [
        (["1980.5", "1981.5"], "the period column 'year' holds decimals"),
        (["", ""], "the period column 'year' holds no value"),
        (["1980", "1981", "1982", ""], "the period column 'year' has no value"),
        (["1980", "1981"], "'year' holds 2 value.s., newest 1981: a test period needs 3"),
    ],
    ids=["decimals", "no-value", "an-empty-cell", "two-periods"],
)
def test_a_period_that_cannot_split_is_named(cells, message, tmp_path):
    root = _panel(tmp_path / "data", cells, people=4)
    with pytest.raises(Exception, match=message):
        _run(ArrowCsvExecutor(), root, tmp_path / "out", None, "person", None, "year")


def test_an_absent_period_column_is_named(data_root, tmp_path):
    with pytest.raises(CsvFormatError, match=r"a.csv: no column 'year', the period whose"):
        _run(ArrowCsvExecutor(), data_root, tmp_path / "out", None, "", None, "year")


def test_types_tricky_cells_as_csv_example_gen_does(tmp_path):
    root = tmp_path / "tricky"
    root.mkdir()
    _write_csv(root / "t.csv", TRICKY_HEADER, TRICKY_ROWS)
    expected = _run(tfx_csv.Executor(), root, tmp_path / "tfx")
    written = _run(ArrowCsvExecutor(), root, tmp_path / "arrow")
    assert written == expected
    first = next(
        example
        for example in map(tf.train.Example.FromString, written["train"] + written["eval"])
        if example.features.feature["id"].int64_list.value == [1]
    )
    features = first.features.feature
    assert features["empty"].WhichOneof("kind") is None  # no value anywhere: no type
    assert features["big_int"].WhichOneof("kind") == "bytes_list"
    assert features["mixed_number"].WhichOneof("kind") == "float_list"
    assert features["spaced_int"].WhichOneof("kind") == "int64_list"


@pytest.mark.parametrize(
    ("cells", "kind"),
    [
        ([None, None], ColumnKind.UNKNOWN),
        (["1", None, "-2"], ColumnKind.INT),
        (["1", "2.5"], ColumnKind.FLOAT),
        (["1", "three"], ColumnKind.STRING),
        (["1.5", "99999999999999999999"], ColumnKind.STRING),
    ],
)
def test_column_kinds(cells, kind):
    assert column_kind(pa.array(cells, pa.string())) == kind


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"r.csv": "a,b\n1,2\n3\n4,5\n"}, r"r\.csv: a row has 1 cells where the header has 2"),
        (
            {"a.csv": "a,b\n1,2\n", "b.csv": "a,c\n3,4\n"},
            r"b\.csv: header \['a', 'c'\] is not \['a', 'b'\]",
        ),
    ],
    ids=["ragged-row", "another-header"],
)
def test_a_malformed_file_is_named_with_what_is_wrong(tmp_path, files, message):
    root = tmp_path / "data"
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text)
    with pytest.raises(CsvFormatError, match=message):
        _run(ArrowCsvExecutor(), root, tmp_path / "out")


def test_a_file_without_rows_still_gives_every_split_a_file(tmp_path):
    root = tmp_path / "header_only"
    root.mkdir()
    (root / "h.csv").write_text("a,b\n")
    assert _run(ArrowCsvExecutor(), root, tmp_path / "out") == {"train": [], "eval": []}


def test_encode_blocks_gives_one_example_per_row(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("x,y\n1,a\n2,\n")
    kinds = file_kinds(str(path), ["x", "y"])
    assert kinds == (ColumnKind.INT, ColumnKind.STRING)
    records = [r for block in encode_blocks(str(path), ["x", "y"], kinds) for r in block]
    # Deterministic bytes: the hash split is computed on exactly these.
    assert all(
        r == tf.train.Example.FromString(r).SerializeToString(deterministic=True) for r in records
    )
    rows = [tf.train.Example.FromString(r) for r in records]
    assert [r.features.feature["x"].int64_list.value[0] for r in rows] == [1, 2]
    assert [list(r.features.feature["y"].bytes_list.value) for r in rows] == [[b"a"], []]


@pytest.fixture(scope="module")
def plain_export(tmp_path_factory) -> tuple[list[str], list[list[str]], dict[str, list[bytes]]]:
    """The habits' table, and the examples its plain file gives."""
    header, rows = table()
    root = tmp_path_factory.mktemp("plain")
    _write_csv(root / "t.csv", header, rows)
    return header, rows, _run(ArrowCsvExecutor(), root, tmp_path_factory.mktemp("out"), INT_COLUMNS)


@pytest.mark.parametrize("habit", list(HABITS))
def test_exported_files_give_the_plain_files_examples(habit, plain_export, tmp_path):
    header, rows, expected = plain_export
    root = tmp_path / "data"
    root.mkdir()
    HABITS[habit](root, header, rows)
    assert _run(ArrowCsvExecutor(), root, tmp_path / "out", INT_COLUMNS) == expected


def test_whole_floats_are_integers_only_where_the_schema_says_so(tmp_path):
    root = tmp_path / "data"
    root.mkdir()
    (root / "t.csv").write_text("n,x\n10.0,1.0\n,2.0\n-3.0,3.5\n")
    written = _run(ArrowCsvExecutor(), root, tmp_path / "out", ["n"])
    examples = [tf.train.Example.FromString(r) for r in written["train"] + written["eval"]]
    assert sorted(list(e.features.feature["n"].int64_list.value) for e in examples) == [
        [],
        [-3],
        [10],
    ]
    assert all(e.features.feature["x"].WhichOneof("kind") == "float_list" for e in examples)


def test_a_value_that_is_not_whole_in_an_int_column_stops_the_run(tmp_path):
    root = tmp_path / "data"
    root.mkdir()
    (root / "a.csv").write_text("n,x\n1,1\n")
    (root / "b.csv").write_text("n,x\n2.0,1\n10.5,2\n")
    message = r"b\.csv: column n holds 10\.5, not a whole number, where the schema expects an"
    with pytest.raises(CsvFormatError, match=message):
        _run(ArrowCsvExecutor(), root, tmp_path / "out", ["n"])
    assert not list((tmp_path / "out").rglob("*.gz"))  # nothing written


@pytest.mark.parametrize("value", ["nan", "-inf", "1e19", "0.001"])
def test_values_that_are_not_whole_64_bit_integers(value, tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(f"n\n1.0\n{value}\n")
    with pytest.raises(CsvFormatError, match=f"column n holds {value}, not a whole number"):
        file_kinds(str(path), ["n"], ["n"])


def test_a_file_that_is_not_utf8_is_named_with_the_byte(tmp_path):
    root = tmp_path / "data"
    root.mkdir()
    (root / "good.csv").write_text("a,b\n1,2\n")
    (root / "latin1.csv").write_bytes("a,b\n1,Café\n".encode("latin-1"))
    message = r"latin1\.csv is not UTF-8 text \(byte 0xe9 at line 2, offset 9\); export it as CSV"
    with pytest.raises(CsvFormatError, match=message):
        _run(ArrowCsvExecutor(), root, tmp_path / "out")


def test_a_file_named_gz_that_is_not_gzip_is_named(tmp_path):
    path = tmp_path / "t.csv.gz"
    path.write_bytes(b"a,b\n1,2\n")
    with pytest.raises(CsvFormatError, match=r"t\.csv\.gz is not a complete gzip file"):
        read_header(str(path))


def test_a_cut_off_gzip_file_is_named(tmp_path):
    path = tmp_path / "t.csv.gz"
    rows = "".join(f"{i},{i * 7}\n" for i in range(5000))
    path.write_bytes(gzip.compress(f"a,b\n{rows}".encode())[:-30])
    assert read_header(str(path)) == ["a", "b"]
    with pytest.raises(CsvFormatError, match=r"t\.csv\.gz is not a complete gzip file"):
        file_kinds(str(path), ["a", "b"])


def test_only_csv_and_gzipped_csv_files_are_data():
    assert csv_files.data_files(["b.csv.gz", "a.csv"]) == ["a.csv", "b.csv.gz"]
    with pytest.raises(CsvFormatError, match=r"t\.csv\.zip is not a file the pipeline reads"):
        csv_files.data_files(["a.csv", "t.csv.zip"])


def test_the_pipeline_gives_example_gen_the_curated_schemas_int_columns(tmp_path):
    config = PipelineConfig.resolve(
        pipeline_root=str(tmp_path / "root"),
        data_root=str(tmp_path / "data"),
        serving_dir=str(tmp_path / "serving"),
    )
    gen = next(c for c in create_pipeline(config).components if c.id == node_ids.EXAMPLE_GEN)
    assert json.loads(gen.exec_properties[INT_COLUMNS_KEY]) == [
        "dropoff_census_tract",
        "dropoff_community_area",
        "pickup_census_tract",
        "pickup_community_area",
        "trip_seconds",
        "trip_start_day",
        "trip_start_hour",
        "trip_start_month",
        "trip_start_timestamp",
    ]
    assert config.input_pattern == csv_files.PATTERN

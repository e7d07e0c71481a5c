"""ExampleGen's spans and TFX's cache: what the driver reads is the cache key, and the
executor trains on nothing that changed while it was read.

Real runs: the driver and executor on real span folders, Beam's DirectRunner, and
LocalDagRunner with its ML-Metadata store for the cache itself.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
from pathlib import Path

import pytest
import tensorflow as tf
from ml_metadata.metadata_store import metadata_store
from ml_metadata.proto import metadata_store_pb2 as mlmd_pb2
from tfx import v1 as tfx
from tfx.components.example_gen import utils as example_gen_utils
from tfx.types import standard_component_specs as keys
from tfx.utils import proto_utils

from components.example_gen import periods, writing
from components.example_gen.component import ArrowCsvExampleGen
from components.example_gen.driver import SpanDriver
from components.example_gen.executor import ArrowCsvExecutor
from components.example_gen.keys import (
    ENTITY_HISTORY_KEY,
    RESOLVED_WINDOW_KEY,
    SPAN_CACHE_KEY,
    SPAN_DIGESTS_KEY,
    SPAN_KEY,
    TEST_PERIOD_KEY,
    WINDOW_KEY,
)
from data_layout import spans
from data_layout.properties import (
    INPUT_DIGEST_PROPERTY,
    REUSED_PROPERTY,
    TEST_PERIOD_PROPERTY,
    TRAIN_PARTS_PROPERTY,
    VALIDATION_PERIOD_PROPERTY,
    WINDOW_PROPERTY,
)
from modules.features import HistoryColumns
from pipeline_def.project_paths import sample_csv

# Seconds a test: each test runs ExampleGen's driver and Beam pipeline over spans.
pytestmark = pytest.mark.slow

ROWS = 200
FINGERPRINT = example_gen_utils.FINGERPRINT_PROPERTY_NAME
SPLITS = tfx.proto.Output(
    split_config=tfx.proto.SplitConfig(
        splits=[
            tfx.proto.SplitConfig.Split(name=name, hash_buckets=buckets)
            for name, buckets in (("train", 3), ("validation", 1), ("test", 1))
        ]
    )
)
INPUT = tfx.proto.Input(splits=[tfx.proto.Input.Split(name="single_split", pattern="*.csv*")])


@pytest.fixture(scope="module")
def sample() -> tuple[list[str], list[list[str]]]:
    """The taxi sample's header and first rows, a span's worth per span."""
    with sample_csv("taxi").open(newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        return header, [row for _, row in zip(range(3 * ROWS), reader, strict=False)]


def land(root: Path, span: int, sample: tuple[list[str], list[list[str]]]) -> Path:
    """Write span ``span`` (ROWS rows of the sample) under ``root``; its file's path."""
    header, rows = sample
    (root / f"span-{span}").mkdir(parents=True, exist_ok=True)
    path = root / f"span-{span}" / "part-0.csv"
    with path.open("w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows[span * ROWS : (span + 1) * ROWS])
    return path


def _properties(root: Path, cache: Path) -> dict[str, object]:
    return {
        keys.INPUT_BASE_KEY: str(root),
        keys.INPUT_CONFIG_KEY: proto_utils.proto_to_json(INPUT),
        keys.OUTPUT_CONFIG_KEY: proto_utils.proto_to_json(SPLITS),
        SPAN_KEY: spans.LATEST_TEXT,
        WINDOW_KEY: 2,
        SPAN_CACHE_KEY: str(cache),
    }


def _driven(root: Path, cache: Path) -> dict[str, object]:
    """The execution properties after the driver ran, as the executor gets them locally."""
    return SpanDriver(None).resolve_exec_properties(_properties(root, cache), None, None)


def test_the_driver_resolves_the_newest_span_and_keys_it_by_the_files_bytes(tmp_path, sample):
    root, cache = tmp_path / "root", tmp_path / "cache"
    first_file = land(root, 0, sample)
    first = _driven(root, cache)
    assert first[example_gen_utils.SPAN_PROPERTY_NAME] == 0
    land(root, 1, sample)
    second = _driven(root, cache)
    assert second[example_gen_utils.SPAN_PROPERTY_NAME] == 1
    assert second[FINGERPRINT] != first[FINGERPRINT]
    assert set(json.loads(second[SPAN_DIGESTS_KEY])) == {"0", "1"}
    # A cell changed in place, same size and same second: another key all the same.
    stat = first_file.stat()
    text = first_file.read_text()
    first_file.write_text(text.replace(",Cash,", ",Casi,", 1))
    os.utime(first_file, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert first_file.stat().st_size == stat.st_size
    assert _driven(root, cache)[FINGERPRINT] != second[FINGERPRINT]


def test_an_unreadable_root_leaves_the_error_to_the_executor(tmp_path):
    properties = _driven(tmp_path / "missing", tmp_path / "cache")
    assert re.fullmatch(r"unread [0-9a-f-]{36}: data root .*missing does not exist",
                        properties[FINGERPRINT])  # fmt: skip
    # A key no execution had: no cached examples are served for an unreadable root.
    assert _driven(tmp_path / "missing", tmp_path / "cache")[FINGERPRINT] != properties[FINGERPRINT]
    assert RESOLVED_WINDOW_KEY not in properties


def _do(properties: dict[str, object], out: Path) -> None:
    examples = tfx.types.standard_artifacts.Examples()
    examples.uri = str(out)
    ArrowCsvExecutor().Do({}, {keys.EXAMPLES_KEY: [examples]}, properties)


def test_files_changed_since_the_driver_read_them_are_not_trained_on(tmp_path, sample):
    root, cache = tmp_path / "root", tmp_path / "cache"
    path = land(root, 0, sample)
    properties = _driven(root, cache)
    with path.open("a") as f:  # a writer still appending
        f.write(path.read_text().splitlines()[1] + "\n")
    with pytest.raises(spans.SpanNotReady, match=r"span 0 \(.*span-0\) changed since this run"):
        _do(properties, tmp_path / "out")


def test_files_changed_while_the_executor_read_them_are_not_trained_on(
    tmp_path, sample, monkeypatch
):
    root, cache = tmp_path / "root", tmp_path / "cache"
    land(root, 0, sample)
    path = land(root, 1, sample)
    written = writing.write_file

    def write_then_append(indexed_path, *args):  # the writer appends as the span is encoded
        counts = written(indexed_path, *args)
        with path.open("a") as f:
            f.write(path.read_text().splitlines()[1] + "\n")
        return counts

    monkeypatch.setattr(writing, "write_file", write_then_append)
    with pytest.raises(spans.SpanNotReady, match=r"span 1 \(.*span-1\) changed while this run"):
        _do(_driven(root, cache), tmp_path / "out")


def _example_gen_pipeline(root: Path, out: Path) -> tfx.dsl.Pipeline:
    example_gen = ArrowCsvExampleGen(
        input_base=str(root),
        input_config=INPUT,
        output_config=SPLITS,
        span=spans.LATEST_TEXT,
        window=2,
        span_cache=str(out / "encoded-spans"),
    ).with_id("CsvExampleGen")
    return tfx.dsl.Pipeline(
        pipeline_name="spans",
        pipeline_root=str(out / "pipeline"),
        components=[example_gen],
        enable_cache=True,
        metadata_connection_config=_store(out),
    )


def _store(out: Path) -> mlmd_pb2.ConnectionConfig:
    return tfx.orchestration.metadata.sqlite_metadata_connection_config(
        str(out / "metadata.sqlite")
    )


def test_a_new_span_is_not_served_the_cached_examples_and_an_unchanged_root_is(tmp_path, sample):
    root, out = tmp_path / "root", tmp_path / "out"
    land(root, 0, sample)
    runner = tfx.orchestration.LocalDagRunner()
    runner.run(_example_gen_pipeline(root, out))
    land(root, 1, sample)
    runner.run(_example_gen_pipeline(root, out))
    runner.run(_example_gen_pipeline(root, out))
    store = metadata_store.MetadataStore(_store(out))
    states = [e.last_known_state for e in sorted(store.get_executions(), key=lambda e: e.id)]
    assert states == [
        mlmd_pb2.Execution.COMPLETE,
        mlmd_pb2.Execution.COMPLETE,
        mlmd_pb2.Execution.CACHED,
    ]
    examples = sorted(store.get_artifacts_by_type("Examples"), key=lambda a: a.id)
    assert [a.properties["span"].int_value for a in examples] == [0, 1]


def test_a_span_taken_away_while_read_is_not_trained_on(tmp_path, sample, monkeypatch):
    root, cache = tmp_path / "root", tmp_path / "cache"
    land(root, 0, sample)
    land(root, 1, sample)
    written = writing.write_file

    def write_then_remove(indexed_path, *args):  # the span's writer starts over
        counts = written(indexed_path, *args)
        shutil.rmtree(root / "span-1", ignore_errors=True)
        return counts

    monkeypatch.setattr(writing, "write_file", write_then_remove)
    with pytest.raises(spans.SpanNotReady, match=r"span 1 \(.*span-1\) changed while this run"):
        _do(_driven(root, cache), tmp_path / "out")


def test_a_span_taken_away_after_the_driver_listed_it_is_waited_for(tmp_path, sample):
    root, cache = tmp_path / "root", tmp_path / "cache"
    land(root, 0, sample)
    land(root, 1, sample)
    properties = _driven(root, cache)
    shutil.rmtree(root / "span-1")
    with pytest.raises(spans.SpanNotReady, match=r"span 1 \(.*span-1\) changed since this run"):
        _do(properties, tmp_path / "out")
    # Asked for by the user and not there, the same span is bad input.
    with pytest.raises(spans.SpanError, match="has no span 1"):
        _do({**_properties(root, cache), SPAN_KEY: "1"}, tmp_path / "out2")


def test_the_executor_reads_the_window_the_driver_resolved(tmp_path, sample):
    root, cache = tmp_path / "root", tmp_path / "cache"
    for span in (0, 1, 2):
        land(root, span, sample)
    for span in (1, 2):
        (root / f"span-{span}" / spans.SUCCESS_MARKER).touch()
    properties = {**_properties(root, cache), WINDOW_KEY: 4}
    driven = SpanDriver(None).resolve_exec_properties(properties, None, None)
    (root / "span-0" / spans.SUCCESS_MARKER).touch()  # lands between driver and executor
    examples = tfx.types.standard_artifacts.Examples()
    examples.uri = str(tmp_path / "out")
    ArrowCsvExecutor().Do({}, {keys.EXAMPLES_KEY: [examples]}, driven)
    window = json.loads(examples.get_string_custom_property(WINDOW_PROPERTY))
    assert [w["span"] for w in window] == [1, 2]  # what the cache key says, not 0, 1, 2
    digest = examples.get_string_custom_property(INPUT_DIGEST_PROPERTY)
    assert digest == driven[FINGERPRINT]


def test_what_was_encoded_from_changing_files_is_not_kept(tmp_path, sample, monkeypatch):
    root, cache = tmp_path / "root", tmp_path / "cache"
    path = land(root, 0, sample)
    written = writing.write_file

    def write_then_append(indexed_path, *args):
        counts = written(indexed_path, *args)
        with path.open("a") as f:
            f.write(path.read_text().splitlines()[1] + "\n")
        return counts

    monkeypatch.setattr(writing, "write_file", write_then_append)
    with pytest.raises(spans.SpanNotReady):
        _do(_driven(root, cache), tmp_path / "out")
    assert [p.name for p in (cache / "span-0").iterdir()] == []


def _months(folder: Path) -> list[int]:
    files = [str(p) for p in folder.iterdir()]
    return [
        tf.train.Example.FromString(r.numpy())
        .features.feature["trip_start_month"]
        .int64_list.value[0]
        for r in tf.data.TFRecordDataset(files, compression_type="GZIP")
    ]


def _period_run(
    root: Path, cache: Path, out: Path, window: int = 2
) -> tfx.types.standard_artifacts.Examples:
    """ExampleGen over ``root``'s spans with ``trip_start_month`` as the test period."""
    properties = {
        **_properties(root, cache),
        TEST_PERIOD_KEY: "trip_start_month",
        WINDOW_KEY: window,
    }
    examples = tfx.types.standard_artifacts.Examples()
    examples.uri = str(out)
    ArrowCsvExecutor().Do({}, {keys.EXAMPLES_KEY: [examples]}, properties)
    return examples


def _with_months(sample: tuple[list[str], list[list[str]]], month_of) -> tuple:  # noqa: ANN001
    """The sample with row ``i``'s month ``month_of(i, month)``."""
    header, rows = sample
    month = header.index("trip_start_month")
    return header, [
        [*r[:month], str(month_of(i, int(r[month]))), *r[month + 1 :]] for i, r in enumerate(rows)
    ]


def test_a_test_period_is_each_span_s_own_newest_encoded_or_reused(tmp_path, sample):
    root, cache = tmp_path / "root", tmp_path / "cache"
    # Span 1 holds later months than span 0: its own newest is the run's test period.
    shifted = _with_months(sample, lambda i, m: m % 6 + 1 + 6 * (i >= ROWS))
    for span in (0, 1):
        land(root, span, shifted)
    newest = max(int(r[shifted[0].index("trip_start_month")]) for r in shifted[1][ROWS : 2 * ROWS])
    for run in ("encoded", "reused"):
        examples = _period_run(root, cache, tmp_path / run)
        assert examples.get_string_custom_property(TEST_PERIOD_PROPERTY) == (
            f"trip_start_month = {newest}"
        )
        assert examples.get_string_custom_property(VALIDATION_PERIOD_PROPERTY) == (
            f"trip_start_month = {newest - 1}"
        )
        assert set(_months(tmp_path / run / "Split-test")) == {newest}
        assert set(_months(tmp_path / run / "Split-validation")) == {newest - 1}
        # Span 0's two newest months (6 and 5) were its own test and validation: an older
        # span's held-out periods join train, never the run's test or validation.
        assert {5, 6} <= set(_months(tmp_path / run / "Split-train"))
        assert max(_months(tmp_path / run / "Split-train")) < newest - 1
    assert json.loads(examples.get_string_custom_property(REUSED_PROPERTY)) == [0, 1]


def test_spans_of_one_period_validate_on_the_span_before_and_train_on_the_older(tmp_path, sample):
    root, cache = tmp_path / "root", tmp_path / "cache"
    # One month per span (span N holds month N + 1), as a panel landed a year at a time.
    monthly = _with_months(sample, lambda i, m: i // ROWS + 1)
    for span in (0, 1, 2):
        land(root, span, monthly)
    examples = _period_run(root, cache, tmp_path / "out", window=3)
    assert set(_months(tmp_path / "out" / "Split-test")) == {3}
    assert _months(tmp_path / "out" / "Split-validation") == [2] * ROWS
    assert _months(tmp_path / "out" / "Split-train") == [1] * ROWS
    assert examples.get_string_custom_property(VALIDATION_PERIOD_PROPERTY) == (
        "trip_start_month = 2"
    )
    parts = json.loads(examples.get_string_custom_property(TRAIN_PARTS_PROPERTY))
    assert [(p["span"], p["split"]) for p in parts] == [
        (0, "train"), (0, "test"), (1, "train"), (2, "train")
    ]  # fmt: skip


def test_an_older_span_s_rows_of_the_test_period_are_in_no_split(tmp_path, sample):
    root, cache = tmp_path / "root", tmp_path / "cache"
    # Span 0 holds months 1 to 3, span 1 month 3 alone (a late delivery of the period).
    late = _with_months(sample, lambda i, m: 3 if i >= ROWS else m % 3 + 1)
    for span in (0, 1):
        land(root, span, late)
    _period_run(root, cache, tmp_path / "out")
    assert _months(tmp_path / "out" / "Split-test") == [3] * ROWS  # the run's span's alone
    assert set(_months(tmp_path / "out" / "Split-validation")) == {2}
    assert set(_months(tmp_path / "out" / "Split-train")) == {1}


def _values(folder: Path, column: str) -> list[int]:
    """Each example's ``column`` in the split folder's files."""
    files = [str(p) for p in folder.iterdir()]
    return [
        tf.train.Example.FromString(r.numpy()).features.feature[column].int64_list.value[0]
        for r in tf.data.TFRecordDataset(files, compression_type="GZIP")
    ]


def test_an_entity_held_out_in_the_run_s_span_has_no_row_in_train_from_any_span(tmp_path, sample):
    root, cache = tmp_path / "root", tmp_path / "cache"
    header, rows = sample
    # Forty riders, each with rows in every span: a panel cut into spans.
    panel = ([*header, "rider"], [[*row, str(i % 40)] for i, row in enumerate(rows)])
    for span in (0, 1, 2):
        land(root, span, panel)
    keyed = tfx.proto.Output()
    keyed.CopyFrom(SPLITS)
    keyed.split_config.partition_feature_name = "rider"
    properties = {
        **_properties(root, cache),
        keys.OUTPUT_CONFIG_KEY: proto_utils.proto_to_json(keyed),
    }
    splits = {}
    for grown in ("window of 1", "window of 2"):
        _do({**properties, WINDOW_KEY: 1 if grown == "window of 1" else 2}, tmp_path / grown)
        splits[grown] = {
            split: set(_values(tmp_path / grown / f"Split-{split}", "rider"))
            for split in ("train", "validation", "test")
        }
    wide = splits["window of 2"]
    assert wide["test"] and wide["validation"]
    assert wide["train"] & (wide["test"] | wide["validation"]) == set()
    # Each rider keeps its split as the window grows.
    assert splits["window of 1"] == wide
    # The older span's train rows joined train: twice the newest span's alone.
    train = _values(tmp_path / "window of 2" / "Split-train", "rider")
    assert len(train) == 2 * len(_values(tmp_path / "window of 1" / "Split-train", "rider"))


def test_spans_of_one_period_in_a_window_of_two_are_refused_naming_the_empty_split(
    tmp_path, sample
):
    root, cache = tmp_path / "root", tmp_path / "cache"
    monthly = _with_months(sample, lambda i, m: i // ROWS + 1)
    for span in (0, 1):
        land(root, span, monthly)
    with pytest.raises(spans.SpanError, match=r"leave the train split without a row: test period"):
        _period_run(root, cache, tmp_path / "out", window=2)


def test_a_reused_span_s_periods_come_from_its_encoding_not_its_files(
    tmp_path, sample, monkeypatch
):
    root, cache = tmp_path / "root", tmp_path / "cache"
    monthly = _with_months(sample, lambda i, m: i // ROWS + 1)
    for span in (0, 1, 2):
        land(root, span, monthly)
    _period_run(root, cache, tmp_path / "first", window=3)
    read = []
    original = periods.newest_periods
    monkeypatch.setattr(periods, "newest_periods", lambda *a: read.append(a) or original(*a))
    _period_run(root, cache, tmp_path / "again", window=3)
    assert read == []  # every span reused: its periods were kept with its encoding
    assert _months(tmp_path / "again" / "Split-validation") == [2] * ROWS


def test_over_a_window_each_row_s_history_reads_the_older_spans_too(tmp_path, sample):
    root, cache = tmp_path / "root", tmp_path / "cache"
    monthly = _with_months(sample, lambda i, m: i // ROWS + 1)
    for span in (0, 1, 2):
        land(root, span, monthly)
    history = HistoryColumns("pickup_community_area", "trip_start_month", "payment_type", "Cash")
    properties = {
        **_properties(root, cache),
        TEST_PERIOD_KEY: "trip_start_month",
        WINDOW_KEY: 3,
        ENTITY_HISTORY_KEY: history.to_json(),
    }
    examples = tfx.types.standard_artifacts.Examples()
    examples.uri = str(tmp_path / "out")
    ArrowCsvExecutor().Do({}, {keys.EXAMPLES_KEY: [examples]}, properties)
    header, rows = monthly
    area, pay = header.index(history.entity), header.index(history.label)
    expected = {}  # a test row's area: its cash share in months 1 and 2
    for r in rows[: 2 * ROWS]:
        if r[area] and r[pay]:
            n, cash = expected.get(int(r[area]), (0, 0))
            expected[int(r[area])] = (n + 1, cash + (r[pay] == "Cash"))
    files = [str(p) for p in (tmp_path / "out" / "Split-test").iterdir()]
    checked = 0
    for record in tf.data.TFRecordDataset(files, compression_type="GZIP"):
        feature = tf.train.Example.FromString(record.numpy()).features.feature
        if not feature["pickup_community_area"].int64_list.value:
            continue
        n, cash = expected.get(feature["pickup_community_area"].int64_list.value[0], (0, 0))
        assert feature[history.names()[0]].int64_list.value == [n]
        if n:
            assert feature[history.names()[1]].float_list.value[0] == pytest.approx(
                cash / n, abs=1e-6
            )
            checked += 1
    assert checked > 100

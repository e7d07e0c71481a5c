"""CsvExampleGen with an Arrow CSV reader: the same examples and splits, much faster.

TFX's CsvExampleGen parses every line with Python's csv module, builds every
``tf.train.Example`` field by field in Python, then shuffles all examples through
one Beam group-by before writing: most of a large run's time and memory
(docs/decisions/arrow-example-gen.md). This executor is one Beam step per
input file (so files spread over Beam workers, on any runner): read the file in
blocks with pyarrow's CSV reader, encode each block with tfx_bsl's C++ encoder,
hash each example into its split and write one gzipped TFRecord per block and split.
Reading and encoding are ``data_layout.csv_examples``'s, which ``wide-deep-score`` reads
rows to score with; this module is the component: spans, splits, driver and executor.

The examples equal CsvExampleGen's, and so do the splits (TFX hashes each
example's deterministic serialization; these records are that serialization):

* column types are inferred the way CsvExampleGen infers them, over every file of
  the split: INT when every non-empty cell is a 64-bit integer, else FLOAT when
  every one is a number, else STRING; a column with no value at all has no type;
* an empty cell is an empty value list.

Where it differs, for files as people export them (``data_layout/csv_files.py``
has the rules it shares with the runner's pre-flight check):

* it reads ``.csv`` and gzipped ``.csv.gz`` files, and a byte-order mark before the
  header is not part of the first column's name;
* a column the curated schema declares INT (``int_columns``) holds integers even
  where they are written as whole floats (``10.0``, as pandas writes an integer
  column with gaps); a value that is not whole fails, naming the file, the column
  and the value;
* a file that is not UTF-8 fails with the offset of its first other byte, and a row
  with more or fewer cells than the header with the file and the row's text
  (CsvExampleGen prints the parsed cells only);
* numbers written with Python-only syntax (``1_000``) are text here; splits by a
  ``partition_feature_name`` hash that column's feature, as TFX does, and a row
  without a value in it fails naming the column (TFX's message names no file);
* a ``test_period`` column (a panel's year, say) puts the rows of its newest value in
  the span into the ``test`` split, and the others into the other splits by their
  hash buckets: the question production asks, how a model does on the next period
  (TFX's SplitConfig has no such rule).
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import apache_beam as beam
import pyarrow as pa
import pyarrow.compute as pc
import tensorflow as tf
from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import PipelineOptions
from tfx import v1 as tfx

# The executor hooks are not in tfx.v1: a standard component gets another executor
# by subclassing it, as AtomicPusher does.
from tfx.components.example_gen import driver as example_gen_driver
from tfx.components.example_gen import utils as example_gen_utils
from tfx.components.util import examples_utils
from tfx.dsl.components.base import base_beam_executor, base_component, executor_spec
from tfx.dsl.io import fileio
from tfx.proto import example_gen_pb2
from tfx.types import artifact_utils, component_spec, standard_component_specs
from tfx.utils import proto_utils

from components.spec_extension import extended
from data_layout import csv_files, encoded_spans, spans
from data_layout.csv_examples import (
    ColumnKind,
    check_whole,
    column_kind,
    encode_blocks,
    file_kinds,
    merge_kinds,
    parse_numbers,
    read_batches,
    read_header,
)
from data_layout.csv_files import CsvFormatError
from data_layout.properties import (
    INPUT_DIGEST_PROPERTY,
    PREVIOUS_SPAN_PROPERTY,
    REUSED_PROPERTY,
    SPLIT_KEY_PROPERTY,
    TEST_PERIOD_PROPERTY,
    TRAIN_PARTS_PROPERTY,
    WINDOW_NOTE_PROPERTY,
    WINDOW_PROPERTY,
)
from data_layout.split_router import SplitRouter
from data_layout.splits import NEWEST_SPAN, PREVIOUS_SPAN, TRAIN

# The execution property listing the columns the curated schema declares INT.
INT_COLUMNS_KEY = "int_columns"
# The span to process (spans.LATEST: the newest), the window of spans to train on, and
# where encoded spans are kept for later runs (see data_layout.encoded_spans).
SPAN_KEY = "requested_span"
WINDOW_KEY = "window"
SPAN_CACHE_KEY = "span_cache"
# The column whose newest value's rows form the test split ("": the test split is hashed).
TEST_PERIOD_KEY = "test_period"
# Set by the driver: the window it resolved (spans.window_json) and each span's files
# digest as it read them (JSON {span: digest}); the executor reads that window.
RESOLVED_WINDOW_KEY = "resolved_window"
SPAN_DIGESTS_KEY = "span_digests"


def newest_period(
    files: Sequence[str], names: list[str], column: str, int_columns: Sequence[str] = ()
) -> int | str:
    """The newest value of the period ``column`` in ``files``: largest integer, last text.

    Text is compared as written (ISO dates sort so). CsvFormatError where no file has
    the column, it has no value, or it holds decimals.
    """
    if column not in names:
        raise CsvFormatError(
            f"{files[0]}: no column {column!r}, the period whose newest value is the test split"
        )
    index = names.index(column)
    values = pa.chunked_array(
        [batch.column(index).drop_null() for path in files for batch in read_batches(path, names)],
        pa.string(),
    ).combine_chunks()
    kind = column_kind(values)
    if kind is ColumnKind.UNKNOWN:
        raise CsvFormatError(f"{files[0]}: the period column {column!r} holds no value")
    if kind is ColumnKind.STRING:
        return pc.max(values).as_py()
    if kind is ColumnKind.FLOAT:
        if column not in int_columns:
            raise CsvFormatError(
                f"{files[0]}: the period column {column!r} holds decimals: only integers "
                "and text (dates) can mark a period"
            )
        check_whole(files[0], column, values)
        values = parse_numbers(values, pa.float64())
    return int(
        pc.max(parse_numbers(values, pa.int64()) if kind is ColumnKind.INT else values).as_py()
    )


def _with_newest(
    router: SplitRouter, files: Sequence[str], names: list[str], int_columns: Sequence[str]
) -> SplitRouter:
    """``router`` with its test period's newest value in ``files`` (itself: no period)."""
    if not router.period:
        return router
    return router.with_newest(newest_period(files, names, router.period, int_columns))


def _write_block(
    examples: list[bytes],
    router: SplitRouter,
    output_uri: str,
    suffix: str,
    options: tf.io.TFRecordOptions,
) -> list[int]:
    """Write one block's examples into ``data_tfrecord-<suffix>.gz`` of each split; counts."""
    counts = [0] * len(router.names)
    writers = [
        tf.io.TFRecordWriter(
            os.path.join(output_uri, f"Split-{split}", f"data_tfrecord-{suffix}.gz"), options
        )
        for split in router.names
    ]
    try:
        for example in examples:
            split = router(example)
            writers[split].write(example)
            counts[split] += 1
    finally:
        for writer in writers:
            writer.close()
    return counts


def write_file(
    indexed_path: tuple[int, str],
    names: list[str],
    kinds: tuple[ColumnKind, ...],
    router: SplitRouter,
    output_uri: str,
) -> list[int]:
    """Encode one CSV file and write each block's examples as gzipped TFRecords per split.

    File names are fixed by the input file's index and the block's, so a retried
    bundle overwrites its own output and a split never holds a row twice. Returns the
    rows written to each split.
    """
    index, path = indexed_path
    options = tf.io.TFRecordOptions(compression_type="GZIP")
    counts = [0] * len(router.names)
    block = -1
    for block, examples in enumerate(encode_blocks(path, names, kinds)):
        written = _write_block(examples, router, output_uri, f"{index:05d}-{block:05d}", options)
        counts = [a + b for a, b in zip(counts, written, strict=True)]
    if block < 0:  # no rows: still an (empty) file in every split, for readers to find
        _write_block([], router, output_uri, f"{index:05d}-00000", options)
    return counts


def _routes(
    input_config: Any, output_config: Any, period: str = ""
) -> list[tuple[str, SplitRouter]]:
    """Per input split: its file pattern and the router to the output splits."""
    splits = output_config.split_config.splits
    if splits:
        if len(input_config.splits) != 1:
            raise ValueError("output splits need exactly one input split")
        router = SplitRouter(
            [s.name for s in splits],
            [s.hash_buckets for s in splits],
            output_config.split_config.partition_feature_name,
            period,
        )
        return [(input_config.splits[0].pattern, router)]
    return [(s.pattern, SplitRouter([s.name], None)) for s in input_config.splits]


class ArrowCsvExecutor(base_beam_executor.BaseBeamExecutor):
    """CsvExampleGen's executor with Arrow reading, C++ encoding and per-file writes."""

    def Do(  # noqa: N802 (TFX's name)
        self,
        input_dict: dict[str, list[Any]],
        output_dict: dict[str, list[Any]],
        exec_properties: dict[str, Any],
    ) -> None:
        """Write the CSV files under ``input_base`` (its window of spans) as tf.Example splits."""
        self._log_startup(input_dict, output_dict, exec_properties)
        input_config = proto_utils.json_to_proto(
            exec_properties[standard_component_specs.INPUT_CONFIG_KEY], tfx.proto.Input()
        )
        output_config = proto_utils.json_to_proto(
            exec_properties[standard_component_specs.OUTPUT_CONFIG_KEY], tfx.proto.Output()
        )
        examples = artifact_utils.get_single_instance(
            output_dict[standard_component_specs.EXAMPLES_KEY]
        )
        input_base = exec_properties[standard_component_specs.INPUT_BASE_KEY]
        # The spans' files are read before any Beam pipeline exists, and only a pipeline
        # hands FileSystems its options (an s3:// root needs the endpoint).
        FileSystems.set_options(PipelineOptions(self._beam_pipeline_args))
        pattern = input_config.splits[0].pattern
        read = _Reading(input_base, _window(input_base, pattern, exec_properties), pattern)
        # Locally the driver read the files first, and TFX's cache key holds what it read.
        read.check_unchanged(_driver_digests(exec_properties))
        windowed = None
        period = exec_properties.get(TEST_PERIOD_KEY) or ""
        if not read.window.flat:
            windowed = WindowedSpans(
                input_base,
                read.window,
                read.files,
                _routes(input_config, output_config, period)[0][1],
                exec_properties[SPAN_CACHE_KEY],
            )
        try:
            self._write(examples, read, windowed, input_config, output_config, exec_properties)
        except Exception:
            # A file rewritten or taken away mid-read first fails in the CSV reader or
            # in Beam: name the span that changed rather than the symptom.
            _refuse_if_changed(read, windowed)
            raise
        _refuse_if_changed(read, windowed)
        examples.set_string_custom_property(INPUT_DIGEST_PROPERTY, read.window_digest)
        examples.set_string_custom_property(
            SPLIT_KEY_PROPERTY, output_config.split_config.partition_feature_name
        )
        examples.span = read.window.span
        examples_utils.set_payload_format(examples, example_gen_pb2.FORMAT_TF_EXAMPLE)
        examples_utils.set_file_format(examples, "tfrecords_gzip")

    def _write(
        self,
        examples: Any,
        read: _Reading,
        windowed: WindowedSpans | None,
        input_config: Any,
        output_config: Any,
        exec_properties: dict[str, Any],
    ) -> None:
        """Write the examples of the files ``read`` lists into ``examples``' splits."""
        int_columns = json.loads(exec_properties.get(INT_COLUMNS_KEY) or "[]")
        period = exec_properties.get(TEST_PERIOD_KEY) or ""
        if windowed is None:  # a flat root
            split_names = example_gen_utils.generate_output_split_names(input_config, output_config)
            _make_splits(examples, split_names)
            with self._make_beam_pipeline() as pipeline:
                for route_pattern, router in _routes(input_config, output_config, period):
                    used = _write_split(
                        pipeline, read.root, route_pattern, router, examples.uri, int_columns
                    )
            _record_test_period(examples, used)
            return
        rows, reused = windowed.encode(self._make_beam_pipeline, int_columns, read.digests)
        _record_test_period(examples, windowed.newest_router(int_columns))
        _make_splits(examples, windowed.split_names)
        windowed.assemble(examples.uri)
        _record_window(examples, read.window, rows, reused)
        examples.set_string_custom_property(
            TRAIN_PARTS_PROPERTY, json.dumps(windowed.train_parts())
        )


def _record_test_period(examples: Any, router: SplitRouter) -> None:
    """The test split's period on the Examples (``year = 1987``), where a period made it."""
    if router.period:
        examples.set_string_custom_property(
            TEST_PERIOD_PROPERTY, f"{router.period} = {router.newest}"
        )


def _refuse_if_changed(read: _Reading, windowed: WindowedSpans | None) -> None:
    """SpanNotReady naming a span whose files changed while read; its new encoding dropped.

    What was encoded from bytes that changed under the read is no encoding of any
    files: it must not be found under the digest taken before.
    """
    span = read.changed_now()
    if span is not None:
        if windowed is not None:
            windowed.forget(span)
        raise read.not_ready(span, "while this run read it")


def _make_splits(examples: Any, split_names: list[str]) -> None:
    """Declare the Examples' splits and make their folders."""
    examples.split_names = artifact_utils.encode_split_names(split_names)
    for split in split_names:
        fileio.makedirs(os.path.join(examples.uri, f"Split-{split}"))


def _window(input_base: str, pattern: str, exec_properties: dict[str, Any]) -> spans.Window:
    """The spans this run reads: the window the driver resolved, else the one asked for."""
    resolved = exec_properties.get(RESOLVED_WINDOW_KEY)
    if resolved:
        return spans.window_from_json(resolved)
    span = spans.parse_span(exec_properties.get(SPAN_KEY) or spans.LATEST_TEXT)
    window = int(exec_properties.get(WINDOW_KEY) or 1)
    return spans.read_root(fileio, input_base, pattern, span, window)


def _read_bytes(path: str) -> Any:
    return fileio.open(path, "rb")


# What TFX's file layer raises for a folder or file that went away.
_GONE = (OSError, tf.errors.NotFoundError)


class _Reading:
    """The files a run reads, and their digests when it began (what its cache key holds)."""

    def __init__(self, root: str, window: spans.Window, pattern: str) -> None:
        self.root, self.window, self.pattern = root, window, pattern
        self.files, self.digests = self._read()
        missing = next((s for s in sorted(window.folders) if s not in self.digests), None)
        if missing is not None:
            raise self.not_ready(missing, "since this run listed it")
        self.window_digest = spans.window_digest(window, self.digests)

    def _read(self) -> tuple[dict[int, list[str]], dict[int, str]]:
        return spans.read_window(fileio, self.root, self.window, self.pattern, _read_bytes, _GONE)

    def check_unchanged(self, before: dict[int, str] | None) -> None:
        """SpanNotReady naming a span whose files differ from ``before`` (None: no check)."""
        span = None if before is None else spans.changed_span(before, self.digests)
        if span is not None:
            raise self.not_ready(span, "since this run listed it")

    def changed_now(self) -> int | None:
        """The first span whose files are no longer what this reading found, or None."""
        return spans.changed_span(self.digests, self._read()[1])

    def not_ready(self, span: int, when: str) -> spans.SpanNotReady:
        """The error that says span ``span`` changed ``when``."""
        folder = os.path.join(self.root, self.window.folders[span])
        return spans.SpanNotReady(
            f"span {span} ({folder}) changed {when}: nothing was learned from it; "
            "a later run takes it"
        )


def _driver_digests(exec_properties: dict[str, Any]) -> dict[int, str] | None:
    """The per-span digests the driver read (None where no driver ran, as on Kubeflow)."""
    found = exec_properties.get(SPAN_DIGESTS_KEY)
    return {int(s): d for s, d in json.loads(found).items()} if found else None


def _record_window(
    examples: Any, window: spans.Window, rows: dict[int, int], reused: list[int]
) -> None:
    """The window on the Examples: spans and rows, the reference span, what was reused."""
    examples.set_string_custom_property(
        WINDOW_PROPERTY, json.dumps([{"span": s, "rows": rows[s]} for s in window.spans])
    )
    previous = -1 if window.previous is None else window.previous
    examples.set_int_custom_property(PREVIOUS_SPAN_PROPERTY, previous)
    examples.set_string_custom_property(REUSED_PROPERTY, json.dumps(reused))
    examples.set_string_custom_property(WINDOW_NOTE_PROPERTY, window.note)


class WindowedSpans:
    """A window of span folders: each encoded once into the cache, then assembled.

    The run's Examples hold: ``train``, every window span's train rows and the older
    spans' held-out rows (nothing judges on those); ``validation`` and ``test``, the
    run's span's alone (the period's question is how a model does on current data);
    ``newest_span`` and ``previous_span``, all rows of the run's span and of the one
    before it, for the validator's drift check between periods.
    """

    def __init__(
        self,
        root: str,
        window: spans.Window,
        files: dict[int, list[str]],
        router: SplitRouter,
        cache: str,
    ) -> None:
        self.root, self.window, self.router, self.cache = root, window, router, cache
        self.folders = {s: os.path.join(root, f) for s, f in window.folders.items()}
        self.files = {}
        for span, found in files.items():
            if not found:
                raise spans.SpanError(f"span {span} ({self.folders[span]}) holds no CSV files")
            self.files[span] = csv_files.data_files(found)
        self.names = self._columns()
        router.check_columns(self.files[window.span][0], self.names)
        self.encoded: dict[int, encoded_spans.EncodedSpan] = {}
        # Set by encode: each span's kinds key, and the spans encoded in this run.
        self.kinds_keys: dict[int, str] = {}
        self.encoded_now: set[int] = set()
        # The routers the spans were encoded with now (a test period's newest value found).
        self.routers: dict[int, SplitRouter] = {}

    @property
    def split_names(self) -> list[str]:
        """The Examples' splits."""
        extra = [NEWEST_SPAN] + ([PREVIOUS_SPAN] if self.window.previous is not None else [])
        return [*self.router.names, *extra]

    def _columns(self) -> list[str]:
        """The columns every span shares; SpanError naming a span whose columns differ."""
        newest = read_header(self.files[self.window.span][0])
        for span, files in sorted(self.files.items()):
            header = read_header(files[0])
            if header != newest:
                missing = sorted(set(newest) - set(header))
                extra = sorted(set(header) - set(newest))
                raise spans.SpanError(
                    f"span {span} ({files[0]}) has other columns than span "
                    f"{self.window.span}: missing {missing or 'none'}, extra {extra or 'none'}"
                    + ("; same columns in another order" if not missing and not extra else "")
                )
        return newest

    def encode(
        self,
        make_pipeline: Callable[[], beam.Pipeline],
        int_columns: list[str],
        digests: dict[int, str],
    ) -> tuple[dict[int, int], list[int]]:
        """Encode the spans the cache lacks; each span's rows, and the spans reused.

        ``digests`` are the spans' files digests (``spans.read_window``).
        """
        self.kinds_keys = {
            span: encoded_spans.encoding_key(digests[span], [], [("int_columns", int_columns)])
            for span in self.files
        }
        kinds = self._window_kinds(int_columns)
        buckets: list[tuple[str, int | str]] = list(
            zip(self.router.names, self.router.buckets, strict=True)
        )
        if self.router.partition:  # another key, other splits: not the cached encoding
            buckets.append(("partition", self.router.partition))
        if self.router.period:
            buckets.append(("test_period", self.router.period))
        for span, digest in digests.items():
            key = encoded_spans.encoding_key(digest, kinds[span], buckets)
            self.encoded[span] = encoded_spans.lookup(self.cache, span, key)
        missing = [s for s, e in sorted(self.encoded.items()) if e.rows is None]
        self.encoded_now = set(missing)
        if missing:
            self._encode_missing(make_pipeline, missing, kinds, int_columns)
        rows = {s: sum(e.rows.values()) for s, e in self.encoded.items()}
        return rows, [s for s in sorted(self.encoded) if s not in missing]

    def _window_kinds(self, int_columns: list[str]) -> dict[int, tuple[ColumnKind, ...]]:
        """Each span's column kinds: the window's widest, where the span has values."""
        # Each span's own kinds are inferred once per content; the window takes the widest.
        own = {
            span: encoded_spans.cached_kinds(
                self.cache,
                span,
                self.kinds_keys[span],
                lambda files=files: merge_kinds(
                    file_kinds(path, self.names, int_columns) for path in files
                ),
            )
            for span, files in self.files.items()
        }
        widest = merge_kinds(own.values())
        # A column with no value in a span is written the same whatever its kind: it
        # stays untyped there, so the span's encoding does not depend on its window.
        return {
            span: tuple(ColumnKind(w if o else o) for o, w in zip(own[span], widest, strict=True))
            for span in own
        }

    def _encode_missing(
        self,
        make_pipeline: Callable[[], beam.Pipeline],
        missing: list[int],
        kinds: dict[int, tuple[ColumnKind, ...]],
        int_columns: list[str],
    ) -> None:
        """Encode the ``missing`` spans in one Beam pipeline, publish them, look them up again.

        A test period's newest value is each span's own.
        """
        with tempfile.TemporaryDirectory(prefix="encoded-spans-") as staging:
            targets = {s: self._target(s, staging) for s in missing}
            with make_pipeline() as pipeline:
                for span in missing:
                    router = _with_newest(self.router, self.files[span], self.names, int_columns)
                    self.routers[span] = router
                    _encode_span(
                        pipeline, span, self.files[span], self.names, kinds[span],
                        router, targets[span],
                    )  # fmt: skip
            for span in missing:
                if targets[span] != self.encoded[span].uri:
                    encoded_spans.publish(targets[span], self.encoded[span].uri)
        for span in missing:
            e = self.encoded[span]
            self.encoded[span] = encoded_spans.lookup(self.cache, span, os.path.basename(e.uri))

    def _target(self, span: int, staging: str) -> str:
        """Where the span is encoded: its cache folder, or a local one to copy there."""
        uri = self.encoded[span].uri
        return (
            os.path.join(staging, f"span-{span}") if encoded_spans.encoded_elsewhere(uri) else uri
        )

    def newest_router(self, int_columns: list[str]) -> SplitRouter:
        """The router of the run's span: its test period's newest value found.

        The one it was encoded with in this run; a span reused from the cache is read.
        """
        span = self.window.span
        if span in self.routers:
            return self.routers[span]
        return _with_newest(self.router, self.files[span], self.names, int_columns)

    def forget(self, span: int) -> None:
        """Drop what this run made of ``span``: its kinds, and its encoding if made now."""
        if span not in self.kinds_keys:  # the run stopped before reading the span
            return
        encoding = self.encoded[span].uri if span in self.encoded_now else None
        encoded_spans.forget(self.cache, span, self.kinds_keys[span], encoding)

    def train_parts(self) -> list[dict[str, Any]]:
        """The encoded splits the train split is made of: span, split and encoding key.

        Every window span's train rows, and the older spans' held-out rows too. Transform
        analyzes each part on its own, its analyzer cache keyed by the encoding key.
        """
        return [
            {"span": span, "split": split, "key": os.path.basename(self.encoded[span].uri)}
            for span in self.window.spans
            for split in self.router.names
            if split == TRAIN or span != self.window.span
        ]

    def assemble(self, uri: str) -> None:
        """Copy the window's encoded files into the Examples' splits at ``uri``."""
        split_dir = functools.partial(os.path.join, uri)
        newest = self.encoded[self.window.span]
        for part in self.train_parts():
            encoded = self.encoded[part["span"]]
            encoded_spans.copy_into(encoded, part["split"], split_dir("Split-train"))
        for split in self.router.names:
            if split != TRAIN:
                encoded_spans.copy_into(newest, split, split_dir(f"Split-{split}"))
            encoded_spans.copy_into(newest, split, split_dir(f"Split-{NEWEST_SPAN}"))
            if self.window.previous is not None:
                encoded_spans.copy_into(
                    self.encoded[self.window.previous], split, split_dir(f"Split-{PREVIOUS_SPAN}")
                )


def _encode_span(
    pipeline: beam.Pipeline,
    span: int,
    files: list[str],
    names: list[str],
    kinds: tuple[ColumnKind, ...],
    router: SplitRouter,
    uri: str,
) -> None:
    """Add the steps that encode one span's files into ``uri``, then mark it encoded."""
    for split in router.names:
        fileio.makedirs(os.path.join(uri, f"Split-{split}"))
    counts = _write_files(pipeline, f"span-{span}", files, names, kinds, router, uri)
    _ = counts | f"MarkEncoded[span-{span}]" >> beam.Map(
        lambda c: encoded_spans.mark_encoded(uri, dict(zip(router.names, c, strict=True)))
    )


def _sum_counts(counts: Iterable[list[int]]) -> list[int]:
    """Rows per split, summed over files."""
    return [sum(c) for c in zip(*counts, strict=True)]


def _write_files(
    pipeline: beam.Pipeline,
    label: str,
    files: list[str],
    names: list[str],
    kinds: Any,
    router: SplitRouter,
    output_uri: str,
) -> beam.PCollection:
    """Add the steps that write ``files`` into ``output_uri``'s splits; the rows per split.

    ``kinds`` is the columns' kinds, or a singleton PCollection of them.
    """
    if isinstance(kinds, beam.PCollection):
        kinds = beam.pvalue.AsSingleton(kinds)
    return (
        pipeline
        | f"Files[{label}]" >> beam.Create(list(enumerate(files)))
        # One file per worker: without the break Beam fuses all files into one bundle.
        | f"SpreadFiles[{label}]" >> beam.Reshuffle()
        | f"WriteExamples[{label}]" >> beam.Map(write_file, names, kinds, router, output_uri)
        | f"CountRows[{label}]" >> beam.CombineGlobally(_sum_counts)
    )


def _write_split(
    pipeline: beam.Pipeline,
    root: str,
    pattern: str,
    router: SplitRouter,
    output_uri: str,
    int_columns: list[str],
) -> SplitRouter:
    """Add to ``pipeline`` the steps that write the data files in ``root`` matching ``pattern``.

    Returns the router the files are written with (a test period's newest value found).
    """
    names = spans.data_names(fileio, root, pattern)
    files = csv_files.data_files(os.path.join(root, n) for n in names)
    if not files:
        raise RuntimeError(f"Split pattern {os.path.join(root, pattern)} does not match any files.")
    # Every file is checked against this header as it is read (see read_batches).
    names = read_header(files[0])
    router.check_columns(files[0], names)
    router = _with_newest(router, files, names, int_columns)
    label = "+".join(router.names)
    kinds = (
        pipeline
        | f"FilesToType[{label}]" >> beam.Create(files)
        | f"InferColumnTypes[{label}]" >> beam.Map(file_kinds, names, int_columns)
        | f"MergeColumnTypes[{label}]" >> beam.CombineGlobally(merge_kinds)
    )
    _write_files(pipeline, label, files, names, kinds, router, output_uri)
    return router


class SpanDriver(example_gen_driver.FileBasedDriver):
    """TFX's ExampleGen driver, resolving the span and reading its files as the executor does.

    The driver runs before TFX looks for a cached execution, and what it sets among
    the execution properties is part of the cache key: the span it resolved and the
    digest of every file of the window (names and bytes). TFX's own driver
    fingerprints the files matching the input pattern at the data root by size and
    mtime: none in a root of span folders, so a run on a new span was served the
    first span's examples. The executor reads the window resolved here, and stops if
    its files changed since. Open-source Kubeflow Pipelines runs no driver; there
    ExampleGen is not cached (``pipeline_def.node_ids.KUBEFLOW_UNCACHED``).
    """

    def resolve_exec_properties(
        self, exec_properties: dict[str, Any], pipeline_info: Any, component_info: Any
    ) -> dict[str, Any]:
        """The execution properties with the span, its window's digest and each span's."""
        del pipeline_info, component_info  # TFX's driver interface: the listing is enough
        input_config = proto_utils.json_to_proto(
            exec_properties[standard_component_specs.INPUT_CONFIG_KEY], tfx.proto.Input()
        )
        input_base = exec_properties[standard_component_specs.INPUT_BASE_KEY]
        exec_properties[example_gen_utils.VERSION_PROPERTY_NAME] = None
        try:
            pattern = input_config.splits[0].pattern
            read = _Reading(input_base, _window(input_base, pattern, exec_properties), pattern)
        except (spans.SpanError, spans.SpanNotReady, CsvFormatError, *_GONE) as err:
            # The executor meets the same and fails with it, recorded as a failed
            # execution; a driver that raised would leave its execution unfinished. The
            # key is one no execution can have had, so no cached one is served.
            exec_properties[example_gen_utils.SPAN_PROPERTY_NAME] = spans.LATEST
            exec_properties[example_gen_utils.FINGERPRINT_PROPERTY_NAME] = (
                f"unread {uuid.uuid4()}: {err}"
            )
            return exec_properties
        exec_properties[example_gen_utils.SPAN_PROPERTY_NAME] = read.window.span
        exec_properties[example_gen_utils.FINGERPRINT_PROPERTY_NAME] = read.window_digest
        exec_properties[RESOLVED_WINDOW_KEY] = spans.window_json(read.window)
        exec_properties[SPAN_DIGESTS_KEY] = json.dumps({str(s): d for s, d in read.digests.items()})
        return exec_properties


class ArrowCsvExampleGenSpec(
    extended(
        standard_component_specs.FileBasedExampleGenSpec,
        parameters={
            INT_COLUMNS_KEY: component_spec.ExecutionParameter(type=str),
            SPAN_KEY: component_spec.ExecutionParameter(type=str),
            WINDOW_KEY: component_spec.ExecutionParameter(type=int),
            SPAN_CACHE_KEY: component_spec.ExecutionParameter(type=str),
            TEST_PERIOD_KEY: component_spec.ExecutionParameter(type=str, optional=True),
        },
    )
):
    """FileBasedExampleGen's spec, plus the INT columns (a JSON list), spans and test period."""


class ArrowCsvExampleGen(tfx.components.CsvExampleGen):
    """tfx.components.CsvExampleGen with ``ArrowCsvExecutor``, the INT columns and spans.

    Still a CsvExampleGen (so a FileBasedExampleGen, which TFX's Kubeflow compiler
    gives its file-fingerprinting driver); its spec is built here, with parameters
    more, instead of by FileBasedExampleGen. The span is resolved from the data root's
    listing by ``SpanDriver`` where a driver runs, and by the executor where none does
    (open-source KFP never runs one).
    """

    SPEC_CLASS = ArrowCsvExampleGenSpec
    EXECUTOR_SPEC = executor_spec.BeamExecutorSpec(ArrowCsvExecutor)
    DRIVER_CLASS = SpanDriver

    def __init__(
        self,
        input_base: str | tfx.dsl.experimental.RuntimeParameter,
        input_config: tfx.proto.Input,
        output_config: tfx.proto.Output,
        int_columns: Sequence[str] = (),
        span: str | tfx.dsl.experimental.RuntimeParameter = spans.LATEST_TEXT,
        window: int = 1,
        span_cache: str = "",
        custom_config: dict[str, Any] | None = None,
        test_period: str = "",
    ) -> None:
        """Read ``span``'s window of ``window`` spans (or a flat root) under ``input_base``.

        ``span`` is a span number or "latest", as text (a run-time parameter whose
        default is 0 counts as unset in TFX).

        ``span_cache`` is where encoded spans are kept for later runs; a root with span
        folders needs it. ``test_period`` names the column whose newest value's rows
        form the test split ("": the test split is hashed like the others).
        ``custom_config`` is only recorded (and so in the cache key): the pipeline puts
        the digest of the code the step runs there.
        """
        base_component.BaseComponent.__init__(
            self,
            spec=ArrowCsvExampleGenSpec(
                input_base=input_base,
                input_config=input_config,
                output_config=output_config,
                int_columns=json.dumps(sorted(int_columns)),
                requested_span=span,
                window=window,
                span_cache=span_cache,
                test_period=test_period,
                custom_config=json.dumps(custom_config or {}, sort_keys=True),
                output_data_format=example_gen_pb2.FORMAT_TF_EXAMPLE,
                output_file_format=example_gen_pb2.FORMAT_TFRECORDS_GZIP,
                examples=tfx.dsl.Channel(type=tfx.types.standard_artifacts.Examples),
            ),
        )

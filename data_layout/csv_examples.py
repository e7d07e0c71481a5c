"""CSV files as ``tf.train.Example``s: their columns' kinds, their rows in blocks, encoded.

What ExampleGen reads (``components.example_gen``), and what ``wide-deep-score``
reads rows to score with: one code path, so a cell becomes the same value in both. Kinds
are inferred as TFX's CsvExampleGen infers them (INT when every non-empty cell is a 64-bit
integer, else FLOAT when every one is a number, else STRING; UNKNOWN without a value), or
taken from the curated schema (``schema_kinds``). Files are read with pyarrow's CSV reader
through Beam's file systems (gzip, a byte-order mark, quoting, ragged rows named), and
encoded with tfx_bsl's C++ encoder, column by column (``data_layout.example_wire``).
No TFX import: the scoring command starts without TFX's extensions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from enum import IntEnum
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
from apache_beam.io.filesystems import CompressionTypes, FileSystems
from google.protobuf import text_format
from tensorflow_metadata.proto.v0 import schema_pb2
from tfx_bsl.coders import example_coder

from data_layout import csv_files, example_wire
from data_layout.csv_files import CsvFormatError

# Rows are read, encoded and written in blocks of about this many bytes of CSV (about
# 35k rows): large enough for the C++ reader and encoder to dominate, small enough to
# bound memory, and each block is its own output file, so that even a single input
# file gives downstream Beam workers several files to share.
BLOCK_BYTES = 4 << 20
_INTEGER_LITERAL = r"^\s*[+-]?\d+\s*$"


class ColumnKind(IntEnum):
    """A column's value type; a larger kind holds every smaller one's values."""

    UNKNOWN = 0  # no value anywhere: the feature has no type
    INT = 1
    FLOAT = 2
    STRING = 3


def parse_numbers(strings: pa.Array, to: pa.DataType) -> pa.Array:
    """``strings`` parsed as ``to``; like Python's int()/float(), allows spaces and '+'."""
    try:
        return pc.cast(strings, to)
    except pa.ArrowInvalid:
        trimmed = pc.utf8_trim_whitespace(strings)
        return pc.cast(pc.replace_substring_regex(trimmed, r"^\+", ""), to)


def column_kind(strings: pa.Array) -> ColumnKind:
    """The kind CsvExampleGen infers for a column holding ``strings`` (nulls: empty)."""
    values = strings.drop_null()
    if len(values) == 0:
        return ColumnKind.UNKNOWN
    try:
        parse_numbers(values, pa.int64())
        return ColumnKind.INT
    except pa.ArrowInvalid:
        pass
    try:
        parse_numbers(values, pa.float64())
    except pa.ArrowInvalid:
        return ColumnKind.STRING
    # An integer too large for int64 makes CsvExampleGen call the column text.
    integers = values.filter(pc.match_substring_regex(values, _INTEGER_LITERAL))
    try:
        parse_numbers(integers, pa.int64())
    except pa.ArrowInvalid:
        return ColumnKind.STRING
    return ColumnKind.FLOAT


def _open(path: str) -> Any:
    """The CSV text of the file at ``path``, on any Beam filesystem, gunzipped for .gz."""
    # Uncompressed: csv_files decides what is gzip, for this reader and the pre-flight.
    stream = FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED)
    return csv_files.decompressed(stream, path)


def read_header(path: str) -> list[str]:
    """The column names of the CSV file at ``path``."""
    with _open(path) as stream, csv_files.gzip_errors(path):
        return csv_files.read_header(stream, path)


def _utf8_error(path: str) -> None:
    """Raise the CsvFormatError locating the first byte of ``path`` that is not UTF-8."""
    with _open(path) as stream, csv_files.gzip_errors(path):
        for _ in csv_files.utf8_checked(csv_files.chunks_of(stream), path):
            pass


def read_batches(path: str, names: list[str]) -> Iterator[pa.RecordBatch]:
    """The rows of the CSV file at ``path`` in blocks, every column as (nullable) text."""
    ragged: list[str] = []

    def reject(row: Any) -> str:
        ragged.append(
            f"{path}: a row has {row.actual_columns} cells where the header has "
            f"{row.expected_columns}: {row.text!r}"
        )
        return "skip"

    # Arrow's reader skips a byte-order mark before the header itself.
    with _open(path) as stream, csv_files.gzip_errors(path):
        try:
            reader = pacsv.open_csv(
                stream,
                read_options=pacsv.ReadOptions(block_size=BLOCK_BYTES),
                parse_options=pacsv.ParseOptions(
                    newlines_in_values=True, invalid_row_handler=reject
                ),
                convert_options=pacsv.ConvertOptions(
                    column_types={name: pa.string() for name in names},
                    null_values=[""],
                    strings_can_be_null=True,
                ),
            )
            if reader.schema.names != names:
                raise CsvFormatError(f"{path}: header {reader.schema.names} is not {names}")
            for batch in reader:
                if ragged:
                    raise CsvFormatError(ragged[0])
                yield batch
        except pa.ArrowInvalid as error:
            if "UTF8" in str(error):
                _utf8_error(path)
            raise CsvFormatError(f"{path}: {error}") from error
    if ragged:
        raise CsvFormatError(ragged[0])


def check_whole(path: str, name: str, strings: pa.Array) -> None:
    """CsvFormatError unless every number in ``strings`` is a whole int64 (10.0 is)."""
    values = strings.drop_null()
    floats = parse_numbers(values, pa.float64())
    whole = pc.and_(
        pc.and_(pc.is_finite(floats), pc.equal(pc.floor(floats), floats)),
        pc.less(pc.abs(floats), float(2**63)),
    )
    if not pc.all(whole).as_py():
        value = values.filter(pc.invert(whole))[0].as_py().strip()
        raise CsvFormatError(
            f"{path}: column {name} holds {value}, not a whole number, "
            "where the schema expects an integer"
        )


def file_kinds(
    path: str, names: list[str], int_columns: Sequence[str] = ()
) -> tuple[ColumnKind, ...]:
    """The kind of each column over the whole file at ``path``.

    A column named in ``int_columns`` whose numbers are all whole is INT, even where
    they are written as floats; one that is not whole is a CsvFormatError.
    """
    kinds = [ColumnKind.UNKNOWN] * len(names)
    for batch in read_batches(path, names):
        for i, column in enumerate(batch.columns):
            if kinds[i] < ColumnKind.STRING:
                kind = column_kind(column)
                if kind is ColumnKind.FLOAT and names[i] in int_columns:
                    check_whole(path, names[i], column)
                    kind = ColumnKind.INT
                kinds[i] = max(kinds[i], kind)
    return tuple(kinds)


def merge_kinds(per_file: Iterable[tuple[ColumnKind, ...]]) -> tuple[ColumnKind, ...]:
    """The kind of each column over all files: the widest any file needs."""
    return tuple(ColumnKind(max(kinds)) for kinds in zip(*per_file, strict=True))


def _as_lists(strings: pa.Array, kind: ColumnKind) -> pa.ListArray:
    """One value list per row: empty for an empty cell, else the cell as ``kind``."""
    valid = strings.is_valid()
    values = strings.filter(valid)
    if kind is ColumnKind.INT:
        try:
            values = parse_numbers(values, pa.int64())
        except pa.ArrowInvalid:  # whole floats in a column the schema declares INT
            values = pc.cast(parse_numbers(values, pa.float64()), pa.int64())
    elif kind is ColumnKind.FLOAT:
        # tf.train.FloatList holds float32, rounded from the parsed double as in TFX.
        values = pc.cast(parse_numbers(values, pa.float64()), pa.float32(), safe=False)
    else:
        values = values.cast(pa.binary())
    counts = pc.cast(valid, pa.int32())
    offsets = pa.concat_arrays([pa.array([0], pa.int32()), pc.cumulative_sum(counts)])
    return pa.ListArray.from_arrays(offsets, values)


def encode(batch: pa.RecordBatch, kinds: tuple[ColumnKind, ...]) -> list[bytes]:
    """The batch's rows as deterministically serialized ``tf.train.Example``s."""
    encoder = example_coder.RecordBatchToExamplesEncoder()
    # Deterministic serialization orders map entries by key: encode each column on
    # its own and concatenate the entries in key order.
    columns: list[list[bytes]] = []
    for i in sorted(range(len(kinds)), key=lambda i: batch.schema.names[i].encode()):
        name = batch.schema.names[i]
        if kinds[i] is ColumnKind.UNKNOWN:
            columns.append([example_wire.untyped_feature(name)] * batch.num_rows)
            continue
        single = pa.RecordBatch.from_arrays([_as_lists(batch.column(i), kinds[i])], [name])
        columns.append(example_wire.features_contents(encoder.encode(single)))
    return example_wire.examples_of(columns)


def typed_lists(batch: pa.RecordBatch, kinds: tuple[ColumnKind, ...]) -> pa.RecordBatch:
    """The batch's columns as value lists of their kinds: what a ``tf.train.Example`` holds.

    Columns of no known kind are left out, as the model never reads them.
    """
    known = [i for i, kind in enumerate(kinds) if kind is not ColumnKind.UNKNOWN]
    return pa.RecordBatch.from_arrays(
        [_as_lists(batch.column(i), kinds[i]) for i in known],
        [batch.schema.names[i] for i in known],
    )


def encode_for_model(lists: pa.RecordBatch) -> list[bytes]:
    """Value lists (``typed_lists``) as serialized ``tf.train.Example``s, one encoder call.

    Features in the encoder's order, which a model reads alike, but not the deterministic
    serialization that TFX's split hashes (``encode`` writes that).
    """
    return example_coder.RecordBatchToExamplesEncoder().encode(lists)


def encode_blocks(
    path: str,
    names: list[str],
    kinds: tuple[ColumnKind, ...],
    extend: Callable[[pa.RecordBatch], pa.RecordBatch] | None = None,
) -> Iterator[list[bytes]]:
    """The rows of the CSV file at ``path`` as serialized ``tf.train.Example``s, by block.

    ``extend`` adds columns to each block (``kinds`` holds theirs too), before encoding.
    """
    for batch in read_batches(path, names):
        yield encode(extend(batch) if extend else batch, kinds)


_SCHEMA_KINDS = {
    schema_pb2.FeatureType.INT: ColumnKind.INT,
    schema_pb2.FeatureType.FLOAT: ColumnKind.FLOAT,
    schema_pb2.FeatureType.BYTES: ColumnKind.STRING,
}


def schema_kinds(schema_file: Path) -> dict[str, ColumnKind]:
    """The kind of each feature the schema in the text proto ``schema_file`` types.

    What the training data was read as, where the validator let it through: rows to
    score are read the same way.
    """
    schema = text_format.Parse(schema_file.read_text(), schema_pb2.Schema())
    return {f.name: _SCHEMA_KINDS[f.type] for f in schema.feature if f.type in _SCHEMA_KINDS}


def integer_columns(schema_file: Path) -> list[str]:
    """The features the schema in the text proto ``schema_file`` declares INT."""
    return sorted(n for n, kind in schema_kinds(schema_file).items() if kind is ColumnKind.INT)

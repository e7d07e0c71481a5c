"""The Beam steps that write CSV files as gzipped TFRecords of tf.Examples, per split.

One step per input file, so files spread over Beam's workers on any runner; each file is
read in blocks (``data_layout.csv_examples``), each block's examples hashed into their
splits and written to files named by the file's and the block's index.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

import apache_beam as beam
from tfx.dsl.io import fileio

from components.example_gen.periods import with_newest
from data_layout import csv_files, encoded_spans, entity_history, spans, tfrecord_files
from data_layout.csv_examples import (
    ColumnKind,
    encode_blocks,
    file_kinds,
    merge_kinds,
    read_header,
)
from data_layout.entity_history import EntityHistory
from data_layout.split_router import SplitRouter
from modules.features import HistoryColumns


def _write_block(
    examples: list[bytes], router: SplitRouter, output_uri: str, suffix: str
) -> list[int]:
    """Write one block's examples into ``data_tfrecord-<suffix>.gz`` of each split; counts.

    Through Beam's file systems, so a worker anywhere writes straight to the store.
    """
    by_split: list[list[bytes]] = [[] for _ in router.names]
    for example in examples:
        by_split[router(example)].append(example)
    for split, written in zip(router.names, by_split, strict=True):
        path = os.path.join(output_uri, f"Split-{split}", f"data_tfrecord-{suffix}.gz")
        tfrecord_files.write_gzipped(path, written)
    return [len(written) for written in by_split]


def write_file(
    indexed_path: tuple[int, str],
    names: list[str],
    kinds: tuple[ColumnKind, ...],
    router: SplitRouter,
    output_uri: str,
    history: EntityHistory | None = None,
) -> list[int]:
    """Encode one CSV file and write each block's examples as gzipped TFRecords per split.

    File names are fixed by the input file's index and the block's, so a retried
    bundle overwrites its own output and a split never holds a row twice. Returns the
    rows written to each split. ``history`` adds the entity's history columns to each
    block (``kinds`` ends with theirs).
    """
    index, path = indexed_path
    counts = [0] * len(router.names)
    block = -1
    extend = history.add if history else None
    for block, examples in enumerate(encode_blocks(path, names, kinds, extend)):
        written = _write_block(examples, router, output_uri, f"{index:05d}-{block:05d}")
        counts = [a + b for a, b in zip(counts, written, strict=True)]
    if block < 0:  # no rows: still an (empty) file in every split, for readers to find
        _write_block([], router, output_uri, f"{index:05d}-00000")
    return counts


def routes(
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


def encode_span(
    pipeline: beam.Pipeline,
    span: int,
    files: list[str],
    names: list[str],
    kinds: tuple[ColumnKind, ...],
    router: SplitRouter,
    uri: str,
    history: EntityHistory | None = None,
) -> None:
    """Add the steps that encode one span's files into ``uri``, then mark it encoded.

    ``kinds`` ends with the history columns' where ``history`` adds them.
    """
    for split in router.names:
        fileio.makedirs(os.path.join(uri, f"Split-{split}"))
    counts = _write_files(pipeline, f"span-{span}", files, names, kinds, router, uri, history)
    periods = (router.newest, router.previous) if router.period else None
    _ = counts | f"MarkEncoded[span-{span}]" >> beam.Map(
        lambda c: encoded_spans.mark_encoded(uri, dict(zip(router.names, c, strict=True)), periods)
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
    history: EntityHistory | None = None,
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
        | f"WriteExamples[{label}]"
        >> beam.Map(write_file, names, kinds, router, output_uri, history)
        | f"CountRows[{label}]" >> beam.CombineGlobally(_sum_counts)
    )


def write_split(
    pipeline: beam.Pipeline,
    root: str,
    pattern: str,
    router: SplitRouter,
    output_uri: str,
    int_columns: list[str],
    history_columns: HistoryColumns | None = None,
) -> SplitRouter:
    """Add to ``pipeline`` the steps that write the data files in ``root`` matching ``pattern``.

    Returns the router the files are written with (a test period's two newest values found).
    With ``history_columns`` each row gets its entity's history, from every file's rows.
    """
    names = spans.data_names(fileio, root, pattern)
    files = csv_files.data_files(os.path.join(root, n) for n in names)
    if not files:
        raise RuntimeError(f"Split pattern {os.path.join(root, pattern)} does not match any files.")
    # Every file is checked against this header as it is read (see read_batches).
    names = read_header(files[0])
    router.check_columns(files[0], names)
    router = with_newest(router, files, names, int_columns, needed=3)  # a flat root's
    label = "+".join(router.names)
    kinds = (
        pipeline
        | f"FilesToType[{label}]" >> beam.Create(files)
        | f"InferColumnTypes[{label}]" >> beam.Map(file_kinds, names, int_columns)
        | f"MergeColumnTypes[{label}]" >> beam.CombineGlobally(merge_kinds)
    )
    history = None
    if history_columns is not None:
        history = entity_history.of_files(history_columns, files, names)
        kinds = kinds | f"HistoryTypes[{label}]" >> beam.Map(lambda k: (*k, *entity_history.KINDS))
    _write_files(pipeline, label, files, names, kinds, router, output_uri, history)
    return router

"""A test period: the newest value of a period column (a year), whose rows are the test split."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from data_layout.csv_examples import (
    ColumnKind,
    check_whole,
    column_kind,
    parse_numbers,
    read_batches,
)
from data_layout.csv_files import CsvFormatError
from data_layout.properties import (
    TEST_PERIOD_PROPERTY,
)
from data_layout.split_router import SplitRouter


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


def with_newest(
    router: SplitRouter, files: Sequence[str], names: list[str], int_columns: Sequence[str]
) -> SplitRouter:
    """``router`` with its test period's newest value in ``files`` (itself: no period)."""
    if not router.period:
        return router
    return router.with_newest(newest_period(files, names, router.period, int_columns))


def record_test_period(examples: Any, router: SplitRouter) -> None:
    """The test split's period on the Examples (``year = 1987``), where a period made it."""
    if router.period:
        examples.set_string_custom_property(
            TEST_PERIOD_PROPERTY, f"{router.period} = {router.newest}"
        )

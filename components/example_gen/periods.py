"""A test period: the newest value of a period column (a year), whose rows are the test split.

The value before it is the validation split's period, the older ones train.
"""

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
    SPLIT_KEY_PROPERTY,
    TEST_PERIOD_PROPERTY,
    VALIDATION_PERIOD_PROPERTY,
)
from data_layout.split_router import SplitRouter


def newest_periods(
    files: Sequence[str], names: list[str], column: str, int_columns: Sequence[str] = ()
) -> tuple[int | str, int | str | None]:
    """The two newest values of the period ``column`` in ``files`` (None: one value only).

    Newest is the largest integer, or the last text: text is compared as written (ISO
    dates sort so). CsvFormatError where no file has the column, it has no value, or it
    holds decimals.
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
        return _two_newest(values)
    if kind is ColumnKind.FLOAT:
        if column not in int_columns:
            raise CsvFormatError(
                f"{files[0]}: the period column {column!r} holds decimals: only integers "
                "and text (dates) can mark a period"
            )
        check_whole(files[0], column, values)
        values = parse_numbers(values, pa.float64())
    numbers = parse_numbers(values, pa.int64()) if kind is ColumnKind.INT else values
    newest, previous = _two_newest(numbers)
    return int(newest), None if previous is None else int(previous)


def _two_newest(values: pa.Array) -> tuple[int | str, int | str | None]:
    """The largest of ``values`` and the next largest distinct one (None: no other)."""
    distinct = sorted(pc.unique(values).to_pylist())
    return distinct[-1], distinct[-2] if len(distinct) > 1 else None


def with_newest(
    router: SplitRouter, files: Sequence[str], names: list[str], int_columns: Sequence[str]
) -> SplitRouter:
    """``router`` with its period's two newest values in ``files`` (itself: no period)."""
    if not router.period:
        return router
    return router.with_newest(*newest_periods(files, names, router.period, int_columns))


def record_splits(examples: Any, router: SplitRouter, validation: int | str | None) -> None:
    """How the splits were made, on the Examples: the key, the test and validation periods.

    The key is the entity's column where it keys the splits ("": rows one by one, or a
    period, which splits alone). The periods read ``year = 1987``; the validation period
    is absent where none came before the test period.
    """
    examples.set_string_custom_property(
        SPLIT_KEY_PROPERTY, "" if router.period else router.partition
    )
    if router.period:
        examples.set_string_custom_property(
            TEST_PERIOD_PROPERTY, f"{router.period} = {router.newest}"
        )
        if validation is not None:
            examples.set_string_custom_property(
                VALIDATION_PERIOD_PROPERTY, f"{router.period} = {validation}"
            )

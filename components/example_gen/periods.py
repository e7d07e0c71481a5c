"""A test period: the newest value of a period column (a year), whose rows are the test split.

The value before it is the validation split's period, the older ones train.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

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
from data_layout.splits import TEST, TRAIN, VALIDATION


class Periods(NamedTuple):
    """A period column's two newest values (``previous`` None: one only) and how many."""

    newest: int | str
    previous: int | str | None
    count: int


def newest_periods(
    files: Sequence[str], names: list[str], column: str, int_columns: Sequence[str] = ()
) -> Periods:
    """The two newest values of the period ``column`` in ``files``, and how many it holds.

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
        return _two_newest(values, whole=False)
    if kind is ColumnKind.FLOAT:
        if column not in int_columns:
            raise CsvFormatError(
                f"{files[0]}: the period column {column!r} holds decimals: only integers "
                "and text (dates) can mark a period"
            )
        check_whole(files[0], column, values)
        values = parse_numbers(values, pa.float64())
    numbers = parse_numbers(values, pa.int64()) if kind is ColumnKind.INT else values
    return _two_newest(numbers, whole=True)


def _two_newest(values: pa.Array, whole: bool) -> Periods:
    """The largest of ``values`` and the next largest distinct one (None: no other)."""
    distinct = [int(v) if whole else v for v in sorted(pc.unique(values).to_pylist())]
    return Periods(distinct[-1], distinct[-2] if len(distinct) > 1 else None, len(distinct))


def with_newest(
    router: SplitRouter,
    files: Sequence[str],
    names: list[str],
    int_columns: Sequence[str],
    needed: int = 1,
) -> SplitRouter:
    """``router`` with its period's two newest values in ``files`` (itself: no period).

    CsvFormatError where ``files`` hold fewer than ``needed`` periods: a flat root needs
    three (to test, to validate, to train); a span of a window may hold one.
    """
    if not router.period:
        return router
    found = newest_periods(files, names, router.period, int_columns)
    if found.count < needed:
        raise CsvFormatError(
            f"{files[0]}: the period column {router.period!r} holds {found.count} "
            f"value(s), newest {found.newest}: a test period needs {needed}, the newest to "
            "test, the one before it to validate, older ones to train"
        )
    return router.with_newest(found.newest, found.previous)


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


class PeriodWindow:
    """Where each span's period parts go over a window: one rule for every span.

    The run's span's newest value is the test period; the validation period is the
    newest value below it in any span of the window. A span's encoded ``test`` part
    holds its newest value, its ``validation`` part the one before, its ``train`` part
    older ones: a part of the test period tests where it is the run's span's, and is in
    no split where it is an older span's; a part of the validation period validates;
    older parts train.
    """

    def __init__(
        self, column: str, periods: dict[int, tuple[int | str, int | str | None]], run_span: int
    ) -> None:
        self.column, self.periods, self.run_span = column, periods, run_span
        kinds = {type(v).__name__ for pair in periods.values() for v in pair if v is not None}
        if len(kinds) > 1:
            raise CsvFormatError(
                f"the period column {column!r} holds integers in some spans and text in "
                f"others ({self._listed()}): one kind orders every span's periods"
            )
        self.test = periods[run_span][0]
        newer = [s for s, (newest, _) in sorted(periods.items()) if newest > self.test]
        if newer:
            raise CsvFormatError(
                f"span {newer[0]} holds {column} {periods[newer[0]][0]}, newer than the test "
                f"period {self.test} of span {run_span}, the run's: spans land in time order"
            )
        below = [v for pair in periods.values() for v in pair if v is not None and v < self.test]
        self.validation = max(below, default=None)

    def _listed(self) -> str:
        """Each span's newest value, for a message."""
        return ", ".join(f"span {s}: {newest!r}" for s, (newest, _) in sorted(self.periods.items()))

    def target(self, span: int, split: str) -> str | None:
        """The Examples split a span's encoded ``split`` goes to (None: none)."""
        newest, previous = self.periods[span]
        value = {TEST: newest, VALIDATION: previous}.get(split)
        bound = self.test if self.validation is None else self.validation
        if split == TRAIN or (value is not None and value < bound):
            return TRAIN
        if value == self.test:
            return TEST if span == self.run_span else None
        return VALIDATION if value is not None else None

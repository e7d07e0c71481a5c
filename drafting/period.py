"""A panel's period: the column that says when an entity's row was observed.

People observed each year, accounts each month: a split that tests on rows of the
same years as it trains on asks how a model fills in the past. Production asks how
it does on the next period. Where the table has an entity and a column whose name
says time, each entity holding one row per value, the draft offers the newest value
as the test split (ExampleGen finds it in each span at run time) and says so.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from drafting.entity import INTEGER, Entity, name_words
from drafting.table import DraftError, Table

# Names whose last word says time: "year", "survey_wave", "obsMonth", "period"; not
# "total_day_minutes", which measures.
TIME_WORDS = frozenset({
    "year", "yr", "month", "quarter", "week", "wave", "period", "date", "day", "round",
})  # fmt: skip
# Values whose order is the order of time: integers (1987), ISO dates as text
# (2024-03, 2024-03-31), quarters (2024Q1).
ORDERED_TEXT = re.compile(r"\d{4}(-\d{2}(-\d{2})?|Q[1-4])")
# A period test split needs earlier periods to train and choose on.
MIN_PERIODS = 3
# Each entity holds one row per period: the share of rows whose pair is unique.
MIN_UNIQUE_PAIRS = 0.95
# The newest period's share of the rows: enough to judge on, not most of the table.
NEWEST_SHARE = (0.05, 0.5)


@dataclass(frozen=True)
class Period:
    """The column whose newest value's rows form the test split, and why."""

    column: str
    newest: str
    rows: int
    periods: int
    why: str
    # The entities with rows in the newest period, and how many of them have earlier
    # rows too: a model that learns each entity can use it there.
    entities: int = 0
    known: int = 0

    def known_text(self) -> str:
        """``545 of the 545 entities of the test period have earlier rows``."""
        return f"{self.known} of the {self.entities} entities of the test period have earlier rows"

    def describe(self, table_rows: int) -> str:
        """``the newest year, 1987 (545 rows, 12.5%), of 8 (...)``."""
        return (
            f"the newest {self.column}, {self.newest} ({self.rows} rows, "
            f"{self.rows / table_rows:.1%}), of {self.periods} ({self.why})"
        )


def _names_time(column: str) -> bool:
    """Whether the column's last word says time."""
    words = name_words(column)
    return bool(words) and words[-1].removesuffix("s") in TIME_WORDS


def _newest(values: Sequence[str]) -> str | None:
    """The newest of ``values`` where their order is time's; None where it is not."""
    if all(INTEGER.fullmatch(v) for v in values):
        return max(values, key=int)
    if all(ORDERED_TEXT.fullmatch(v) for v in values):
        return max(values)
    return None


def _period(table: Table, column: str, entity: Entity | None, why: str) -> Period | str:
    """The period ``column`` makes, or why it makes none."""
    values = [v.strip() for v in table.cells[column]]
    if "" in values:
        return f"{values.count('')} rows have no {column}"
    newest = _newest(values)
    counts = Counter(values)
    if newest is None:
        return "its values are not years, integers or ISO dates, whose order is time's"
    if len(counts) < MIN_PERIODS:
        return f"{len(counts)} values: too few to train on earlier ones"
    if entity is not None:
        pairs = Counter(zip(table.cells[entity.column], values, strict=True))
        unique = sum(1 for n in pairs.values() if n == 1) / len(values)
        if unique < MIN_UNIQUE_PAIRS:
            return f"only {unique:.0%} of rows are an entity's only row of their {column}"
    low, high = NEWEST_SHARE
    if not low <= counts[newest] / len(values) <= high:
        return f"its newest value {newest} holds {counts[newest]} of {len(values)} rows"
    if entity is None:
        return Period(column, newest, counts[newest], len(counts), why)
    ids = table.cells[entity.column]
    tested = {e for e, v in zip(ids, values, strict=True) if v == newest}
    earlier = {e for e, v in zip(ids, values, strict=True) if v != newest}
    return Period(
        column, newest, counts[newest], len(counts), why, len(tested), len(tested & earlier)
    )


def find_period(table: Table, entity: Entity | None, label: str) -> Period | None:
    """The panel's period column: a name that says time, one row per entity and value."""
    if entity is None:
        return None
    for column in table.columns:
        if column in (label, entity.column) or not _names_time(column):
            continue
        found = _period(table, column, entity, "its name says time, one row per entity each")
        if isinstance(found, Period):
            return found
    return None


def named_period(table: Table, column: str, entity: Entity | None, label: str) -> Period:
    """The period a user named; DraftError where it is no column or cannot mark a test."""
    if column not in table.columns or column == label:
        raise DraftError(f"{table.path}: --test-period {column!r} is not a column of the table")
    found = _period(table, column, entity, "named on the command line")
    if isinstance(found, str):
        raise DraftError(f"{table.path}: --test-period {column!r} cannot mark a test: {found}")
    return found

"""How a column's cells are written, as exports write them: numbers as text, dates, times.

A text column whose cells read as numbers (``$12,345.67``, ``1.234,56 €``, ``(1,234)``)
is numeric, and one whose cells read as dates or timestamps (``2024-01-31 13:45``,
``01/31/2024``, ``31.01.2024``) gives time features; so does an integer column of unix
seconds where its name or its values say so. The format is decided once per column,
from the values' evidence, and the cells are read by the Transform's own functions
(``modules/preprocessing.py``), so the draft counts what training will read.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from modules.features import NumberText, TimeFormat

# Cells that stand for no value in exports (compared in lower case): missing, and not
# counted against a column's reading.
PLACEHOLDERS = frozenset({"na", "n/a", "#n/a", "null", "none", "nan", "nil", "-", "--", "?"})
# A column reads as numbers or dates when this share of its other cells does; the rest
# are missing (a typo or a note in a few cells does not make a money column text).
READABLE_SHARE = 0.95
# Integers in this range (1990-01-01 to 2100-01-01 in seconds) may be unix times.
UNIX_SECONDS_RANGE = (631_152_000, 4_102_444_800)
# Column names that say a column holds times.
TIME_NAME = re.compile(r"time|date|stamp|epoch|created|modified|(^|[_ ])(at|ts|when)$", re.I)
# Characters that group a number's thousands (the decimal mark's other, apostrophes, spaces).
GROUPING = (",", ".", "'", "\u2019", " ", "\u00a0", "\u202f")
DAY = 86400
MINUTE = 60


@dataclass(frozen=True)
class Numbers:
    """A text column read as numbers: how, each row's number (None: missing), and why."""

    written: NumberText
    numbers: list[float | None]
    why: str


@dataclass(frozen=True)
class Times:
    """A column read as dates or timestamps: how, which rows read, and why."""

    written: TimeFormat
    time_of_day: bool
    readable: list[bool]
    why: str


def _cells(values: Sequence[str]) -> list[str]:
    """The cells that should read: present, and not a placeholder for no value."""
    return [v for v in values if v and v.lower() not in PLACEHOLDERS]


def _enough(read: int, cells: Sequence[str]) -> bool:
    return bool(cells) and read >= READABLE_SHARE * len(cells)


def _mostly_digits(cells: Sequence[str]) -> bool:
    """Whether enough cells hold a digit to be worth reading (text columns rarely do)."""
    return _enough(sum(any(c.isdigit() for c in cell) for cell in cells), cells)


def _parsed_numbers(values: Sequence[str], written: NumberText) -> list[float | None]:
    import tensorflow as tf

    from modules.preprocessing import number_from_text

    numbers = number_from_text(tf.constant(list(values), tf.string), written).numpy()
    return [float(x) if x == x else None for x in numbers]  # NaN: not a number


def read_numbers(values: Sequence[str]) -> Numbers | None:
    """The column's cells as numbers written as text, or None if they are not.

    The decimal mark is the one that reads more cells; where both read the same cells
    differently (``1,234`` alone), a separator before three digits groups thousands.
    """
    cells = _cells(values)
    if not _mostly_digits(cells):
        return None
    point, comma = NumberText.DECIMAL_POINT, NumberText.DECIMAL_COMMA
    parsed = {w: _parsed_numbers(values, w) for w in (point, comma)}
    read = {w: sum(x is not None for x in numbers) for w, numbers in parsed.items()}
    written = point if read[point] >= read[comma] else comma
    if not _enough(read[written], cells):
        return None
    note = ""
    if read[point] == read[comma] and parsed[point] != parsed[comma]:
        commas, points = (
            sum(bool(re.search(rf"\{s}\d{{3}}(?!\d)", c)) for c in cells) for s in ",."
        )
        written = comma if points > commas else point
        mark = "." if written is comma else ","
        note = f" (each cell reads either way: {mark!r} before three digits groups thousands)"
    numbers = parsed[written]
    shown = [c for c, x in zip(values, numbers, strict=True) if x is not None]
    return Numbers(written, numbers, _number_why(shown, written) + note)


def _number_why(cells: Sequence[str], written: NumberText) -> str:
    """What the draft says of numbers written as text: an example, the marks, the signs."""
    example = max(cells, key=lambda c: sum(not ch.isdigit() for ch in c))
    grouped = [
        s for s in GROUPING
        if s != written.value and any(re.search(rf"\d{re.escape(s)}\d{{3}}", c) for c in cells)
    ]  # fmt: skip
    thousands = " or ".join(repr(s) for s in grouped) or "none"
    why = f"numbers written {example}: thousands {thousands}, decimal {written.value!r}"
    currencies = {ch for c in cells for ch in c if unicodedata.category(ch) == "Sc"}
    currencies |= {code for c in cells for code in re.findall(r"^[A-Z]{3}|[A-Z]{3}$", c)}
    if currencies:
        why += f", currency {' '.join(sorted(currencies))}"
    if any("%" in c for c in cells):
        why += ", percent signs dropped"
    if any("(" in c for c in cells):
        why += ", negatives in parentheses"
    return why


def _parsed_times(values: Sequence[str], written: TimeFormat) -> tuple[list, list, list]:
    """Per row: the seconds of the day, whether it holds a time, whether it reads."""
    import tensorflow as tf

    from modules.preprocessing import time_from_text

    _, seconds, has_time, readable = time_from_text(tf.constant(list(values), tf.string), written)
    return seconds.numpy().tolist(), has_time.numpy().tolist(), readable.numpy().tolist()


def read_times(name: str, values: Sequence[str], tfdv_type: str) -> Times | None:
    """The column's cells as dates or timestamps, or None if they are not."""
    if tfdv_type == "INT":
        return _unix_seconds(name, values)
    cells = _cells(values)
    if tfdv_type not in ("STRING", "BYTES") or not _mostly_digits(cells):
        return None
    orders = (TimeFormat.YMD, TimeFormat.MDY, TimeFormat.DMY)
    parsed = {w: _parsed_times(values, w) for w in orders}
    readable = {w: parsed[w][2] for w in orders}
    written = max(orders, key=lambda w: sum(readable[w]))
    if not _enough(sum(readable[written]), cells):
        return None
    order = "year first"
    if written is not TimeFormat.YMD:
        written, order = _day_or_month_first(values, readable)
    seconds, has_time, read = parsed[written]
    times = [s for s, t, r in zip(seconds, has_time, read, strict=True) if t and r]
    time_of_day = any(times)
    example = next(
        v for v, t, r in zip(values, has_time, read, strict=True) if r and (t or not times)
    )
    what = "timestamps" if time_of_day else "dates"
    return Times(
        written, time_of_day, read, f"{what} like {example}, {order}: {_features(time_of_day)}"
    )


# How the draft says each order of the date's fields.
ORDERS = {TimeFormat.MDY: "month first", TimeFormat.DMY: "day first"}


def _day_or_month_first(values: Sequence[str], readable: dict) -> tuple[TimeFormat, str]:
    """Month or day first, by the cells only one reads (a field above 12); and why."""
    mdy, dmy = TimeFormat.MDY, TimeFormat.DMY
    only = {
        w: [v for v, a, b in zip(values, readable[w], readable[o], strict=True) if a and not b]
        for w, o in ((mdy, dmy), (dmy, mdy))
    }
    if len(only[mdy]) != len(only[dmy]):
        written = mdy if len(only[mdy]) > len(only[dmy]) else dmy
        return written, f"{ORDERS[written]} ({only[written][0]} reads no other way)"
    # No cell tells: dots between the fields are the day-first habit, slashes the US's.
    dotted = any(re.match(r"\d{1,2}\.\d{1,2}\.", v) for v in values)
    written = dmy if dotted else mdy
    return written, f"{ORDERS[written]} (no cell tells; as dates with {'.' if dotted else '/'} are)"


def _unix_seconds(name: str, values: Sequence[str]) -> Times | None:
    """An integer column of unix seconds: in a plausible range, and named or whole minutes."""
    numbers = [int(v) for v in values if v]
    low, high = UNIX_SECONDS_RANGE
    if not numbers or not all(low <= n < high for n in numbers):
        return None
    named = bool(TIME_NAME.search(name))
    if not named and not all(n % MINUTE == 0 for n in numbers):
        return None
    time_of_day = not all(n % DAY == 0 for n in numbers)
    because = "its name says so" if named else "every one a whole minute"
    why = f"integers like {numbers[0]}: unix seconds ({because}): {_features(time_of_day)}"
    return Times(TimeFormat.UNIX_SECONDS, time_of_day, [bool(v) for v in values], why)


def _features(time_of_day: bool) -> str:
    """The time features a Timestamp gives, as the draft says them."""
    clock = "time of day, " if time_of_day else ""
    return f"{clock}day of week, day of year, years since the data's start (z-scored)"

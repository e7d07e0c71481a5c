"""How a column's cells are written: numbers as text and dates, told from the values."""

from __future__ import annotations

import pytest

from drafting import reading, rules
from modules import features

POINT, COMMA = features.NumberText.DECIMAL_POINT, features.NumberText.DECIMAL_COMMA


def _labels(n: int) -> list[int]:
    return [i % 3 == 0 for i in range(n)]


def test_money_with_separators_currency_and_parentheses_reads_as_numbers():
    cells = ["$12,345.67", "$980.00", "($1,234.00)", "USD 5", "", "n/a", "12.5%"] * 20
    read = reading.read_numbers(cells)
    assert read.written is POINT
    assert read.numbers[:7] == pytest.approx([12345.67, 980.0, -1234.0, 5.0, None, None, 12.5])
    assert read.why == (
        "numbers written ($1,234.00): thousands ',', decimal '.', currency $ USD, percent signs "
        "dropped, negatives in parentheses"
    )


def test_a_european_column_reads_with_a_decimal_comma():
    cells = ["1.234,56 €", "12,50 €", "3.000,00 €", "0,99 €"] * 30
    read = reading.read_numbers(cells)
    assert read.written is COMMA
    assert read.numbers[:4] == pytest.approx([1234.56, 12.5, 3000.0, 0.99])
    assert read.why.startswith("numbers written 1.234,56 €: thousands '.', decimal ','")


@pytest.mark.parametrize(
    ("cells", "written", "first", "note"),
    [
        # Every cell reads both ways: a separator before three digits groups thousands.
        (["€1,234", "€12", "€5,600"], POINT, 1234.0, "',' before three digits groups thousands"),
        (["€1.234", "€12", "€5.600"], COMMA, 1234.0, "'.' before three digits groups thousands"),
        # One cell tells: 1,5 reads with a decimal comma only.
        (["€1,234", "€12", "€1,5"], COMMA, 1.234, ""),
    ],
)
def test_an_ambiguous_column_is_decided_by_its_values_and_says_so(cells, written, first, note):
    read = reading.read_numbers(cells * 40)
    assert read.written is written
    assert read.numbers[0] == pytest.approx(first)
    assert (note in read.why) if note else "reads either way" not in read.why


def test_text_that_is_not_numbers_stays_text_and_a_few_bad_cells_are_missing():
    assert reading.read_numbers(["Product 1", "Product 2", "Product 3"] * 40) is None
    assert reading.read_numbers(["10-20", "20-30", "30-40"] * 40) is None
    # 95 of 100 cells read (placeholders aside): numbers, the rest missing.
    read = reading.read_numbers([f"${i},000" for i in range(1, 96)] + ["call us"] * 5 + ["NA"] * 9)
    assert read is not None and read.numbers.count(None) == 14
    assert reading.read_numbers([f"${i},000" for i in range(1, 95)] + ["call us"] * 6) is None


def test_a_money_column_is_drafted_numeric_with_its_text_format():
    cells = [f"${1.07**i:,.2f}" for i in range(200)]
    choice = rules.choose("amount", cells, _labels(200), "STRING")
    assert choice.source == (
        'Numeric("amount", Scaling.LOG_Z, text=NumberText.DECIMAL_POINT, bucket_count=10, '
        "piecewise_bins=20)"
    )
    assert choice.imports == ("NumberText",)
    assert choice.why.startswith("numbers written $")


@pytest.mark.parametrize(
    ("cells", "written", "order"),
    [
        (["2024-01-31 13:45", "2024-02-01 08:00:05"], features.TimeFormat.YMD, "year first"),
        (["01/31/2024", "02/01/2024"], features.TimeFormat.MDY, "month first (01/31/2024 reads no"),
        (["31/01/2024", "01/02/2024"], features.TimeFormat.DMY, "day first (31/01/2024 reads no"),
        # No field above 12: dots are the day-first habit, slashes the US's.
        (
            ["01.02.2024", "03.04.2024"],
            features.TimeFormat.DMY,
            "day first (no cell tells; as dates",
        ),
        (
            ["01/02/2024", "03/04/2024"],
            features.TimeFormat.MDY,
            "month first (no cell tells; as dates",
        ),
    ],
)
def test_dates_are_read_in_their_order_by_the_values_evidence(cells, written, order):
    times = reading.read_times("when", cells * 60, "STRING")
    assert times.written is written
    assert f", {order}" in times.why


def test_a_time_of_day_is_used_where_the_times_hold_one():
    times = reading.read_times("t", ["2024-01-31 13:45", "2024-02-01"] * 60, "STRING")
    assert times.time_of_day and times.why.startswith("timestamps like 2024-01-31 13:45, ")
    # Dates a database exported with a midnight time: dates.
    midnight = reading.read_times(
        "t", ["2024-01-31 00:00:00", "2024-02-01 00:00:00"] * 60, "STRING"
    )
    assert not midnight.time_of_day and midnight.why.startswith("dates like 2024-01-31 00:00:00")


def test_unix_seconds_are_times_where_the_name_or_the_values_say_so():
    seconds = [str(1_700_000_000 + 3607 * i) for i in range(200)]
    assert (
        reading.read_times("created_at", seconds, "INT").written is features.TimeFormat.UNIX_SECONDS
    )
    assert reading.read_times("amount", seconds, "INT") is None
    whole_minutes = [str(1_700_000_040 + 900 * i) for i in range(200)]
    assert reading.read_times("x", whole_minutes, "INT").why.startswith(
        "integers like 1700000040: unix seconds (every one a whole minute)"
    )
    # Ids beyond the plausible range are no times.
    assert (
        reading.read_times("created", [str(5_000_000_000 + i) for i in range(200)], "INT") is None
    )


def test_a_timestamp_column_is_drafted_as_time_not_an_id():
    cells = [f"2024-01-{1 + i % 28:02d} {i % 24:02d}:{i % 60:02d}" for i in range(400)]
    cells[7] = ""
    choice = rules.choose("ordered", cells, _labels(400), "STRING")
    assert choice.kind == "time"
    assert choice.source == 'Timestamp("ordered", TimeFormat.YMD, missing_indicator=True)'
    assert choice.why.endswith("; 1 of 400 cells missing: missing indicator")

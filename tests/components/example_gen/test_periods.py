"""Where each span's period parts go over a window, and the windows refused."""

from __future__ import annotations

import pytest

from components.example_gen.periods import PeriodWindow
from data_layout.csv_files import CsvFormatError
from data_layout.splits import TEST, TRAIN, VALIDATION


def _targets(periods: dict, run_span: int) -> dict[tuple[int, str], str | None]:
    window = PeriodWindow("year", periods, run_span)
    return {(s, p): window.target(s, p) for s in periods for p in (TRAIN, VALIDATION, TEST)}


def test_an_older_span_s_newer_value_validates_when_the_run_s_span_skips_it():
    # The run's span holds 1986 and 1988; span 1 holds 1987, the newest below the test.
    targets = _targets({1: (1987, 1985), 2: (1988, 1986)}, 2)
    assert PeriodWindow("year", {1: (1987, 1985), 2: (1988, 1986)}, 2).validation == 1987
    assert targets[(1, TEST)] == VALIDATION and targets[(2, VALIDATION)] == TRAIN
    assert targets[(2, TEST)] == TEST and targets[(1, VALIDATION)] == TRAIN


def test_a_period_zero_validates_and_an_absent_previous_goes_nowhere():
    targets = _targets({0: (0, None), 1: (1, None)}, 1)
    assert targets[(0, TEST)] == VALIDATION and targets[(0, VALIDATION)] is None


@pytest.mark.parametrize(
    ("periods", "message"),
    [
        ({1: (1990, 1989), 2: (1988, 1987)}, "span 1 holds year 1990, newer than the test period"),
        ({1: ("1987", None), 2: (1988, 1987)}, "integers in some spans and text in others"),
    ],
    ids=["out-of-order", "mixed-kinds"],
)
def test_windows_whose_periods_cannot_be_ordered_are_refused(periods, message):
    with pytest.raises(CsvFormatError, match=message):
        PeriodWindow("year", periods, 2)

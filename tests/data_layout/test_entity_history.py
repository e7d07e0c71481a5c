"""An entity's history columns read only rows of strictly earlier periods."""

from __future__ import annotations

import pyarrow as pa
import pytest

from data_layout.csv_files import CsvFormatError
from data_layout.entity_history import EntityHistory, of_files
from modules.features import HistoryColumns

COLUMNS = HistoryColumns("person", "year", "union", "yes")


def _batch(rows: list[tuple[str, str, str]]) -> pa.RecordBatch:
    person, year, union = zip(*rows, strict=True)
    return pa.RecordBatch.from_arrays(
        [pa.array(person), pa.array(year), pa.array(union)], names=["person", "year", "union"]
    )


def _added(history: EntityHistory, rows: list[tuple[str, str, str]]) -> list[tuple[str, ...]]:
    added = history.add(_batch(rows)).to_pydict()
    return list(zip(*(added[n] for n in COLUMNS.names()), strict=True))


def test_each_row_sees_only_the_periods_before_its_own():
    rows = [
        ("a", "1980", "yes"), ("a", "1981", "no"), ("a", "1982", "yes"), ("a", "1983", "no"),
        ("b", "1981", "no"), ("b", "1983", "yes"),
    ]  # fmt: skip
    history = EntityHistory.of(COLUMNS, [_batch(rows)])
    assert _added(history, rows) == [
        ("0", None, None),  # a's first period: nothing before it
        ("1", "1.0", "1.0"),
        ("2", "0.5", "0.0"),
        ("3", "0.666667", "1.0"),  # never its own label (no) nor a later one
        ("0", None, None),
        ("1", "0.0", "0.0"),  # b's last is 1981, two years back: its latest period before
    ]


def test_a_period_to_score_reads_every_period_learned_and_ids_or_years_never_seen_read_none():
    learned = [("a", "2019", "yes"), ("a", "2020", "no"), ("b", "2020", "yes")]
    history = EntityHistory.of(COLUMNS, [_batch(learned)])
    scored = [("a", "2021", ""), ("b", "2021", ""), ("c", "2021", ""), ("a", "2018", "")]
    assert _added(history, scored) == [
        ("2", "0.5", "0.0"),
        ("1", "1.0", "1.0"),
        ("0", None, None),
        ("0", None, None),
    ]


@pytest.mark.parametrize(
    ("years", "order"),
    [(["9", "10", "11"], "as numbers"), (["2024-09", "2024-10", "2024-11"], "ISO text")],
)
def test_periods_sort_as_time_runs(years, order):
    rows = [("a", years[0], "yes"), ("a", years[1], "no"), ("a", years[2], "no")]
    history = EntityHistory.of(COLUMNS, [_batch(rows)])
    # 10 after 9 as numbers, not as text; the last row sees both earlier ones.
    assert _added(history, rows)[2] == ("2", "0.5", "0.0"), order


def test_unlabelled_rows_count_for_nothing():
    rows = [("a", "1", "yes"), ("a", "2", ""), ("a", "3", "no")]
    history = EntityHistory.of(COLUMNS, [_batch(rows)])
    assert _added(history, rows) == [("0", None, None), ("1", "1.0", "1.0"), ("1", "1.0", "1.0")]


def test_a_period_that_does_not_read_as_the_history_s_gets_no_history():
    # Periods 1 to 12 are numbers: "10" after "9", and an empty or text period reads nothing.
    learned = [("a", str(m), "yes") for m in range(1, 12)]
    history = EntityHistory.of(COLUMNS, [_batch(learned)])
    scored = [("a", "2", ""), ("a", "12", ""), ("a", "", ""), ("a", "May", "")]
    assert _added(history, scored) == [
        ("1", "1.0", "1.0"),
        ("11", "1.0", "1.0"),
        ("0", None, None),
        ("0", None, None),
    ]


def test_several_rows_of_a_period_and_labels_written_as_numbers():
    numbered = HistoryColumns("person", "year", "union", "1")
    rows = [("a", "1", "1.0"), ("a", "1", "0"), ("a", "1", " 1 "), ("a", "2", "")]
    history = EntityHistory.of(numbered, [_batch(rows)])
    added = history.add(_batch([("a", "2", "")])).to_pydict()
    assert [added[n][0] for n in numbered.names()] == ["3", "0.666667", "0.666667"]


def test_a_file_without_a_column_the_history_reads_is_named(tmp_path):
    path = tmp_path / "learned.csv"
    path.write_text("person,union\na,yes\n")
    with pytest.raises(CsvFormatError, match=r"learned.csv: no column 'year', which the entity"):
        of_files(COLUMNS, [str(path)])

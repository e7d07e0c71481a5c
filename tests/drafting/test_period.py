"""The draft offers a panel's newest period as the test split, and says which it chose."""

from __future__ import annotations

import pytest
from panel_table import PEOPLE, draft, drafted_in_process, panel

from drafting.entity import Entity
from drafting.period import find_period
from drafting.table import read_table
from pipeline_ops import commands

# Seconds a test: each test drafts a table, boosted trees included.
pytestmark = pytest.mark.slow


def test_a_panel_s_newest_year_is_the_test_split_and_no_feature(tmp_path):
    printed, source = drafted_in_process(tmp_path)
    assert (
        f"  test split: the newest year, 2020 ({PEOPLE} rows, 16.7%), of 6 (its name says "
        "time, one row per entity each)" in printed.splitlines()
    )
    assert 'test_period="year",' in source
    assert '"year": "the test period: its newest value (2020) is the test split' in source
    assert "each entity's its rows before" not in source
    comments = " ".join(line.strip(" #") for line in source.splitlines())
    assert "each entity's rows in every split, a period each" in comments
    assert "Validation is the year before it, and the older ones train." in comments
    assert "  validation split: the year before it; train: the older ones" in printed.splitlines()


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        # Each person's years repeat: not one row per entity and period.
        (lambda rows: [[r[0], 2015 + i % 3, *r[2:]] for i, r in enumerate(rows)], "one row"),
        # Years as words: their order is not time's.
        (lambda rows: [[r[0], f"y{r[1]}", *r[2:]] for r in rows], "order"),
        # Most rows in the newest year: nothing left to train on.
        (lambda rows: [[r[0], 2030 if i % 6 < 4 else r[1], *r[2:]] for i, r in enumerate(rows)],
         "newest"),
    ],
    ids=["repeating", "unordered", "newest-holds-most"],
)  # fmt: skip
def test_no_period_where_the_column_cannot_mark_the_next_one(tmp_path, edit, reason):
    table = read_table(panel(tmp_path / "panel.csv", edit))
    entity = Entity("person nr", PEOPLE, table.rows, "test")
    assert find_period(table, entity, "left") is None


def test_no_period_without_an_entity_and_iso_months_sort_as_time(tmp_path):
    def as_months(rows: list[list]) -> list[list]:
        return [[r[0], f"2024-{r[1] - 2010:02d}", *r[2:]] for r in rows]

    months = panel(tmp_path / "months.csv", as_months)
    table = read_table(months)
    assert find_period(table, None, "left") is None
    found = find_period(table, Entity("person nr", PEOPLE, table.rows, "test"), "left")
    assert found is not None and found.newest == "2024-10" and found.periods == 6


def test_no_test_period_and_a_named_one_on_the_command_line(tmp_path):
    table = panel(tmp_path / "panel.csv")
    code, source = draft(tmp_path / "none", table, "--no-test-period")
    assert code == commands.EXIT_OK and "test_period=" not in source
    # Named without an entity: the rows are hashed, the newest year still tested on.
    code, source = draft(tmp_path / "named", table, "--no-entity", "--test-period", "year")
    assert code == commands.EXIT_OK and 'test_period="year",' in source
    assert "entity=" not in source


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (("--test-period", "month"), "--test-period 'month' is not a column of the table"),
        (("--test-period", "income"), "--test-period 'income' cannot mark a test: its values"),
    ],
    ids=["not-a-column", "decimals"],
)
def test_a_named_period_that_cannot_mark_a_test_is_refused(tmp_path, capsys, flags, message):
    code, source = draft(tmp_path, panel(tmp_path / "panel.csv"), *flags)
    err = capsys.readouterr().err
    assert code == commands.EXIT_BAD_INPUT and source == ""
    assert message in err
    assert not (tmp_path / "data" / "panel").exists()  # nothing half-drafted

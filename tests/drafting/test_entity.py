"""The draft recognizes the entity a panel table's rows are of, and keys the splits by it."""

from __future__ import annotations

import csv
import re

import pytest
from panel_table import draft, drafted_in_process, panel

from data_layout.csv_examples import encode_blocks, file_kinds, read_header
from data_layout.split_router import SplitRouter
from drafting.entity import names_an_id
from pipeline_ops import commands
from pipeline_ops.session.local_run_settings import split_buckets_for

# Seconds a test: each test drafts a table, boosted trees included.
pytestmark = pytest.mark.slow


def test_the_draft_finds_the_entity_says_why_and_keys_the_splits(tmp_path):
    printed, source = drafted_in_process(tmp_path, test_period="")
    assert (
        "  splits keyed by person nr: 150 values over 900 rows, 6.0 each; its name says it "
        "identifies" in printed.splitlines()
    )
    assert 'entity="person nr",' in source
    # The id is no feature; the age repeats too, but is a quantity and stays one.
    assert '"person nr": "the entity (' in source
    assert 'Numeric("age"' in source or 'IntegerRange("age"' in source


def test_with_a_test_period_the_entity_is_a_feature_unless_declined(tmp_path):
    # Every person of the newest year has earlier years: a model that learns each
    # person uses it there, and validation on the year before rewards it.
    printed, source = drafted_in_process(tmp_path / "found")
    found = "  entity person nr: 150 values over 900 rows, 6.0 each; its name says it identifies; "
    assert (
        f"{found}a feature: 150 of the 150 entities of the test period have earlier rows "
        "(--no-entity-feature declines)" in printed.splitlines()
    )
    assert 'entity="person nr",' in source and 'Hashed("person nr"' in source
    # What each person's earlier years say: computed by ExampleGen, numbers for the model.
    assert "    entity_history=True," in source
    for column in ("person nr_rows_before", "person nr_rate_before", "person nr_last"):
        assert re.search(rf'Numeric\(\s*"{column}",\s*Scaling\.', source), column
    evidence = [line for line in printed.splitlines() if line.startswith("  entity history: ")]
    assert evidence and "person nr_last alone gets the label right in " in evidence[0]
    assert "of the 750 rows with an earlier period" in evidence[0]  # 5 earlier years x 150
    schema = (tmp_path / "found" / "ds" / "panel" / "schema.pbtxt").read_text()
    assert 'name: "person nr_rate_before"' in schema
    assert "person nr_last" not in (tmp_path / "found" / "data" / "panel" / "panel.csv").read_text()
    printed, source = drafted_in_process(tmp_path / "declined", entity_feature=False)
    assert "entity_history" not in source and "entity history:" not in printed
    assert f"{found}no feature (--no-entity-feature)" in printed.splitlines()
    assert 'Hashed("person nr"' not in source and '"person nr": "the entity (' in source


def test_no_entity_and_a_named_one_on_the_command_line(tmp_path, capsys):
    table = panel(tmp_path / "panel.csv")
    assert draft(tmp_path / "none", table, "--no-entity")[0] == commands.EXIT_OK
    assert "entity=" not in (tmp_path / "none" / "ds" / "panel" / "__init__.py").read_text()
    code, source = draft(tmp_path / "named", table, "--entity", "year")
    assert code == commands.EXIT_OK and 'entity="year",' in source


def test_the_entity_is_a_feature_too_on_request(tmp_path, capsys):
    table = panel(tmp_path / "panel.csv")
    code, source = draft(tmp_path / "feature", table, "--entity-feature", "--no-test-period")
    assert code == commands.EXIT_OK and 'entity="person nr",' in source
    assert '"person nr": "the entity' not in source  # not left out: drafted by the rules
    assert 'Hashed("person nr"' in source

    # A numeric id too: an id names, it does not measure (no z-score, no buckets).
    def numbered(rows: list[list]) -> list[list]:
        return [[int(r[0][1:]), *r[1:]] for r in rows]

    numbered_table = panel(tmp_path / "n.csv", numbered)
    code, source = draft(tmp_path / "numbered", numbered_table, "--entity-feature")
    assert code == commands.EXIT_OK and 'Hashed("person nr", 256)' in source
    code, source = draft(tmp_path / "none", table, "--no-entity", "--entity-feature")
    assert code == commands.EXIT_BAD_INPUT and source == ""
    assert "--entity-feature, but no entity was found or named" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("edit", "flags", "message"),
    [
        (lambda rows: [["" if i % 100 == 0 else r[0], *r[1:]] for i, r in enumerate(rows)], (),
         "the entity column 'person nr' is empty in 9 rows (lines 2, 102, 202, 302, 402, ...)"),
        (lambda rows: [["P0000" if i < 600 else r[0], *r[1:]] for i, r in enumerate(rows)], (),
         "the entity person nr='P0000' holds 600 of 900 rows"),
        (None, ("--entity", "customer"), "--entity 'customer' is not a column of the table"),
    ],
    ids=["empty-cells", "one-giant", "not-a-column"],
)  # fmt: skip
def test_an_entity_that_cannot_key_the_splits_is_refused(tmp_path, capsys, edit, flags, message):
    code, source = draft(tmp_path, panel(tmp_path / "panel.csv", edit), *flags)
    err = capsys.readouterr().err
    assert code == commands.EXIT_BAD_INPUT and source == ""
    assert err.startswith("error: ") and message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "data" / "panel").exists()  # nothing half-drafted


@pytest.mark.parametrize(
    ("column", "identifies"),
    [
        ("person nr", True), ("customer_id", True), ("PatientNo", True), ("customer", True),
        ("id_2", True), ("CustomerID", True),
        # Measures that merely begin with an entity's word (mlc_churn's account_length).
        ("account_length", False), ("number_vmail_messages", False), ("no_of_children", False),
        ("caseid", False), ("year", False),
    ],
)  # fmt: skip
def test_a_name_says_it_identifies_by_its_words(column, identifies):
    assert names_an_id(column) is identifies


@pytest.mark.parametrize("ids", ["text", "integers"])
def test_empty_entity_cells_are_said_to_go_where_example_gen_puts_them(tmp_path, capsys, ids):
    def emptied(rows: list[list]) -> list[list]:
        person = (lambda r: r[0]) if ids == "text" else (lambda r: int(r[0][1:]))
        return [["" if i % 100 == 0 else person(r), *r[1:]] for i, r in enumerate(rows)]

    path = panel(tmp_path / "panel.csv", emptied)
    assert draft(tmp_path, path)[0] == commands.EXIT_BAD_INPUT
    said = re.search(r"would all go to the (\w+) split", capsys.readouterr().err).group(1)
    # The rows' real examples, routed as the runner splits a table of this size.
    names = read_header(str(path))
    examples = [e for block in encode_blocks(str(path), names, file_kinds(str(path), names))
                for e in block]  # fmt: skip
    buckets = split_buckets_for(path.stat().st_size)
    router = SplitRouter.of(buckets, "person nr")
    with path.open(newline="") as f:
        rows = list(csv.reader(f))[1:]
    assert {buckets[router(e)][0] for e, r in zip(examples, rows, strict=True) if not r[0]} == {
        said
    }

"""The draft recognizes the entity a panel table's rows are of, and keys the splits by it."""

from __future__ import annotations

import csv
import io
import random
from pathlib import Path

import pytest

from pipeline_ops import commands
from pipeline_ops.cli import draft_dataset

PEOPLE, YEARS = 150, 6


def _panel(path: Path, edit=None) -> Path:  # noqa: ANN001 - a row editor
    """People observed each year, with an age (a repeating number) and a planted effect."""
    rng = random.Random(3)
    rows = []
    for person in range(PEOPLE):
        effect, age = rng.gauss(0, 2), rng.randint(20, 60)
        for year in range(YEARS):
            income = rng.gauss(50, 15)
            z = effect + 0.03 * (income - 50) - 1
            leave = rng.random() < 1 / (1 + 2.718**-z)
            rows.append([f"P{person:04d}", 2015 + year, age + year, round(income, 1),
                         "yes" if leave else "no"])  # fmt: skip
    if edit:
        rows = edit(rows)
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["person nr", "year", "age", "income", "left"])
        writer.writerows(rows)
    return path


def _draft(tmp_path: Path, table: Path, *flags: str) -> tuple[int, str]:
    """The drafting command's exit code, and the declaration it wrote ("": none)."""
    code = draft_dataset.main(
        ["panel", str(table), "left", "yes", "--datasets-dir", str(tmp_path / "ds"),
         "--data-dir", str(tmp_path / "data"), *flags]
    )  # fmt: skip
    source = tmp_path / "ds" / "panel" / "__init__.py"
    return code, source.read_text() if source.exists() else ""


def test_the_draft_finds_the_entity_says_why_and_keys_the_splits(tmp_path):
    out = io.StringIO()
    folder = draft_dataset.draft(
        "panel", _panel(tmp_path / "panel.csv"), "left", "yes",
        datasets_dir=tmp_path / "ds", data_dir=tmp_path / "data", out=out,
    )  # fmt: skip
    printed, source = out.getvalue(), (folder / "__init__.py").read_text()
    assert (
        "  splits keyed by person nr: 150 values over 900 rows, 6.0 each; its name says it "
        "identifies" in printed.splitlines()
    )
    assert 'entity="person nr",' in source
    # The id is no feature; the age repeats too, but is a quantity and stays one.
    assert '"person nr": "the entity (' in source
    assert 'Numeric("age"' in source or 'IntegerRange("age"' in source


def test_no_entity_and_a_named_one_on_the_command_line(tmp_path, capsys):
    table = _panel(tmp_path / "panel.csv")
    assert _draft(tmp_path / "none", table, "--no-entity")[0] == commands.EXIT_OK
    assert "entity=" not in (tmp_path / "none" / "ds" / "panel" / "__init__.py").read_text()
    code, source = _draft(tmp_path / "named", table, "--entity", "year")
    assert code == commands.EXIT_OK and 'entity="year",' in source


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
    code, source = _draft(tmp_path, _panel(tmp_path / "panel.csv", edit), *flags)
    err = capsys.readouterr().err
    assert code == commands.EXIT_BAD_INPUT and source == ""
    assert err.startswith("error: ") and message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "data" / "panel").exists()  # nothing half-drafted

"""make dataset: the drafting rules, and bad input refused before anything is written."""

from __future__ import annotations

import codecs
import csv
import gzip
import io
import random
from pathlib import Path

import pytest

import datasets
from drafting import rules
from pipeline_ops import commands
from pipeline_ops.cli import draft_dataset

# Seconds a test: each test drafts a table, boosted trees included.
pytestmark = pytest.mark.slow

ROWS = 200


def _write(path: Path, header: list[str], rows: list[list[object]]) -> Path:
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    return path


@pytest.fixture
def table(tmp_path) -> Path:
    rng = random.Random(0)
    rows = [
        [rng.choice(["good", "bad"]), rng.randint(0, 9), f"x{rng.randint(0, 3)}"]
        for _ in range(ROWS)
    ]
    return _write(tmp_path / "table.csv", ["Status", "code", "kind"], rows)


@pytest.fixture
def out(tmp_path) -> tuple[Path, Path]:
    return tmp_path / "datasets", tmp_path / "data"


def _draft(out: tuple[Path, Path], *args: str) -> int:
    datasets_dir, data_dir = out
    return draft_dataset.main(
        [*args, "--datasets-dir", str(datasets_dir), "--data-dir", str(data_dir)]
    )


def _nothing_written(out: tuple[Path, Path]) -> bool:
    return not any(p.exists() and any(p.iterdir()) for p in out)


def _rewrite(path: Path, change) -> Path:  # noqa: ANN001
    with path.open(newline="") as f:
        rows = list(csv.reader(f))
    return _write(path, *change(rows[0], rows[1:]))


BAD_INPUT = {
    "missing file": (lambda t: t.parent / "nope.csv", "nope.csv: no such file"),
    "empty file": (lambda t: (t.write_text(""), t)[1], "the file is empty (no header row)"),
    "too few rows": (
        lambda t: _rewrite(t, lambda h, r: (h, r[:50])),
        "too few rows to split: 50, at least 100",
    ),
    "duplicate columns": (
        lambda t: _rewrite(t, lambda h, r: (["Status", "code", "code"], r)),
        "duplicate column name(s) code",
    ),
    "one class": (
        lambda t: _rewrite(t, lambda h, r: (h, [["bad", *row[1:]] for row in r])),
        "has one class only (every row is positive)",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUT))
def test_bad_tables_are_refused_with_one_line_and_nothing_written(case, table, out, capsys):
    make, message = BAD_INPUT[case]
    path = make(table)
    assert _draft(out, "loans", str(path), "Status", "bad") == commands.EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1
    assert _nothing_written(out)


@pytest.mark.parametrize(
    ("label", "positive", "message"),
    [
        ("status", "bad", "no label column 'status'; the columns are Status, code, kind"),
        ("Status", "BAD", "POSITIVE 'BAD' never occurs in column 'Status' (its values: "),
    ],
)
def test_a_label_that_cannot_be_found_is_named(table, out, capsys, label, positive, message):
    assert _draft(out, "loans", str(table), label, positive) == commands.EXIT_BAD_INPUT
    assert message in capsys.readouterr().err
    assert _nothing_written(out)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("taxi", "dataset 'taxi' already exists"),
        ("Loans", "NAME 'Loans' must be lower-case letters"),
        ("2loans", "NAME '2loans' must be lower-case letters"),
        ("class", "NAME 'class' must be lower-case letters"),
    ],
)
def test_a_taken_or_invalid_name_is_refused(table, tmp_path, capsys, name, message):
    # The project's own datasets folder, where taxi exists; the data folder a copy.
    data_dir = tmp_path / "data"
    code = draft_dataset.main([name, str(table), "Status", "bad", "--data-dir", str(data_dir)])
    assert code == commands.EXIT_BAD_INPUT
    assert message in capsys.readouterr().err
    assert not data_dir.exists()
    assert name not in datasets.known() or name == "taxi"


def test_an_existing_draft_is_kept_unless_overwrite_is_asked(table, out, capsys):
    datasets_dir, data_dir = out
    (datasets_dir / "loans").mkdir(parents=True)
    (datasets_dir / "loans" / "__init__.py").write_text("# reviewed by hand\n")
    assert _draft(out, "loans", str(table), "Status", "bad") == commands.EXIT_BAD_INPUT
    assert "dataset 'loans' already exists" in capsys.readouterr().err
    assert (datasets_dir / "loans" / "__init__.py").read_text() == "# reviewed by hand\n"


def _exported(table: Path, habit: str) -> Path:
    """The table as a spreadsheet, a compressor or a Unix tool exports it."""
    folder = table.parent / habit
    folder.mkdir()
    data = table.read_bytes()  # csv.writer's CRLF line ends
    if habit == "bom":
        return _bytes(folder / table.name, codecs.BOM_UTF8 + data)
    if habit == "gzip":
        return _bytes(folder / f"{table.name}.gz", gzip.compress(data))
    return _bytes(folder / table.name, data.replace(b"\r\n", b"\n"))


def _bytes(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("habit", ["bom", "gzip", "lf"])
def test_an_export_drafts_as_the_plain_file(table, tmp_path, habit):
    plain_out = (tmp_path / "plain" / "datasets", tmp_path / "plain" / "data")
    assert _draft(plain_out, "loans", str(table), "Status", "bad") == commands.EXIT_OK
    export = _exported(table, habit)
    out = (tmp_path / f"{habit}-out" / "datasets", tmp_path / f"{habit}-out" / "data")
    assert _draft(out, "loans", str(export), "Status", "bad") == commands.EXIT_OK
    for name in ("__init__.py", datasets.SCHEMA_FILE):
        written = (out[0] / "loans" / name).read_text().replace(export.name, table.name)
        assert written == (plain_out[0] / "loans" / name).read_text(), name
    # The sample is the CSV text itself: no byte-order mark, not compressed.
    sample = (out[1] / "loans" / "loans.csv").read_bytes()
    assert sample.replace(b"\r\n", b"\n") == table.read_bytes().replace(b"\r\n", b"\n")


def test_a_file_that_is_not_utf8_is_refused_by_name(table, out, capsys):
    latin1 = _bytes(
        table.with_name("latin1.csv"), table.read_bytes() + "caf\xe9,1,x1\n".encode("latin-1")
    )
    assert _draft(out, "loans", str(latin1), "Status", "bad") == commands.EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "latin1.csv is not UTF-8 text (byte 0xe9" in err and "export it as CSV UTF-8" in err
    assert _nothing_written(out)


def test_small_tables_train_in_small_batches_an_epoch_a_pass_with_more_dropout(table, out):
    # credit_data: 4,454 rows, 3/5 of them (2,672) to train on, in batches of 32.
    assert rules.training_settings(4454) == {
        "batch_size": 32, "steps_per_epoch": 84, "dropout": 0.4, "ensemble_members": 5,
        "wide_learning_rate": 0.1,
    }  # fmt: skip
    assert rules.training_settings(100)["steps_per_epoch"] == 2
    # The taxi sample's size and above: HParams' defaults.
    assert rules.training_settings(rules.SMALL_TABLE_ROWS) == {}
    assert rules.training_settings(15_002) == {}
    # The draft declares them (200 rows: 120 to train on, 4 batches of 32).
    assert _draft(out, "loans", str(table), "Status", "bad") == commands.EXIT_OK
    source = (out[0] / "loans" / "__init__.py").read_text()
    # As ruff formats a dict too long for one line: an entry a line.
    entries = ('"batch_size": 32', '"steps_per_epoch": 4', '"dropout": 0.4',
               '"ensemble_members": 5', '"wide_learning_rate": 0.1')  # fmt: skip
    assert "    hparams={\n" + "".join(f"        {e},\n" for e in entries) + "    },\n" in source


def _ruled_table(path: Path) -> Path:
    """Churn where day minutes are many without a plan, or calls are: a rule of columns."""
    rng = random.Random(0)
    rows = []
    for _ in range(600):
        minutes, calls, plan = rng.uniform(0, 300), rng.randint(0, 9), rng.choice(["yes", "no"])
        churned = (minutes > 220 and plan == "no") or calls >= 6
        rows.append(["yes" if churned else "no", f"{minutes:.1f}", calls, plan])
    return _write(path, ["churn", "minutes", "calls", "plan"], rows)


def _drafted_lines(out: tuple[Path, Path], *args: str | Path) -> tuple[list[str], str]:
    """What the draft printed, and the declaration it wrote."""
    printed = io.StringIO()
    draft_dataset.draft(*args, datasets_dir=out[0], data_dir=out[1], out=printed)
    return printed.getvalue().splitlines(), (out[0] / args[0] / "__init__.py").read_text()


def test_the_draft_says_whether_it_adds_tree_leaves_and_why(table, tmp_path, out):
    lines, source = _drafted_lines(
        out, "churn", _ruled_table(tmp_path / "churn.csv"), "churn", "yes"
    )
    (said,) = [line for line in lines if "tree leaves" in line]
    assert said.startswith(
        "  tree leaves: 30 boosted trees of depth 3, fit by Transform on the train split, their "
        "leaves in the wide part: trees of depth 3 take "
    ), said
    assert "    tree_leaves=TreeLeaves(),\n" in source
    assert "    # Tree leaves: 30 boosted trees of depth 3" in source
    # Status drawn at random: no rule to find.
    lines, source = _drafted_lines(out, "loans", table, "Status", "bad")
    (said,) = [line for line in lines if "tree leaves" in line]
    assert said.startswith("  no tree leaves (a gain under 5%): trees of depth 3 take "), said
    assert "tree_leaves" not in source

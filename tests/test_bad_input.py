"""Bad input, each met with a clear message, a non-zero exit, and nothing lost.

Every case starts from a copy of a finished good run (a model already serving),
feeds the runner a broken data root, and checks: the message the user sees, the
exit code, the component that stopped it, that the serving directory did not
change, and that ML-Metadata still opens and records the run as failed.
"""

from __future__ import annotations

import csv
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from pipeline_def import node_ids as P
from pipeline_def.config import DEFAULT_DATA_ROOT, SqliteMetadata
from pipeline_ops.metadata.runs import latest_run, list_runs
from pipeline_ops.metadata.store import open_store
from pipeline_ops.session.summary import SUMMARY_FILE

ROWS = 1500  # enough for statistics, small enough for a quick ExampleGen
Rows = list[dict[str, str]]


def _rows() -> Rows:
    with (DEFAULT_DATA_ROOT / "taxi.csv").open(newline="") as f:
        return [row for _, row in zip(range(ROWS), csv.DictReader(f), strict=False)]


def _write(path: Path, rows: Rows, columns: list[str] | None = None, delimiter: str = ",") -> None:
    columns = columns or list(rows[0])
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(
            f, columns, extrasaction="ignore", delimiter=delimiter, lineterminator="\n"
        )
        writer.writeheader()
        writer.writerows(rows)


def _set(column: str, value: str, every: int = 50) -> Callable[[Rows], Rows]:
    def change(rows: Rows) -> Rows:
        for row in rows[::every]:
            row[column] = value
        return rows

    return change


@dataclass(frozen=True)
class Case:
    """A broken data root: how to make it, who stops it, and what they say."""

    make: Callable[[Path, Rows], None]
    exit_code: int
    stopped_by: str | None  # None: the runner's pre-flight check, before any component
    message: str


def _one_file(change: Callable[[Rows], Rows], **kw: object) -> Callable[[Path, Rows], None]:
    return lambda root, rows: _write(root / "taxi.csv", change(rows), **kw)


def _cash_to_card(rows: Rows) -> Rows:
    """Half the cash trips paid by card instead: values in the domain, shares shifted."""
    cash = [row for row in rows if row["payment_type"] == "Cash"]
    for row in cash[::2]:
        row["payment_type"] = "Credit Card"
    return rows


def _with_bytes(placeholder: str, raw: bytes) -> Callable[[Path, Rows], None]:
    """Write the rows with ``placeholder`` in some company cells, then put ``raw`` there."""

    def make(root: Path, rows: Rows) -> None:
        _write(root / "taxi.csv", _set("company", placeholder, every=100)(rows))
        path = root / "taxi.csv"
        path.write_bytes(path.read_bytes().replace(placeholder.encode(), raw))

    return make


def _ragged(root: Path, rows: Rows) -> None:
    """A row that lost its last cell."""
    path = root / "taxi.csv"
    _write(path, rows)
    lines = path.read_text().splitlines(keepends=True)
    lines[10] = lines[10].rsplit(",", 1)[0] + "\n"
    path.write_text("".join(lines))


EV = P.EXAMPLE_VALIDATOR
PIPELINE_CASES = {
    "ragged-row": Case(
        _ragged, 1, P.EXAMPLE_GEN, "taxi.csv: a row has 17 cells where the header has 18",
    ),
    "missing-column": Case(
        _one_file(lambda r: r, columns=[c for c in _rows()[0] if c != "trip_miles"]),
        1, EV, "trip_miles: Column is completely missing",
    ),
    "unknown-column": Case(
        _one_file(lambda r: [{**row, "rating": "5"} for row in r], columns=[*_rows()[0], "rating"]),
        1, EV, "rating: New column",
    ),
    "text-in-numeric": Case(
        _one_file(_set("trip_miles", "three")), 1, EV, "trip_miles: Expected data of type: FLOAT",
    ),
    "all-labels-missing": Case(
        _one_file(_set("tips", "", every=1)), 1, EV, "tips: The feature was not present",
    ),
    "nan-fares": Case(_one_file(_set("fare", "nan")), 1, EV, "fare: "),
    "inf-fares": Case(_one_file(_set("fare", "inf")), 1, EV, "fare: "),
    "negative-fares": Case(
        _one_file(_set("fare", "-4.5")), 1, EV, "fare: Unexpectedly low values: -4.5<0",
    ),
    "payment-type-drift-from-the-serving-models-data": Case(
        _one_file(_cash_to_card), 1, EV,
        "train vs the serving model's training data: payment_type: distribution drift L_INFTY",
    ),
    "not-whole-in-an-int-column": Case(
        _one_file(_set("trip_seconds", "300.5")), 1, P.EXAMPLE_GEN,
        "taxi.csv: column trip_seconds holds 300.5, not a whole number, where the schema "
        "expects an integer",
    ),
    "unknown-payment-type": Case(
        _one_file(_set("payment_type", "Bitcoin", every=10)), 1, EV, "payment_type: ",
    ),
}  # fmt: skip

PREFLIGHT_CASES = {
    "non-utf8": Case(
        _with_bytes("CAFE", b"Caf\xe9"), 2, None,
        "taxi.csv is not UTF-8 text (byte 0xe9 at line 2, offset ",
    ),
    "repeated-header": Case(
        lambda root, rows: (
            _write(root / "taxi.csv", rows),
            (root / "taxi.csv").write_text((root / "taxi.csv").read_text() * 2),
        ),
        2, None, f"repeats its header at line {ROWS + 2}",
    ),
    "semicolon-delimited": Case(
        _one_file(lambda r: r, delimiter=";"), 2, None, "is semicolon-delimited",
    ),
    "good-and-bad-files": Case(
        lambda root, rows: (
            _write(root / "a_good.csv", rows),
            _write(root / "b_bad.csv", rows, columns=[c for c in rows[0] if c != "fare"]),
        ),
        2, None, "b_bad.csv has other columns than a_good.csv: missing ['fare']",
    ),
}  # fmt: skip


@pytest.fixture
def served(first_run, tmp_path) -> Path:
    """A copy of a good run's output dir, with a model serving."""
    output_dir = tmp_path / "out"
    shutil.copytree(first_run[0], output_dir)
    assert any((output_dir / "serving").iterdir())
    return output_dir


def _snapshot(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_size for p in folder.rglob("*")}


def _check(case: Case, result, output_dir: Path, before: dict[str, int], runs_before: int) -> None:
    assert result.returncode == case.exit_code, result.stdout + result.stderr
    error = result.stderr.strip()
    assert len(error.splitlines()) == 1, error
    assert error.startswith("error: ") and case.message in error, error
    assert "Traceback" not in result.stdout + result.stderr
    assert _snapshot(output_dir / "serving") == before
    store = open_store(SqliteMetadata(str(output_dir / "metadata.sqlite")))
    runs = list_runs(store, "taxi-wide-deep")
    if case.stopped_by is None:
        assert len(runs) == runs_before  # nothing started
        return
    assert error.startswith(f"error: {case.stopped_by} failed: ")
    assert len(runs) == runs_before + 1
    run = latest_run(store, "taxi-wide-deep")
    assert run.nodes[case.stopped_by].state == "failed"
    assert P.TRANSFORM not in run.nodes and P.TRAINER not in run.nodes and P.PUSHER not in run.nodes
    summary = json.loads((output_dir / SUMMARY_FILE).read_text())
    assert summary["status"] == "failed" and summary["failed_component"] == case.stopped_by
    assert case.message in summary["error"]
    assert summary["pushed_model_path"] is None


def _run_case(name: str, case: Case, served: Path, tmp_path: Path, run_pipeline) -> None:
    root = tmp_path / "bad"
    root.mkdir()
    case.make(root, _rows())
    before = _snapshot(served / "serving")
    runs_before = len(
        list_runs(open_store(SqliteMetadata(str(served / "metadata.sqlite"))), "taxi-wide-deep")
    )
    _check(case, run_pipeline(root, served), served, before, runs_before)


@pytest.mark.parametrize("name", list(PREFLIGHT_CASES))
@pytest.mark.slow
def test_preflight_rejects(name, served, tmp_path, run_pipeline):
    _run_case(name, PREFLIGHT_CASES[name], served, tmp_path, run_pipeline)


@pytest.mark.parametrize("name", list(PIPELINE_CASES))
@pytest.mark.slow
def test_pipeline_rejects(name, served, tmp_path, run_pipeline):
    _run_case(name, PIPELINE_CASES[name], served, tmp_path, run_pipeline)

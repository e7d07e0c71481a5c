"""Bad data a component stops: a clear message, a non-zero exit, and nothing lost.

The runner's pre-flight cases, stopped before any component, are fast tests
(tests/runners/test_preflight.py). Every case here starts from a copy of a finished
good run (a model already serving), feeds the runner a broken data root, and checks:
the message the user sees, the exit code, the component that stopped it, that the
serving directory did not change, and that ML-Metadata still opens and records the
run as failed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from bad_data import Case, cash_to_card, one_file, ragged, set_every, taxi_rows

from pipeline_def import node_ids
from pipeline_def.metadata_stores import SqliteMetadata
from pipeline_ops.metadata.runs import latest_run, list_runs
from pipeline_ops.metadata.store import open_store
from pipeline_ops.session.summary import SUMMARY_FILE

EV = node_ids.EXAMPLE_VALIDATOR
PIPELINE_CASES = {
    "ragged-row": Case(
        ragged, 1, node_ids.EXAMPLE_GEN, "taxi.csv: a row has 17 cells where the header has 18",
    ),
    "missing-column": Case(
        one_file(lambda r: r, columns=[c for c in taxi_rows()[0] if c != "trip_miles"]),
        1, EV, "trip_miles: Column is completely missing",
    ),
    "unknown-column": Case(
        one_file(
            lambda r: [{**row, "rating": "5"} for row in r], columns=[*taxi_rows()[0], "rating"]
        ),
        1, EV, "rating: New column",
    ),
    "text-in-numeric": Case(
        one_file(set_every("trip_miles", "three")), 1, EV,
        "trip_miles: Expected data of type: FLOAT",
    ),
    "all-labels-missing": Case(
        one_file(set_every("tips", "", every=1)), 1, EV, "tips: The feature was not present",
    ),
    "nan-fares": Case(one_file(set_every("fare", "nan")), 1, EV, "fare: "),
    "inf-fares": Case(one_file(set_every("fare", "inf")), 1, EV, "fare: "),
    "negative-fares": Case(
        one_file(set_every("fare", "-4.5")), 1, EV, "fare: Unexpectedly low values: -4.5<0",
    ),
    "payment-type-drift-from-the-serving-models-data": Case(
        one_file(cash_to_card), 1, EV,
        "train vs the serving model's training data: payment_type: distribution drift L_INFTY",
    ),
    "not-whole-in-an-int-column": Case(
        one_file(set_every("trip_seconds", "300.5")), 1, node_ids.EXAMPLE_GEN,
        "taxi.csv: column trip_seconds holds 300.5, not a whole number, where the schema "
        "expects an integer",
    ),
    "unknown-payment-type": Case(
        one_file(set_every("payment_type", "Bitcoin", every=10)), 1, EV, "payment_type: ",
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
    assert error.startswith(f"error: {case.stopped_by} failed: ")
    assert len(runs) == runs_before + 1
    run = latest_run(store, "taxi-wide-deep")
    assert run.nodes[case.stopped_by].state == "failed"
    assert (
        node_ids.TRANSFORM not in run.nodes
        and node_ids.TRAINER not in run.nodes
        and node_ids.PUSHER not in run.nodes
    )
    summary = json.loads((output_dir / SUMMARY_FILE).read_text())
    assert summary["status"] == "failed" and summary["failed_component"] == case.stopped_by
    assert case.message in summary["error"]
    assert summary["pushed_model_path"] is None


def _run_case(name: str, case: Case, served: Path, tmp_path: Path, run_pipeline) -> None:
    root = tmp_path / "bad"
    root.mkdir()
    case.make(root, taxi_rows())
    before = _snapshot(served / "serving")
    runs_before = len(
        list_runs(open_store(SqliteMetadata(str(served / "metadata.sqlite"))), "taxi-wide-deep")
    )
    _check(case, run_pipeline(root, served), served, before, runs_before)


@pytest.mark.parametrize("name", list(PIPELINE_CASES))
@pytest.mark.slow
def test_pipeline_rejects(name, served, tmp_path, run_pipeline):
    _run_case(name, PIPELINE_CASES[name], served, tmp_path, run_pipeline)

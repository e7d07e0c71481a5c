"""Bad data a component stops: a clear message, a non-zero exit, and nothing lost.

The runner's pre-flight cases, stopped before any component, are fast tests
(tests/runners/test_preflight.py). Every case here starts from a copy of a finished
good run (a model already serving), feeds the runner a broken data root, and checks:
the message the user sees, the exit code, the component that stopped it, that the
serving directory did not change, and that ML-Metadata still opens and records the
run as failed.

A pipeline run costs 30 to 60 s whatever data it holds, and the validator names
every problem of a run in its one line (" | "-joined), so the cases it stops share
runs: each group of ``RUNS`` is one run on one file holding all its cases' faults,
and each case checks its own message against that run. Within a group no case's
message may match a line another case's fault brings, else the case would pass
without its own fault: the three fare cases ("fare: ") sit apart, and so do the two
payment_type cases, as a value outside the domain drifts payment_type as well.
ExampleGen stops at the first bad row it meets, so its two cases run alone.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from bad_data import (
    Case,
    Rows,
    cash_to_card,
    one_file,
    ragged,
    set_every,
    taxi_rows,
    write_rows,
)

from pipeline_def import node_ids
from pipeline_def.metadata_stores import SqliteMetadata
from pipeline_ops.metadata.runs import latest_run, list_runs
from pipeline_ops.metadata.store import open_store
from pipeline_ops.session.summary import SUMMARY_FILE


@dataclass(frozen=True)
class Fault:
    """A validator case's change to the taxi rows, and to their header when it needs one."""

    rows: Callable[[Rows], Rows] = lambda rows: rows
    columns: Callable[[list[str]], list[str]] = lambda columns: columns


# The faults of one run touch columns of their own, so they add up in one file.
FAULTS = {
    "missing-column": Fault(columns=lambda c: [name for name in c if name != "trip_miles"]),
    "unknown-column": Fault(
        lambda r: [{**row, "rating": "5"} for row in r], lambda c: [*c, "rating"],
    ),
    "text-in-numeric": Fault(set_every("trip_miles", "three")),
    "all-labels-missing": Fault(set_every("tips", "", every=1)),
    "nan-fares": Fault(set_every("fare", "nan")),
    "inf-fares": Fault(set_every("fare", "inf")),
    "negative-fares": Fault(set_every("fare", "-4.5")),
    "payment-type-drift-from-the-serving-models-data": Fault(cash_to_card),
    "unknown-payment-type": Fault(set_every("payment_type", "Bitcoin", every=10)),
}  # fmt: skip


def _file(*names: str) -> Callable[[Path, Rows], None]:
    """Writes the taxi rows with the faults of the cases ``names``, all in one file."""

    def make(root: Path, rows: Rows) -> None:
        columns = list(rows[0])
        for fault in (FAULTS[name] for name in names):
            rows, columns = fault.rows(rows), fault.columns(columns)
        write_rows(root / "taxi.csv", rows, columns=columns)

    return make


EV = node_ids.EXAMPLE_VALIDATOR
PIPELINE_CASES = {
    "ragged-row": Case(
        ragged, 1, node_ids.EXAMPLE_GEN, "taxi.csv: a row has 17 cells where the header has 18",
    ),
    "missing-column": Case(
        _file("missing-column"), 1, EV, "trip_miles: Column is completely missing",
    ),
    "unknown-column": Case(_file("unknown-column"), 1, EV, "rating: New column"),
    "text-in-numeric": Case(
        _file("text-in-numeric"), 1, EV, "trip_miles: Expected data of type: FLOAT",
    ),
    "all-labels-missing": Case(
        _file("all-labels-missing"), 1, EV, "tips: The feature was not present",
    ),
    "nan-fares": Case(_file("nan-fares"), 1, EV, "fare: "),
    "inf-fares": Case(_file("inf-fares"), 1, EV, "fare: "),
    "negative-fares": Case(
        _file("negative-fares"), 1, EV, "fare: Unexpectedly low values: -4.5<0",
    ),
    "payment-type-drift-from-the-serving-models-data": Case(
        _file("payment-type-drift-from-the-serving-models-data"), 1, EV,
        "train vs the serving model's training data: payment_type: distribution drift L_INFTY",
    ),
    "not-whole-in-an-int-column": Case(
        one_file(set_every("trip_seconds", "300.5")), 1, node_ids.EXAMPLE_GEN,
        "taxi.csv: column trip_seconds holds 300.5, not a whole number, where the schema "
        "expects an integer",
    ),
    "unknown-payment-type": Case(_file("unknown-payment-type"), 1, EV, "payment_type: "),
}  # fmt: skip

# The pipeline runs, each a group of cases whose faults share its data.
RUNS = (
    ("ragged-row",),
    ("not-whole-in-an-int-column",),
    ("missing-column", "unknown-column", "all-labels-missing", "negative-fares",
     "payment-type-drift-from-the-serving-models-data"),
    ("text-in-numeric", "nan-fares", "unknown-payment-type"),
    ("inf-fares",),
)  # fmt: skip
RUN_OF = {name: group for group in RUNS for name in group}
RunPipeline = Callable[..., subprocess.CompletedProcess]


def _snapshot(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_size for p in folder.rglob("*")}


def _check(
    case: Case,
    result: subprocess.CompletedProcess,
    output_dir: Path,
    before: dict[str, int],
    runs_before: int,
) -> None:
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


@dataclass(frozen=True)
class Rejected:
    """A bad run on its own copy of the first run, and what that copy held before it."""

    output_dir: Path
    result: subprocess.CompletedProcess
    serving_before: dict[str, int]
    runs_before: int


def _run_on_copy(
    group: tuple[str, ...], source: Path, folder: Path, run_pipeline: RunPipeline
) -> Rejected:
    """Copy the good run into ``folder``, write ``group``'s bad data beside it, run on both."""
    output_dir = folder / "out"
    shutil.copytree(source, output_dir)
    assert any((output_dir / "serving").iterdir())
    root = folder / "bad"
    root.mkdir()
    # A case alone makes its own data (ExampleGen's cases write more than rows).
    make = PIPELINE_CASES[group[0]].make if len(group) == 1 else _file(*group)
    make(root, taxi_rows())
    before = _snapshot(output_dir / "serving")
    store = open_store(SqliteMetadata(str(output_dir / "metadata.sqlite")))
    runs_before = len(list_runs(store, "taxi-wide-deep"))
    return Rejected(output_dir, run_pipeline(root, output_dir), before, runs_before)


@pytest.fixture(scope="module")
def rejected(
    first_run: tuple[Path, subprocess.CompletedProcess],
    tmp_path_factory: pytest.TempPathFactory,
    run_pipeline: RunPipeline,
) -> Callable[[str], Rejected]:
    """The run holding case ``name``'s fault: its group's run, made when first asked for."""
    runs: dict[tuple[str, ...], Rejected] = {}

    def run_of(name: str) -> Rejected:
        group = RUN_OF[name]
        if group not in runs:
            folder = tmp_path_factory.mktemp("rejects")
            runs[group] = _run_on_copy(group, first_run[0], folder, run_pipeline)
        return runs[group]

    return run_of


def test_every_case_has_one_run() -> None:
    assert sorted(RUN_OF) == sorted(PIPELINE_CASES)
    assert sum(len(group) for group in RUNS) == len(PIPELINE_CASES)


def test_no_case_can_pass_on_a_neighbours_line() -> None:
    """Within a run, no case's message is part of another's: each needs its own fault's line.

    A fault's lines beyond its case's message (an unknown payment_type also drifts
    payment_type) are not seen here: a new group is checked by dropping each fault once.
    """
    for group in RUNS:
        for name in group:
            others = [PIPELINE_CASES[other].message for other in group if other != name]
            assert not [m for m in others if PIPELINE_CASES[name].message in m], name


@pytest.mark.parametrize("name", list(PIPELINE_CASES))
@pytest.mark.slow
def test_pipeline_rejects(name: str, rejected: Callable[[str], Rejected]) -> None:
    run = rejected(name)
    _check(PIPELINE_CASES[name], run.result, run.output_dir, run.serving_before, run.runs_before)

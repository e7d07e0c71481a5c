"""runs: reading a pipeline's runs back from a real (in-memory) ML-Metadata store."""

import pytest
from ml_metadata.metadata_store import metadata_store
from ml_metadata.proto import metadata_store_pb2 as mlmd_pb2

from pipeline_def.metadata_stores import SqliteMetadata
from pipeline_ops.metadata.runs import (
    NODE,
    PIPELINE,
    PIPELINE_RUN,
    AmbiguousRunIdError,
    find_run,
    latest_run,
    list_runs,
    run_of_execution,
)
from pipeline_ops.metadata.store import open_store

PIPELINE_NAME = "taxi-wide-deep"


@pytest.fixture
def store() -> metadata_store.MetadataStore:
    config = mlmd_pb2.ConnectionConfig()
    config.fake_database.SetInParent()
    return metadata_store.MetadataStore(config)


def _context(store: metadata_store.MetadataStore, type_name: str, name: str) -> mlmd_pb2.Context:
    type_id = store.put_context_type(mlmd_pb2.ContextType(name=type_name))
    found = store.get_context_by_type_and_name(type_name, name)
    if found is not None:
        return found
    [context_id] = store.put_contexts([mlmd_pb2.Context(type_id=type_id, name=name)])
    return store.get_contexts_by_id([context_id])[0]


def _execute(store: metadata_store.MetadataStore, run_id: str, node: str) -> int:
    """Record an execution of ``node`` in run ``run_id`` the way TFX's launcher does."""
    type_id = store.put_execution_type(mlmd_pb2.ExecutionType(name=node))
    contexts = [
        _context(store, PIPELINE, PIPELINE_NAME),
        _context(store, PIPELINE_RUN, run_id),
        _context(store, NODE, f"{PIPELINE_NAME}.{node}"),
    ]
    execution = mlmd_pb2.Execution(type_id=type_id, last_known_state=mlmd_pb2.Execution.COMPLETE)
    execution_id, _, _ = store.put_execution(execution, [], contexts)
    return execution_id


def test_two_runs_started_at_once_are_each_found_by_their_own_execution(store):
    # Run ids are start times; two processes can read the clock in the same
    # microsecond, so the ids here differ only in their last digit.
    ours = _execute(store, "2026-11-21T12:48:37.177284", "CsvExampleGen")
    theirs = _execute(store, "2026-11-21T12:48:37.177285", "CsvExampleGen")
    _execute(store, "2026-11-21T12:48:37.177284", "Trainer")

    mine = run_of_execution(store, PIPELINE_NAME, ours)
    other = run_of_execution(store, PIPELINE_NAME, theirs)

    assert mine.run_id == "2026-11-21T12:48:37.177284"
    assert sorted(mine.nodes) == ["CsvExampleGen", "Trainer"]
    assert other.run_id == "2026-11-21T12:48:37.177285"
    assert sorted(other.nodes) == ["CsvExampleGen"]


def test_an_execution_of_another_pipeline_is_in_no_run_of_this_one(store):
    _execute(store, "2026-11-21T10:00:00", "CsvExampleGen")
    type_id = store.put_execution_type(mlmd_pb2.ExecutionType(name="CsvExampleGen"))
    other_pipeline = [
        _context(store, PIPELINE, "another-pipeline"),
        _context(store, PIPELINE_RUN, "2026-11-21T11:00:00"),
    ]
    execution_id, _, _ = store.put_execution(
        mlmd_pb2.Execution(type_id=type_id), [], other_pipeline
    )
    assert run_of_execution(store, PIPELINE_NAME, execution_id) is None


def test_runs_are_listed_newest_first_and_found_by_id(store):
    for run_id in ("2026-11-21T10:00:00", "2026-11-21T11:00:00"):
        _execute(store, run_id, "CsvExampleGen")
    assert [r.run_id for r in list_runs(store, PIPELINE_NAME)] == [
        "2026-11-21T11:00:00",
        "2026-11-21T10:00:00",
    ]
    assert find_run(store, PIPELINE_NAME, None).run_id == "2026-11-21T11:00:00"
    assert find_run(store, PIPELINE_NAME, "2026-11-21T10:00:00").run_id == "2026-11-21T10:00:00"
    assert find_run(store, PIPELINE_NAME, "no-such-run") is None


def test_a_run_is_found_by_the_start_of_its_id_when_only_it_begins_so(store):
    for run_id in ("2026-11-21T10:00:00.123456", "2026-11-21T11:00:00.654321"):
        _execute(store, run_id, "CsvExampleGen")
    assert find_run(store, PIPELINE_NAME, "2026-11-21T10").run_id == "2026-11-21T10:00:00.123456"
    with pytest.raises(
        AmbiguousRunIdError, match=r"'2026-11-21T1' could be any of 2: 2026-11-21T11"
    ):
        find_run(store, PIPELINE_NAME, "2026-11-21T1")


def test_recorded_runs_are_read_back_newest_first_with_each_steps_state(recorded_runs):
    store = open_store(SqliteMetadata(str(recorded_runs.output_dir / "metadata.sqlite")))
    runs = list_runs(store, "taxi-wide-deep")
    r = recorded_runs
    made = [r.good, r.rerun, r.worse, r.broken, r.slice_regression]  # make_runs.py's order
    assert [run.run_id for run in runs] == made[::-1]
    assert made == sorted(made)  # run ids are start times
    by_id = {run.run_id: run for run in runs}
    broken, worse, rerun, good = (by_id[i] for i in (r.broken, r.worse, r.rerun, r.good))
    assert broken.nodes["ExampleValidator"].state == "failed"
    # A failed step's outputs are not published; what it read is recorded.
    validator = broken.nodes["ExampleValidator"]
    assert validator.outputs == {}
    assert set(validator.inputs) == {"statistics", "schema", "previous_statistics"}
    statistics = broken.output("StatisticsGen", "statistics")
    assert [a.id for a in validator.inputs["statistics"]] == [statistics.id]
    assert "Trainer" not in broken.nodes and broken.output("Evaluator", "evaluation") is None
    assert {e.state for e in good.nodes.values()} == {"complete"}
    assert rerun.nodes["Trainer"].state == "cached" and worse.nodes["Trainer"].state == "complete"
    # A cached step's outputs are the earlier run's artifacts.
    assert rerun.output("Trainer", "model").id == good.output("Trainer", "model").id
    assert by_id[r.slice_regression].nodes["Trainer"].state == "complete"
    assert latest_run(store, "taxi-wide-deep").run_id == recorded_runs.slice_regression
    assert find_run(store, "taxi-wide-deep", recorded_runs.good).run_id == recorded_runs.good

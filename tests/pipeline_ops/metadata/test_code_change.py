"""The steps' code against the run before's: why steps ran again rather than from the cache."""

from __future__ import annotations

import json

import pytest

from pipeline_def import node_ids
from pipeline_def.code_digest import CODE_DIGEST_KEY
from pipeline_def.metadata_stores import SqliteMetadata
from pipeline_ops.metadata.changed import code_change
from pipeline_ops.metadata.runs import find_run, list_runs
from pipeline_ops.metadata.store import open_store

PIPELINE = "taxi-wide-deep"


@pytest.fixture
def store(recorded_runs):
    return open_store(SqliteMetadata(str(recorded_runs.output_dir / "metadata.sqlite")))


def _set_code(store, run_id: str, digest: str) -> str:
    """Record ``digest`` as the code ExampleGen of ``run_id`` ran with; the one it had."""
    execution = find_run(store, PIPELINE, run_id).nodes[node_ids.EXAMPLE_GEN].execution
    config = json.loads(execution.custom_properties["custom_config"].string_value)
    old, config[CODE_DIGEST_KEY] = config[CODE_DIGEST_KEY], digest
    execution.custom_properties["custom_config"].string_value = json.dumps(config)
    store.put_executions([execution])
    return old


def test_the_same_code_as_the_run_before_says_nothing(store, recorded_runs):
    runs = list_runs(store, PIPELINE)
    assert code_change(store, runs, find_run(store, PIPELINE, recorded_runs.worse)) is None
    assert code_change(store, runs, min(runs, key=lambda r: r.started_ms)) is None  # the first


def test_other_code_than_the_run_before_names_that_run_and_both_digests(store, recorded_runs):
    runs = list_runs(store, PIPELINE)
    run = find_run(store, PIPELINE, recorded_runs.worse)
    before = max((r for r in runs if r.started_ms < run.started_ms), key=lambda r: r.started_ms)
    old = _set_code(store, run.run_id, "f" * 64)
    found = code_change(store, runs, find_run(store, PIPELINE, run.run_id))
    assert found == (before.run_id, old[:12], "f" * 12)

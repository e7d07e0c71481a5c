"""How a local run ends: its exit code (with and without --detailed-exitcode), its code change."""

from __future__ import annotations

import json
import shutil

import pytest

import datasets
from pipeline_def import node_ids
from pipeline_def.code_digest import CODE_DIGEST_KEY
from pipeline_def.metadata_stores import SqliteMetadata
from pipeline_ops import commands
from pipeline_ops.metadata.runs import find_run
from pipeline_ops.metadata.store import open_store
from pipeline_ops.session.local_run import _code_changed, _Ending


@pytest.mark.parametrize(
    ("ending", "blessed", "plain", "detailed"),
    [
        (_Ending(), True, commands.EXIT_OK, commands.EXIT_OK),
        (_Ending(), False, commands.EXIT_OK, commands.EXIT_NOT_BLESSED),
        (_Ending(failed="Trainer"), False, commands.EXIT_FAILED, commands.EXIT_FAILED),
        (
            _Ending(failed="Trainer", interrupted=True),
            False,
            commands.EXIT_INTERRUPTED,
            commands.EXIT_INTERRUPTED,
        ),
        # Stopped while its span was still being written: nothing was judged, nothing failed.
        (_Ending(failed="CsvExampleGen", waiting=True), False, commands.EXIT_OK, commands.EXIT_OK),
    ],
    ids=["blessed", "held-back", "failed", "interrupted", "waiting"],
)
def test_only_a_completed_runs_code_is_its_verdict(ending, blessed, plain, detailed):
    assert ending.exit_code(blessed, detailed=False) == plain
    assert ending.exit_code(blessed, detailed=True) == detailed


def _set_code(store, run, digest: str) -> None:
    """Record ``digest`` as the code the run's ExampleGen ran with."""
    execution = run.nodes[node_ids.EXAMPLE_GEN].execution
    custom = json.loads(execution.custom_properties["custom_config"].string_value)
    custom[CODE_DIGEST_KEY] = digest
    execution.custom_properties["custom_config"].string_value = json.dumps(custom)
    store.put_executions([execution])


def test_the_run_names_the_run_before_whose_steps_code_differs(recorded_runs, tmp_path):
    # A copy of its own: other tests of the session read the recorded store.
    shutil.copytree(recorded_runs.output_dir, tmp_path / "out")
    store = open_store(SqliteMetadata(str(tmp_path / "out" / "metadata.sqlite")))
    pipeline = datasets.load(datasets.DEFAULT).pipeline_name
    # The runs were recorded in this order: the rerun is the worse run's run before.
    rerun, worse = (
        find_run(store, pipeline, r) for r in (recorded_runs.rerun, recorded_runs.worse)
    )
    _set_code(store, rerun, "a" * 64)
    _set_code(store, worse, "a" * 64)
    assert _code_changed(store, pipeline, find_run(store, pipeline, worse.run_id)) == ""
    _set_code(store, worse, "f" * 64)
    assert _code_changed(store, pipeline, find_run(store, pipeline, worse.run_id)) == (
        f"since run {rerun.run_id} (sha256 {'a' * 12} -> {'f' * 12})"
    )

"""How a local run's ending becomes its exit code, with and without --detailed-exitcode."""

from __future__ import annotations

import pytest

from pipeline_ops import commands
from pipeline_ops.session.local_run import _Ending


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

"""The cron check: a run that would only repeat an earlier one has nothing to do."""

from __future__ import annotations

import pytest
from run_records import FAILED, artifact, node

from data_layout.properties import INPUT_DIGEST_PROPERTY, RUN_FINGERPRINT_KEY
from pipeline_def import node_ids
from pipeline_ops.metadata.runs import PipelineRun
from pipeline_ops.session.period import repeated_run

DIGEST, FINGERPRINT = "d" * 64, "f" * 64


def _run(run_id: str, pushed: str | None, baseline: str | None, **made: str) -> PipelineRun:
    """A run that read ``digest`` with ``fingerprint`` and pushed ``pushed`` (None: held back)."""
    digest, fingerprint = made.get("digest", DIGEST), made.get("fingerprint", FINGERPRINT)
    push = (artifact(pushed=1, pushed_destination=f"/o/serving/{pushed}") if pushed
            else artifact(pushed=0, not_pushed_reason="not blessed"))  # fmt: skip
    blessing = artifact(blessed=int(pushed is not None), **({"baseline_version": baseline}
                                                              if baseline else {}))  # fmt: skip
    return PipelineRun(run_id, 1, {
        node_ids.EXAMPLE_GEN: node(node_ids.EXAMPLE_GEN,
                                   examples=artifact(**{INPUT_DIGEST_PROPERTY: digest})),
        node_ids.EVALUATOR: node(node_ids.EVALUATOR, blessing=blessing),
        node_ids.PUSHER: node(node_ids.PUSHER, parameters={RUN_FINGERPRINT_KEY: fingerprint},
                              pushed_model=push),
    })  # fmt: skip


def test_the_files_the_serving_version_learned_are_nothing_to_do():
    said = repeated_run([_run("r2", "18", "17")], DIGEST, FINGERPRINT, "18")
    assert said.reason == "serving version 18 learned from these files in run r2"
    assert said.blessed  # --detailed-exitcode repeats that run's verdict: blessed


def test_a_candidate_held_back_against_what_still_serves_is_not_trained_again():
    said = repeated_run([_run("r2", None, "17")], DIGEST, FINGERPRINT, "17")
    assert said.reason == (
        "run r2 judged these files against serving version 17 and pushed nothing (not blessed)"
    )
    assert not said.blessed  # --detailed-exitcode repeats that run's verdict: held back


@pytest.mark.parametrize(
    ("runs", "serving"),
    [
        ([_run("r2", "18", "17")], "17"),  # rolled back since: run again
        ([_run("r2", "18", "17")], None),  # the serving folder emptied
        ([_run("r2", None, "17")], "18"),  # held back against a version no longer serving
        ([_run("r2", "18", "17", fingerprint="e" * 64)], "18"),  # other settings or code
        ([_run("r2", "18", "17", digest="c" * 64)], "18"),  # other files
        ([], "18"),
    ],
    ids=["rolled-back", "nothing-serves", "held-against-older", "settings", "files", "no-run"],
)
def test_anything_that_differs_runs_the_pipeline(runs, serving):
    assert repeated_run(runs, DIGEST, FINGERPRINT, serving) is None


def test_the_newest_run_of_the_same_files_decides_and_unfinished_runs_do_not_count():
    stopped = _run("r3", "19", "18")
    stopped.nodes[node_ids.PUSHER] = node(node_ids.PUSHER, FAILED)
    runs = [stopped, _run("r2", None, "18"), _run("r1", "18", "17")]
    assert repeated_run(runs, DIGEST, FINGERPRINT, "18").reason.startswith("run r2 judged")

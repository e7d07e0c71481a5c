"""Running every period from cron: one run at a time, and nothing to do twice.

A cron line runs ``wide-deep-run --span latest`` every hour; most hours no new span has
landed. A run would only repeat an earlier one when that run read the same window (its
spans and their files' bytes), with the same settings and code (the fingerprint its
Pusher recorded), and what it left serving still serves: its push, or the version it
held its candidate back against. Such a run says so and exits 0 before any TFX step
(with --detailed-exitcode, the code of the verdict that earlier run gave).
Anything else runs. Runs on one output folder take its lock (``run_lock``), so two
overlapping invocations never train or push the same span twice.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from data_layout import csv_files, serving_layout, spans
from data_layout.properties import (
    INPUT_DIGEST_PROPERTY,
    RUN_FINGERPRINT_KEY,
    outcome_of,
    str_property,
    value_of,
)
from pipeline_def import node_ids
from pipeline_def.code_digest import run_fingerprint
from pipeline_def.config import PipelineConfig
from pipeline_ops.metadata.runs import PipelineRun, runs_newest_first
from pipeline_ops.metadata.store import open_store


def input_digest(root: Path, window: spans.Window) -> str:
    """The digest ExampleGen records for ``window`` of ``root`` (spans.window_digest)."""
    opener = functools.partial(open, mode="rb")
    _, digests = spans.read_window(spans.LOCAL, str(root), window, csv_files.PATTERN, opener)
    return spans.window_digest(window, digests)


def _same_run(run: PipelineRun, digest: str, fingerprint: str) -> bool:
    """Whether ``run`` read ``digest``'s files with ``fingerprint``'s settings and code."""
    examples = run.output(node_ids.EXAMPLE_GEN, "examples")
    pusher = run.nodes.get(node_ids.PUSHER)
    if examples is None or pusher is None or pusher.state != "complete":
        return False
    recorded = pusher.execution.custom_properties.get(RUN_FINGERPRINT_KEY)
    return (
        str_property(examples, INPUT_DIGEST_PROPERTY) == digest
        and recorded is not None
        and value_of(recorded) == fingerprint
    )


@dataclass(frozen=True)
class Repeat:
    """An earlier run that a new one would only repeat: why, and the verdict it gave."""

    reason: str
    blessed: bool  # whether that run's gate blessed its model


def nothing_to_do(config: PipelineConfig, digest: str) -> Repeat | None:
    """The earlier run a run of ``digest``'s window would only repeat; None if none."""
    if config.metadata is None:
        return None
    # Read one run at a time: with nothing new, the newest run decides.
    runs = runs_newest_first(open_store(config.metadata), config.pipeline_name)
    serving = serving_layout.newest(config.serving_dir, spans.LOCAL)
    return repeated_run(runs, digest, run_fingerprint(config), serving and str(serving.number))


def repeated_run(
    runs: Iterable[PipelineRun], digest: str, fingerprint: str, serving: str | None
) -> Repeat | None:
    """The one of ``runs`` (newest first) a run would repeat, or None; ``serving``: what serves.

    The newest run of the same files, settings and code decides: it pushed the version
    that still serves, or it held its candidate back against the version that still
    serves. A serving folder changed since (a rollback, a push by another run) runs again.
    """
    run = next((r for r in runs if _same_run(r, digest, fingerprint)), None)
    if run is None:
        return None
    outcome = outcome_of(
        run.output(node_ids.EVALUATOR, "blessing"), run.output(node_ids.PUSHER, "pushed_model")
    )
    if outcome.pushed_version is not None:
        if outcome.pushed_version != serving:
            return None
        return Repeat(
            f"serving version {serving} learned from these files in run {run.run_id}",
            outcome.blessed,
        )
    if outcome.baseline != serving:
        return None
    held = outcome.push.not_pushed_reason if outcome.push else ""
    against = f"serving version {serving}" if serving else "the absolute bound (nothing serves)"
    said = f"run {run.run_id} judged these files against {against} and pushed nothing"
    return Repeat(said + (f" ({held})" if held else ""), outcome.blessed)

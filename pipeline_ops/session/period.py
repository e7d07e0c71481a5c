"""Running every period from cron: one run at a time, and nothing to do twice.

A cron line runs ``wide-deep-run --span latest`` every hour; most hours no new span has
landed. A run whose window (its spans and their files' bytes) an earlier run already
learned from, through to the Pusher, says so and exits 0 before TFX is loaded. Runs on
one output folder take its lock in turn, so two overlapping invocations never train or
push the same span twice: the second waits, then finds the first one's run.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
from collections.abc import Iterator
from pathlib import Path

from components import csv_files, spans
from components.properties import INPUT_DIGEST_PROPERTY, str_property
from pipeline_def import node_ids
from pipeline_def.config import PipelineConfig
from pipeline_ops.metadata.runs import PipelineRun, list_runs
from pipeline_ops.metadata.store import open_store

LOCK_FILE = ".run.lock"


def input_digest(root: Path, window: spans.Window) -> str:
    """The digest ExampleGen records for ``window`` of ``root`` (spans.window_digest)."""
    digests = {}
    for span, folder in window.folders.items():
        files = [str(p) for p in (root / folder).glob(csv_files.PATTERN) if p.is_file()]
        digests[span] = spans.files_digest(
            files, str(root / folder), functools.partial(open, mode="rb")
        )
    return spans.window_digest(window, digests)


def learned_before(config: PipelineConfig, digest: str) -> PipelineRun | None:
    """The newest run that learned from ``digest``'s window through to the Pusher, if any."""
    if config.metadata is None:
        return None
    for run in list_runs(open_store(config.metadata), config.pipeline_name):
        examples = run.output(node_ids.EXAMPLE_GEN, "examples")
        if examples is None or str_property(examples, INPUT_DIGEST_PROPERTY) != digest:
            continue
        if run.output(node_ids.PUSHER, "pushed_model") is not None:
            return run
    return None


@contextlib.contextmanager
def one_run_at_a_time(output_dir: Path) -> Iterator[None]:
    """Hold ``output_dir``'s run lock; say so when waiting for another run's."""
    with (output_dir / LOCK_FILE).open("w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"waiting for the run that holds {output_dir / LOCK_FILE}", flush=True)
            fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)

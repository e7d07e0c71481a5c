"""A local run as people see it: a line per step, the log in a file, a closing summary.

``run_session`` runs the pipeline with LocalDagRunner, follows its steps on the
console, records a Ctrl-C in ML-Metadata, writes ``run_summary.json`` and prints
the closing lines; it returns the process exit code (with ``detailed_exitcode``,
EXIT_NOT_BLESSED for a completed run whose model the gate held back).
"""

from __future__ import annotations

import json
import logging
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, TextIO

import datasets
from data_layout.spans import SpanNotReady
from pipeline_def.config import PipelineConfig
from pipeline_def.metadata_stores import MetadataStore
from pipeline_def.stack import STACK_PROPERTY, stack
from pipeline_ops.commands import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    REVIEW,
    command_line,
    verdict_exit_code,
)
from pipeline_ops.metadata.changed import code_change
from pipeline_ops.metadata.runs import (
    PipelineRun,
    cancel_unfinished,
    record_on_run,
    run_of_execution,
    runs_newest_first,
)
from pipeline_ops.metadata.store import open_store, store_flags
from pipeline_ops.session.progress import ComponentProgress, component_progress, logs_to_file
from pipeline_ops.session.step_profiles import step_profiles

if TYPE_CHECKING:  # the summary imports TensorFlow: only after TFX (see run_session)
    from ml_metadata.metadata_store.metadata_store import MetadataStore as MlmdStore

    from pipeline_ops.session.summary import RunSummary

log = logging.getLogger("local_run")


def _one_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[-1] if text else ''}"


def review_command(store: MetadataStore, run_id: str | None, pipeline_name: str) -> str:
    """The command that reviews a run, naming its store, its pipeline and the run itself.

    The run is named because a shared store's newest run may be someone else's. The
    pipeline is named unless it is the one the review takes by default, the default
    dataset's.
    """
    command = f"{command_line(REVIEW)} {store_flags(store)}"
    if pipeline_name != datasets.load(datasets.DEFAULT).pipeline_name:
        command += f" --pipeline-name {pipeline_name}"
    return f"{command} --run {run_id}" if run_id else command


def _watch_ctrl_c() -> threading.Event:
    """An event set by Ctrl-C, which still raises KeyboardInterrupt as usual."""
    pressed = threading.Event()

    def handler(signum: int, frame: FrameType | None) -> None:
        pressed.set()
        signal.default_int_handler(signum, frame)

    signal.signal(signal.SIGINT, handler)
    return pressed


@dataclass
class _Ending:
    """How the pipeline's run ended, as the summary and the exit code tell it."""

    failed: str | None = None  # the step that failed or was interrupted
    error: str | None = None  # one line on why
    interrupted: bool = False  # Ctrl-C
    waiting: bool = False  # a span still being written stopped it: not a failure

    def exit_code(self, blessed: bool, detailed: bool) -> int:
        """The process exit code of a run that ended so, its model ``blessed`` or not.

        With ``detailed`` (--detailed-exitcode) a completed run's code is its verdict; a
        run that stopped keeps its code, and one waiting for its data judged nothing.
        """
        if self.interrupted:
            return EXIT_INTERRUPTED
        if self.failed:
            return EXIT_OK if self.waiting else EXIT_FAILED
        return verdict_exit_code(blessed) if detailed else EXIT_OK


def _run_pipeline(
    run: Callable[[PipelineConfig], None],
    config: PipelineConfig,
    progress: ComponentProgress,
    people: TextIO,
) -> _Ending:
    """``run`` the pipeline; how it ended, each way of stopping told on the console and log."""
    ending = _Ending()
    ctrl_c = _watch_ctrl_c()
    try:
        run(config)
    except Exception as err:  # noqa: BLE001 - any component error ends the run here
        ending.failed = progress.fail_current() or "pipeline"
        if ctrl_c.is_set():
            # Ctrl-C raised inside TF or Beam code can surface as another error.
            ending.interrupted = True
            log.warning("interrupted by the user during %s (%s)", ending.failed, _one_line(err))
        elif isinstance(err, SpanNotReady):
            # Not bad data: a writer is still at work on the span; the next run takes it.
            log.warning("%s stopped: %s", ending.failed, err)
            ending.waiting, ending.error = True, str(err)
            print(f"waiting: {ending.failed} stopped: {ending.error}", file=people)
        else:
            log.exception("component %s failed", ending.failed)
            ending.error = _one_line(err)
            print(f"error: {ending.failed} failed: {ending.error}", file=people)
    except KeyboardInterrupt:
        ending.failed = progress.fail_current() or "pipeline"
        ending.interrupted = True
        log.warning("interrupted by the user during %s", ending.failed)
    if ending.interrupted:
        ending.error = f"interrupted during {ending.failed}"
        print(
            f"interrupted: stopped during {ending.failed}; the next run reuses what finished",
            file=people,
            flush=True,
        )
    return ending


def _record_run(
    store: MlmdStore,
    pipeline: str,
    progress: ComponentProgress,
    ending: _Ending,
    ran_on: dict[str, str],
) -> PipelineRun | None:
    """The run this process made, in ML-Metadata, with its stack (and an interruption) recorded.

    None when no step started an execution.
    """
    ours = progress.execution_ids
    run_record = run_of_execution(store, pipeline, ours[0]) if ours else None
    if run_record is None:
        return None
    if ending.interrupted:
        cancel_unfinished(store, run_record, ending.failed)
    record_on_run(store, run_record.run_id, STACK_PROPERTY, json.dumps(ran_on))
    return run_record


def _code_changed(store: MlmdStore, pipeline: str, run: PipelineRun | None) -> str:
    """Where the steps' code differs from the run before's: "since run X (sha256 a -> b)"."""
    if run is None:
        return ""
    # Read newest first, only as far as the run before this one (a store holds many runs).
    runs = runs_newest_first(store, pipeline)
    before = next((r for r in runs if r.started_ms < run.started_ms), None)
    found = code_change(store, [before] if before else [], run)
    if found is None:
        return ""
    before, old, new = found
    return f"since run {before} (sha256 {old} -> {new})"


def run_session(
    config: PipelineConfig,
    output_dir: Path,
    verbose: bool,
    detailed_exitcode: bool = False,
    profile_dir: Path | None = None,
) -> int:
    """Run the pipeline, print progress and the summary; the process exit code.

    ``detailed_exitcode``: a completed run's code says whether its model was blessed.
    ``profile_dir``: each component that runs leaves its profile there.
    """
    log_file = output_dir / "logs" / f"run-{time.strftime('%Y%m%d-%H%M%S')}.log"
    ran_on = stack()  # this process runs every step
    print(f"Pipeline {config.pipeline_name}: data {config.data_root}", flush=True)
    started = time.monotonic()
    with logs_to_file(log_file, verbose) as people, component_progress() as progress:
        # Imported here, not at the top: TFX takes seconds to import, and argument or
        # data errors are reported before that; its import noise goes to the log.
        # TFX (and TensorFlow) first: a module imported later is torn down earlier at
        # exit, and Beam's shared-object cache, which holds the Evaluator's models,
        # must go before TensorFlow or each model function prints an error.
        from pipeline_def.orchestrate import run_locally  # isort: skip
        from pipeline_ops.session.summary import summarize

        with step_profiles(profile_dir) as profiler:  # the steps, not the bookkeeping after
            ending = _run_pipeline(run_locally, config, progress, people)
        store = open_store(config.metadata)
        run_record = _record_run(store, config.pipeline_name, progress, ending, ran_on)
        summary = summarize(config.pipeline_name, run_record, progress.timings, ending.failed)
        summary.code_changed = _code_changed(store, config.pipeline_name, run_record)
    summary.stack = ran_on
    summary.seconds = round(time.monotonic() - started, 2)
    summary.log_file = str(log_file)
    _close(config, summary, ending, output_dir)
    if profiler is not None and profiler.written:
        print(f"  step profiles: {profile_dir}")
    return ending.exit_code(summary.blessed, detailed_exitcode)


def _close(config: PipelineConfig, summary: RunSummary, ending: _Ending, output_dir: Path) -> None:
    """Complete the summary with how the run ended, write run_summary.json, print the close."""
    # Imported by run_session already, after TFX (the summary imports TensorFlow).
    from pipeline_ops.session.summary import INTERRUPTED, WAITING, print_closing, write_json

    summary.error = ending.error
    if ending.interrupted:
        summary.status = INTERRUPTED
    elif ending.waiting:
        summary.status = WAITING
    write_json(summary, output_dir)
    command = review_command(config.metadata, summary.run_id, config.pipeline_name)
    print_closing(summary, sys.stdout, command)

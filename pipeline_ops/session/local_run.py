"""A local run as people see it: a line per step, the log in a file, a closing summary.

``run_session`` runs the pipeline with LocalDagRunner, follows its steps on the
console, records a Ctrl-C in ML-Metadata, writes ``run_summary.json`` and prints
the closing lines; it returns the process exit code.
"""

from __future__ import annotations

import json
import logging
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType

from data_layout.spans import SpanNotReady
from pipeline_def.config import DEFAULT_PIPELINE_NAME, MetadataStore, PipelineConfig
from pipeline_def.stack import STACK_PROPERTY, stack
from pipeline_ops.commands import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    REVIEW,
    command_line,
)
from pipeline_ops.metadata.store import store_flags
from pipeline_ops.session.progress import component_progress, logs_to_file

log = logging.getLogger("local_run")


def _one_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[-1] if text else ''}"


def review_command(store: MetadataStore, run_id: str | None, pipeline_name: str) -> str:
    """The command that reviews a run, naming its store, its pipeline and the run itself.

    The run is named because a shared store's newest run may be someone else's.
    """
    command = f"{command_line(REVIEW)} {store_flags(store)}"
    if pipeline_name != DEFAULT_PIPELINE_NAME:
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


def run_session(config: PipelineConfig, output_dir: Path, verbose: bool) -> int:
    """Run the pipeline, print progress and the summary; the process exit code."""
    log_file = output_dir / "logs" / f"run-{time.strftime('%Y%m%d-%H%M%S')}.log"
    ran_on = stack()  # this process runs every step
    print(f"Pipeline {config.pipeline_name}: data {config.data_root}", flush=True)
    started = time.monotonic()
    failed = error = None
    interrupted = waiting = False
    with logs_to_file(log_file, verbose) as people, component_progress() as progress:
        # Imported here, not at the top: TFX takes seconds to import, and argument or
        # data errors are reported before that; its import noise goes to the log.
        # TFX (and TensorFlow) first: a module imported later is torn down earlier at
        # exit, and Beam's shared-object cache, which holds the Evaluator's models,
        # must go before TensorFlow or each model function prints an error.
        from pipeline_def.orchestrate import run_locally  # isort: skip
        from pipeline_ops.metadata.runs import cancel_unfinished, record_on_run, run_of_execution
        from pipeline_ops.metadata.store import open_store
        from pipeline_ops.session.summary import (
            INTERRUPTED,
            WAITING,
            print_closing,
            summarize,
            write_json,
        )

        ctrl_c = _watch_ctrl_c()
        try:
            run_locally(config)
        except Exception as err:  # noqa: BLE001 - any component error ends the run here
            failed = progress.fail_current() or "pipeline"
            if ctrl_c.is_set():
                # Ctrl-C raised inside TF or Beam code can surface as another error.
                interrupted = True
                log.warning("interrupted by the user during %s (%s)", failed, _one_line(err))
            elif isinstance(err, SpanNotReady):
                # Not bad data: a writer is still at work on the span; the next run takes it.
                log.warning("%s stopped: %s", failed, err)
                waiting, error = True, str(err)
                print(f"waiting: {failed} stopped: {error}", file=people)
            else:
                log.exception("component %s failed", failed)
                error = _one_line(err)
                print(f"error: {failed} failed: {error}", file=people)
        except KeyboardInterrupt:
            failed = progress.fail_current() or "pipeline"
            interrupted = True
            log.warning("interrupted by the user during %s", failed)
        if interrupted:
            error = f"interrupted during {failed}"
            print(
                f"interrupted: stopped during {failed}; the next run reuses what finished",
                file=people,
                flush=True,
            )
        store = open_store(config.metadata)
        ours = progress.execution_ids
        run_record = run_of_execution(store, config.pipeline_name, ours[0]) if ours else None
        if interrupted and run_record is not None:
            cancel_unfinished(store, run_record, failed)
        if run_record is not None:
            record_on_run(store, run_record.run_id, STACK_PROPERTY, json.dumps(ran_on))
        summary = summarize(config.pipeline_name, run_record, progress.timings, failed)
    summary.error = error
    summary.stack = ran_on
    if interrupted:
        summary.status = INTERRUPTED
    elif waiting:
        summary.status = WAITING
    summary.seconds = round(time.monotonic() - started, 2)
    summary.log_file = str(log_file)
    write_json(summary, output_dir)
    print_closing(
        summary, sys.stdout, review_command(config.metadata, summary.run_id, config.pipeline_name)
    )
    if interrupted:
        return EXIT_INTERRUPTED
    return EXIT_FAILED if failed and not waiting else EXIT_OK

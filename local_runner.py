"""Run the pipeline on this machine with TFX's LocalDagRunner.

    python local_runner.py [--dataset NAME] [--data-root DIR] [--output-dir DIR]
                           [--metadata URI] [--train-steps N] [--eval-steps N]
                           [--hparam NAME=VALUE ...]
                           [--tune [--tune-trials N] [--tune-minutes M]]
                           [--beam-arg ARG ...] [--verbose]

Prints one line per component and a closing summary; the full log goes to
``<output-dir>/logs/``, and ``<output-dir>/run_summary.json`` is written for
machines. Exit codes: 0 success, 1 a component failed, 2 bad input, 130 Ctrl-C.
"""

from __future__ import annotations

import argparse
import logging
import os
import shlex
import signal
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

from modules import datasets
from modules.hparams import HParams, parse_pairs
from pipeline_def.config import (
    DEFAULT_PIPELINE_NAME,
    MetadataStore,
    PipelineConfig,
    add_tuning_arguments,
    beam_args_for,
    output_dir_for,
    sample_data,
    split_for,
    tuning_settings,
)
from pipeline_def.data_check import DataRootError, check_data_root
from pipeline_def.progress import component_progress, logs_to_file
from pipeline_def.store import add_store_arguments, metadata_for, store_flags

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2
EXIT_INTERRUPTED = 130  # the shell's code for a command stopped by Ctrl-C

log = logging.getLogger("local_runner")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line; defaults come from the pipeline config."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--dataset",
        default=datasets.DEFAULT,
        help="the dataset declared in modules/datasets/NAME (default: %(default)s)",
    )
    parser.add_argument(
        "--data-root",
        type=Path,
        default=None,
        help="folder of CSV files (default: the dataset's sample, data/NAME.csv)",
    )
    add_store_arguments(parser)
    parser.add_argument(
        "--beam-arg",
        action="append",
        default=None,
        metavar="ARG",
        help="a Beam pipeline argument for every Beam component (repeat the flag); "
        "default: in-process for small data, one worker process per core for large",
    )
    parser.add_argument(
        "--hparam",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override a hyperparameter (modules/hparams.py), VALUE in JSON, e.g. "
        "dropout=0.2 or hidden_units=[64,32]; repeat the flag for several",
    )
    parser.add_argument("--train-steps", type=int, default=PipelineConfig.train_steps)
    parser.add_argument("--eval-steps", type=int, default=PipelineConfig.eval_steps)
    add_tuning_arguments(parser)
    parser.add_argument(
        "--verbose", action="store_true", help="also show the full TFX/TF/Beam log on the console"
    )
    return parser.parse_args(argv)


def data_input(args: argparse.Namespace) -> tuple[Path, str]:
    """The data root and the pattern of its files ExampleGen reads.

    Without ``--data-root``, the dataset's sample alone (``data/`` holds every
    dataset's sample); with it, every CSV file of the folder.
    """
    if args.data_root is None:
        sample = sample_data(args.dataset)
        return sample.parent, sample.name
    return args.data_root, PipelineConfig.input_pattern


def build_config(args: argparse.Namespace, input_bytes: int) -> PipelineConfig:
    """The pipeline config for a local run: everything under the output dir."""
    out = args.output_dir.resolve()
    data_root, pattern = data_input(args)
    beam_args = (
        args.beam_arg
        if args.beam_arg is not None
        else beam_args_for(input_bytes, os.cpu_count() or 1)
    )
    return PipelineConfig(
        beam_pipeline_args=tuple(beam_args),
        hparams=HParams.with_overrides(parse_pairs(args.hparam)),
        split_buckets=split_for(input_bytes),
        pipeline_root=str(out / "pipeline"),
        data_root=str(data_root.resolve()),
        input_pattern=pattern,
        dataset=args.dataset,
        serving_dir=str(out / "serving"),
        metadata=metadata_for(out, args.metadata),
        train_steps=args.train_steps,
        eval_steps=args.eval_steps,
        **tuning_settings(args),
    )


def _one_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[-1] if text else ''}"


def review_command(
    store: MetadataStore, run_id: str | None, pipeline_name: str = DEFAULT_PIPELINE_NAME
) -> str:
    """The command that reviews a run, naming its store and the run itself.

    The run is named because a shared store's newest run may be someone else's; the
    interpreter is this one, which has the project installed, whatever the shell's is.
    """
    command = f"{shlex.quote(sys.executable)} -m pipeline_def.review {store_flags(store)}"
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


def run(config: PipelineConfig, output_dir: Path, verbose: bool) -> int:
    """Run the pipeline, print progress and the summary; the process exit code."""
    log_file = output_dir / "logs" / f"run-{time.strftime('%Y%m%d-%H%M%S')}.log"
    print(f"Pipeline {config.pipeline_name}: data {config.data_root}", flush=True)
    started = time.monotonic()
    failed = error = None
    interrupted = False
    with logs_to_file(log_file, verbose) as people, component_progress() as progress:
        # Imported here, not at the top: TFX takes seconds to import, and argument or
        # data errors are reported before that; its import noise goes to the log.
        # TFX (and TensorFlow) first: a module imported later is torn down earlier at
        # exit, and Beam's shared-object cache, which holds the Evaluator's models,
        # must go before TensorFlow or each model function prints an error.
        from pipeline_def.orchestrate import run_locally  # isort: skip
        from pipeline_def import summary as S
        from pipeline_def.runs import cancel_unfinished, run_of_execution
        from pipeline_def.store import open_store

        ctrl_c = _watch_ctrl_c()
        try:
            run_locally(config)
        except Exception as err:  # noqa: BLE001 - any component error ends the run here
            failed = progress.fail_current() or "pipeline"
            if ctrl_c.is_set():
                # Ctrl-C raised inside TF or Beam code can surface as another error.
                interrupted = True
                log.warning("interrupted by the user during %s (%s)", failed, _one_line(err))
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
        summary = S.summarize(config.pipeline_name, run_record, progress.timings, failed)
    summary.error = error
    if interrupted:
        summary.status = S.INTERRUPTED
    summary.seconds = round(time.monotonic() - started, 2)
    summary.log_file = str(log_file)
    S.write_json(summary, output_dir)
    S.print_closing(
        summary,
        sys.stdout,
        review_command(config.metadata, summary.run_id, config.pipeline_name),
    )
    if interrupted:
        return EXIT_INTERRUPTED
    return EXIT_FAILED if failed else EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: check the input, build the config, run."""
    args = parse_args(argv)
    try:
        datasets.load(args.dataset)
        args.output_dir = output_dir_for(args.dataset, args.output_dir)
        files = check_data_root(*data_input(args))
        config = build_config(args, sum(f.stat().st_size for f in files))
    except (DataRootError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    output_dir = args.output_dir.resolve()
    output_dir.mkdir(parents=True, exist_ok=True)
    return run(config, output_dir, args.verbose)


if __name__ == "__main__":
    sys.exit(main())

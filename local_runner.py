"""Run the pipeline on this machine with TFX's LocalDagRunner.

    wide-deep-run [--dataset NAME] [--data-root DIR] [--span N|latest] [--window K]
                  [--allow-older] [--output-dir DIR] [--metadata URI]
                  [--train-steps N] [--eval-steps N] [--hparam NAME=VALUE ...]
                  [--tune [--tune-trials N] [--tune-minutes M]] [--beam-arg ARG ...] [--verbose]
                  [--detailed-exitcode] [--wait-for-lock SECONDS] [--resplit] [--profile DIR]

Prints one line per component and a closing summary; the full log goes to
``<output-dir>/logs/``, and ``<output-dir>/run_summary.json`` is written for
machines. With span folders, a run that would only repeat an earlier one (the same
window, files, settings and code, and what it left serving still serves) says so and
exits 0 at once, a span still being written is waited for, and a run that finds another
run of its output dir under way names it and exits 0 (after up to --wait-for-lock
seconds): a cron line may run it every hour. Exit codes: 0 success (or nothing to do,
data still being written, or another run under way), 1 a component failed, 2 bad input, 130
Ctrl-C. With --detailed-exitcode a completed run exits 0 only when its model is
blessed, and 3 when the gate held it back; a run with nothing to do exits with the
verdict of the earlier run it would repeat.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import datasets
from data_layout import serving_layout
from data_layout.spans import SpanNotReady, Window
from pipeline_def.config import PipelineConfig
from pipeline_def.project_paths import data_root_of, output_dir_for
from pipeline_ops.cli.run_options import add_run_options, run_settings
from pipeline_ops.cli.scaffold import (
    add_beam_option,
    add_store_options,
    bad_input,
    execute,
    parser_for,
)
from pipeline_ops.commands import EXIT_OK, RUN, add_detailed_exitcode, verdict_exit_code
from pipeline_ops.metadata.store import metadata_for
from pipeline_ops.session import room, split_sizes
from pipeline_ops.session.data_check import check_spans
from pipeline_ops.session.local_run import run_session
from pipeline_ops.session.local_run_settings import beam_args_for
from pipeline_ops.session.period import input_digest, nothing_to_do
from pipeline_ops.session.run_lock import LockHeldError, one_run_at_a_time


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line; defaults come from the pipeline config."""
    parser = parser_for(RUN, __doc__)
    add_run_options(parser)
    parser.add_argument(
        "--data-root",
        type=Path,
        default=None,
        help="folder of CSV files, or of span folders span-<N>/ of CSV files "
        "(default: the dataset's own, data/NAME/)",
    )
    add_store_options(parser)
    parser.add_argument("--eval-steps", type=int, default=PipelineConfig.eval_steps)
    add_beam_option(
        parser,
        "every Beam component",
        "in-process for small data, one worker process per core for large",
    )
    add_detailed_exitcode(parser)
    parser.add_argument(
        "--wait-for-lock",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="where another run of the output dir is under way, wait up to this long for "
        "it before exiting 0 (default: %(default)s, at once)",
    )
    parser.add_argument(
        "--resplit",
        action="store_true",
        help="choose the split sizes anew from this run's input (they are kept from the "
        "output dir's first run; a run that changes them does not warm-start)",
    )
    parser.add_argument(
        "--profile",
        type=Path,
        default=None,
        metavar="DIR",
        help="profile each component that runs into DIR (<component>.prof and .txt)",
    )
    return parser.parse_args(argv)


@dataclass(frozen=True)
class RunPaths:
    """Where a local run reads and writes, worked out once from the flags and passed down."""

    data_root: Path  # as given (messages name it so); the config gets it resolved
    output_dir: Path  # absolute: the store, pipeline/ (artifacts), serving/, logs/, the lock

    @property
    def pipeline_root(self) -> Path:
        """Where TFX keeps the artifacts."""
        return self.output_dir / "pipeline"

    @property
    def serving_dir(self) -> Path:
        """Where blessed models are pushed."""
        return self.output_dir / serving_layout.SERVING_FOLDER


def run_paths(args: argparse.Namespace) -> RunPaths:
    """--data-root (else the dataset's own, data/NAME/) and the dataset's output dir."""
    root = args.data_root if args.data_root is not None else data_root_of(args.dataset)
    return RunPaths(root, output_dir_for(args.dataset, args.output_dir).resolve())


def build_config(
    args: argparse.Namespace,
    paths: RunPaths,
    input_bytes: int,
    flat: bool,
    sizes: split_sizes.SplitSizes,
) -> PipelineConfig:
    """The config of a local run, everything under the output dir; ValueError for bad input.

    A ``flat`` data root (no span folders) is one span: no model of older spans can
    serve, so the Trainer does not take the serving model, and a rerun reuses it. The
    split sizes are the output dir's (``split_sizes.choose``); chosen anew, they may
    stop the warm start.
    """
    beam_args = args.beam_arg
    if beam_args is None:
        workers = room.workers_that_fit(os.cpu_count() or 1, room.available_memory())
        beam_args = beam_args_for(input_bytes, workers)
    settings = run_settings(args)
    return PipelineConfig.resolve(
        **{**settings, "warm_start": settings["warm_start"] and not (flat or sizes.changed)},
        beam_pipeline_args=tuple(beam_args),
        split_buckets=sizes.buckets,
        pipeline_root=str(paths.pipeline_root),
        data_root=str(paths.data_root.resolve()),
        serving_dir=str(paths.serving_dir),
        metadata=metadata_for(paths.output_dir, args.metadata),
        eval_steps=args.eval_steps,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: check the input, build the config, run."""
    args = parse_args(argv)
    return execute(lambda: _run(args), quiet=False)


def _run(args: argparse.Namespace) -> int:
    with bad_input():  # bad flags, an unknown dataset, unreadable data
        datasets.load(args.dataset)  # an unknown name is named before any file is looked for
        paths = run_paths(args)
        try:
            window, files = check_spans(paths.data_root, args.span, args.window)
        except SpanNotReady as waiting:
            print(f"{waiting}; nothing to do")
            return EXIT_OK
        input_bytes = sum(f.stat().st_size for f in files)
        sizes = split_sizes.choose(paths.output_dir, input_bytes, args.resplit)
        config = build_config(args, paths, input_bytes, window.flat, sizes)
    for note in (window.unfinished, window.note):
        if note:
            print(f"note: {note}")
    paths.output_dir.mkdir(parents=True, exist_ok=True)
    try:
        with one_run_at_a_time(paths.output_dir, args.wait_for_lock):
            return _run_once(args, paths, config, window, sizes, input_bytes)
    except LockHeldError as held:
        print(f"span {window.span}: {held}; nothing to do")
        return EXIT_OK


def _run_once(
    args: argparse.Namespace,
    paths: RunPaths,
    config: PipelineConfig,
    window: Window,
    sizes: split_sizes.SplitSizes,
    input_bytes: int,
) -> int:
    """The run, under the output dir's lock: nothing where it would repeat an earlier one.

    A run that goes ahead needs room for ``input_bytes`` of CSV (refused, exit 2, before
    anything is written where the machine has too little); split sizes chosen now are
    kept once it does.
    """
    done = None if window.flat else nothing_to_do(config, input_digest(paths.data_root, window))
    if done is not None:
        spans_read = ", ".join(map(str, window.spans))
        print(f"span {window.span}: {done.reason} (window {spans_read}); nothing to do")
        # The files' verdict stands: the run it repeats judged them, and nothing since.
        return verdict_exit_code(done.blessed) if args.detailed_exitcode else EXIT_OK
    with bad_input():  # too little room, or a Beam worker count that is not a number
        room.check(paths.output_dir, input_bytes, config.beam_pipeline_args)
    with bad_input(OSError):  # a profile folder that cannot be made, named before any step
        if args.profile is not None:
            args.profile.mkdir(parents=True, exist_ok=True)
    if sizes.note:
        print(f"note: {sizes.note}")
    sizes.keep(paths.output_dir)
    return run_session(
        config,
        paths.output_dir,
        args.verbose,
        detailed_exitcode=args.detailed_exitcode,
        profile_dir=args.profile,
    )


if __name__ == "__main__":
    sys.exit(main())

"""Review a run's evaluation in the terminal, and optionally as an HTML page.

    wide-deep-review [--output-dir DIR | --metadata URI] [--dataset NAME] [--run RUN_ID]
                     [--html FILE] [--all] [--threshold T] [--detailed-exitcode]

Shows, for the newest run (or the one named): the verdict with each threshold
(candidate, baseline, bound, pass/fail), where the model was or was not pushed,
and the metrics by slice. Exit codes: 0 shown, 1 the run has no evaluation (or its
files are damaged), 2 no such store or run; with --detailed-exitcode, 0 only when
the run's model is blessed and 3 when the gate held it back.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from data_layout.tfrecord_files import CorruptRecordError
from pipeline_ops import commands
from pipeline_ops.cli import scaffold
from pipeline_ops.cli.scaffold import CommandError
from pipeline_ops.metadata.reviews import NoEvaluationError, has_evaluation, review_of_run
from pipeline_ops.metadata.runs import AmbiguousRunIdError, PipelineRun, find_run, list_runs
from review.terminal import TERMINAL_SLICES, print_review
from review.tfma_files import TfmaOutputError

if TYPE_CHECKING:
    from review.records import Review


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = scaffold.parser_for(commands.REVIEW, __doc__)
    scaffold.add_read_options(parser)
    parser.add_argument(
        "--run", default=None, help="run id, or its unique start (default: the newest run)"
    )
    parser.add_argument("--html", type=Path, default=None, help="also write the review here")
    parser.add_argument(
        "--all", action="store_true", help="list every slice (default: the 12 worst)"
    )
    parser.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="show the error rates by slice at this decision threshold, one the run "
        "recorded (the dataset's review_thresholds; default: the first)",
    )
    commands.add_detailed_exitcode(parser)
    return parser.parse_args(argv)


def load_for(args: argparse.Namespace) -> Review:
    """The Review the arguments name; CommandError when there is none."""
    scaffold.resolve_read_options(args)
    store, where = scaffold.open_existing_store(args)
    with scaffold.bad_input(AmbiguousRunIdError):
        run = find_run(store, args.pipeline_name, args.run)
    if run is None:
        what = f"no run {args.run!r}" if args.run else "no runs"
        raise CommandError(f"{what} of pipeline {args.pipeline_name} in {where}")
    # The history runs up to the reviewed run: later runs did not exist when it was judged.
    earlier = [r for r in list_runs(store, args.pipeline_name) if r.started_ms < run.started_ms]
    try:
        return review_of_run(run, args.pipeline_name, earlier, store)
    except NoEvaluationError as err:
        raise CommandError(f"{err}{_reviewable_hint(earlier)}", commands.EXIT_FAILED) from None
    except (CorruptRecordError, TfmaOutputError) as err:
        raise CommandError(
            f"run {run.run_id}'s evaluation cannot be read: {err}", commands.EXIT_FAILED
        ) from None


def _reviewable_hint(earlier: Sequence[PipelineRun]) -> str:
    """Where to look instead: the newest of ``earlier`` (newest first) with an evaluation."""
    for run in earlier:
        if has_evaluation(run):
            return f" The newest run with one: {run.run_id} (--run {run.run_id})."
    return ""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    args = parse_args(argv)

    def body() -> int:
        if args.html is not None and args.html.is_dir():
            raise CommandError(f"--html {args.html} is a folder: name the page's file in it")
        review = load_for(args)
        recorded = sorted({r.threshold for r in review.rates})
        if args.threshold is not None and args.threshold not in recorded:
            listed = ", ".join(f"{t:g}" for t in recorded) or "none"
            raise CommandError(
                f"--threshold {args.threshold:g}: the run recorded error rates at {listed} "
                "(set the dataset's review_thresholds for later runs)"
            )
        limit = len(review.changes) + len(review.rates) if args.all else TERMINAL_SLICES
        print_review(review, sys.stdout, limit, args.threshold)
        if args.html is not None:
            from review.page import render_html

            args.html.parent.mkdir(parents=True, exist_ok=True)
            args.html.write_text(render_html(review), encoding="utf-8")
            print(f"\nHTML review: {args.html}", file=sys.stdout)
        if args.detailed_exitcode:
            return commands.verdict_exit_code(review.blessed)
        return commands.EXIT_OK

    return scaffold.execute(body)


if __name__ == "__main__":
    sys.exit(main())

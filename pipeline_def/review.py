"""Review a run's evaluation in the terminal, and optionally as an HTML page.

    python -m pipeline_def.review [--output-dir DIR | --metadata URI] [--run RUN_ID]
                                  [--html FILE]

Shows, for the newest run (or the one named): the verdict with each threshold
(candidate, baseline, bound, pass/fail), where the model was or was not pushed,
and the metrics by slice. Exit codes: 0 shown, 1 the run has no evaluation,
2 no such store or run.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from components.properties import (
    BEST_VALIDATION_AUC,
    EVALUATED_SPLITS,
    TUNED_HPARAMS,
    TUNING_SECONDS,
    TUNING_TRIALS,
    is_blessed,
    number_property,
    push_record,
    str_property,
)
from components.splits import TEST
from modules.hparams import HParams
from pipeline_def import node_ids as ids
from pipeline_def.config import DEFAULT_PIPELINE_NAME
from pipeline_def.quiet import quiet_libraries
from pipeline_def.runs import PipelineRun, find_run
from pipeline_def.store import (
    MetadataUriError,
    SqliteMetadata,
    add_store_arguments,
    describe,
    metadata_for,
    open_store,
)

if TYPE_CHECKING:
    from components.evaluation_review import Review, Tuning

EXIT_OK, EXIT_NO_EVALUATION, EXIT_NOT_FOUND = 0, 1, 2
SLICE_COLUMNS_SHOWN: tuple[tuple[str, str], ...] = (
    ("example_count", "examples"),
    ("auc", "AUC"),
    ("auc_pr", "AUC-PR"),
    ("binary_accuracy", "accuracy"),
    ("mean_label", "label"),
    ("mean_prediction", "predicted"),
)


class ReviewError(Exception):
    """Why a run cannot be reviewed, in words for people; carries the exit code."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def review_of_run(run: PipelineRun) -> Review:
    """The Review of a run recorded in MLMD; ReviewError when it has no evaluation."""
    # TFMA takes seconds to import: only once there is something to read.
    from components.evaluation_review import load_review

    evaluator = run.nodes.get(ids.EVALUATOR)
    evaluation = run.output(ids.EVALUATOR, "evaluation")
    if evaluation is None or evaluator.state not in ("complete", "cached"):
        failed = [node for node, e in run.nodes.items() if e.state == "failed"]
        why = f"{failed[0]} failed" if failed else "the Evaluator did not finish"
        raise ReviewError(
            f"run {run.run_id} has no evaluation to review: {why}.", EXIT_NO_EVALUATION
        )
    blessing = run.output(ids.EVALUATOR, "blessing")
    pushed_model = run.output(ids.PUSHER, "pushed_model")
    review = load_review(
        evaluation.uri,
        blessed=blessing is not None and is_blessed(blessing),
        push=push_record(pushed_model) if pushed_model is not None else None,
        run_id=run.run_id,
        split=str_property(evaluation, EVALUATED_SPLITS) or TEST,
    )
    return dataclasses.replace(review, tuning=tuning_of_run(run))


def tuning_of_run(run: PipelineRun) -> Tuning | None:
    """What the run's Tuner chose, as its Trainer applied it; None when nothing was tuned."""
    from components.evaluation_review import Tuning

    model = run.output(ids.TRAINER, "model")
    values = json.loads(str_property(model, TUNED_HPARAMS) or "{}") if model else {}
    if not values:
        return None
    best = run.output(ids.TUNER, "best_hyperparameters")
    trials, auc, seconds = (
        (number_property(best, p) for p in (TUNING_TRIALS, BEST_VALIDATION_AUC, TUNING_SECONDS))
        if best is not None
        else (None, None, None)
    )
    defaults = HParams()
    return Tuning(
        values=values,
        defaults={name: getattr(defaults, name, None) for name in values},
        trials=int(trials) if trials is not None else None,
        best_validation_auc=auc,
        seconds=seconds,
    )


def _table(rows: list[list[str]], out: TextIO) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        rest = zip(row[1:], widths[1:], strict=True)
        cells = [row[0].ljust(widths[0])] + [cell.rjust(width) for cell, width in rest]
        print("  " + "  ".join(cells).rstrip(), file=out)


def print_review(review: Review, out: TextIO) -> None:
    """The review as terminal text."""
    from components.evaluation_review import metric_text
    from components.review_html import push_line

    print(f"Evaluation review of run {review.run_id}", file=out)
    print(f"  model     {review.model_uri}", file=out)
    print(f"  baseline  {review.baseline_uri or 'none'}", file=out)
    print("", file=out)
    verdict = "BLESSED" if review.blessed else "NOT BLESSED"
    print(f"Verdict: {verdict} (on the {review.split} split)", file=out)
    for note in review.notes:
        print(f"  {note}", file=out)
    rows = [["metric", "check", "candidate", "baseline", "bound", "result"]]
    rows += [
        [
            c.metric,
            c.kind,
            metric_text(c.candidate),
            metric_text(c.baseline),
            c.bound,
            "pass" if c.passed else "FAIL",
        ]
        for c in review.checks
    ]
    _table(rows, out)
    print(f"  {push_line(review)}", file=out)
    if review.tuning is not None:
        print("", file=out)
        head, *values = review.tuning.lines()
        print(head, file=out)
        for line in values:
            print(f"  {line}", file=out)
    print("", file=out)
    print(f"Metrics by slice ({review.split} split):", file=out)
    rows = [["slice"] + [heading for _, heading in SLICE_COLUMNS_SHOWN]]
    rows += [
        [s.name] + [metric_text(s.metrics.get(k), k) for k, _ in SLICE_COLUMNS_SHOWN]
        for s in review.slices
    ]
    _table(rows, out)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(
        prog="python -m pipeline_def.review", description=__doc__.split("\n\n")[0]
    )
    add_store_arguments(parser)
    parser.add_argument("--run", default=None, help="run id (default: the newest run)")
    parser.add_argument("--html", type=Path, default=None, help="also write the review here")
    parser.add_argument("--pipeline-name", default=DEFAULT_PIPELINE_NAME)
    return parser.parse_args(argv)


def load_for(args: argparse.Namespace) -> Review:
    """The Review the arguments name; ReviewError when there is none."""
    try:
        store = metadata_for(args.output_dir, args.metadata)
    except MetadataUriError as err:
        raise ReviewError(str(err), EXIT_NOT_FOUND) from None
    if isinstance(store, SqliteMetadata) and not Path(store.path).is_file():
        raise ReviewError(
            f"no metadata store at {store.path}: run the pipeline first", EXIT_NOT_FOUND
        )
    run = find_run(open_store(store), args.pipeline_name, args.run)
    if run is None:
        what = f"no run {args.run!r}" if args.run else "no runs"
        raise ReviewError(
            f"{what} of pipeline {args.pipeline_name} in {describe(store)}", EXIT_NOT_FOUND
        )
    return review_of_run(run)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    args = parse_args(argv)
    quiet_libraries()
    try:
        review = load_for(args)
    except ReviewError as err:
        print(f"error: {err}", file=sys.stderr)
        return err.exit_code
    print_review(review, sys.stdout)
    if args.html is not None:
        from components.review_html import render_html

        args.html.parent.mkdir(parents=True, exist_ok=True)
        args.html.write_text(render_html(review), encoding="utf-8")
        print(f"\nHTML review: {args.html}", file=sys.stdout)
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())

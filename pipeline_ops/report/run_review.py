"""A run's evaluation review, read from ML-Metadata: the verdict, the push, the tuning, the slices.

The HTML report renders the same Review (components/review_html.py); this module
reads it for a run recorded in ML-Metadata and prints it as terminal text.
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, TextIO

from components.properties import (
    BEST_VALIDATION_AUC,
    EVALUATED_SPLITS,
    TUNED_HPARAMS,
    TUNING_SECONDS,
    TUNING_TRIALS,
    number_property,
    outcome_of,
    str_property,
)
from components.splits import TEST
from modules.hparams import HParams
from pipeline_def import node_ids as ids
from pipeline_ops.metadata.runs import PipelineRun

if TYPE_CHECKING:
    from components.evaluation_review import Review, Tuning


class NoEvaluationError(LookupError):
    """The run has no evaluation to review (a step failed, or the Evaluator did not finish)."""


def review_of_run(run: PipelineRun) -> Review:
    """The Review of a run recorded in MLMD; NoEvaluationError when it has none."""
    # TFMA takes seconds to import: only once there is something to read.
    from components.evaluation_review import load_review

    evaluator = run.nodes.get(ids.EVALUATOR)
    evaluation = run.output(ids.EVALUATOR, "evaluation")
    if evaluation is None or evaluator.state not in ("complete", "cached"):
        failed = [node for node, e in run.nodes.items() if e.state == "failed"]
        why = f"{failed[0]} failed" if failed else "the Evaluator did not finish"
        raise NoEvaluationError(f"run {run.run_id} has no evaluation to review: {why}.")
    review = load_review(
        evaluation.uri,
        outcome_of(run.output(ids.EVALUATOR, "blessing"), run.output(ids.PUSHER, "pushed_model")),
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
    from components.evaluation_review import SLICE_COLUMNS, metric_text
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
    columns = [c for c in SLICE_COLUMNS if c.short]
    rows = [["slice"] + [c.short for c in columns]]
    rows += [
        [s.name] + [metric_text(s.metrics.get(c.metric), c.metric) for c in columns]
        for s in review.slices
    ]
    _table(rows, out)

"""A run's evaluation review, read from ML-Metadata: the verdict, the push, the tuning, the slices.

The review's own room renders it: the HTML page (``review/page.py``) and the terminal text
(``review/terminal.py``); this module finds what a run recorded in ML-Metadata for it.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Sequence

from ml_metadata.metadata_store import metadata_store

from data_layout.properties import (
    BEST_VALIDATION_AUC,
    EVALUATED_SPLITS,
    SPLIT_KEY_PROPERTY,
    TEST_PERIOD_PROPERTY,
    TUNED_HPARAMS,
    TUNING_SECONDS,
    TUNING_TRIALS,
    VALIDATION_PERIOD_PROPERTY,
    number_property,
    outcome_of,
    serving_check_of,
    span_record,
    str_property,
)
from data_layout.splits import TEST
from modules.hparams import HParams
from pipeline_def import node_ids
from pipeline_ops.metadata import scoring_runs
from pipeline_ops.metadata.changed import differences, serving_run
from pipeline_ops.metadata.history import HistoryRow, history_row
from pipeline_ops.metadata.runs import PipelineRun
from review.evaluation import load_review
from review.records import Drift, HistoryPoint, Review, Scoring, Tuning, named_span


def has_evaluation(run: PipelineRun) -> bool:
    """Whether the run's Evaluator finished (or was cached) with its output recorded."""
    evaluator = run.nodes.get(node_ids.EVALUATOR)
    finished = evaluator is not None and evaluator.state in ("complete", "cached")
    return finished and run.output(node_ids.EVALUATOR, "evaluation") is not None


class NoEvaluationError(LookupError):
    """The run has no evaluation to review (a step failed, or the Evaluator did not finish)."""


def review_of_run(
    run: PipelineRun,
    pipeline: str | None = None,
    earlier: Sequence[PipelineRun] = (),
    store: metadata_store.MetadataStore | None = None,
) -> Review:
    """The Review of a run recorded in MLMD; NoEvaluationError when it has none.

    ``earlier`` are the pipeline's runs before it (any order): their history is shown.
    With ``store``, what differs from the serving model's run among them.
    """
    evaluation = run.output(node_ids.EVALUATOR, "evaluation")
    if not has_evaluation(run):
        failed = [node for node, e in run.nodes.items() if e.state == "failed"]
        why = f"{failed[0]} failed" if failed else "the Evaluator did not finish"
        raise NoEvaluationError(f"run {run.run_id} has no evaluation to review: {why}.")
    review = load_review(
        evaluation.uri,
        outcome_of(
            run.output(node_ids.EVALUATOR, "blessing"), run.output(node_ids.PUSHER, "pushed_model")
        ),
        run_id=run.run_id,
        split=str_property(evaluation, EVALUATED_SPLITS) or TEST,
    )
    examples = run.output(node_ids.EXAMPLE_GEN, "examples")
    spans = span_record(examples)
    row = history_row(run)  # the history's last point, and the run's drift
    return dataclasses.replace(
        review,
        tuning=tuning_of_run(run),
        pipeline=pipeline,
        span=named_span(spans.span, spans.window),
        history=[*history_points(earlier), _point(run, row)],
        differences=_differences(store, earlier, run, review.serving_version),
        drift=[Drift(**measured) for measured in row.drift_measured],
        split_key=(str_property(examples, SPLIT_KEY_PROPERTY) or None) if examples else None,
        test_period=(str_property(examples, TEST_PERIOD_PROPERTY) or None) if examples else None,
        validation_period=(str_property(examples, VALIDATION_PERIOD_PROPERTY) or None)
        if examples
        else None,
        serving_check=serving_check_of(run.output(node_ids.SERVING_CHECK, "blessing")),
        scorings=_scorings(store, run) if store is not None else [],
    )


def _scorings(store: metadata_store.MetadataStore, run: PipelineRun) -> list[Scoring]:
    """The newest scoring runs with the model ``run`` left serving, newest first.

    A run that blessed the model already serving copied nothing, yet that model is the one
    it vouches for: its scorings are found by where it serves, as ``wide-deep-score``
    recorded them (linked to the first PushedModel with that destination).
    """
    pushed = run.output(node_ids.PUSHER, "pushed_model")
    destination = outcome_of(None, pushed).pushed_to if pushed is not None else None
    first = scoring_runs.pushed_model_of(store, destination) if destination else None
    if first is None:
        return []
    return [
        Scoring(
            time.strftime("%Y-%m-%d %H:%M", time.localtime(found.when_ms / 1000)),
            found.input,
            found.scored_rows,
            found.over,
        )
        for found in scoring_runs.scoring_runs(store, first)
    ]


def _differences(
    store: metadata_store.MetadataStore | None,
    earlier: Sequence[PipelineRun],
    run: PipelineRun,
    version: str | None,
) -> list[tuple[str, str, str]] | None:
    """What differs from the run that pushed the serving ``version`` (None: not found)."""
    serving = serving_run(earlier, version) if store is not None else None
    return differences(store, serving, run) if serving is not None else None


def history_points(runs: Sequence[PipelineRun]) -> list[HistoryPoint]:
    """The runs that reached an evaluation, oldest first, as the review's history."""
    return [
        _point(run, history_row(run))
        for run in sorted(runs, key=lambda r: r.started_ms)
        if run.output(node_ids.EVALUATOR, "evaluation") is not None
    ]


def _point(run: PipelineRun, row: HistoryRow) -> HistoryPoint:
    """One run's place in the review's history, from its history row."""
    return dataclasses.replace(
        row.point(),
        span=named_span(row.span, row.window),
        # A rerun of the serving model pushes nothing new.
        pushed_version=row.pushed_version if _pushed_new(run) else None,
    )


def _pushed_new(run: PipelineRun) -> bool:
    pushed = run.output(node_ids.PUSHER, "pushed_model")
    outcome = outcome_of(None, pushed) if pushed is not None else None
    return outcome is not None and outcome.pushed_to is not None and not outcome.already_serving


def tuning_of_run(run: PipelineRun) -> Tuning | None:
    """What the run's Tuner chose, as its Trainer applied it; None when nothing was tuned."""
    model = run.output(node_ids.TRAINER, "model")
    values = json.loads(str_property(model, TUNED_HPARAMS) or "{}") if model else {}
    if not values:
        return None
    best = run.output(node_ids.TUNER, "best_hyperparameters")
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

"""A pipeline's history, one line per run: what each period read, learned and shipped.

``wide-deep-inspect history`` prints it; each row comes from ML-Metadata alone: the
span and window on the Examples, the validator's verdict, the candidate's and the
serving model's AUC on the same test rows (the run's newest span's) with the paired
bootstrap's interval of their difference, the blessing and
what the Pusher did, and the serving version the model was warm-started from.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, TextIO

from components.properties import outcome_of, span_record, warm_start_of
from pipeline_def import node_ids as ids
from pipeline_ops.metadata.runs import PipelineRun


@dataclass(frozen=True)
class HistoryRow:
    """One run, as the history shows it."""

    run_id: str
    span: int | None
    window: list[int]
    rows: int
    drift: str  # "passed", "stopped" (the validator failed), or "-" (not reached)
    candidate_auc: float | None
    serving_auc: float | None
    # The 95% paired-bootstrap interval of candidate - serving AUC (None: none served).
    difference_interval: list[float] | None
    blessed: bool
    baseline: str | None
    pushed_version: str | None
    not_pushed_reason: str
    warm_started_from: str | None


def _validator_verdict(run: PipelineRun) -> str:
    node = run.nodes.get(ids.EXAMPLE_VALIDATOR)
    if node is None:
        return "-"
    return {"complete": "passed", "cached": "passed", "failed": "stopped"}.get(node.state, "-")


def history_row(run: PipelineRun) -> HistoryRow:
    """The history's row of ``run``."""
    spans = span_record(run.output(ids.EXAMPLE_GEN, "examples"))
    outcome = outcome_of(
        run.output(ids.EVALUATOR, "blessing"), run.output(ids.PUSHER, "pushed_model")
    )
    candidate, serving, comparison = {}, {}, None
    evaluation = run.output(ids.EVALUATOR, "evaluation")
    if evaluation is not None:
        # TFMA and TF: imported when needed.
        from components import paired_comparison
        from components.evaluation_review import candidate_and_baseline

        candidate, serving = candidate_and_baseline(evaluation.uri)
        comparison = paired_comparison.read(evaluation.uri)
        if comparison is not None:
            # Exact, where TFMA's AUC sorts scores into 10,000 buckets: an overconfident
            # model's scores below 1e-4 all tie there (0.87 against 0.91 seen).
            candidate["auc"], serving["auc"] = comparison.candidate_auc, comparison.baseline_auc
    pushed = outcome.pushed_to
    return HistoryRow(
        run_id=run.run_id,
        span=spans.span,
        window=[w["span"] for w in spans.window],
        rows=sum(w["rows"] for w in spans.window),
        drift=_validator_verdict(run),
        candidate_auc=candidate.get("auc"),
        serving_auc=serving.get("auc"),
        difference_interval=[comparison.low, comparison.high] if comparison else None,
        blessed=outcome.blessed,
        baseline=outcome.baseline,
        pushed_version=pushed.rstrip("/").rsplit("/", 1)[-1] if pushed else None,
        not_pushed_reason=outcome.push.not_pushed_reason if outcome.push else "",
        warm_started_from=warm_start_of(run.output(ids.TRAINER, "model"))[0],
    )


def history_json(rows: list[HistoryRow]) -> list[dict[str, Any]]:
    """The rows as JSON objects, oldest run first."""
    return [asdict(r) for r in rows]


def _auc(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _interval(value: list[float] | None) -> str:
    return "-" if value is None else f"{value[0]:+.3f}..{value[1]:+.3f}"


def print_history(rows: list[HistoryRow], out: TextIO) -> None:
    """One line per run, oldest first, then a line for each run's reason not to push."""
    print(
        f"{'run':<28} {'span':>4} {'window':<12} {'rows':>6} {'drift':<8} {'cand AUC':>8} "
        f"{'serv AUC':>8} {'diff 95%':<15} {'blessed':<8} {'pushed':<11} warm start",
        file=out,
    )
    for r in rows:
        window = ",".join(map(str, r.window)) or "-"
        print(
            f"{r.run_id:<28} {'-' if r.span is None else r.span:>4} {window:<12} {r.rows:>6} "
            f"{r.drift:<8} {_auc(r.candidate_auc):>8} {_auc(r.serving_auc):>8} "
            f"{_interval(r.difference_interval):<15} {'yes' if r.blessed else 'no':<8} "
            f"{r.pushed_version or '-':<11} {r.warm_started_from or '-'}",
            file=out,
        )
        if r.not_pushed_reason:
            print(f"{'':<28} not pushed: {r.not_pushed_reason}", file=out)

"""A pipeline's history, one line per run: what each period read, learned and shipped.

``wide-deep-inspect history`` prints it; each row comes from ML-Metadata alone: the
span the run resolved and its window on the Examples, the steps served from TFX's
cache, the drift the validator measured (pipeline_ops.metadata.drift) and the step that
stopped the run, the candidate's and the serving model's AUC on the same test rows (the
run's newest span's) with the paired bootstrap's interval of their difference, the
blessing and what the Pusher did, the serving version the model was warm-started from, and the span
the serving model had learned up to once the run was over.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, TextIO

from data_layout.properties import (
    SERVING_SPAN,
    int_property,
    outcome_of,
    span_record,
    warm_start_of,
)
from pipeline_def import node_ids
from pipeline_ops.metadata.drift import DriftMeasure, ValidatorFindings, findings_of
from pipeline_ops.metadata.runs import PipelineRun
from review import paired_comparison
from review.reading import candidate_and_baseline
from review.records import HistoryPoint
from review.terminal import print_history_points


@dataclass(frozen=True)
class HistoryRow:
    """One run, as the history shows it."""

    run_id: str
    span: int | None
    window: list[int]
    rows: int
    # The largest drift the validator measured, "feature distance/threshold"; "DRIFT
    # feature distance>threshold" when a distance over its threshold stopped the run;
    # "-" when nothing was compared (the validator did not run, or left no record).
    drift: str
    candidate_auc: float | None
    serving_auc: float | None
    # The 95% paired-bootstrap interval of candidate - serving AUC (None: none served).
    difference_interval: list[float] | None
    blessed: bool
    baseline: str | None
    pushed_version: str | None
    not_pushed_reason: str
    warm_started_from: str | None
    # The steps served from TFX's cache, in data-flow order.
    cached: list[str]
    # The span the serving model was trained up to after the run (None: nothing served).
    serving_span: int | None
    # Every distance the validator measured: against (what was compared), feature,
    # measure, distance, threshold; [] when nothing was compared.
    drift_measured: list[dict[str, Any]] = field(default_factory=list)
    # The step that stopped the run ("" when none did), and what it found when known
    # (the validator's schema anomalies and drift over a threshold).
    stopped_in: str = ""
    stopped_because: list[str] = field(default_factory=list)

    def point(self) -> HistoryPoint:
        """The run as every history shows it (its span and pushed version as recorded)."""
        interval = self.difference_interval
        return HistoryPoint(
            run_id=self.run_id,
            span=self.span,
            candidate_auc=self.candidate_auc,
            serving_auc=self.serving_auc,
            interval=(interval[0], interval[1]) if interval else None,
            blessed=self.blessed,
            pushed_version=self.pushed_version,
        )


def drift_cell(measured: Sequence[DriftMeasure]) -> str:
    """The history's drift cell: the largest distance with its feature and threshold.

    "DRIFT" first when a distance is over its threshold (the validator stopped the run
    on it), the largest of those; "-" when nothing was compared.
    """
    if not measured:
        return "-"
    drifted = [m for m in measured if m.drifted]
    worst = max(drifted or measured, key=lambda m: m.distance)
    if drifted:
        return f"DRIFT {worst.feature} {worst.distance:.3f}>{worst.threshold:.3f}"
    return f"{worst.feature} {worst.distance:.3f}/{worst.threshold:.3f}"


def _stop_of(run: PipelineRun, findings: ValidatorFindings | None) -> tuple[str, list[str]]:
    """The step that stopped the run ("" none), and what its validator found when known."""
    failed = next((node for node, e in run.nodes.items() if e.state == "failed"), "")
    if failed != node_ids.EXAMPLE_VALIDATOR or findings is None:
        return failed, []
    over = [
        f"{m.against}: {m.feature}: distribution drift {m.measure} "
        f"{m.distance:.3f} > {m.threshold:.3f}"
        for m in findings.drift
        if m.drifted
    ]
    return failed, [*findings.anomalies, *over]


def _serving_span_after(
    run: PipelineRun, span: int | None, pushed: bool, earlier: int | None
) -> int | None:
    """The span the serving model knew after ``run``: its own if it pushed, else the one before.

    A run that stopped before it read what served leaves what served after ``earlier``.
    """
    if pushed:
        return span
    before = run.output(node_ids.SERVING_BASELINE, "model")
    if before is None:
        return earlier
    learned = int_property(before, SERVING_SPAN)
    return None if learned < 0 else learned


def history_rows(runs: Sequence[PipelineRun]) -> list[HistoryRow]:
    """The history's rows of ``runs``, oldest first."""
    rows: list[HistoryRow] = []
    for run in runs:
        rows.append(history_row(run, rows[-1].serving_span if rows else None))
    return rows


def history_row(run: PipelineRun, serving_before: int | None = None) -> HistoryRow:
    """The history's row of ``run``; ``serving_before``: the span served after the run before."""
    spans = span_record(run.output(node_ids.EXAMPLE_GEN, "examples"))
    findings = findings_of(run)
    measured = findings.drift if findings is not None else []
    stopped_in, stopped_because = _stop_of(run, findings)
    outcome = outcome_of(
        run.output(node_ids.EVALUATOR, "blessing"), run.output(node_ids.PUSHER, "pushed_model")
    )
    candidate, serving, comparison = {}, {}, None
    evaluation = run.output(node_ids.EVALUATOR, "evaluation")
    if evaluation is not None:
        candidate, serving = candidate_and_baseline(evaluation.uri)
        comparison = paired_comparison.read(evaluation.uri)
        if comparison is not None:
            # The exact AUCs: runs evaluated before ExactAUC hold TFMA's bucketed figure,
            # which ties an overconfident model's scores (docs/decisions/evaluation-cost.md).
            candidate["auc"], serving["auc"] = comparison.candidate_auc, comparison.baseline_auc
    return HistoryRow(
        run_id=run.run_id,
        span=spans.span,
        window=[w["span"] for w in spans.window],
        rows=sum(w["rows"] for w in spans.window),
        drift=drift_cell(measured),
        candidate_auc=candidate.get("auc"),
        serving_auc=serving.get("auc"),
        difference_interval=[comparison.low, comparison.high] if comparison else None,
        blessed=outcome.blessed,
        baseline=outcome.baseline,
        pushed_version=outcome.pushed_version,
        not_pushed_reason=outcome.push.not_pushed_reason if outcome.push else "",
        warm_started_from=warm_start_of(run.output(node_ids.TRAINER, "model"))[0],
        cached=[node for node, e in run.nodes.items() if e.state == "cached"],
        serving_span=_serving_span_after(
            run, spans.span, outcome.pushed_version is not None, serving_before
        ),
        drift_measured=[{**asdict(m), "drifted": m.drifted} for m in measured],
        stopped_in=stopped_in,
        stopped_because=stopped_because,
    )


def history_json(rows: list[HistoryRow]) -> list[dict[str, Any]]:
    """The rows as JSON objects, oldest run first."""
    return [asdict(r) for r in rows]


def print_history(rows: list[HistoryRow], out: TextIO) -> None:
    """One line per run, oldest first, with what it read and its warm start.

    Under a run that stopped, or was not pushed, a line says why.
    """
    print_history_points(
        [r.point() for r in rows],
        out,
        read=[
            ("window", [",".join(map(str, r.window)) or "-" for r in rows]),
            ("rows", [str(r.rows) for r in rows]),
            ("drift", [r.drift for r in rows]),
        ],
        more=[
            ("warm start", [r.warm_started_from or "-" for r in rows]),
            ("cached", [str(len(r.cached)) for r in rows]),
            ("serving after", [_span_cell(r.serving_span) for r in rows]),
        ],
        notes=[_note(r) for r in rows],
    )


# How many of a stopped run's findings its note names (the JSON has them all).
_FINDINGS_NAMED = 2


def _note(row: HistoryRow) -> str:
    """The line under a run: why it stopped, or why it was not pushed ("": neither)."""
    if row.stopped_in:
        found = row.stopped_because
        named = "; ".join(found[:_FINDINGS_NAMED])
        more = f"; and {len(found) - _FINDINGS_NAMED} more" if len(found) > _FINDINGS_NAMED else ""
        return f"stopped in {row.stopped_in}" + (f": {named}{more}" if found else "")
    return f"not pushed: {row.not_pushed_reason}" if row.not_pushed_reason else ""


def _span_cell(span: int | None) -> str:
    return "-" if span is None else f"span {span}"

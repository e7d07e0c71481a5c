"""What a run produced, for people (the closing lines) and machines (run_summary.json)."""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ml_metadata.proto import metadata_store_pb2 as mlmd_pb2

from data_layout import files
from data_layout.properties import (
    SPLIT_KEY_PROPERTY,
    TEST_PERIOD_PROPERTY,
    VALIDATION_PERIOD_PROPERTY,
    analyzer_cache_record,
    outcome_of,
    serving_check_of,
    span_record,
    str_property,
    warm_start_of,
)
from data_layout.splits import split_lines
from modules.diagram import diagram_in
from pipeline_def import node_ids
from pipeline_ops.metadata.runs import PipelineRun
from pipeline_ops.session.progress import ComponentTiming
from review.reading import overall_metrics
from review.served import served_lines

SUMMARY_FILE = "run_summary.json"
SUCCEEDED, FAILED, INTERRUPTED = "succeeded", "failed", "interrupted"
# Stopped because its data was still being written (data_layout.spans.SpanNotReady).
WAITING = "waiting"
# Stopped where asked (``make kfp-local --until``): ``failed_component`` names the step
# it stopped after, as it names where a waiting run stopped.
STOPPED = "stopped"


@dataclass
class RunSummary:
    """The fields of run_summary.json."""

    pipeline_name: str
    run_id: str | None
    status: str
    components: dict[str, dict[str, float | str]]
    metrics: dict[str, float]
    blessed: bool
    pushed_model_path: str | None
    # True when the blessed model was identical to the one serving: nothing copied.
    already_serving: bool = False
    # The serving version the candidate was compared with; None when none served.
    baseline: str | None = None
    failed_component: str | None = None
    # The failed component's error, in one line (e.g. each data anomaly).
    error: str | None = None
    log_file: str | None = None
    seconds: float = 0.0
    # The picture of the trained model; None when none was drawn (no graphviz).
    model_diagram: str | None = None
    # The span the run processed (0 for a flat data root) and the window it trained on:
    # [{"span", "rows"}], oldest first ([] for a flat root).
    span: int | None = None
    window: list[dict[str, int]] = field(default_factory=list)
    # Spans whose encoding an earlier run made and this one reused.
    reused_spans: list[int] = field(default_factory=list)
    # Where the steps' code differs from the run before's, why steps ran again rather than
    # being served from TFX's cache: "since run <id> (sha256 <old> -> <new>)"; "": same.
    code_changed: str = ""
    # The serving version the model started from; None when trained from scratch (why).
    warm_started_from: str | None = None
    warm_start_note: str = ""
    # Why a blessed model was not pushed (e.g. trained on older data than the serving one).
    not_pushed_reason: str = ""
    # The candidate against the serving model on the same test rows, in a line (the
    # paired bootstrap's interval of the AUC difference); "" when none served.
    comparison: str = ""
    # The column the splits are keyed by (the dataset's entity); None: row by row.
    split_keyed_by: str | None = None
    # The test split's period (``year = 1987``: its newest value); None: hashed.
    test_period: str | None = None
    # The validation split's period, the one before the test period's; None: none.
    validation_period: str | None = None
    # The train split's parts (span-N/split) Transform read from its analyzer cache and
    # those it analyzed: {"read": [...], "analyzed": [...]}; {} for a flat root.
    analyzer_cache: dict[str, list[str]] = field(default_factory=dict)
    # What the steps ran on: python, tfx, tensorflow, apache_beam, kfp, libc
    # (pipeline_def.stack).
    stack: dict[str, str] = field(default_factory=dict)
    # The serving check: passed, server, load_s, p50_ms, p99_ms (a request of one row),
    # p50_ms_100_rows, p99_ms_100_rows, model_bytes, rows_checked; or why it did not
    # check (note), or its error where it failed the run. None: it did not run.
    serving_check: dict[str, Any] | None = None


def outcome_fields(
    examples: mlmd_pb2.Artifact | None,
    model: mlmd_pb2.Artifact | None,
    blessing: mlmd_pb2.Artifact | None,
    pushed_model: mlmd_pb2.Artifact | None,
) -> dict[str, Any]:
    """The summary's fields that a run's artifacts record (None: the artifact was not made)."""
    outcome = outcome_of(blessing, pushed_model)
    spans = span_record(examples)
    warm_started_from, warm_start_note = warm_start_of(model)
    return {
        "blessed": outcome.blessed,
        "pushed_model_path": outcome.pushed_to,
        "already_serving": outcome.already_serving,
        "baseline": outcome.baseline,
        "span": spans.span,
        "window": spans.window,
        "reused_spans": spans.reused_spans,
        "warm_started_from": warm_started_from,
        "warm_start_note": warm_start_note,
        "not_pushed_reason": outcome.push.not_pushed_reason if outcome.push else "",
        "comparison": outcome.comparison,
        "split_keyed_by": (str_property(examples, SPLIT_KEY_PROPERTY) or None)
        if examples
        else None,
        "test_period": (str_property(examples, TEST_PERIOD_PROPERTY) or None) if examples else None,
        "validation_period": (str_property(examples, VALIDATION_PERIOD_PROPERTY) or None)
        if examples
        else None,
    }


def summarize(
    pipeline_name: str,
    run: PipelineRun | None,
    timings: dict[str, ComponentTiming],
    failed_component: str | None,
) -> RunSummary:
    """A summary from the run MLMD recorded and the timings seen on the console."""
    metrics: dict[str, float] = {}
    diagram = None
    recorded = outcome_fields(None, None, None, None)
    cache: dict[str, list[str]] = {}
    checked = None
    if run is not None:
        model_run = run.output(node_ids.TRAINER, "model_run")
        if model_run is not None and files.exists(diagram_in(model_run.uri)):
            diagram = diagram_in(model_run.uri)
        evaluation = run.output(node_ids.EVALUATOR, "evaluation")
        if evaluation is not None:
            metrics = overall_metrics(evaluation.uri)
        recorded = outcome_fields(
            run.output(node_ids.EXAMPLE_GEN, "examples"),
            run.output(node_ids.TRAINER, "model"),
            run.output(node_ids.EVALUATOR, "blessing"),
            run.output(node_ids.PUSHER, "pushed_model"),
        )
        cache = analyzer_cache_record(run.output(node_ids.TRANSFORM, "transform_graph"))
        checked = serving_check_of(run.output(node_ids.SERVING_CHECK, "blessing"))
    if failed_component == node_ids.SERVING_CHECK:
        checked = {"passed": False}  # the error is the summary's, in its one line
    return RunSummary(
        pipeline_name=pipeline_name,
        run_id=run.run_id if run else None,
        status=FAILED if failed_component else SUCCEEDED,
        components={
            node: {"state": t.state, "seconds": round(t.seconds, 2)} for node, t in timings.items()
        },
        metrics=metrics,
        failed_component=failed_component,
        model_diagram=diagram,
        analyzer_cache=cache,
        serving_check=checked,
        **recorded,
    )


def write_json(summary: RunSummary, output_dir: Path) -> Path:
    """Write run_summary.json into ``output_dir`` (atomically) and return its path."""
    path = output_dir / SUMMARY_FILE
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(asdict(summary), indent=2, sort_keys=True) + "\n")
    tmp.replace(path)
    return path


def print_closing(summary: RunSummary, out: TextIO, review_command: str | None = None) -> None:
    """The closing lines people read after the per-component lines."""
    # Part by part, so that the lines already printed stay if a later part fails.
    for part in (_status_lines, _data_lines, _outcome_lines):
        for line in part(summary):
            print(line, file=out)
    if review_command and summary.metrics:
        print(f"  review: {review_command}", file=out)
    print(f"  full log: {summary.log_file}", file=out)


def _status_lines(summary: RunSummary) -> list[str]:
    """A blank line, then how the run ended and where it stopped."""
    if summary.status == FAILED:
        status = f"Run {summary.run_id} FAILED in {summary.failed_component}."
    elif summary.status == INTERRUPTED:
        status = f"Run {summary.run_id} interrupted during {summary.failed_component}."
    elif summary.status == WAITING:
        status = (
            f"Run {summary.run_id} stopped in {summary.failed_component}, its data still "
            "being written: nothing trained or pushed; a later run takes it."
        )
    elif summary.status == STOPPED:
        status = (
            f"Run {summary.run_id} stopped after {summary.failed_component}, as asked, in "
            f"{summary.seconds:.1f} s: nothing after it ran."
        )
    else:
        status = f"Run {summary.run_id} succeeded in {summary.seconds:.1f} s."
    return ["", status]


def _data_lines(summary: RunSummary) -> list[str]:
    """The test metrics, the spans trained on, and what training started from."""
    lines = []
    m = summary.metrics
    if m:
        lines.append(
            f"  test AUC {m.get('auc', float('nan')):.4f}, "
            f"binary accuracy {m.get('binary_accuracy', float('nan')):.4f} "
            f"on {int(m.get('example_count', 0))} examples"
        )
    if summary.window:
        rows = " + ".join(f"{w['rows']:,}" for w in summary.window)
        spans = ", ".join(str(w["span"]) for w in summary.window)
        reused = (
            f"; reused the encoding of span(s) {summary.reused_spans}"
            if summary.reused_spans
            else ""
        )
        lines.append(f"  span {summary.span}: trained on span(s) {spans} ({rows} rows){reused}")
    lines.extend(
        f"  {line}"
        for line in split_lines(
            summary.split_keyed_by, summary.test_period, summary.validation_period
        )
    )
    if summary.code_changed:
        lines.append(f"  the steps' code changed {summary.code_changed}: its steps ran again")
    if summary.warm_started_from:
        lines.append(f"  warm-started from serving version {summary.warm_started_from}")
    elif summary.warm_start_note and summary.warm_start_note != "nothing serves":
        lines.append(f"  trained from scratch: {summary.warm_start_note}")
    return lines


def _outcome_lines(summary: RunSummary) -> list[str]:
    """A succeeded run's verdict, push and model diagram; none for a run that stopped."""
    if summary.status != SUCCEEDED:
        return []
    against = (
        f"against serving version {summary.baseline}"
        if summary.baseline
        else "on the absolute bound (nothing served)"
    )
    lines = [f"  model {'blessed' if summary.blessed else 'NOT blessed'} {against}"]
    if summary.comparison:
        lines.append(f"  {summary.comparison}")
    lines.extend(f"  {served}" for served in served_lines(summary.serving_check))
    if summary.already_serving:
        lines.append(
            f"  pushed: nothing new, this model already serves as {summary.pushed_model_path}"
        )
    else:
        reason = f"nothing, {summary.not_pushed_reason}" if summary.not_pushed_reason else ""
        lines.append(f"  pushed: {summary.pushed_model_path or reason or 'nothing pushed'}")
    if summary.model_diagram:
        lines.append(f"  model diagram: {summary.model_diagram}")
    elif shutil.which("dot") is None:
        lines.append("  model diagram: none, graphviz's dot is missing (Debian: graphviz)")
    return lines

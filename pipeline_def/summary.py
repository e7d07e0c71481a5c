"""What a run produced, for people (the closing lines) and machines (run_summary.json)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TextIO

import tensorflow_model_analysis as tfma
from ml_metadata.proto import metadata_store_pb2 as mlmd_pb2

from pipeline_def import pipeline as P
from pipeline_def.progress import ComponentTiming
from pipeline_def.runs import PipelineRun

SUMMARY_FILE = "run_summary.json"
SUCCEEDED, FAILED = "succeeded", "failed"


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
    failed_component: str | None = None
    log_file: str | None = None
    seconds: float = 0.0


def overall_metrics(evaluation_uri: str) -> dict[str, float]:
    """The candidate model's metrics on the overall slice of a TFMA evaluation."""
    metrics: dict[str, float] = {}
    for per_slice in tfma.load_metrics(evaluation_uri):
        if per_slice.slice_key.single_slice_keys:
            continue
        for kv in per_slice.metric_keys_and_values:
            if kv.key.is_diff or kv.key.model_name not in ("", "candidate"):
                continue
            if kv.value.HasField("double_value"):
                metrics[kv.key.name] = kv.value.double_value.value
    return metrics


def _custom_int(artifact: mlmd_pb2.Artifact, name: str) -> int:
    prop = artifact.custom_properties.get(name)
    return prop.int_value if prop is not None else 0


def _custom_str(artifact: mlmd_pb2.Artifact, name: str) -> str:
    prop = artifact.custom_properties.get(name)
    return prop.string_value if prop is not None else ""


def summarize(
    pipeline_name: str,
    run: PipelineRun | None,
    timings: dict[str, ComponentTiming],
    failed_component: str | None,
) -> RunSummary:
    """A summary from the run MLMD recorded and the timings seen on the console."""
    metrics: dict[str, float] = {}
    blessed = False
    pushed: str | None = None
    if run is not None:
        evaluator = run.nodes.get(P.EVALUATOR)
        if evaluator and evaluator.outputs.get("evaluation"):
            metrics = overall_metrics(evaluator.outputs["evaluation"][0].uri)
        if evaluator and evaluator.outputs.get("blessing"):
            blessed = _custom_int(evaluator.outputs["blessing"][0], "blessed") == 1
        pusher = run.nodes.get(P.PUSHER)
        if pusher and pusher.outputs.get("pushed_model"):
            artifact = pusher.outputs["pushed_model"][0]
            if _custom_int(artifact, "pushed") == 1:
                pushed = _custom_str(artifact, "pushed_destination") or None
    return RunSummary(
        pipeline_name=pipeline_name,
        run_id=run.run_id if run else None,
        status=FAILED if failed_component else SUCCEEDED,
        components={
            node: {"state": t.state, "seconds": round(t.seconds, 2)} for node, t in timings.items()
        },
        metrics=metrics,
        blessed=blessed,
        pushed_model_path=pushed,
        failed_component=failed_component,
    )


def write_json(summary: RunSummary, output_dir: Path) -> Path:
    """Write run_summary.json into ``output_dir`` (atomically) and return its path."""
    path = output_dir / SUMMARY_FILE
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(asdict(summary), indent=2, sort_keys=True) + "\n")
    tmp.replace(path)
    return path


def print_closing(summary: RunSummary, out: TextIO) -> None:
    """The closing lines people read after the per-component lines."""
    m = summary.metrics
    print("", file=out)
    if summary.status == FAILED:
        print(f"Run {summary.run_id} FAILED in {summary.failed_component}.", file=out)
    else:
        print(f"Run {summary.run_id} succeeded in {summary.seconds:.1f} s.", file=out)
    if m:
        print(
            f"  eval AUC {m.get('auc', float('nan')):.4f}, "
            f"binary accuracy {m.get('binary_accuracy', float('nan')):.4f} "
            f"on {int(m.get('example_count', 0))} examples",
            file=out,
        )
    if summary.status == SUCCEEDED:
        print(f"  model {'blessed' if summary.blessed else 'NOT blessed'}", file=out)
        where = summary.pushed_model_path or "nothing pushed"
        print(f"  pushed: {where}", file=out)
    print(f"  full log: {summary.log_file}", file=out)

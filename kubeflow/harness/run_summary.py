"""A harness run's ``run_summary.json``, in the local runner's format, from KFP's records.

The same readers as a local run's, on the records KFP's launcher wrote: the outputs'
metadata as custom properties (numbers as doubles), and the evaluation copied out of
the store.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ml_metadata.proto import metadata_store_pb2 as mlmd

from kubeflow.harness import tasks
from kubeflow.harness.object_store import ObjectStore
from pipeline_def import node_ids
from pipeline_ops.session.summary import FAILED, SUCCEEDED, RunSummary, outcome_fields
from review.reading import overall_metrics


def _metrics(store: ObjectStore, evaluation: mlmd.Artifact | None) -> dict[str, float]:
    """The overall slice's metrics of the evaluation in the store.

    The evaluation is copied out of the store first: TFMA reads it through TensorFlow,
    which reads no s3://.
    """
    if evaluation is None:
        return {}
    with tempfile.TemporaryDirectory() as local:
        store.download_folder(store.key(evaluation.uri), Path(local))
        return overall_metrics(local)


def summarize(
    run: tasks.Run, results: dict[str, tasks.TaskResult], failed: str | None, store: ObjectStore
) -> RunSummary:
    """The run's summary: task states and seconds, metrics, blessing, push and baseline."""
    outputs = {
        name: run.metadata.output_artifacts(run.executions[name])
        for name, result in results.items()
        if result.state != tasks.FAILED
    }
    recorded = outcome_fields(
        outputs.get(node_ids.EXAMPLE_GEN, {}).get("examples"),
        outputs.get(node_ids.TRAINER, {}).get("model"),
        outputs.get(node_ids.EVALUATOR, {}).get("blessing"),
        outputs.get(node_ids.PUSHER, {}).get("pushed_model"),
    )
    return RunSummary(
        pipeline_name=run.spec["pipelineInfo"]["name"],
        run_id=run.metadata.run.name,
        status=FAILED if failed else SUCCEEDED,
        components={
            name: {"state": r.state, "seconds": round(r.seconds, 2)} for name, r in results.items()
        },
        metrics=_metrics(store, outputs.get(node_ids.EVALUATOR, {}).get("evaluation")),
        failed_component=failed,
        error=f"{failed} failed: see {results[failed].log}" if failed else None,
        **recorded,
    )

"""What a scoring run of the harness says at its end: the rows scored, where, and their skew.

Read from the records KFP's launcher wrote for the BatchScorer step (its outputs' URIs
and custom properties) and from the skew report in the store, told by the same lines
``wide-deep-score`` prints (``scoring.skew.lines``).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from components.batch_scorer import SCORED_ROWS, SCORES_FILE, SPAN
from data_layout.properties import SERVING_VERSION
from kubeflow.harness import tasks
from kubeflow.harness.object_store import ObjectStore
from pipeline_def import node_ids
from scoring import skew
from scoring.names import SKEW_FILE


def closing_lines(run: tasks.Run, store: ObjectStore, seconds: float) -> list[str]:
    """The lines after a scoring run's task lines, once its BatchScorer ran."""
    outputs = run.metadata.output_artifacts(run.executions[node_ids.BATCH_SCORER])
    scores, report = outputs["scores"], outputs["skew_report"]
    values = {k: v.string_value or v.double_value for k, v in scores.custom_properties.items()}
    with tempfile.TemporaryDirectory() as local:
        path = Path(local) / SKEW_FILE
        store.download_uri(f"{report.uri}/{SKEW_FILE}", path)
        said = skew.lines(skew.SkewReport.from_dict(json.loads(path.read_text())))
    return [
        "",
        f"Scoring run {run.metadata.run.name} succeeded in {seconds:.1f} s.",
        f"  scored {int(values[SCORED_ROWS]):,} rows of span {int(values[SPAN])} with serving "
        f"version {values[SERVING_VERSION]}: {scores.uri}/{SCORES_FILE}",
        *(f"  {line}" for line in said),
    ]

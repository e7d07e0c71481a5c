"""wide-deep-score as people type it, on the pushed model of a real run: the Evaluator's scores."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scored_tables import cells_of, write_csv, write_jsonl

from datasets.taxi import DATASET as TAXI
from pipeline_def import node_ids
from pipeline_def.metadata_stores import SqliteMetadata
from pipeline_ops.metadata.runs import latest_run
from pipeline_ops.metadata.store import open_store
from serving import sample

pytestmark = pytest.mark.slow

SCORE = Path(sys.executable).parent / "wide-deep-score"


def test_the_pushed_model_scores_the_test_rows_as_the_evaluator_did(first_run, tmp_path):
    output_dir, _ = first_run
    run = latest_run(
        open_store(SqliteMetadata(str(output_dir / "metadata.sqlite"))), TAXI.pipeline_name
    )
    evaluated = sample.read(run.output(node_ids.EVALUATOR, "evaluation").uri)
    rows = [cells_of(e) for e in evaluated.examples]
    columns = sorted({c for row in rows for c in row})
    for table in (
        write_csv(tmp_path / "rows.csv", rows, columns),
        write_jsonl(tmp_path / "rows.jsonl", rows),
    ):
        scores = tmp_path / f"{table.suffix[1:]}-scores.jsonl"
        done = subprocess.run(
            [SCORE, table, scores, "--output-dir", output_dir],
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[-1].startswith(
            f"Scored {len(rows)} rows with serving version "
        )
        got = [json.loads(line)[TAXI.prediction_key] for line in scores.read_text().splitlines()]
        np.testing.assert_allclose(got, evaluated.scores, atol=1e-6)

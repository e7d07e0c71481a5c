"""wide-deep-score as people type it, on the pushed model of a real run: the Evaluator's scores."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from run_commands import review_cli
from scored_tables import cells_of, write_csv, write_jsonl

from datasets.taxi import DATASET as TAXI
from pipeline_def import node_ids
from pipeline_def.metadata_stores import SqliteMetadata
from pipeline_ops.metadata import scoring_runs
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
        assert done.stdout.splitlines()[-2].startswith(
            f"Scored {len(rows)} rows with serving version "
        )
        got = [json.loads(line)[TAXI.prediction_key] for line in scores.read_text().splitlines()]
        np.testing.assert_allclose(got, evaluated.scores, atol=1e-6)


def _shifted(source: Path, target: Path) -> Path:
    """``source``'s rows, every trip paid in cash and every fare tripled."""
    with source.open(newline="") as src, target.open("w", newline="") as dst:
        reader = csv.DictReader(src)
        writer = csv.DictWriter(dst, reader.fieldnames)
        writer.writeheader()
        for row in reader:
            writer.writerow({**row, "payment_type": "Cash", "fare": str(3 * float(row["fare"]))})
    return target


def test_skew_names_the_shifted_features_exits_3_when_asked_and_is_recorded(
    first_run, small_data_root, tmp_path
):
    output_dir, _ = first_run
    same = small_data_root / "taxi.csv"
    shifted = _shifted(same, tmp_path / "shifted.csv")
    runs = {}
    for name, table, flags in (
        ("same", same, ()),
        ("shifted", shifted, ()),
        ("failing", shifted, ("--fail-on-skew",)),
    ):
        runs[name] = subprocess.run(
            [SCORE, table, tmp_path / f"{name}-scores.csv", "--output-dir", output_dir, *flags],
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
    assert runs["same"].returncode == 0, runs["same"].stderr
    assert "no feature over its threshold (15 compared)" in runs["same"].stdout
    assert runs["shifted"].returncode == 0, runs["shifted"].stderr
    skewed = [line for line in runs["shifted"].stdout.splitlines() if "skewed:" in line]
    assert [line.split()[1] for line in skewed] == ["fare:", "payment_type:"], skewed
    assert runs["failing"].returncode == 3
    assert (tmp_path / "failing-scores.csv").is_file()  # scored, then judged

    store = open_store(SqliteMetadata(str(output_dir / "metadata.sqlite")))
    pushed = scoring_runs.pushed_model_of(store, str(next((output_dir / "serving").iterdir())))
    recorded = scoring_runs.scoring_runs(store, pushed)
    assert [r.over for r in recorded] == [("fare", "payment_type")] * 2 + [()]
    assert recorded[0].input == str(shifted.resolve())
    assert recorded[0].skew()["scored_rows"] == 5000

    review = review_cli("--output-dir", str(output_dir), "--html", str(tmp_path / "review.html"))
    assert review.returncode == 0, review.stderr
    section = review.stdout.split("Scored with the pushed model (newest first)")[1]
    table = [line for line in section.splitlines()[1:5] if line.strip()]
    assert [line.rstrip().endswith("skewed: fare, payment_type") for line in table[1:]] == [
        True,
        True,
        False,
    ], table
    assert str(shifted.resolve()) in table[1]
    scorings = (tmp_path / "review.html").read_text().split("id='scorings'")[1]
    rows = scorings.split("</table>")[0].split("<tr")[2:]
    assert [row.startswith(" class=fail>") for row in rows] == [True, True, False], rows

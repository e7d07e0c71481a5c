"""A table as spreadsheets export it, for real: drafted, then run by ``wide-deep-run``.

Its label has empty cells, its money is text with separators and currency signs, its
times are ISO timestamps, US and European dates and unix seconds. The run must read
the money as numbers and the times as time features, in training and in serving.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf
import tensorflow_transform as tft
from exported_table import orders, write_export
from project_copy import copy_project, run_in
from run_commands import TEST_TRAIN_STEPS

from modules.features import DatasetDeclaration, transformed_name

# Few rows, so that the run takes a few minutes: enough to split and judge.
ROWS = 400
# Columns written as text, and the kinds the draft reads them as.
READ = {"amount": "numeric", "betrag": "numeric", "shipped": "time", "geliefert": "time"}
# A request as a client sends the raw columns: the text as exports write it.
REQUEST = {
    "amount": "$1,250.00", "betrag": "1.250,00 €", "ordered at": "2024-03-08 21:15:00",
    "shipped": "03/12/2024", "geliefert": "12.03.2024", "billed": "2024-03-01",
    "created": 1709932500, "channel": "web",
}  # fmt: skip


def _features(dataset: DatasetDeclaration) -> set[str]:
    return {*dataset.dense_features(), *dataset.categorical_features(), *dataset.cross_features()}


@pytest.mark.slow
def test_an_exported_table_runs_with_its_money_as_numbers_and_its_times_as_time(tmp_path):
    project = copy_project(tmp_path / "project")
    rows = orders(ROWS, seed=1)
    table = write_export(tmp_path / "orders.csv", rows)

    drafted = run_in(
        project, "-m", "pipeline_ops.cli.draft_dataset", "orders", str(table), "status", "late"
    )
    assert drafted.returncode == 0, drafted.stderr
    unlabelled = sum(not row[0] for row in rows)
    assert f"  {unlabelled} rows without a status set aside (lines " in drafted.stdout
    lines = drafted.stdout.splitlines()
    kinds = {c: next(line.split()[1] for line in lines if line.split()[:1] == [c]) for c in READ}
    assert kinds == READ

    out = tmp_path / "out"
    wide_deep_run = str(Path(sys.executable).parent / "wide-deep-run")
    # One model, not the small table's five: the test is what the columns become.
    run = run_in(
        project, "--dataset", "orders", "--output-dir", str(out), "--train-steps",
        TEST_TRAIN_STEPS, "--hparam", "ensemble_members=1", program=wide_deep_run,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert json.loads((out / "run_summary.json").read_text())["status"] == "succeeded"

    # The Transform graph's outputs: the money as scaled numbers and buckets, each time
    # column as its circles, age and weekday.
    namespace: dict = {}
    exec((project / "datasets/orders/__init__.py").read_text(), namespace)  # noqa: S102
    dataset = namespace["DATASET"]
    (graph,) = (out / "pipeline" / "Transform" / "transform_graph").iterdir()
    transformed = tft.TFTransformOutput(str(graph)).transformed_feature_spec()
    expected = {
        "amount_xf", "amount_bucket_xf", "betrag_xf", "ordered_at_time_sin_xf",
        "ordered_at_year_cos_xf", "ordered_at_years_xf", "ordered_at_weekday_xf",
        "shipped_year_sin_xf", "shipped_weekday_xf", "geliefert_weekday_xf", "billed_years_xf",
        "created_time_cos_xf", "created_weekday_xf",
    }  # fmt: skip
    assert expected <= set(transformed)
    assert set(transformed) == _features(dataset) | {dataset.label_key}

    # The serving model reads the raw text: the money and the dates as exports write them.
    (version,) = (out / "serving").iterdir()
    raw = tf.saved_model.load(str(version)).signatures["serving_raw"]
    inputs = raw.structured_input_signature[1]
    assert inputs["amount"].dtype == inputs["ordered_at"].dtype == tf.string
    assert inputs["created"].dtype == tf.int64
    names = {transformed_name(c).removesuffix("_xf"): value for c, value in REQUEST.items()}
    request = {n: tf.constant([value], inputs[n].dtype) for n, value in names.items()}
    probability = float(np.ravel(raw(**request)["probability"].numpy())[0])
    assert 0.0 < probability < 1.0

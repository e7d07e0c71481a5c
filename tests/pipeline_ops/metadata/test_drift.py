"""drift: what a run's validator found, read from its artifact or checked again when it stopped.

The validator's inputs are made for real (TFDV's statistics of small tables, a schema
with a drift comparator and a fare domain), and its outputs by its own executor, so
that what is read is what it writes.
"""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
import tensorflow_data_validation as tfdv
from ml_metadata.proto import metadata_store_pb2 as mlmd_pb2

from components import gating_validator
from data_layout.splits import TEST, TRAIN, VALIDATION
from pipeline_def import node_ids
from pipeline_ops.metadata import drift
from pipeline_ops.metadata.history import history_row, print_history
from pipeline_ops.metadata.runs import NodeExecution, PipelineRun

ROWS = 1000
SCHEMA = """
feature { name: "company" type: BYTES drift_comparator { infinity_norm { threshold: 0.1 } } }
feature { name: "fare" type: FLOAT float_domain { min: 0 } }
"""
# The shares of company "a" (the rest are "b"): the train split's, and the serving
# model's training data's, 0.05 apart (under the threshold of 0.1).
TRAIN_SHARE, SERVING_SHARE = 0.6, 0.55


def _table(share_a: float, negative_fares: int = 0) -> pd.DataFrame:
    a = round(ROWS * share_a)
    fares = [-5.0] * negative_fares + [10.0] * (ROWS - negative_fares)
    return pd.DataFrame({"company": ["a"] * a + ["b"] * (ROWS - a), "fare": fares})


def _statistics(folder: Path, splits: dict[str, pd.DataFrame], id_: int) -> mlmd_pb2.Artifact:
    for split, table in splits.items():
        (folder / f"Split-{split}").mkdir(parents=True)
        stats = tfdv.generate_statistics_from_dataframe(table)
        (folder / f"Split-{split}" / "FeatureStats.pb").write_bytes(stats.SerializeToString())
    artifact = mlmd_pb2.Artifact(id=id_, uri=str(folder))
    artifact.properties["split_names"].string_value = json.dumps(list(splits))
    return artifact


@pytest.fixture
def validator_inputs(tmp_path):
    """The validator's recorded inputs: the test split's share, negative fares in train and test."""

    def make(test_share: float = 0.62, negative_fares: int = 0) -> dict[str, list]:
        train = _table(TRAIN_SHARE, negative_fares)
        test = _table(test_share, negative_fares)
        splits = {TRAIN: train, VALIDATION: _table(TRAIN_SHARE), TEST: test}
        serving = _statistics(tmp_path / "serving", {TRAIN: _table(SERVING_SHARE)}, 2)
        serving.custom_properties["serving_version"].string_value = "17"
        (tmp_path / "schema").mkdir()
        (tmp_path / "schema" / "schema.pbtxt").write_text(SCHEMA)
        return {
            "statistics": [_statistics(tmp_path / "statistics", splits, 1)],
            "schema": [mlmd_pb2.Artifact(id=3, uri=str(tmp_path / "schema"))],
            gating_validator.PREVIOUS_STATISTICS_KEY: [serving],
        }

    return make


def _validator(state: int, inputs: dict[str, list], **outputs: mlmd_pb2.Artifact) -> PipelineRun:
    execution = mlmd_pb2.Execution(last_known_state=state)
    execution.custom_properties["exclude_splits"].string_value = "[]"
    node = NodeExecution(
        node_ids.EXAMPLE_VALIDATOR, execution, {k: [a] for k, a in outputs.items()}
    )
    node.inputs = inputs
    return PipelineRun("r1", 1, {node_ids.EXAMPLE_VALIDATOR: node})


def _stopped(inputs: dict[str, list]) -> PipelineRun:
    return _validator(mlmd_pb2.Execution.FAILED, inputs)


def test_the_file_names_are_the_validators():
    from tfx.components.example_validator import executor

    names = [gating_validator.DRIFT_FILE, gating_validator.PREVIOUS_DRIFT_FILE]
    assert list(drift.DRIFT_FILES) == [*names, gating_validator.SPAN_DRIFT_FILE]
    assert drift.SCHEMA_DIFF_FILE == executor.DEFAULT_FILE_NAME


def _validated(inputs: dict[str, list], folder: Path) -> mlmd_pb2.Artifact:
    """The ExampleAnomalies the validator's executor writes in ``folder`` (it passes)."""
    from tfx.types import standard_artifacts

    tfx_inputs = {}
    for key, recorded in inputs.items():
        tfx_inputs[key] = [gating_validator.GatingValidatorSpec.INPUTS[key].type()]
        tfx_inputs[key][0].set_mlmd_artifact(recorded[0])
    out = standard_artifacts.ExampleAnomalies()
    out.uri = str(folder)
    gating_validator.GatingValidatorExecutor().Do(
        tfx_inputs, {"anomalies": [out]}, {"exclude_splits": "[]"}
    )
    return mlmd_pb2.Artifact(uri=str(folder))


def test_a_passed_validators_drift_is_read_from_what_it_wrote(validator_inputs, tmp_path):
    inputs = validator_inputs()
    anomalies = _validated(inputs, tmp_path / "anomalies")
    run = _validator(mlmd_pb2.Execution.COMPLETE, inputs, anomalies=anomalies)
    findings = drift.findings_of(run)
    assert findings is not None and findings.source == drift.RECORDED
    by = {(m.against, m.feature): m for m in findings.drift}
    assert set(by) == {
        ("test vs train", "company"),
        ("validation vs train", "company"),
        ("train vs the serving model's training data", "company"),
    }
    serving = by[("train vs the serving model's training data", "company")]
    assert (round(serving.distance, 3), serving.threshold) == (0.05, 0.1)
    assert not any(m.drifted for m in findings.drift)
    row = history_row(run)
    assert row.drift == "company 0.050/0.100"  # the largest distance, with its threshold
    assert row.stopped_in == "" and len(row.drift_measured) == 3


def test_a_run_stopped_by_drift_is_checked_again_and_reads_as_drift(validator_inputs):
    run = _stopped(validator_inputs(test_share=0.2))  # test: 0.4 from train's share
    findings = drift.findings_of(run)
    assert findings is not None and findings.source == drift.CHECKED_AGAIN
    assert findings.anomalies == []
    row = history_row(run)
    threshold = 0.1 + gating_validator.span_noise(ROWS, ROWS)
    assert row.drift == f"DRIFT company 0.400>{threshold:.3f}"
    assert row.stopped_in == node_ids.EXAMPLE_VALIDATOR
    assert row.stopped_because == [
        f"test vs train: company: distribution drift L_INFTY 0.400 > {threshold:.3f}"
    ]
    print_history([row], out := io.StringIO())
    _, line, note = out.getvalue().splitlines()
    assert re.split(r"\s{2,}", line.strip())[4] == row.drift
    assert note.strip() == f"stopped in ExampleValidator: {row.stopped_because[0]}"


def test_a_run_stopped_by_negative_fares_does_not_read_as_drift(validator_inputs):
    row = history_row(_stopped(validator_inputs(negative_fares=3)))
    assert row.drift == "company 0.050/0.100"
    assert not any(m["drifted"] for m in row.drift_measured)
    assert row.stopped_in == node_ids.EXAMPLE_VALIDATOR
    # In the validator's order: train before test.
    train, test = row.stopped_because
    assert train.startswith("train: fare: Unexpectedly low values: -5<0"), train
    assert test.startswith("test: fare: Unexpectedly low values: -5<0"), test
    print_history([row], out := io.StringIO())
    note = out.getvalue().splitlines()[2].strip()
    assert note == f"stopped in ExampleValidator: {train}; {test}"


def test_a_stopped_run_whose_inputs_are_gone_shows_no_drift(validator_inputs, tmp_path):
    run = _stopped(validator_inputs(test_share=0.2))
    shutil.rmtree(tmp_path / "statistics")
    assert drift.findings_of(run) is None
    row = history_row(run)
    assert (row.drift, row.drift_measured, row.stopped_in) == ("-", [], node_ids.EXAMPLE_VALIDATOR)
    assert row.stopped_because == []

"""The gate's reading of TFMA's validation: which failures the paired comparison may judge."""

from __future__ import annotations

from pathlib import Path

import pytest
import tensorflow as tf
from tensorflow_model_analysis.proto import validation_result_pb2 as vr
from tfx.types import standard_artifacts

from components.gated_evaluator import passes_but_for_auc_change, tolerated_drop, write_verdict
from modules import datasets
from pipeline_def.evaluation import eval_config


def _failure(name: str, is_diff: bool, column: str | None = None) -> vr.MetricsValidationForSlice:
    per_slice = vr.MetricsValidationForSlice()
    if column:
        per_slice.slice_key.single_slice_keys.add(column=column, bytes_value=b"Cash")
    failure = per_slice.failures.add()
    failure.metric_key.name = name
    failure.metric_key.is_diff = is_diff
    return per_slice


def _written(folder: Path, result: vr.ValidationResult) -> str:
    with tf.io.TFRecordWriter(str(folder / "validations.tfrecord")) as writer:
        writer.write(result.SerializeToString())
    return str(folder)


@pytest.mark.parametrize(
    ("failures", "missing_slices", "expected"),
    [
        ([], False, True),
        ([("auc", True, None)], False, True),  # the comparison judges this one
        ([("auc", False, None)], False, False),  # below the absolute bound
        ([("auc", True, None), ("auc", False, None)], False, False),
        ([("auc", True, "payment_type")], False, False),  # a slice's, not the overall
        ([("auc_pr", True, None)], False, False),
        ([("auc", True, None)], True, False),
    ],
    ids=["none", "auc-change", "auc-bound", "both", "slice", "other-metric", "missing-slice"],
)
def test_only_the_overall_auc_change_is_left_to_the_paired_comparison(
    failures, missing_slices, expected, tmp_path
):
    result = vr.ValidationResult(validation_ok=not failures and not missing_slices)
    for name, is_diff, column in failures:
        result.metric_validations_per_slice.append(_failure(name, is_diff, column))
    if missing_slices:
        result.missing_slices.add(feature_keys=["company"])
    assert passes_but_for_auc_change(_written(tmp_path, result)) is expected


@pytest.mark.parametrize("blessed", [True, False])
def test_the_verdict_is_rewritten_as_tfx_writes_it(blessed, tmp_path):
    blessing = standard_artifacts.ModelBlessing()
    blessing.uri = str(tmp_path)
    (tmp_path / "NOT_BLESSED" if blessed else tmp_path / "BLESSED").write_text("")
    blessing.set_int_custom_property("blessed", 0 if blessed else 1)
    write_verdict(blessing, blessed)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["BLESSED" if blessed else "NOT_BLESSED"]
    assert blessing.get_int_custom_property("blessed") == int(blessed)


def test_the_tolerated_drop_is_the_auc_change_bound_of_the_config():
    config = eval_config(datasets.load("taxi"), min_auc=0.9, max_auc_drop=0.02)
    assert tolerated_drop(config) == pytest.approx(0.02)
    for metric in config.metrics_specs[0].metrics:
        metric.ClearField("per_slice_thresholds")
    assert tolerated_drop(config) is None

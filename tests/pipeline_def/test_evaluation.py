"""The Evaluator's config: derived from the features module, gated on the whole split and,
with the dataset's slice bound, on each slice of its slice columns."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from google.protobuf import json_format

from components.gated_evaluator import GATED_METRIC, GatedEvaluatorExecutor, with_min_auc
from components.steps_trainer import StepsTrainerExecutor
from datasets.taxi import DATASET as TAXI
from modules.features import DatasetDeclaration
from pipeline_def import evaluation
from review.records import SLICE_COLUMNS


def test_slices_are_raw_columns_and_the_label_is_derived():
    config = evaluation.eval_config(TAXI, min_auc=0.9, max_auc_drop=0.01)
    assert set(TAXI.slices) <= set(TAXI.raw_feature_columns())
    assert [list(s.feature_keys) for s in config.slicing_specs] == [[]] + [[c] for c in TAXI.slices]
    assert config.model_specs[0].label_key == TAXI.label_key


def _gated(dataset: DatasetDeclaration) -> list[dict]:
    config = json_format.MessageToDict(
        evaluation.eval_config(dataset, min_auc=0.9, max_auc_drop=0.01)
    )
    gated = [m for m in config["metricsSpecs"][0]["metrics"] if "perSliceThresholds" in m]
    assert [json.loads(m["config"])["name"] for m in gated] == [GATED_METRIC]
    return gated[0]["perSliceThresholds"]


def test_only_auc_is_gated_on_the_whole_split_and_by_change_on_each_slice():
    overall, slices = _gated(TAXI)
    assert overall["slicingSpecs"] == [{}]
    assert overall["threshold"]["valueThreshold"]["lowerBound"] == 0.9
    assert overall["threshold"]["changeThreshold"]["absolute"] == -0.01
    # One spec a column: TFMA applies the threshold to each of the column's slices.
    assert slices["slicingSpecs"] == [{"featureKeys": [c]} for c in TAXI.slices]
    assert slices["threshold"] == {
        "changeThreshold": {"absolute": -TAXI.slice_max_auc_drop, "direction": "HIGHER_IS_BETTER"}
    }


def test_without_a_slice_bound_slices_are_reported_not_gated():
    (overall,) = _gated(replace(TAXI, slice_max_auc_drop=None))
    assert overall["slicingSpecs"] == [{}]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"slice_max_auc_drop": 1.5}, r"slice_max_auc_drop must be in \[0, 1\]"),
        ({"slice_min_rows": 0}, "slice_min_rows must be positive"),
        ({"slices": ()}, "a slice bound needs slices"),
    ],
)
def test_a_slice_bound_out_of_range_is_refused(change, message):
    with pytest.raises(ValueError, match=message):
        replace(TAXI, **change)


def test_the_run_time_bound_replaces_the_compiled_one_on_auc_only():
    compiled = evaluation.eval_config(TAXI, min_auc=0.9, max_auc_drop=0.01)
    at_run_time = json_format.MessageToDict(with_min_auc(compiled, 0.97))
    thresholds = {
        json.loads(m["config"])["name"]: m["perSliceThresholds"][0]["threshold"]
        for m in at_run_time["metricsSpecs"][0]["metrics"]
        if "perSliceThresholds" in m
    }
    assert thresholds[GATED_METRIC]["valueThreshold"]["lowerBound"] == 0.97
    assert thresholds[GATED_METRIC]["changeThreshold"]["absolute"] == -0.01
    # The compiled config itself is left as it was.
    assert json_format.MessageToDict(compiled) != at_run_time


def test_every_metric_the_reviews_show_is_computed():
    computed = {name for _, name in evaluation.METRICS}
    assert {c.metric for c in SLICE_COLUMNS} <= computed


@pytest.mark.parametrize(
    ("executor", "properties", "message"),
    [
        (
            GatedEvaluatorExecutor,
            {"min_auc": 1.5, "eval_config": "{}"},
            r"min_auc must be in \[0, 1\]",
        ),
        (StepsTrainerExecutor, {"train_steps": 0}, "train_steps must be positive"),
    ],
)
def test_run_time_values_out_of_range_stop_the_step(executor, properties, message):
    # A run started from the KFP UI can set them to anything: refused before any work.
    with pytest.raises(ValueError, match=message):
        executor().Do({}, {}, properties)

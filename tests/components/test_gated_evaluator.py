"""The gate's reading of TFMA's validation: which failures the paired comparison may judge,
the slice bound's decision, and the candidate's name in every evaluation."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf
import tensorflow_model_analysis as tfma
from tensorflow_model_analysis.proto import validation_result_pb2 as vr
from tfx.types import Artifact, standard_artifacts

import datasets
from components import gated_evaluator
from components.gated_evaluator import passes_but_for_auc_change, tolerated_drop, write_verdict
from data_layout.properties import AUC_CHANGE_INTERVAL, HELD_SLICES
from pipeline_def.evaluation import eval_config
from review.error_rates import HeldRates
from review.paired_comparison import Comparison, SliceComparison


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
        ([("auc", True, "payment_type")], False, True),  # a slice's: judged per slice
        ([("auc", False, "payment_type")], False, False),  # not a change bound
        ([("auc_pr", True, None)], False, False),
        ([("auc", True, None)], True, False),
    ],
    ids=[
        "none", "auc-change", "auc-bound", "both", "slice-change", "slice-bound",
        "other-metric", "missing-slice",
    ],
)  # fmt: skip
def test_only_the_auc_change_bounds_are_left_to_the_paired_comparison(
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


def test_the_slice_bound_is_its_own_tolerated_drop():
    config = eval_config(datasets.load("taxi"), min_auc=0.9, max_auc_drop=0.02)
    assert tolerated_drop(config, overall=False) == pytest.approx(0.05)
    assert tolerated_drop(config) == pytest.approx(0.02)


def test_the_failed_slices_are_named_as_the_comparisons_name_them(tmp_path):
    result = vr.ValidationResult(validation_ok=False)
    for name, is_diff, column in [
        ("auc", True, None),
        ("auc", True, "payment_type"),
        ("auc", False, "company"),
        ("auc_pr", True, "company"),
    ]:
        result.metric_validations_per_slice.append(_failure(name, is_diff, column))
    hour = result.metric_validations_per_slice.add()
    hour.slice_key.single_slice_keys.add(column="trip_start_hour", int64_value=7)
    hour_failure = hour.failures.add()
    hour_failure.metric_key.name, hour_failure.metric_key.is_diff = "auc", True
    assert gated_evaluator.failed_slices(_written(tmp_path, result)) == {
        "payment_type=Cash",
        "trip_start_hour=7",
    }


@pytest.fixture
def auc_change_failed(tmp_path: Path) -> tuple[Artifact, Artifact]:
    """An evaluation TFMA failed on the AUC change bound alone, and its blessing to write."""
    result = vr.ValidationResult(validation_ok=False)
    result.metric_validations_per_slice.append(_failure("auc", True))
    evaluation = standard_artifacts.ModelEvaluation()
    evaluation.uri = _written(tmp_path, result)
    blessing = standard_artifacts.ModelBlessing()
    blessing.uri = str(tmp_path / "blessing")
    return evaluation, blessing


def _slice(value: str, rows: int, low: float, high: float) -> SliceComparison:
    comparison = Comparison(rows, 0.8, 0.85, low, high, tolerance=0.05)
    return SliceComparison("company", value, rows, rows // 4, comparison, gated=rows >= 100)


def test_a_slice_failure_stands_only_beyond_noise_on_a_large_enough_slice():
    slices = [
        _slice("beyond", 300, -0.20, -0.08),  # wholly below -0.05: held
        _slice("within", 300, -0.12, -0.01),  # TFMA's point failure, within the noise
        _slice("small", 60, -0.40, -0.20),  # far below, but under slice_min_rows
        SliceComparison("company", "one class", 150, 0, None, "no positive example", gated=True),
        _slice("passed", 300, -0.20, -0.08),  # TFMA did not fail it: not judged
    ]
    failed = {"company=beyond", "company=within", "company=small", "company=one class"}
    judged = {s.value: s.held for s in gated_evaluator.judge_slices(slices, failed)}
    assert judged == {"beyond": True, "within": False, "small": False, "one class": False,
                      "passed": False}  # fmt: skip


def test_a_failed_slice_nothing_compared_stands():
    (unmatched,) = gated_evaluator.judge_slices([], {"company=New Cab Co"})
    assert unmatched.held and unmatched.name == "company=New Cab Co"
    assert "company=New Cab Co (no paired comparison)" in gated_evaluator.describe_held([unmatched])


def test_the_verdict_names_the_slices_that_held_the_candidate_back():
    slices = gated_evaluator.judge_slices(
        [_slice("Flash Cab", 300, -0.2, -0.08), _slice("Yellow", 300, -0.1, 0.02)],
        {"company=Flash Cab", "company=Yellow"},
    )
    assert gated_evaluator.describe_held(slices) == (
        "held back on 1 slice: company=Flash Cab -0.0500 (95% interval -0.2000 to -0.0800, "
        "300 rows, bound -0.0500)"
    )
    assert gated_evaluator.describe_held(slices[1:]) == ""


@pytest.mark.parametrize(
    ("high", "held", "blessed"),
    [(0.01, False, True), (-0.02, False, False), (0.01, True, False)],
    ids=["within-noise", "worse-overall", "held-on-a-slice"],
)
def test_the_blessing_records_the_comparison_and_the_slices_that_held_it(
    high, held, blessed, auc_change_failed, tmp_path
):
    # TFMA failed the AUC change bounds only: the paired comparisons decide.
    evaluation, blessing = auc_change_failed
    overall = Comparison(800, 0.89, 0.9, -0.04, high, tolerance=0.01)
    slices = gated_evaluator.judge_slices(
        [_slice("Flash Cab", 300, -0.2, -0.08 if held else 0.01)], {"company=Flash Cab"}
    )
    gated_evaluator.bless(blessing, evaluation, overall, slices)
    assert (tmp_path / "blessing" / ("BLESSED" if blessed else "NOT_BLESSED")).exists()
    assert blessing.get_int_custom_property("blessed") == int(blessed)
    recorded = blessing.get_string_custom_property(AUC_CHANGE_INTERVAL)
    assert recorded.startswith(overall.describe())
    assert ("held back on 1 slice: company=Flash Cab -0.0500" in recorded) is held
    names = json.loads(blessing.get_string_custom_property(HELD_SLICES))
    assert names == (["company=Flash Cab"] if held else [])


RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "runs" / "pipeline" / "Evaluator"


def _recorded(with_baseline: bool) -> Path:
    """A recorded evaluation (tests/fixtures/runs) with or without a serving model."""
    for evaluation in sorted((RECORDED / "evaluation").iterdir(), key=lambda p: int(p.name)):
        run = json.loads((evaluation / "eval_config.json").read_text())
        if (len(run["evalConfig"]["modelSpecs"]) == 2) is with_baseline:
            return evaluation
    raise AssertionError("no such recorded evaluation")


def _as_tfma_wrote_it(evaluation: Path, folder: Path) -> Path:
    """A copy of a lone model's evaluation with the model named "", as TFMA names it."""
    shutil.copytree(evaluation, folder)
    for prefix, message in gated_evaluator._RECORD_FILES.items():
        for path in folder.glob(f"{prefix}*"):
            records = [message.FromString(r.numpy()) for r in tf.data.TFRecordDataset(str(path))]
            with tf.io.TFRecordWriter(str(path)) as writer:
                for record in records:
                    gated_evaluator._rename_models(record, gated_evaluator.CANDIDATE_NAME, "")
                    writer.write(record.SerializeToString())
    config = (folder / "eval_config.json").read_text().replace('"candidate"', '""')
    (folder / "eval_config.json").write_text(config.replace('"name": "",', ""))
    return folder


def test_every_model_name_in_the_output_is_renamed_and_nothing_else():
    evaluation = _recorded(with_baseline=True)
    renamed = 0
    for prefix, message in gated_evaluator._RECORD_FILES.items():
        for path in evaluation.glob(f"{prefix}*"):
            for raw in tf.data.TFRecordDataset(str(path)):
                record = message.FromString(raw.numpy())
                before = str(record)  # the text form lists every field, however deep
                gated_evaluator._rename_models(record, gated_evaluator.CANDIDATE_NAME, "other")
                after = str(record)
                named = before.count('model_name: "candidate"')
                assert after.count('model_name: "other"') == named
                assert after.replace('model_name: "other"', 'model_name: "candidate"') == before
                renamed += named
    assert renamed > 100  # metrics, plots and validations of each slice


@pytest.mark.slow  # runs TFMA
def test_the_candidate_has_one_name_with_and_without_a_serving_model(tmp_path):
    alone, compared = _recorded(with_baseline=False), _recorded(with_baseline=True)
    raw = _as_tfma_wrote_it(alone, tmp_path / "alone")
    # As TFMA leaves it, the lone model cannot be followed across runs by its name.
    found = tfma.load_eval_results(
        [str(raw), str(compared)], model_name=gated_evaluator.CANDIDATE_NAME
    )
    assert [bool(r.slicing_metrics) for r in found.get_results()] == [False, True]
    gated_evaluator.name_the_candidate(str(raw))
    for evaluation in (raw, alone, compared):  # renamed here, and as the fixtures recorded it
        found = tfma.load_eval_results([str(evaluation)], model_name=gated_evaluator.CANDIDATE_NAME)
        (result,) = found.get_results()
        auc = dict(result.slicing_metrics)[()][""][""]["auc"]["doubleValue"]
        assert 0.5 < auc <= 1 and result.model_location.endswith("Format-Serving")
    found = tfma.load_eval_results(
        [str(raw), str(compared)], model_name=gated_evaluator.CANDIDATE_NAME
    )
    assert all(r.slicing_metrics for r in found.get_results())


def test_an_error_rate_beyond_the_bound_holds_the_candidate_back(auc_change_failed, tmp_path):
    evaluation, blessing = auc_change_failed
    within = Comparison(800, 0.9, 0.9, -0.01, 0.01, tolerance=0.01)
    rate = "company=Cab FNR at 0.25: 0.060 against 0.005 (gap 95% interval +0.025 to +0.095)"
    gated_evaluator.bless(blessing, evaluation, within, [], HeldRates(0.02, [rate]))
    assert (tmp_path / "blessing" / "NOT_BLESSED").exists()
    recorded = blessing.get_string_custom_property(AUC_CHANGE_INTERVAL)
    assert recorded.endswith(f"; held back on error rates: {rate}")
    # No bound declared: the rates are not read, nothing is held.
    assert gated_evaluator.held_rates(evaluation, 100, None) is None


def test_without_a_paired_comparison_the_error_rate_bound_still_gates(auc_change_failed):
    evaluation, blessing = auc_change_failed
    # Every row of one class: no honest interval, so no paired comparison.
    one_class = (np.zeros(50), np.linspace(0.1, 0.9, 50), np.linspace(0.2, 0.8, 50))
    assert gated_evaluator.compare_with_serving(one_class, 0.01, evaluation, blessing) is None
    write_verdict(blessing, True)  # TFMA's verdict
    gated_evaluator.hold_on_rates_alone(blessing, HeldRates(0.02, [], ""))
    recorded = blessing.get_string_custom_property(AUC_CHANGE_INTERVAL)
    assert recorded.startswith("no paired comparison: ") and "error rates" not in recorded
    assert Path(blessing.uri, "BLESSED").exists()  # within the bound: TFMA's verdict stands
    why = "no rate has rows of its class on both the candidate and the serving model"
    gated_evaluator.hold_on_rates_alone(blessing, HeldRates(0.02, [], why))
    assert blessing.get_string_custom_property(AUC_CHANGE_INTERVAL).endswith(
        f"; error rates not judged ({why})"
    )
    rate = "Overall FNR at 0.5: 0.200 against 0.050 (gap 95% interval +0.050 to +0.250)"
    gated_evaluator.hold_on_rates_alone(blessing, HeldRates(0.02, [rate]))
    assert Path(blessing.uri, "NOT_BLESSED").exists() and not Path(blessing.uri, "BLESSED").exists()
    assert blessing.get_string_custom_property(AUC_CHANGE_INTERVAL).endswith(
        f"; held back on error rates: {rate}"
    )

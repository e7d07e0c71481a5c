"""The Evaluator's TFMA config, derived from the dataset's declaration and the pipeline config."""

from __future__ import annotations

import json

from tensorflow_model_analysis.proto import config_pb2

from modules import exact_auc, export
from modules.features import DatasetDeclaration
from review.calibration import BRIER_SCORE
from review.error_rates import RATES_AT_THRESHOLDS
from review.paired_comparison import GATED_METRIC

# (TFMA class, metric name as stored). Names are pinned so the review and the
# summary read them by name whatever TFMA's defaults become. The AUC is ranked
# exactly (``modules.exact_auc``): the gate, the paired comparison and every view
# then hold one figure.
METRICS: tuple[tuple[str, str], ...] = (
    ("ExampleCount", "example_count"),
    (exact_auc.EXACT_AUC, GATED_METRIC),
    ("AUCPrecisionRecall", "auc_pr"),
    ("BinaryAccuracy", "binary_accuracy"),
    ("Precision", "precision"),
    ("Recall", "recall"),
    ("Calibration", "calibration"),
    ("MeanLabel", "mean_label"),
    ("MeanPrediction", "mean_prediction"),
    # For a 0/1 label and a probability, the mean squared error is the Brier score.
    ("MeanSquaredError", BRIER_SCORE),
)
# The confusion matrices at thresholds give the ROC and precision-recall curves;
# 200 points draw a smooth curve at a fifth of TFMA's default cost per slice. The
# review merges 1,000 calibration buckets into bins of enough rows each
# (review/calibration.py): a confident model puts most rows below 0.001.
PLOTS: tuple[tuple[str, dict[str, int]], ...] = (
    ("CalibrationPlot", {"num_buckets": 1000}),
    ("ConfusionMatrixPlot", {"num_thresholds": 200}),
)


def _gate(min_auc: float, max_auc_drop: float) -> config_pb2.MetricThreshold:
    return config_pb2.MetricThreshold(
        value_threshold=config_pb2.GenericValueThreshold(lower_bound={"value": min_auc}),
        change_threshold=config_pb2.GenericChangeThreshold(
            direction=config_pb2.MetricDirection.HIGHER_IS_BETTER,
            absolute={"value": -max_auc_drop},
        ),
    )


def _slice_gate(dataset: DatasetDeclaration) -> config_pb2.PerSliceMetricThreshold | None:
    """The dataset's slice bound as TFMA's change threshold on each slice of its columns.

    A spec ``feature_keys=[column]`` applies the threshold to every value of the
    column. TFMA judges every slice, the smallest included (its ``min_slice_size``
    would drop small slices and then report their metrics as missing, which fails
    the validation): the GatedEvaluator leaves a slice's failure standing only where
    the slice has ``slice_min_rows`` rows and the paired interval lies below the bound.
    """
    if dataset.slice_max_auc_drop is None:
        return None
    return config_pb2.PerSliceMetricThreshold(
        slicing_specs=[config_pb2.SlicingSpec(feature_keys=[column]) for column in dataset.slices],
        threshold=config_pb2.MetricThreshold(
            change_threshold=config_pb2.GenericChangeThreshold(
                direction=config_pb2.MetricDirection.HIGHER_IS_BETTER,
                absolute={"value": -dataset.slice_max_auc_drop},
            )
        ),
    )


def _metric(
    class_name: str,
    name: str,
    threshold: config_pb2.MetricThreshold | None,
    slice_gate: config_pb2.PerSliceMetricThreshold | None = None,
) -> config_pb2.MetricConfig:
    config = config_pb2.MetricConfig(class_name=class_name, config=json.dumps({"name": name}))
    if class_name == exact_auc.EXACT_AUC:
        config.module = exact_auc.__name__
    if threshold is not None:
        # The absolute bound and the overall change bound, on the whole split.
        config.per_slice_thresholds.append(
            config_pb2.PerSliceMetricThreshold(
                slicing_specs=[config_pb2.SlicingSpec()], threshold=threshold
            )
        )
    if slice_gate is not None:
        config.per_slice_thresholds.append(slice_gate)
    return config


def eval_config(
    dataset: DatasetDeclaration, min_auc: float, max_auc_drop: float
) -> config_pb2.EvalConfig:
    """Metrics and plots by the dataset's slices, with AUC gated by an absolute and a change bound.

    The change bound compares with the baseline, the model that serves; while none
    serves, the Evaluator drops it and applies the absolute bound only. The absolute
    bound is also a run-time parameter (``min_auc``), which replaces this value. With
    the dataset's slice bound, AUC also has a change bound on each slice of its slice
    columns (``_slice_gate``).
    """
    gate, slice_gate = _gate(min_auc, max_auc_drop), _slice_gate(dataset)
    metrics = [
        _metric(cls, name, gate, slice_gate) if name == GATED_METRIC else _metric(cls, name, None)
        for cls, name in METRICS
    ]
    metrics += [
        config_pb2.MetricConfig(class_name=cls, config=json.dumps(cfg)) for cls, cfg in PLOTS
    ]
    # The counts at the dataset's decision thresholds, each exact (as Fairness
    # Indicators counts them): the review's error rates by slice and their intervals.
    metrics.append(
        config_pb2.MetricConfig(
            class_name="ConfusionMatrixAtThresholds",
            config=json.dumps(
                {"name": RATES_AT_THRESHOLDS, "thresholds": list(dataset.review_thresholds)}
            ),
        )
    )
    return config_pb2.EvalConfig(
        model_specs=[
            config_pb2.ModelSpec(
                signature_name=export.SERVING_DEFAULT,
                label_key=dataset.label_key,
                prediction_key=dataset.prediction_key,
                preprocessing_function_names=[export.TRANSFORM_FEATURES],
            )
        ],
        slicing_specs=[config_pb2.SlicingSpec()]
        + [config_pb2.SlicingSpec(feature_keys=[column]) for column in dataset.slices],
        metrics_specs=[config_pb2.MetricsSpec(metrics=metrics)],
    )

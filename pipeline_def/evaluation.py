"""The Evaluator's TFMA config, derived from the features module and the pipeline config."""

from __future__ import annotations

import tensorflow_model_analysis as tfma

from modules import export
from modules import features as F

# Slices people look at: payment type dominates tipping, hour and company shift it.
SLICE_COLUMNS: tuple[str, ...] = ("payment_type", "trip_start_hour", "company")
GATING_METRIC = "auc"


def eval_config(min_auc: float, max_auc_drop: float | None) -> tfma.EvalConfig:
    """Metrics by slice, with AUC gated by an absolute bound and a change bound.

    The change bound (absent when ``max_auc_drop`` is None: no baseline is wired)
    compares with the baseline, the latest blessed model; on the first run, with no
    blessed model yet, TFMA applies the absolute bound only.
    """
    auc_threshold = tfma.MetricThreshold(
        value_threshold=tfma.GenericValueThreshold(lower_bound={"value": min_auc})
    )
    if max_auc_drop is not None:
        auc_threshold.change_threshold.CopyFrom(
            tfma.GenericChangeThreshold(
                direction=tfma.MetricDirection.HIGHER_IS_BETTER,
                absolute={"value": -max_auc_drop},
            )
        )
    metrics = [
        tfma.MetricConfig(class_name="ExampleCount"),
        tfma.MetricConfig(
            class_name="AUC",
            config='{"name": "auc"}',
            # Gate on the whole eval split: small slices are reported, not gated.
            per_slice_thresholds=[
                tfma.PerSliceMetricThreshold(
                    slicing_specs=[tfma.SlicingSpec()], threshold=auc_threshold
                )
            ],
        ),
        tfma.MetricConfig(class_name="BinaryAccuracy", config='{"name": "binary_accuracy"}'),
    ]
    return tfma.EvalConfig(
        model_specs=[
            tfma.ModelSpec(
                signature_name=export.SERVING_DEFAULT,
                label_key=F.transformed_name(F.LABEL.name),
                preprocessing_function_names=[export.TRANSFORM_FEATURES],
            )
        ],
        slicing_specs=[tfma.SlicingSpec()]
        + [tfma.SlicingSpec(feature_keys=[column]) for column in SLICE_COLUMNS],
        metrics_specs=[tfma.MetricsSpec(metrics=metrics)],
    )

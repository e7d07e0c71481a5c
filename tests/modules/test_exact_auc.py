"""The exact AUC: the ranking formula, and TFMA computing it as its metric."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import tensorflow_model_analysis as tfma
from sklearn.metrics import roc_auc_score
from tensorflow_model_analysis.proto import config_pb2

from modules import exact_auc


@pytest.fixture(scope="module")
def confident_scores() -> tuple[np.ndarray, np.ndarray]:
    """A confident model's float32 scores: most rows below 1e-4, where TFMA's grid ties them."""
    rng = np.random.default_rng(3)
    logits = rng.normal(-9.0, 5.0, 4000)
    labels = (rng.random(4000) < 1 / (1 + np.exp(-(0.6 * logits + 2.5)))).astype(int)
    return labels, (1 / (1 + np.exp(-logits))).astype(np.float32).astype(float)


def _tfma_aucs(
    labels: np.ndarray, scores: np.ndarray, tmp_path: Path, metrics: dict[str, tuple[str, str]]
) -> dict[str, float]:
    """TFMA's figures for ``metrics`` (stored name: (class, module)) on labelled scores."""
    config = config_pb2.EvalConfig(
        model_specs=[config_pb2.ModelSpec(label_key="label", prediction_key="prediction")],
        slicing_specs=[config_pb2.SlicingSpec()],
        metrics_specs=[
            config_pb2.MetricsSpec(
                metrics=[
                    config_pb2.MetricConfig(
                        class_name=cls, module=module, config=json.dumps({"name": name})
                    )
                    for name, (cls, module) in metrics.items()
                ]
            )
        ],
    )
    frame = pd.DataFrame({"label": labels.astype(float), "prediction": scores})
    result = tfma.analyze_raw_data(frame, config, output_path=str(tmp_path))
    (_, by_output), *_ = result.slicing_metrics
    return {name: value["doubleValue"] for name, value in by_output[""][""].items()}


def test_auc_is_the_ranking_chance_with_ties_halved() -> None:
    labels = np.array([0, 0, 1, 1, 0, 1])
    scores = np.array([0.1, 0.4, 0.4, 0.8, 0.2, 0.1])
    assert exact_auc.auc(labels, scores) == pytest.approx(roc_auc_score(labels, scores))


@pytest.mark.parametrize("labels", [np.zeros(5), np.ones(5)])
def test_one_class_has_no_auc(labels: np.ndarray) -> None:
    assert math.isnan(exact_auc.auc(labels, np.linspace(0, 1, 5)))


@pytest.mark.slow  # runs TFMA's Beam pipeline
def test_tfma_computes_the_exact_auc_its_grid_misses(
    confident_scores: tuple[np.ndarray, np.ndarray], tmp_path: Path
) -> None:
    labels, scores = confident_scores
    exact = exact_auc.auc(labels, scores)
    figures = _tfma_aucs(
        labels,
        scores,
        tmp_path,
        {"exact": (exact_auc.EXACT_AUC, exact_auc.__name__), "grid": ("AUC", "")},
    )
    assert figures["exact"] == pytest.approx(exact, abs=1e-12)
    # The case the metric exists for: TFMA's own AUC is off in the fourth decimal.
    assert abs(figures["grid"] - exact) > 1e-4

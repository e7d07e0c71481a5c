"""A briefly trained taxi model exported as the Trainer exports it, and rows it scored."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from transform_run import example_bytes

from modules import export
from modules.datasets.taxi import DATASET as TAXI
from modules.hparams import HParams
from modules.model import build_model
from modules.training import cardinalities
from review.paired_comparison import model_scores
from serving.sample import SAMPLE_ROWS, ScoredSample


@pytest.fixture(scope="session")
def served_model(transformed, tmp_path_factory) -> Path:
    """The SavedModel of a taxi model trained for one epoch on Transform's output."""
    model = build_model(TAXI, cardinalities(TAXI, transformed.output), HParams(hidden_units=(8,)))
    label = TAXI.label_key
    inputs = {
        name: np.array([[row[name]] for row in transformed.rows])
        for name in transformed.rows[0]
        if name != label
    }
    labels = np.array([[row[label]] for row in transformed.rows], dtype="float32")
    model.fit(inputs, labels, epochs=1, batch_size=64, verbose=0)
    path = tmp_path_factory.mktemp("served") / "model"
    export.export(TAXI, model, transformed.output, str(path))
    return path


@pytest.fixture(scope="session")
def scored(transformed, served_model) -> ScoredSample:
    """The first rows as serialized examples, and the model's scores of them in process."""
    columns = TAXI.raw_feature_columns()
    examples = [example_bytes(i, transformed.spec, columns) for i in transformed.instances]
    examples = examples[:SAMPLE_ROWS]
    scores = model_scores(str(served_model), examples, TAXI.prediction_key)
    return ScoredSample(tuple(examples), tuple(scores.tolist()), TAXI.prediction_key)

"""SavedModels for the serving tests: the raw signature's columns, and tiny models of any answer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import tensorflow as tf

from datasets.taxi import DATASET as TAXI
from modules.features import serving_argument

COLUMNS = {serving_argument(c): c for c in TAXI.raw_feature_columns()}


def tiny_model(path: Path, output: Callable[[tf.Tensor], tf.Tensor] | None = None) -> Path:
    """A SavedModel whose ``serving_default`` answers ``output`` of the examples' lengths,
    or each example's length as its one score."""

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="examples")])
    def serve(examples: tf.Tensor) -> dict:
        size = tf.cast(tf.strings.length(examples), tf.float32)
        return {TAXI.prediction_key: output(size) if output else tf.reshape(size, [-1, 1])}

    tf.saved_model.save(tf.Module(), str(path), signatures={"serving_default": serve})
    return path

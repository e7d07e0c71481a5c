"""Rows through a real tf.Transform analysis in process, as TFX writes it; a model fit on them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
import tensorflow as tf
import tensorflow_transform as tft
import tensorflow_transform.beam as tft_beam
from tensorflow_transform.tf_metadata import metadata_io, schema_utils


def analyze_and_write(
    fn: Callable[[dict], dict],
    instances: list[dict],
    spec: dict,
    factory: pytest.TempPathFactory,
) -> tuple[list[dict], dict, tft.TFTransformOutput]:
    """The transformed rows, their feature spec, and the written transform graph's output."""
    metadata = tft.DatasetMetadata.from_feature_spec(spec)
    out_dir = str(factory.mktemp("transform_fn"))
    with tft_beam.Context(temp_dir=str(factory.mktemp("tft_tmp"))):
        (rows, transformed), transform_fn = (
            instances,
            metadata,
        ) | tft_beam.AnalyzeAndTransformDataset(fn)
        _ = transform_fn | tft_beam.WriteTransformFn(out_dir)
    # The raw schema too, as TFX's Transform writes it: serving signatures parse with it.
    metadata_io.write_metadata(metadata, f"{out_dir}/{tft.TFTransformOutput.RAW_METADATA_DIR}")
    feature_spec = schema_utils.schema_as_feature_spec(transformed.schema).feature_spec
    return rows, feature_spec, tft.TFTransformOutput(out_dir)


def example_bytes(
    instance: dict[str, list], spec: dict, columns: Sequence[str], drop: tuple[str, ...] = ()
) -> bytes:
    """An instance's ``columns`` (but ``drop``) as a serialized ``tf.Example``, each of the
    kind ``spec`` gives it; an empty value is left out, as a CSV's empty cell is."""
    features = {}
    for name in columns:
        values = instance[name]
        if name in drop or not values:
            continue
        dtype = spec[name].dtype
        if dtype == tf.string:
            feature = tf.train.Feature(
                bytes_list=tf.train.BytesList(value=[v.encode() for v in values])
            )
        elif dtype == tf.int64:
            feature = tf.train.Feature(int64_list=tf.train.Int64List(value=values))
        else:
            feature = tf.train.Feature(float_list=tf.train.FloatList(value=values))
        features[name] = feature
    return tf.train.Example(features=tf.train.Features(feature=features)).SerializeToString()


def fit_taxi(transformed: Any, hidden_units: tuple[int, ...], epochs: int) -> tuple[Any, dict]:
    """A taxi model fit briefly on ``transformed`` (conftest's TransformRun): the model,
    and the transformed inputs it was fit on."""
    from datasets.taxi import DATASET as TAXI
    from modules.hparams import HParams
    from modules.model import build_model
    from modules.training import cardinalities

    model = build_model(TAXI, cardinalities(TAXI, transformed.output), HParams(hidden_units))
    label = TAXI.label_key
    rows = transformed.rows
    inputs = {name: np.array([[row[name]] for row in rows]) for name in rows[0] if name != label}
    labels = np.array([[row[label]] for row in rows], dtype="float32")
    model.fit(inputs, labels, epochs=epochs, batch_size=64, verbose=0)
    return model, inputs

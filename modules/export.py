"""Serving signatures and the SavedModel export.

- ``serving_default``: serialized raw ``tf.Example``s (no label) -> the label's
  probability, under the dataset's ``prediction_key``.
  Transform's graph runs inside, so serving sees exactly the training features.
- ``serving_raw``: the raw columns as named tensors, one value per example, for
  REST clients that send JSON instead of serialized protos (each argument is named
  as its column, any character other than a letter, digit or ``_`` as ``_``:
  ``features.serving_argument``).
- ``transform_features``: serialized raw examples -> transformed features (label
  included), which TFMA uses to compute the label during evaluation.
"""

from __future__ import annotations

import tensorflow as tf
import tensorflow_transform as tft

from modules.features import DatasetDeclaration, serving_argument
from modules.keras_setup import keras

SERVING_DEFAULT = "serving_default"
SERVING_RAW = "serving_raw"
TRANSFORM_FEATURES = "transform_features"


def _raw_spec(
    dataset: DatasetDeclaration, tf_transform_output: tft.TFTransformOutput, with_label: bool
) -> dict:
    """The raw columns a signature parses: the model's, and the label's when asked."""
    wanted = set(dataset.raw_feature_columns())
    if with_label:
        wanted |= set(dataset.label.columns)
    return {k: v for k, v in tf_transform_output.raw_feature_spec().items() if k in wanted}


def _column_as_parsed(value: tf.Tensor, spec: tf.io.VarLenFeature | tf.io.FixedLenFeature):
    """A [batch] tensor in the form ``tf.io.parse_example`` gives for ``spec``."""
    if isinstance(spec, tf.io.FixedLenFeature):
        return tf.reshape(value, [-1, *spec.shape])
    batch = tf.shape(value, out_type=tf.int64)[0]
    rows = tf.range(batch)
    indices = tf.stack([rows, tf.zeros_like(rows)], axis=1)
    return tf.SparseTensor(indices, value, tf.stack([batch, tf.constant(1, tf.int64)]))


def _signatures(
    dataset: DatasetDeclaration,
    model: keras.Model,
    tft_layer: keras.Model,
    tf_transform_output: tft.TFTransformOutput,
) -> dict:
    """The three serving signatures of ``model``, as concrete functions."""
    serving_spec = _raw_spec(dataset, tf_transform_output, with_label=False)
    full_spec = _raw_spec(dataset, tf_transform_output, with_label=True)

    def predict(raw: dict) -> dict:
        transformed = tft_layer(raw)
        transformed.pop(dataset.label_key, None)
        return {dataset.prediction_key: model(transformed, training=False)}

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="examples")])
    def serve_examples(examples: tf.Tensor) -> dict:
        return predict(tf.io.parse_example(examples, serving_spec))

    raw_inputs = [
        tf.TensorSpec([None], s.dtype, name=serving_argument(n))
        for n, s in sorted(serving_spec.items())
    ]

    @tf.function(input_signature=raw_inputs)
    def serve_raw(*columns: tf.Tensor) -> dict:
        raw = {
            name: _column_as_parsed(value, serving_spec[name])
            for name, value in zip(sorted(serving_spec), columns, strict=True)
        }
        return predict(raw)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="examples")])
    def transform_features(examples: tf.Tensor) -> dict:
        return tft_layer(tf.io.parse_example(examples, full_spec))

    return {
        SERVING_DEFAULT: serve_examples.get_concrete_function(),
        SERVING_RAW: serve_raw.get_concrete_function(),
        TRANSFORM_FEATURES: transform_features.get_concrete_function(),
    }


def export(
    dataset: DatasetDeclaration,
    model: keras.Model,
    tf_transform_output: tft.TFTransformOutput,
    path: str,
) -> None:
    """Save ``model``'s serving signatures, Transform graph and weights at ``path``.

    The SavedModel holds a plain ``tf.Module``, not the Keras model: serving needs
    only the signatures, and a Keras SavedModel also stores a traced function per
    layer and its compile state, which TFMA then revives, slower to load
    (docs/decisions/evaluation-cost.md).
    """
    module = tf.Module()
    # Tracked so the SavedModel carries Transform's assets (vocabularies)...
    module.tft_layer = tf_transform_output.transform_features_layer()
    # ...and the weights the signatures read, without the Keras objects around them.
    module.weights = list(model.variables)
    signatures = _signatures(dataset, model, module.tft_layer, tf_transform_output)
    tf.saved_model.save(module, path, signatures=signatures)

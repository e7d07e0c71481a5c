"""The Transform ``preprocessing_fn``: raw taxi columns to model-ready features.

Every output is a rank-1 tensor (one value per example) named by
``features.transformed_name``; which features exist and how they are encoded is
declared in ``modules.features``.

Analyzers see only the values that are present: numeric columns are analyzed as
SparseTensors, so a missing value never drags a mean or a quantile. All analyzers
run in one phase, and vocabularies use TFT's single-combiner approximate
vocabulary (exact while a column's distinct values fit in its ``top_k``): each
extra phase or multi-stage analyzer costs Beam stages and seconds.
"""

from __future__ import annotations

import math

import tensorflow as tf
import tensorflow_transform as tft

from modules import features as F

_SECONDS_PER_YEAR = 365.25 * 24 * 3600
# 2013-01-01T00:00:00Z, the start of the taxi data set.
_EPOCH_OF_DATA = 1356998400
MISSING_TOKEN = "__missing__"

Tensor = tf.Tensor | tf.SparseTensor


def _present(x: Tensor) -> tf.SparseTensor:
    """The column as a [batch, 1] SparseTensor of its usable values.

    Optional columns reach Transform as SparseTensors (the schema leaves every
    column optional); a column the schema requires comes dense. NaN and inf
    count as missing, and so do empty strings.
    """
    if not isinstance(x, tf.SparseTensor):
        dense = tf.reshape(x, [-1])
        count = tf.size(dense, out_type=tf.int64)
        rows = tf.range(count)
        x = tf.SparseTensor(tf.stack([rows, tf.zeros_like(rows)], 1), dense, [count, 1])
    x = tf.SparseTensor(x.indices, x.values, tf.stack([x.dense_shape[0], 1]))
    if x.dtype.is_floating:
        x = tf.sparse.retain(x, tf.math.is_finite(x.values))
    elif x.dtype == tf.string:
        x = tf.sparse.map_values(tf.strings.strip, x)
        x = tf.sparse.retain(x, tf.strings.length(x.values) > 0)
    return x


def _dense(x: tf.SparseTensor, default: float | int | str) -> tf.Tensor:
    """One value per example: the present value, else ``default``."""
    return tf.reshape(tf.sparse.to_dense(x, default_value=tf.cast(default, x.dtype)), [-1])


def _missing(x: tf.SparseTensor) -> tf.Tensor:
    """1.0 where the example has no usable value, else 0.0."""
    present = tf.SparseTensor(x.indices, tf.ones_like(x.values, tf.float32), x.dense_shape)
    return 1.0 - _dense(present, 0.0)


def _scaled(spec: F.Numeric, values: tf.SparseTensor) -> tf.SparseTensor:
    if spec.scaling is F.Scaling.LOG_Z:
        return tf.sparse.map_values(lambda v: tf.math.log1p(tf.maximum(v, 0.0)), values)
    return values


def _numerics(inputs: dict[str, Tensor], out: dict[str, tf.Tensor]) -> None:
    """z-scores, missing indicators and quantile buckets of every numeric column.

    The columns are stacked side by side so that one elementwise analyzer computes
    every column's mean and variance (bucketize takes no sparse elementwise input).
    Buckets are cut on the raw values: quantiles do not change under log scaling,
    and a computed value (log1p) can differ in its last bit between Beam's batches
    and a serving request, which flips a value sitting on a boundary (a fare of
    5.85, say) into the next bucket.
    """
    raw = {
        s.name: tf.sparse.map_values(tf.cast, _present(inputs[s.name]), tf.float32)
        for s in F.NUMERIC
    }
    stacked = tf.sparse.concat(1, [_scaled(s, raw[s.name]) for s in F.NUMERIC])
    # Missing values land at 0, the mean of the present ones, after z-scoring; the
    # indicator (when declared) and the extra bucket carry the absence.
    scaled = tf.sparse.to_dense(tft.scale_to_z_score(stacked, elementwise=True))
    for i, spec in enumerate(F.NUMERIC):
        out[F.transformed_name(spec.name)] = scaled[:, i]
        if spec.missing_indicator:
            out[F.transformed_name(F.missing_name(spec.name))] = _missing(raw[spec.name])
        if spec.bucket_count:
            buckets = tft.bucketize(raw[spec.name], spec.bucket_count)
            out[F.transformed_name(F.bucket_name(spec.name))] = _dense(buckets, spec.bucket_count)


def _integer_range(spec: F.IntegerRange, raw: Tensor) -> tf.Tensor:
    values = tf.cast(_dense(_present(raw), spec.low - 1), tf.int64)
    in_range = (values >= spec.low) & (values <= spec.high)
    # Out-of-range and missing values share the last id.
    return tf.where(in_range, values - spec.low, spec.size - 1)


def _tokens(present: tf.SparseTensor) -> tf.Tensor:
    """One string token per example.

    A missing value is a token of its own, so the model learns what absence means.
    """
    if present.dtype != tf.string:
        present = tf.sparse.map_values(
            lambda v: tf.strings.as_string(tf.cast(v, tf.int64)), present
        )
    return _dense(present, MISSING_TOKEN)


def _vocabulary(spec: F.Vocabulary, raw: Tensor, out: dict[str, tf.Tensor]) -> None:
    present = _present(raw)
    tokens = _tokens(present)
    vocabulary = tft.experimental.approximate_vocabulary(
        tokens, top_k=spec.top_k, vocab_filename=F.vocabulary_file(spec.name)
    )
    out[F.transformed_name(spec.name)] = tft.apply_vocabulary(
        tokens, vocabulary, num_oov_buckets=spec.num_oov_buckets
    )
    if spec.missing_indicator:
        out[F.transformed_name(F.missing_name(spec.name))] = _missing(present)


def _hashed(spec: F.Hashed, raw: Tensor, out: dict[str, tf.Tensor]) -> None:
    present = _present(raw)
    out[F.transformed_name(spec.name)] = tf.strings.to_hash_bucket_fast(
        _tokens(present), spec.hash_buckets
    )
    if spec.missing_indicator:
        out[F.transformed_name(F.missing_name(spec.name))] = _missing(present)


def _time_features(raw: Tensor, out: dict[str, tf.Tensor]) -> None:
    seconds = tf.cast(_dense(_present(raw), _EPOCH_OF_DATA), tf.float64)
    day_fraction = tf.math.floormod(seconds, 86400.0) / 86400.0
    angle = tf.cast(2.0 * math.pi * day_fraction, tf.float32)
    out[F.transformed_name(F.HOUR_SIN)] = tf.sin(angle)
    out[F.transformed_name(F.HOUR_COS)] = tf.cos(angle)
    years = tf.cast((seconds - _EPOCH_OF_DATA) / _SECONDS_PER_YEAR, tf.float32)
    out[F.transformed_name(F.YEARS_SINCE_START)] = tft.scale_to_z_score(years)


def _cross(spec: F.Cross, out: dict[str, tf.Tensor]) -> tf.Tensor:
    parts = [tf.strings.as_string(out[F.transformed_name(s)]) for s in spec.sources]
    return tf.strings.to_hash_bucket_fast(tf.strings.join(parts, "|"), spec.hash_buckets)


def _cents(x: tf.Tensor) -> tf.Tensor:
    return tf.round(tf.cast(x, tf.float64) * 100.0)


def label(inputs: dict[str, Tensor]) -> tf.Tensor:
    """1 where the tip exceeds the label's fraction of the fare; a missing fare gives 0.

    Compared in whole cents: amounts arrive as float32, and a tip of exactly 20%
    (5.01 on 25.05) must not tip over the line through rounding.
    """
    spec = F.LABEL
    fare = _present(inputs[spec.fare_column])
    fare_cents = _cents(_dense(fare, 0.0))
    tip_cents = _cents(_dense(_present(inputs[spec.tips_column]), 0.0))
    big = (tip_cents > spec.tip_fraction * fare_cents) & (_missing(fare) == 0.0)
    return tf.cast(big, tf.int64)


def preprocessing_fn(inputs: dict[str, Tensor]) -> dict[str, tf.Tensor]:
    """tf.Transform entry point: maps raw columns to the features in ``modules.features``.

    At serving time the label's columns are absent; TFT prunes the label output then.
    """
    out: dict[str, tf.Tensor] = {}
    _numerics(inputs, out)
    for spec in F.INTEGER_RANGES:
        out[F.transformed_name(spec.name)] = _integer_range(spec, inputs[spec.name])
    for spec in F.VOCABULARIES:
        _vocabulary(spec, inputs[spec.name], out)
    for spec in F.HASHED:
        _hashed(spec, inputs[spec.name], out)
    _time_features(inputs[F.TIMESTAMP], out)
    for spec in F.CROSSES:
        out[F.transformed_name(spec.name)] = _cross(spec, out)
    out[F.transformed_name(F.LABEL.name)] = label(inputs)
    return out

"""A raw column as Transform hands it: its usable values, one per row, or its absence.

The vocabulary of ``preprocessing.py`` and of a dataset's own Transform hooks
(``datasets/<name>/transform.py``), which sit under the model code and so cannot import it.
"""

from __future__ import annotations

import tensorflow as tf

Tensor = tf.Tensor | tf.SparseTensor


def present(x: Tensor) -> tf.SparseTensor:
    """The column as a [batch, 1] SparseTensor of its usable values.

    Optional columns reach Transform as SparseTensors (the schema leaves every
    column optional); a column the schema requires comes dense. NaN and inf
    count as missing, and so do empty strings.
    """
    if not isinstance(x, tf.SparseTensor):
        flat = tf.reshape(x, [-1])
        count = tf.size(flat, out_type=tf.int64)
        rows = tf.range(count)
        x = tf.SparseTensor(tf.stack([rows, tf.zeros_like(rows)], 1), flat, [count, 1])
    x = tf.SparseTensor(x.indices, x.values, tf.stack([x.dense_shape[0], 1]))
    if x.dtype.is_floating:
        x = tf.sparse.retain(x, tf.math.is_finite(x.values))
    elif x.dtype == tf.string:
        x = tf.sparse.map_values(tf.strings.strip, x)
        x = tf.sparse.retain(x, tf.strings.length(x.values) > 0)
    return x


def dense(x: tf.SparseTensor, default: float | int | str) -> tf.Tensor:
    """One value per example: the present value, else ``default``."""
    return tf.reshape(tf.sparse.to_dense(x, default_value=tf.cast(default, x.dtype)), [-1])


def missing(x: tf.SparseTensor) -> tf.Tensor:
    """1.0 where the example has no usable value, else 0.0."""
    ones = tf.SparseTensor(x.indices, tf.ones_like(x.values, tf.float32), x.dense_shape)
    return 1.0 - dense(ones, 0.0)

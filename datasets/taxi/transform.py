"""The taxi's own Transform code: its time features and its two-column label."""

from __future__ import annotations

import math

import tensorflow as tf
import tensorflow_transform as tft

from datasets import taxi
from modules.features import transformed_name
from modules.tensors import Tensor, dense, missing, present

_SECONDS_PER_YEAR = 365.25 * 24 * 3600
# 2013-01-01T00:00:00Z, the start of the taxi data set.
_EPOCH_OF_DATA = 1356998400


def extra_features(inputs: dict[str, Tensor]) -> dict[str, tf.Tensor]:
    """The hour of the day on a circle and the trip's age in years (z-scored)."""
    seconds = tf.cast(dense(present(inputs[taxi.TIMESTAMP]), _EPOCH_OF_DATA), tf.float64)
    day_fraction = tf.math.floormod(seconds, 86400.0) / 86400.0
    angle = tf.cast(2.0 * math.pi * day_fraction, tf.float32)
    years = tf.cast((seconds - _EPOCH_OF_DATA) / _SECONDS_PER_YEAR, tf.float32)
    return {
        transformed_name(taxi.HOUR_SIN): tf.sin(angle),
        transformed_name(taxi.HOUR_COS): tf.cos(angle),
        transformed_name(taxi.YEARS_SINCE_START): tft.scale_to_z_score(years),
    }


def _cents(x: tf.Tensor) -> tf.Tensor:
    return tf.round(tf.cast(x, tf.float64) * 100.0)


def label(inputs: dict[str, Tensor]) -> tf.Tensor:
    """1 where the tip exceeds the label's fraction of the fare; a missing fare gives 0.

    Compared in whole cents: amounts arrive as float32, and a tip of exactly 20%
    (5.01 on 25.05) must not tip over the line through rounding.
    """
    fare = present(inputs[taxi.FARE])
    fare_cents = _cents(dense(fare, 0.0))
    tip_cents = _cents(dense(present(inputs[taxi.TIPS]), 0.0))
    big = (tip_cents > taxi.TIP_FRACTION * fare_cents) & (missing(fare) == 0.0)
    return tf.cast(big, tf.int64)

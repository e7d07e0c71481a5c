"""Autograph leaves Keras 2 unconverted on both stacks: keras_setup adds the rule TF lacks."""

from __future__ import annotations

import subprocess
import sys

import pytest
import tf_keras
from tensorflow.python.autograph.impl import conversion

from modules import keras_setup

_ALLOWLISTED = (
    "import tf_keras; from tensorflow.python.autograph.impl import conversion; "
    "print(conversion.is_allowlisted(tf_keras.layers.Dense.call))"
)


def test_autograph_leaves_keras_2_unconverted():
    # Converted, every Keras internal a tf.function reaches is transpiled on first use:
    # 24 s before the model's first step against 0.6 s (keras_setup's docstring).
    assert keras_setup.autograph_skips("tf_keras")
    assert conversion.is_allowlisted(tf_keras.layers.Dense.call)
    assert keras_setup.keras is tf_keras


@pytest.mark.slow  # starts a process that imports TensorFlow
def test_without_keras_setup_autograph_converts_keras_2_where_tf_lacks_the_rule():
    # What TF's own rules say, in a process that never imports keras_setup: the
    # legacy stack's TF 2.16 would convert tf_keras, the current one's TF 2.21 not.
    fresh = subprocess.run(
        [sys.executable, "-c", _ALLOWLISTED], capture_output=True, text=True, check=True
    )
    tf_lists_it = fresh.stdout.split()[-1] == "True"
    assert tf_lists_it == (tuple(map(int, tf_keras.__version__.split(".")[:2])) >= (2, 21))

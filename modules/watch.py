"""What the Trainer writes for TensorBoard besides loss and AUC.

- ``activations`` run: per ReLU layer and epoch, the fraction of zero activations on
  a fixed batch of eval examples and the number of dead units (zero on every example
  of that batch), as the TensorBoard guides suggest for spotting dying ReLUs;
- the run's hyperparameters for the HParams dashboard, so runs compare side by side
  with their metrics;
- weight histograms come from Keras' own TensorBoard callback (``histogram_freq``).
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import tensorflow as tf
from tensorboard.plugins.hparams import api_pb2
from tensorboard.plugins.hparams import summary as hp_summary
from tensorboard.plugins.hparams import summary_v2 as hp_summary_v2

from modules.hparams import HParams
from modules.keras_setup import keras

ACTIVATIONS_RUN = "activations"
ZERO_FRACTION_TAG = "relu_zero_fraction/{layer}"
DEAD_UNITS_TAG = "relu_dead_units/{layer}"


def relu_layers(model: keras.Model) -> list[keras.layers.Layer]:
    """The layers of a functional ``model`` whose output goes through a ReLU."""
    return [
        layer
        for layer in model.layers
        if isinstance(layer, keras.layers.ReLU)
        or getattr(layer, "activation", None) is keras.activations.relu
    ]


class DeadUnits(keras.callbacks.Callback):
    """Per ReLU layer and epoch: zero-activation fraction and dead units on a fixed batch.

    ``network`` is the functional part holding the ReLU layers (the deep part of the
    wide-and-deep model); ``batch`` is its input, the same every epoch so that the
    figures compare across epochs.
    """

    def __init__(self, network: keras.Model, batch: dict[str, tf.Tensor], log_dir: str) -> None:
        super().__init__()
        self.layers = relu_layers(network)
        if not self.layers:
            raise ValueError(f"model {network.name!r} has no ReLU layer to watch")
        self.probe = keras.Model(network.inputs, [layer.output for layer in self.layers])
        self.batch = batch
        self.writer = tf.summary.create_file_writer(os.path.join(log_dir, ACTIVATIONS_RUN))

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        """Run the batch through the network and write each ReLU layer's figures."""
        # flatten: a model of one output gives a tensor, not a list of one.
        outputs = tf.nest.flatten(self.probe(self.batch, training=False))
        with self.writer.as_default(step=epoch):
            for layer, output in zip(self.layers, outputs, strict=True):
                zero = tf.equal(tf.reshape(output, [tf.shape(output)[0], -1]), 0.0)
                tf.summary.scalar(
                    ZERO_FRACTION_TAG.format(layer=layer.name),
                    tf.reduce_mean(tf.cast(zero, tf.float32)),
                )
                tf.summary.scalar(
                    DEAD_UNITS_TAG.format(layer=layer.name),
                    tf.reduce_sum(tf.cast(tf.reduce_all(zero, axis=0), tf.float32)),
                )
        self.writer.flush()


def hparams_logged(hp: HParams, train_steps: int) -> dict[str, bool | int | float | str]:
    """The values the HParams dashboard shows for a run (tuples as text)."""
    values: dict[str, Any] = {**dataclasses.asdict(hp), "train_steps": train_steps}
    return {k: v if isinstance(v, bool | int | float | str) else str(v) for k, v in values.items()}


class HParamsLog(keras.callbacks.Callback):
    """The run's hyperparameters for the HParams dashboard: a session started and ended.

    TensorBoard's own ``hparams.KerasCallback`` derives from ``tf.keras``, which is
    Keras 3 in TF 2.16; this is the same two records for tf_keras (Keras 2).
    """

    def __init__(self, hp: HParams, train_steps: int, log_dir: str) -> None:
        super().__init__()
        self.values = hparams_logged(hp, train_steps)
        self.writer = tf.summary.create_file_writer(log_dir)

    def on_train_begin(self, logs: dict | None = None) -> None:
        """Record the session's start with its hyperparameters."""
        with self.writer.as_default():
            hp_summary_v2.hparams(self.values)

    def on_train_end(self, logs: dict | None = None) -> None:
        """Record that the session finished, so the dashboard shows it as a success."""
        end = hp_summary.session_end_pb(api_pb2.STATUS_SUCCESS).SerializeToString()
        with self.writer.as_default():
            tf.summary.experimental.write_raw_pb(end, step=0)
        self.writer.flush()

"""The model's diagram: ``model.png`` in the Trainer's ``model_run`` output.

Drawn with graphviz's ``dot`` (Debian package ``graphviz``; ``make run`` installs it
when it can). Without ``dot`` the Trainer warns and carries on: a missing picture
must not fail a training run.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from pathlib import Path

import tensorflow as tf

from modules.keras_setup import keras

log = logging.getLogger(__name__)

MODEL_DIAGRAM = "model.png"


def diagram_in(model_run_dir: str) -> str:
    """Where the diagram of the model trained into ``model_run_dir`` is (or would be).

    A string, not a Path: the directory may be a ``gs://`` or ``s3://`` URI.
    """
    return os.path.join(model_run_dir, MODEL_DIAGRAM)


def save_diagram(model: keras.Model, model_run_dir: str) -> None:
    """Write the PNG diagram of the wide and deep parts; warn (not fail) without dot.

    ``model_run_dir`` may be on any filesystem TensorFlow writes: graphviz draws into
    a local file, which is then copied there.
    """
    if shutil.which("dot") is None:
        log.warning("no model diagram: graphviz's `dot` is not installed (Debian: graphviz)")
        return
    # WideDeepModel is subclassed, so plot_model would draw one box: draw a
    # functional view joining the two trained parts instead (no new weights).
    inputs = model.linear_model.input
    logit = keras.layers.Add(name="wide_plus_deep_logit")(
        [model.linear_model(inputs), model.dnn_model(inputs)]
    )
    view = keras.Model(inputs, keras.layers.Activation("sigmoid", name="sigmoid")(logit))
    with tempfile.TemporaryDirectory() as local:
        drawn = str(Path(local) / MODEL_DIAGRAM)
        keras.utils.plot_model(
            view, to_file=drawn, show_shapes=True, expand_nested=True, rankdir="LR", dpi=48
        )
        tf.io.gfile.copy(drawn, diagram_in(model_run_dir), overwrite=True)

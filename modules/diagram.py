"""The model's diagram: ``model.png`` in the Trainer's ``model_run`` output.

Drawn with graphviz's ``dot`` (Debian package ``graphviz``; ``make run`` installs it
when it can). Without ``dot`` the Trainer warns and carries on: a missing picture
must not fail a training run.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
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


class Drawing:
    """A diagram being drawn by ``dot`` in its own process, while the Trainer goes on."""

    def __init__(self, folder: tempfile.TemporaryDirectory, process: subprocess.Popen) -> None:
        self._folder, self._process = folder, process

    def finish(self, model_run_dir: str) -> None:
        """Wait for ``dot``, then copy the PNG into ``model_run_dir``; warn if it failed."""
        with self._folder as local:
            _, errors = self._process.communicate()
            if self._process.returncode:
                log.warning("no model diagram: dot failed: %s", errors.decode(errors="replace"))
                return
            tf.io.gfile.copy(str(Path(local) / MODEL_DIAGRAM), diagram_in(model_run_dir), True)


def start_diagram(model: keras.Model) -> Drawing | None:
    """Start drawing the PNG diagram of the wide and deep parts; None without ``dot``.

    Only the graph's description is made here; ``dot`` lays it out in a process of
    its own, because for a model of many inputs that takes longer than the export
    it runs beside. ``Drawing.finish`` writes it where the run's logs are, on any
    filesystem TensorFlow writes.
    """
    if shutil.which("dot") is None:
        log.warning("no model diagram: graphviz's `dot` is not installed (Debian: graphviz)")
        return None
    # WideDeepModel is subclassed, so plot_model would draw one box: draw a
    # functional view joining the two trained parts instead (no new weights).
    inputs = model.linear_model.input
    logit = keras.layers.Add(name="wide_plus_deep_logit")(
        [model.linear_model(inputs), model.dnn_model(inputs)]
    )
    view = keras.Model(inputs, keras.layers.Activation("sigmoid", name="sigmoid")(logit))
    graph = keras.utils.model_to_dot(
        view, show_shapes=True, expand_nested=True, rankdir="LR", dpi=48
    )
    folder = tempfile.TemporaryDirectory()
    source = Path(folder.name) / "model.dot"
    source.write_text(graph.to_string())
    drawn = Path(folder.name) / MODEL_DIAGRAM
    process = subprocess.Popen(
        ["dot", "-Tpng", str(source), "-o", str(drawn)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    return Drawing(folder, process)

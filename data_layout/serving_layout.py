"""The push destination's layout: AtomicPusher writes it, ServingBaseline reads it.

``<base>/<version>/`` is a SavedModel as TF Serving loads it, the version a number
that only goes up. Beside the model, in ``assets.extra/`` (the SavedModel folder for
files that serving does not load), lie the statistics of the data the model was
trained on: later runs check their data's drift against them.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from types import ModuleType

from data_layout.spans import FileSystem

# The push destination of a local run: this folder of its output dir.
SERVING_FOLDER = "serving"
TRAINING_STATISTICS = os.path.join("assets.extra", "training_statistics")
TRAIN_SPLIT_DIR = "Split-train"
# The span of the data the model was trained on, up to which it knows the world.
SPAN_FILE = os.path.join("assets.extra", "span.json")


@dataclass(frozen=True)
class Version:
    """A version under the push destination."""

    number: int
    path: str

    @property
    def statistics_dir(self) -> str:
        """Where this version keeps its training statistics (``Split-train/``)."""
        return os.path.join(self.path, TRAINING_STATISTICS)


def _fileio() -> ModuleType:
    """TFX's file layer (gs://, s3://), imported when first used.

    The runner's pre-flight lists the versions here before TensorFlow is loaded.
    """
    from tfx.dsl.io import fileio

    return fileio


def span_of(version: Version) -> int | None:
    """The span ``version`` was trained up to; None for a version pushed before spans."""
    path = os.path.join(version.path, SPAN_FILE)
    if not _fileio().exists(path):
        return None
    with _fileio().open(path, "r") as f:
        return int(json.loads(f.read())["span"])


def write_span(model_dir: str, span: int) -> None:
    """Record in the model folder ``model_dir`` the span it was trained up to."""
    _fileio().makedirs(os.path.dirname(os.path.join(model_dir, SPAN_FILE)))
    with _fileio().open(os.path.join(model_dir, SPAN_FILE), "w") as f:
        f.write(json.dumps({"span": span}))


def versions(base_dir: str, fs: FileSystem | None = None) -> list[Version]:
    """The numeric version directories under ``base_dir``, oldest first.

    ``fs`` lists them (default: TFX's file layer, for any filesystem TFX reads).
    """
    fs = fs or _fileio()
    if not fs.exists(base_dir):
        return []
    numbers = sorted(
        int(name.rstrip("/")) for name in fs.listdir(base_dir) if name.rstrip("/").isdigit()
    )
    return [Version(n, os.path.join(base_dir, str(n))) for n in numbers]


def newest(base_dir: str, fs: FileSystem | None = None) -> Version | None:
    """The version TF Serving serves (the highest), or None when there is none."""
    found = versions(base_dir, fs)
    return found[-1] if found else None


def copy_tree(source: str, target: str) -> None:
    """Copy the folder ``source`` to ``target`` on any filesystem TFX reads (gs://, s3://)."""
    _fileio().makedirs(target)
    for name in _fileio().listdir(source):
        name = name.rstrip("/")
        src, dst = os.path.join(source, name), os.path.join(target, name)
        if _fileio().isdir(src):
            copy_tree(src, dst)
        else:
            _fileio().copy(src, dst, overwrite=True)

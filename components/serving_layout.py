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

from tfx.dsl.io import fileio

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


def span_of(version: Version) -> int | None:
    """The span ``version`` was trained up to; None for a version pushed before spans."""
    path = os.path.join(version.path, SPAN_FILE)
    if not fileio.exists(path):
        return None
    with fileio.open(path, "r") as f:
        return int(json.loads(f.read())["span"])


def write_span(model_dir: str, span: int) -> None:
    """Record in the model folder ``model_dir`` the span it was trained up to."""
    fileio.makedirs(os.path.dirname(os.path.join(model_dir, SPAN_FILE)))
    with fileio.open(os.path.join(model_dir, SPAN_FILE), "w") as f:
        f.write(json.dumps({"span": span}))


def versions(base_dir: str) -> list[Version]:
    """The numeric version directories under ``base_dir``, oldest first."""
    if not fileio.exists(base_dir):
        return []
    numbers = sorted(
        int(name.rstrip("/")) for name in fileio.listdir(base_dir) if name.rstrip("/").isdigit()
    )
    return [Version(n, os.path.join(base_dir, str(n))) for n in numbers]


def newest(base_dir: str) -> Version | None:
    """The version TF Serving serves (the highest), or None when there is none."""
    found = versions(base_dir)
    return found[-1] if found else None


def copy_tree(source: str, target: str) -> None:
    """Copy the folder ``source`` to ``target`` on any filesystem TFX reads (gs://, s3://)."""
    fileio.makedirs(target)
    for name in fileio.listdir(source):
        name = name.rstrip("/")
        src, dst = os.path.join(source, name), os.path.join(target, name)
        if fileio.isdir(src):
            copy_tree(src, dst)
        else:
            fileio.copy(src, dst, overwrite=True)

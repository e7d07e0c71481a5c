"""Files a run wrote, read and written wherever they are, by the tools that read runs.

A local path is read with Python; a URI (``gs://``, or any file system a site has
registered with TensorFlow) through TensorFlow's file systems, imported only then.
TensorFlow takes seconds to import, and a laptop's runs, where the review and the
inspection tools read most, are on local paths.
"""

from __future__ import annotations

import glob as local_glob
from pathlib import Path
from typing import Any


def on_object_store(path: str) -> bool:
    """Whether ``path`` is a URI of an object store (s3://, gs://), not a local path."""
    return "://" in path


def _gfile() -> Any:
    import tensorflow as tf  # only for a URI: seconds to import

    return tf.io.gfile


def glob(pattern: str) -> list[str]:
    """The paths matching ``pattern``, sorted."""
    if on_object_store(pattern):
        return sorted(_gfile().glob(pattern))
    return sorted(local_glob.glob(pattern))


def exists(path: str) -> bool:
    """Whether ``path`` names a file or folder."""
    return _gfile().exists(path) if on_object_store(path) else Path(path).exists()


def isdir(path: str) -> bool:
    """Whether ``path`` names a folder."""
    return _gfile().isdir(path) if on_object_store(path) else Path(path).is_dir()


def read_bytes(path: str) -> bytes:
    """The bytes of the file at ``path``."""
    if on_object_store(path):
        with _gfile().GFile(path, "rb") as f:
            return f.read()
    return Path(path).read_bytes()


def read_text(path: str) -> str:
    """The text of the file at ``path`` (UTF-8)."""
    return read_bytes(path).decode("utf-8")


def write_text(path: str, text: str) -> None:
    """Write ``text`` to the file at ``path`` (UTF-8), replacing what was there."""
    if on_object_store(path):
        with _gfile().GFile(path, "w") as f:
            f.write(text)
    else:
        Path(path).write_text(text, encoding="utf-8")

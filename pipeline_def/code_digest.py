"""The digest of the model code a run uses: a step property, so TFX's cache sees edits.

Transform, the Tuner and the Trainer run functions named by a dotted path
(``modules.preprocessing.preprocessing_fn``) and read the dataset's declaration at run
time. Neither is a property TFX compares when it looks for a cached execution, so a
rerun after an edited declaration or module reused the old graph and model. The digest
of those files, taken when the pipeline is compiled, is such a property: an edit makes
a new execution, locally and on Kubeflow alike.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

from modules import datasets

# The custom_config key of Transform, the Tuner and the Trainer holding the digest.
CODE_DIGEST_KEY = "code_sha256"
_SOURCE_SUFFIXES = (".py", ".pbtxt")


def _sources(modules_dir: Path, dataset: str) -> Iterator[Path]:
    """The model code's files: the package's sources and dataset ``dataset``'s own folder.

    The other datasets' folders are left out, so drafting a table does not void the
    cache of another's runs.
    """
    datasets_dir = modules_dir / datasets.DATASETS_DIR.name
    for path in sorted(modules_dir.rglob("*")):
        relative = path.relative_to(modules_dir)
        if path.suffix not in _SOURCE_SUFFIXES or "__pycache__" in relative.parts:
            continue
        inside = path.relative_to(datasets_dir).parts if path.is_relative_to(datasets_dir) else ()
        if len(inside) > 1 and inside[0] != dataset:
            continue
        yield path


def model_code_digest(dataset: str, modules_dir: Path = datasets.DATASETS_DIR.parent) -> str:
    """The hex SHA-256 of the model code a run of ``dataset`` uses (names and contents)."""
    digest = hashlib.sha256()
    for path in _sources(modules_dir, dataset):
        digest.update(path.relative_to(modules_dir).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()

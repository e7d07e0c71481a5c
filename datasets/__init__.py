"""The datasets the pipeline knows, one package each: ``datasets/<name>``.

A dataset's package holds its declaration (``DATASET``, a ``features.DatasetDeclaration``) and,
beside it, its curated raw-data schema (``schema.pbtxt``). ``make dataset`` drafts
a new one from a CSV file.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from modules.features import DatasetDeclaration

DEFAULT = "taxi"
DATASETS_DIR = Path(__file__).resolve().parent
SCHEMA_FILE = "schema.pbtxt"
# Where datasets were drafted before they had a room of their own.
_FORMER_DIR = DATASETS_DIR.parent / "modules" / "datasets"


class UnknownDatasetError(ValueError):
    """No dataset of that name; the message lists the known ones."""


def known() -> tuple[str, ...]:
    """The names of the datasets found here, sorted."""
    return tuple(
        sorted(
            p.name
            for p in DATASETS_DIR.iterdir()
            if (p / "__init__.py").is_file() and "." not in p.name
        )
    )


def load(name: str) -> DatasetDeclaration:
    """The declaration of dataset ``name``; UnknownDatasetError listing the known ones."""
    former = _FORMER_DIR / name
    if name not in known() and (former / "__init__.py").is_file():
        raise UnknownDatasetError(
            f"dataset {name!r} is in {former}, where datasets were drafted before they moved "
            f"to {DATASETS_DIR}; move it there: mv {former} {DATASETS_DIR / name}"
        )
    if name not in known():
        raise UnknownDatasetError(
            f"no dataset {name!r} under {DATASETS_DIR}; known: {', '.join(known())} "
            "(make dataset drafts a new one)"
        )
    dataset = importlib.import_module(f"{__name__}.{name}").DATASET
    if dataset.name != name:
        raise ValueError(f"{DATASETS_DIR / name} declares dataset {dataset.name!r}, not {name!r}")
    return dataset


def schema_path(name: str) -> Path:
    """The curated schema of dataset ``name``."""
    return DATASETS_DIR / name / SCHEMA_FILE

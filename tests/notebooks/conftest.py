"""The notebook's helper module, loaded from notebooks/ (not a package of the house)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

PROJECT = Path(__file__).resolve().parents[2]
NOTEBOOKS = PROJECT / "notebooks"


@pytest.fixture(scope="session")
def evaluations() -> ModuleType:
    """``notebooks/evaluations.py``, imported by path as the notebook's kernel imports it."""
    spec = importlib.util.spec_from_file_location("evaluations", NOTEBOOKS / "evaluations.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

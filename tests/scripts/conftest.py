"""The scripts are files, not a package: tests load them by path."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from script_files import loader

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


@pytest.fixture(scope="session")
def load_script() -> Callable[[str], ModuleType]:
    """Imports ``scripts/<name>.py`` as a module of that name."""
    return loader(SCRIPTS)

"""Programs kept as files, not packages (scripts/, benchmarks/), loaded by path in tests."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from types import ModuleType


def loader(folder: Path) -> Callable[[str], ModuleType]:
    """A function importing ``folder/<name>.py`` as a module of that name."""

    def load(name: str) -> ModuleType:
        spec = importlib.util.spec_from_file_location(name, folder / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load

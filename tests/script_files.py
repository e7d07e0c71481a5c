"""Programs kept as files, not packages (scripts/, benchmarks/), loaded by path in tests."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType


def loader(folder: Path) -> Callable[[str], ModuleType]:
    """A function importing ``folder/<name>.py`` as a module of that name.

    The module is in ``sys.modules`` by that name, as Python's own recipe for a source
    file has it: its dataclasses and what it hands a process pool are found by name.
    """

    def load(name: str) -> ModuleType:
        spec = importlib.util.spec_from_file_location(name, folder / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module

    return load

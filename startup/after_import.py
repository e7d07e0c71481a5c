"""Run a function on a module as soon as it is imported, without importing it first.

``startup.process.prepare`` adjusts libraries that most of the product's processes load
but some never do (Beam in ``wide-deep-draft-dataset --help``, say): importing them only
to adjust them would cost those processes seconds. ``when_imported`` registers the
adjustment instead, and it runs right after the module's own code, before the import
statement that loaded it returns, so no other module binds a name from it unadjusted.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types
from collections.abc import Callable, Sequence

Adjust = Callable[[types.ModuleType], None]


def when_imported(name: str, adjust: Adjust) -> None:
    """Call ``adjust(module)`` once module ``name`` is imported (now, if it already is)."""
    if name in sys.modules:
        adjust(sys.modules[name])
        return
    if not any(isinstance(f, _AfterImport) and f.name == name for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport(name, adjust))


def withdraw(name: str) -> None:
    """Drop the adjustment waiting for module ``name`` (a benchmark's side without it)."""
    sys.meta_path[:] = [
        f for f in sys.meta_path if not (isinstance(f, _AfterImport) and f.name == name)
    ]


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds ``name`` with the finders after it, and has its loader call ``adjust`` after."""

    def __init__(self, name: str, adjust: Adjust) -> None:
        self.name = name
        self.adjust = adjust

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        """The spec the other finders give ``name``, its loader wrapped; None for other names."""
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)  # once: a reload finds the module as it is
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(fullname, path, target) if find else None
            if spec is not None and spec.loader is not None:
                spec.loader = _AdjustingLoader(spec.loader, self.adjust)
                return spec
        return None


class _AdjustingLoader(importlib.abc.Loader):
    """A module's own loader, then ``adjust``; everything else asked of it goes to the loader."""

    def __init__(self, loader: importlib.abc.Loader, adjust: Adjust) -> None:
        self.loader = loader
        self.adjust = adjust

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        """The module the module's own loader creates."""
        return self.loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        """The module's code, then ``adjust``."""
        self.loader.exec_module(module)
        self.adjust(module)

    def __getattr__(self, name: str) -> object:
        # get_source, get_filename, is_package: inspect and linecache ask the loader.
        return getattr(self.loader, name)

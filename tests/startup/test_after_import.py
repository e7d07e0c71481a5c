"""A function run on a module right after its import, or at once where it is imported."""

from __future__ import annotations

import importlib
import inspect
import sys

import pytest

from startup.after_import import when_imported


@pytest.fixture
def fresh_module(tmp_path, monkeypatch):
    """The name of a module on the path that nothing has imported."""
    (tmp_path / "lately_loaded.py").write_text("def answer():\n    return 41\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "lately_loaded"
    sys.modules.pop("lately_loaded", None)


def test_a_module_is_adjusted_before_its_importer_sees_it_and_not_loaded_by_the_wait(fresh_module):
    when_imported(fresh_module, lambda m: setattr(m, "answer", lambda: 42))
    assert fresh_module not in sys.modules
    from lately_loaded import answer  # a name bound from the module: the adjusted one

    assert answer() == 42
    module = sys.modules[fresh_module]
    assert "return 41" in inspect.getsource(module)  # its loader still answers for its source
    importlib.reload(module)  # once: a reload leaves the module as its code says
    assert module.answer() == 41


def test_a_module_already_imported_is_adjusted_at_once():
    seen = []
    when_imported("json", seen.append)
    assert seen == [sys.modules["json"]]

"""A room holds one kind of thing: a module of components/ is a piece of a component, and
datasets/ holds its registry and dataset packages alone.

A module there defines a TFX component, its executor or driver, or an artifact type;
or it is a helper of the room that nothing outside components/ imports (the spec
extension); or it is a module of a component's own package (``components/example_gen/``,
whose component, driver and executor share its keys, reading and writing). A helper
other rooms use (the split rule the drafter and the benchmarks read) belongs in the room of
what it is about, and this test names it.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path
from types import ModuleType

import pytest
from test_import_direction import PROJECT, SOURCES, imported_modules
from tfx.dsl.components.base import base_component, base_driver, base_executor
from tfx.types import artifact

PIECES = (
    base_component.BaseComponent,
    base_executor.BaseExecutor,
    base_driver.BaseDriver,
    artifact.Artifact,
)
COMPONENTS = sorted(p for p in (PROJECT / "components").rglob("*.py") if p.name != "__init__.py")
# Where other rooms import from: the house, the tests and the runners.
ELSEWHERE = [
    p for folder in (*SOURCES, "tests") if folder != "components"
    for p in sorted((PROJECT / folder).rglob("*.py"))
] + [PROJECT / "local_runner.py", PROJECT / "kubeflow_runner.py"]  # fmt: skip


def component_pieces(module: ModuleType) -> list[str]:
    """The components, executors, drivers and artifact types ``module`` defines."""
    return [
        name for name, value in vars(module).items()
        if inspect.isclass(value) and value.__module__ == module.__name__
        and issubclass(value, PIECES)
    ]  # fmt: skip


def _defines_a_component(path: Path) -> bool:
    module = importlib.import_module(".".join(path.relative_to(PROJECT).with_suffix("").parts))
    return any(
        issubclass(getattr(module, name), base_component.BaseComponent)
        for name in component_pieces(module)
    )


def importers_outside(module: str) -> list[str]:
    """The files outside components/ that import ``module``."""
    return [
        str(p.relative_to(PROJECT)) for p in ELSEWHERE
        if any(n == module or n.startswith(module + ".") for n in imported_modules(p.read_text()))
    ]  # fmt: skip


@pytest.mark.parametrize("path", COMPONENTS, ids=lambda p: p.relative_to(PROJECT).as_posix())
def test_a_module_of_components_is_a_piece_of_a_component(path: Path):
    name = ".".join(path.relative_to(PROJECT).with_suffix("").parts)
    if component_pieces(importlib.import_module(name)):
        return
    if path.parent.name != "components":  # a module of a component's own package
        package = [p for p in path.parent.glob("*.py") if p.name != "__init__.py"]
        assert any(_defines_a_component(p) for p in package), f"{path.parent} has no component"
        return
    outside = importers_outside(name)
    assert not outside, f"{name} defines no component piece, and {outside} import it"


def stray_in_datasets(datasets_dir: Path) -> list[str]:
    """What ``datasets/`` holds besides its registry and dataset packages that declare one."""
    stray = [p.name for p in datasets_dir.glob("*.py") if p.name != "__init__.py"]
    for folder in sorted(p for p in datasets_dir.iterdir() if p.is_dir()):
        if folder.name == "__pycache__":
            continue
        init = folder / "__init__.py"
        if not init.is_file() or "DATASET =" not in init.read_text():
            stray.append(f"{folder.name}/")
    return stray


def test_datasets_holds_its_registry_and_dataset_packages_alone():
    assert stray_in_datasets(PROJECT / "datasets") == []


def test_a_module_or_folder_that_is_no_dataset_is_named(tmp_path):
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "loans").mkdir()
    (tmp_path / "loans" / "__init__.py").write_text("DATASET = None\n")
    (tmp_path / "helpers.py").write_text("")
    (tmp_path / "notes").mkdir()
    assert stray_in_datasets(tmp_path) == ["helpers.py", "notes/"]

"""Imports run one way, from the model code up to the runners and the tools around runs.

startup <- modules <- data_layout <- review <- serving <- scoring <- kubeflow.step <- components
<- pipeline_def <- pipeline_ops <- runners, tools.

Kubeflow is one room of two sides: ``kubeflow.step`` runs in a step's container under the
components, ``kubeflow.operator`` and ``kubeflow.harness`` on an operator's machine above the
definition. Inside the operator side too: metadata <- session <- kubeflow.operator
<- cli. The test reads every file's imports (function-level ones included) and fails on any
that runs up.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pipeline_def.code_digest import STEP_PACKAGES, package_folder

PROJECT = Path(__file__).resolve().parent.parent
# Each room may import the rooms before it and its own, never one after it.
ROOMS = (
    "startup",
    "modules.hparams",
    "modules.features",
    "modules.tensors",
    "datasets",
    "modules",
    "data_layout",
    "review",
    "serving",
    "scoring",
    "kubeflow",
    "kubeflow.step",
    "components",
    "pipeline_def",
    "pipeline_ops",
    "pipeline_ops.commands",
    "pipeline_ops.metadata",
    "pipeline_ops.session",
    "pipeline_ops.scoring",
    "kubeflow.operator",
    "drafting",
    "pipeline_ops.cli",
    "kubeflow.harness",
    "scripts",
    "benchmarks",
    "local_runner",
    "kubeflow_runner",
)
# The house's top folders, by room; tests sit outside it.
SOURCES = tuple(
    dict.fromkeys(
        [*(package_folder(p).parts[0] for p in STEP_PACKAGES), "pipeline_ops", "kubeflow",
         "drafting", "scripts", "benchmarks"]
    )
)  # fmt: skip


def room_of(module: str) -> str | None:
    """The room a dotted module name lives in (the longest matching room), or None."""
    matches = [r for r in ROOMS if module == r or module.startswith(r + ".")]
    return max(matches, key=len) if matches else None


def imported_modules(source: str) -> set[str]:
    """Every module a file imports; ``from a import b`` counts as ``a.b`` when b is one."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _module_name(path: Path) -> str:
    parts = path.relative_to(PROJECT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _house() -> list[Path]:
    files = [p for folder in SOURCES for p in sorted((PROJECT / folder).rglob("*.py"))]
    return files + [PROJECT / "local_runner.py", PROJECT / "kubeflow_runner.py"]


def upward_imports(path: Path) -> list[str]:
    """The imports of ``path`` that reach a room above its own."""
    own = ROOMS.index(room_of(_module_name(path)))
    found = []
    for name in sorted(imported_modules(path.read_text())):
        room = room_of(name)
        if room is not None and ROOMS.index(room) > own:
            found.append(name)
    return found


def test_every_file_lives_in_a_room():
    assert [str(p) for p in _house() if room_of(_module_name(p)) is None] == []


def test_no_file_imports_a_room_above_its_own():
    upward = {str(p.relative_to(PROJECT)): upward_imports(p) for p in _house()}
    assert {path: names for path, names in upward.items() if names} == {}


@pytest.mark.parametrize(
    ("source", "room", "expected"),
    [
        ("from pipeline_ops.cli import scaffold", "pipeline_ops.session", ["pipeline_ops.cli"]),
        ("def f():\n    import local_runner", "pipeline_def", ["local_runner"]),
        ("from pipeline_ops import commands", "pipeline_ops.metadata", []),
        ("from data_layout.splits import TEST", "modules", ["data_layout"]),
        ("from review.evaluation import Review", "data_layout", ["review"]),
        ("from components import serving_check", "review", ["components"]),
        ("from kubeflow.operator import deploy", "kubeflow.step", ["kubeflow.operator"]),
    ],
)
def test_an_upward_import_is_found_wherever_it_is_written(tmp_path, source, room, expected):
    # A file placed in ``room`` with ``source``: the check sees what it imports.
    path = PROJECT.joinpath(*room.split("."), "_probe.py")
    names = [n for n in imported_modules(source) if ROOMS.index(room_of(n)) > ROOMS.index(room)]
    assert [room_of(n) for n in names] == expected
    assert room_of(_module_name(path)) == room

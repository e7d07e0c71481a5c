"""Imports run one way: modules <- components <- pipeline_def <- tools <- runners."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parent.parent
# Each room may import the rooms before it, never one after it.
ROOMS = ("modules", "components", "pipeline_def", "kfp_local", "local_runner", "kubeflow_runner")


def _imported_rooms(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return {name.split(".")[0] for name in names} & set(ROOMS)


@pytest.mark.parametrize("room", ROOMS[:3])
def test_no_file_imports_a_room_above_its_own(room):
    above = set(ROOMS[ROOMS.index(room) + 1 :])
    upward = {
        str(path.relative_to(PROJECT)): sorted(_imported_rooms(path) & above)
        for path in sorted((PROJECT / room).rglob("*.py"))
    }
    assert {path: rooms for path, rooms in upward.items() if rooms} == {}

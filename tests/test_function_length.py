"""Functions short enough to read at once: none of the house's runs over 50 lines.

A flat table (an argparse block of flags, one after another) may, when its docstring
says so with the words "flat table".
"""

from __future__ import annotations

import ast

from test_import_direction import PROJECT, SOURCES

MAX_LINES = 50


def long_functions(source: str) -> list[tuple[str, int]]:
    """The functions of ``source`` over MAX_LINES lines (def to last line), but flat tables."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        length = node.end_lineno - node.lineno + 1
        if length > MAX_LINES and "flat table" not in (ast.get_docstring(node) or ""):
            found.append((node.name, length))
    return found


def test_no_function_of_the_house_runs_over_fifty_lines():
    files = [p for folder in SOURCES for p in sorted((PROJECT / folder).rglob("*.py"))]
    files += [PROJECT / "local_runner.py", PROJECT / "kubeflow_runner.py"]
    long = {
        f"{path.relative_to(PROJECT)}:{name}": length
        for path in files
        for name, length in long_functions(path.read_text())
    }
    assert long == {}


def test_a_long_function_is_found_unless_it_says_it_is_a_flat_table():
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_LINES))
    assert long_functions(f"def f():\n{body}") == [("f", MAX_LINES + 1)]
    assert long_functions(f'def f():\n    """The flags, a flat table."""\n{body}') == []
    assert long_functions(f"def f():\n{body[: -len('    x49 = 49') - 1]}") == []

"""The docs' tests need the docs' tools, which ``make run`` does not install: say so in one line."""

from __future__ import annotations

import importlib

import pytest

# What the docs' lock adds beside the runtime (requirements-docs.in), as these tests import it.
_DOCS_TOOLS = {"pytest_codeblocks": "pytest-codeblocks", "mkdocs": "mkdocs"}


def pytest_configure(config: pytest.Config) -> None:
    """Stop before collecting tests/docs when a docs tool is missing, naming what to run."""
    for module, package in _DOCS_TOOLS.items():
        try:
            importlib.import_module(module)
        except ModuleNotFoundError:
            pytest.exit(
                f"tests/docs needs {package}, which `make run` does not install: "
                "run `make test-fast` (or `make docs`) once, which adds the docs' tools",
                returncode=pytest.ExitCode.USAGE_ERROR,
            )

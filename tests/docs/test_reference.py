"""The reference pages against the code they describe: a renamed field, flag, target or
variable fails here until the page says the new name."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import importlib.metadata
import re
import subprocess
from pathlib import Path

import pytest
from doc_blocks import ROOT, parser_of

from kubeflow.operator.credentials import SA_TOKEN_ENV
from kubeflow.operator.options import ENV_PREFIX
from modules.hparams import HParams
from pipeline_def.config import PipelineConfig
from pipeline_ops.metadata.store import METADATA_ENV, PASSWORD_ENV

REFERENCE = ROOT / "docs" / "reference"
COMMANDS = [
    "wide-deep-run",
    "wide-deep-kubeflow",
    "wide-deep-review",
    "wide-deep-inspect",
    "wide-deep-schema-review",
    "wide-deep-draft-dataset",
    "wide-deep-score",
]


def table_rows(page: Path) -> dict[str, list[str]]:
    """The rows of a page's tables, by the name in backticks in their first cell."""
    rows = {}
    for line in page.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        name = re.fullmatch(r"`([^`]+)`", cells[0]) if line.startswith("|") else None
        if name:
            rows[name.group(1)] = cells[1:]
    return rows


def default_of(field: dataclasses.Field) -> object:
    """A dataclass field's default value, or MISSING."""
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return field.default


def check_defaults(page: Path, fields: tuple[dataclasses.Field, ...]) -> None:
    """Every init field has a row; a row's default, when a Python literal, is the code's."""
    rows = table_rows(page)
    missing = [f.name for f in fields if f.name not in rows]
    assert not missing, f"{page.name} lacks rows for {missing}"
    for f in fields:
        cell = rows[f.name][0].strip("`")
        try:
            written = ast.literal_eval(cell)
        except (ValueError, SyntaxError):
            continue  # "required", "see below": words, not a value
        code = default_of(f)
        assert written == code, f"{page.name}: {f.name} = {cell}, the code says {code!r}"


def test_config_page_has_every_field_and_its_default() -> None:
    check_defaults(REFERENCE / "config.md", dataclasses.fields(PipelineConfig))


def test_config_page_has_every_hyperparameter_and_its_default() -> None:
    check_defaults(REFERENCE / "config.md", dataclasses.fields(HParams))


def test_every_console_script_is_on_the_commands_page() -> None:
    scripts = {
        e.name
        for e in importlib.metadata.entry_points(group="console_scripts")
        if e.name.startswith("wide-deep-")
    }
    assert scripts == set(COMMANDS)
    page = (REFERENCE / "commands.md").read_text()
    assert all(f"## `{name}`" in page for name in COMMANDS)


def section(page: str, heading: str) -> str:
    """The text under a ``## heading`` of a page, up to the next one."""
    start = page.index(f"\n## {heading}\n")
    end = page.find("\n## ", start + 1)
    return page[start : end if end > 0 else None]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_flag_is_in_its_commands_section(
    command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    parser = parser_of([command], monkeypatch, parse=False)
    page = (REFERENCE / "commands.md").read_text()
    text = section(page, f"`{command}`")
    if "The shared read options" in text:
        text += section(page, "Options every read command shares")
    flags = {
        flag
        for action in parser._actions  # noqa: SLF001 - argparse has no public accessor
        for flag in action.option_strings
        if flag.startswith("--") and flag != "--help" and action.help != argparse.SUPPRESS
    }
    missing = sorted(f for f in flags if not re.search(rf"`{re.escape(f)}[` =\]]", text))
    assert not missing, f"docs/reference/commands.md, {command}: {missing} missing"


def test_every_make_target_is_on_the_targets_page() -> None:
    listed = subprocess.run(
        ["make", "--no-print-directory", "help"], cwd=ROOT, capture_output=True, text=True
    )
    targets = re.findall(r"^\s+make (\S+)", listed.stdout, re.MULTILINE)
    assert targets, listed.stdout + listed.stderr
    rows = table_rows(REFERENCE / "make-targets.md")
    missing = [t for t in targets if f"make {t}" not in rows]
    assert not missing, f"docs/reference/make-targets.md lacks {missing}"
    unknown = [r for r in rows if r.removeprefix("make ") not in targets]
    assert not unknown, f"docs/reference/make-targets.md lists targets make lacks: {unknown}"


def test_every_environment_variable_the_code_names_is_on_its_page() -> None:
    rows = table_rows(REFERENCE / "environment.md")
    for name in (METADATA_ENV, PASSWORD_ENV, f"{ENV_PREFIX}<FLAG>", SA_TOKEN_ENV):
        assert name in rows, f"docs/reference/environment.md lacks {name}"


def test_every_model_module_is_on_the_layout_page() -> None:
    rows = table_rows(REFERENCE / "layout.md")
    modules = {p.name for p in (ROOT / "modules").glob("*.py") if p.name != "__init__.py"}
    assert modules <= set(rows), f"docs/reference/layout.md lacks {sorted(modules - set(rows))}"

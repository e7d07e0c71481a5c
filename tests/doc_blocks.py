"""The code blocks of README.md and docs/, and the commands in them parsed by their own parsers.

pytest-codeblocks reads the blocks (``extract_from_file``, the function its plugin
collects with), so these tests see exactly the blocks ``pytest --codeblocks`` runs.
A block marked ``<!--pytest.mark.skip(reason=...)-->`` is not run there; here each of
its commands is parsed instead: a console script, ``python -m`` module or script by
the argparse parser the command itself builds, and ``make TARGET VAR=...`` by make's
dry run (the target must exist) and then the command its recipe expands to.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import runpy
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from pytest_codeblocks import CodeBlock, extract_from_file

ROOT = Path(__file__).resolve().parents[1]
MARKDOWN = (ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")))
SHELL = {"sh", "bash"}
RUN_BY_CODEBLOCKS = SHELL | {"python"}
# Blocks that hold no command: program output, file contents, usage lines.
NOT_CODE = {"text", "json", "cron", "yaml", "toml"}
# Programs the docs name that are not this project's: their flags are their own business.
OTHER_PROGRAMS = {
    "cd",
    "curl",
    "cp",
    "docker",
    "export",
    "source",
    "rm",
    "pip",
    "tensorboard",
    "mariadb-install-db",
    "mariadbd",
    "mkdir",
    "touch",
}
# Python modules of this project that `python -m` runs.
PROJECT_MODULES = {"kubeflow.harness"}


@dataclass(frozen=True)
class Block:
    """One fenced block of one Markdown file."""

    path: Path
    block: CodeBlock

    @property
    def where(self) -> str:
        """FILE:LINE, as a reader finds the block."""
        return f"{self.path.relative_to(ROOT)}:{self.block.lineno}"

    @property
    def parse_only(self) -> bool:
        """Marked as not runnable here (a cluster, minutes of work): parsed, not run."""
        return any(mark.startswith("pytest.mark.skip") for mark in self.block.marks)


def all_blocks() -> list[Block]:
    """Every fenced block of README.md and docs/, in file order."""
    return [Block(path, block) for path in MARKDOWN for block in extract_from_file(path)]


def shell_commands(code: str) -> list[list[str]]:
    """Each command of a shell block as argv: continued lines joined, comments dropped,
    ``&&``/``;``/``|`` split, leading ``NAME=value`` assignments dropped."""
    commands = []
    for line in code.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
        lexer.whitespace_split = True
        words: list[str] = []
        for token in [*lexer, ";"]:
            if token in {";", "&", "&&", "|", "||"}:
                while words and "=" in words[0] and not words[0].startswith("-"):
                    words.pop(0)
                if words:
                    commands.append(words)
                words = []
            else:
                words.append(token)
    return commands


class Parsed(BaseException):
    """Raised right after a command's own parser accepted its arguments: nothing runs."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        super().__init__(parser.prog)
        self.parser = parser


def stop_after_parsing(
    monkeypatch: pytest.MonkeyPatch, parse: bool
) -> list[argparse.ArgumentParser]:
    """Every ``ArgumentParser.parse_args`` parses for real (unless not ``parse``), then
    stops the command; the list returned receives each parser asked to parse."""
    parse_args = argparse.ArgumentParser.parse_args
    asked: list[argparse.ArgumentParser] = []

    def parse_then_stop(
        self: argparse.ArgumentParser, args: list[str] | None = None, namespace: object = None
    ) -> argparse.Namespace:
        asked.append(self)
        if parse:
            parse_args(self, args, namespace)
        raise Parsed(self)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse_then_stop)
    return asked


def console_script(name: str) -> object:
    """The function a console script of this project calls."""
    (entry,) = importlib.metadata.entry_points(group="console_scripts", name=name)
    return entry.load()


def parser_of(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, parse: bool = True
) -> argparse.ArgumentParser:
    """The parser of the project's command ``argv``, after it accepted ``argv``'s flags
    (or before it reads them, when not ``parse``).

    ``pytest.fail`` when the parser refuses them (its own message is on stderr).
    """
    program, *args = argv
    asked = stop_after_parsing(monkeypatch, parse)
    monkeypatch.setattr(sys, "argv", argv)
    program = program.removeprefix(".venv/bin/")
    try:
        if program.startswith("wide-deep-"):
            console_script(program)(args)
        elif program == "python" and args[:1] == ["-m"]:
            monkeypatch.setattr(sys, "argv", [args[1], *args[2:]])
            runpy.run_module(args[1], run_name="__main__", alter_sys=True)
        elif program == "python":
            # As `python scripts/x.py` does: the script's folder first on the path.
            monkeypatch.syspath_prepend(str((ROOT / args[0]).parent))
            monkeypatch.setattr(sys, "argv", args)
            runpy.run_path(str(ROOT / args[0]), run_name="__main__")
        else:
            pytest.fail(f"not a command of this project: {shlex.join(argv)}")
    except Parsed as parsed:
        return parsed.parser
    except SystemExit as stop:
        if stop.code == 0 and asked:  # --help: printed, and exited as it should
            return asked[-1]
        pytest.fail(f"{shlex.join(argv)}: refused by its parser (exit {stop.code})")
    pytest.fail(f"{shlex.join(argv)}: ran without parsing any arguments")


def is_project_command(argv: list[str]) -> bool:
    """A command whose flags this project's parsers define."""
    program = argv[0].removeprefix(".venv/bin/")
    if program.startswith("wide-deep-"):
        return True
    if program != "python" or len(argv) < 2:
        return False
    if argv[1] == "-m":
        return argv[2] in PROJECT_MODULES
    return argv[1].startswith(("scripts/", "benchmarks/", "tests/"))


def make_recipe(argv: list[str]) -> list[list[str]]:
    """The project's commands that ``make TARGET VAR=...`` runs, from make's dry run.

    ``pytest.fail`` when make does not know the target.
    """
    dry = subprocess.run(
        ["make", "--no-print-directory", "-n", *argv[1:]],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if dry.returncode != 0:
        pytest.fail(f"{shlex.join(argv)}: {dry.stderr.strip()}")
    # Every target's first line names the stack, for people: not a command.
    recipe = "\n".join(x for x in dry.stdout.splitlines() if not x.startswith("stack: "))
    return [cmd for cmd in shell_commands(recipe) if is_project_command(cmd)]


def commands_to_parse(argv: list[str]) -> Iterator[list[str]]:
    """The project's commands behind ``argv``: itself, those of a make target, or none."""
    program = argv[0].removeprefix(".venv/bin/")
    if program == "make":
        yield from make_recipe(argv)
    elif is_project_command(argv):
        yield argv
    elif program not in OTHER_PROGRAMS:
        pytest.fail(f"a command the docs tests do not know: {shlex.join(argv)}")

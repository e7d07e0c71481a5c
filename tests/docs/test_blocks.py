"""Every code block of README.md and docs/ runs, or is at least parsed.

``pytest --codeblocks README.md docs`` (``make test``) runs the ``python`` and ``sh``
blocks; these tests parse each shell command (runnable or not) with the command's own
argparse parser, compile the Python blocks marked as not runnable here, and refuse a
block of a kind neither handles, where a command could hide untested.
"""

from __future__ import annotations

import shlex

import pytest
from doc_blocks import (
    NOT_CODE,
    RUN_BY_CODEBLOCKS,
    SHELL,
    Block,
    all_blocks,
    commands_to_parse,
    parser_of,
    shell_commands,
)

BLOCKS = all_blocks()
SHELL_BLOCKS = [b for b in BLOCKS if b.block.syntax in SHELL]
SKIPPED_PYTHON = [b for b in BLOCKS if b.block.syntax == "python" and b.parse_only]


def by_place(blocks: list[Block]) -> dict:
    """Parametrize over blocks, each named FILE:LINE."""
    return {"argvalues": blocks, "ids": [b.where for b in blocks]}


def test_every_block_is_run_or_holds_no_command() -> None:
    unknown = [
        f"{b.where}: ```{b.block.syntax}"
        for b in BLOCKS
        if b.block.syntax not in RUN_BY_CODEBLOCKS | NOT_CODE
    ]
    assert not unknown, f"blocks of a kind nothing runs or parses: {unknown}"


@pytest.mark.parametrize("block", **by_place(SHELL_BLOCKS))
def test_shell_commands_parse(block: Block, monkeypatch: pytest.MonkeyPatch) -> None:
    commands = shell_commands(block.block.code)
    assert commands, f"{block.where}: a shell block without a command"
    for argv in commands:
        for command in commands_to_parse(argv):
            with monkeypatch.context() as patch:
                parser_of(command, patch)


@pytest.mark.parametrize("block", **by_place(SKIPPED_PYTHON))
def test_python_not_run_here_compiles(block: Block) -> None:
    compile(block.block.code, block.where, "exec")


def test_shell_commands_split_as_a_shell_would() -> None:
    code = (
        "make spans   # quarters\n"
        "A=1 wide-deep-run --span 3 \\\n    --window 4 && wide-deep-inspect runs\n"
    )
    assert shell_commands(code) == [
        ["make", "spans"],
        ["wide-deep-run", "--span", "3", "--window", "4"],
        ["wide-deep-inspect", "runs"],
    ]
    assert shlex.join(shell_commands("echo 'a b' | cat")[0]) == "echo 'a b'"


def test_blocks_that_run_call_no_make_target_but_help() -> None:
    # pytest-codeblocks runs an unmarked block as it is: `make run` there would build an
    # environment and run the pipeline inside the test run.
    running = [b for b in SHELL_BLOCKS if not b.parse_only]
    makes = [
        f"{b.where}: {shlex.join(argv)}"
        for b in running
        for argv in shell_commands(b.block.code)
        if argv[0] == "make" and argv[1:] != ["help"]
    ]
    assert not makes, f"mark these blocks pytest.mark.skip(reason=...): {makes}"

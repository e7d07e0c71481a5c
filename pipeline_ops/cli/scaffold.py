"""The scaffold under every command: store options, the pipeline's name, exit codes, quiet imports.

Every command takes ``--output-dir``/``--metadata`` for the store and
``--dataset``/``--pipeline-name`` for the pipeline, before or after a subcommand;
says what is wrong in one ``error:`` line on stderr; and exits with the codes of
``pipeline_ops.commands``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from ml_metadata.metadata_store import metadata_store

import datasets
from pipeline_def.metadata_stores import MetadataStore, SqliteMetadata
from pipeline_def.project_paths import DEFAULT_OUTPUT_DIR, output_dir_for
from pipeline_ops.cli.quiet import quiet_libraries
from pipeline_ops.commands import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_READER_GONE
from pipeline_ops.metadata.store import (
    METADATA_ENV,
    PASSWORD_ENV,
    MetadataUriError,
    describe,
    metadata_for,
    open_store,
)
from startup import process


class CommandError(Exception):
    """What stops a command, in words for people, with its exit code."""

    def __init__(self, message: str, exit_code: int = EXIT_BAD_INPUT) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@contextmanager
def bad_input(*errors: type[Exception]) -> Iterator[None]:
    """Turn ``errors`` (default: ValueError) raised inside into a CommandError (exit 2)."""
    caught = errors or (ValueError,)
    try:
        yield
    except caught as err:
        raise CommandError(str(err)) from None


def say_error(err: Exception, exit_code: int = EXIT_BAD_INPUT) -> int:
    """What stops a command in one ``error:`` line on stderr; returns ``exit_code``."""
    print(f"error: {err}", file=sys.stderr)
    return exit_code


def parser_for(name: str, doc: str | None) -> argparse.ArgumentParser:
    """A parser for command ``name``, described by the first paragraph of ``doc``."""
    return argparse.ArgumentParser(prog=name, description=(doc or "").split("\n\n")[0])


def add_beam_option(parser: argparse.ArgumentParser, what: str, default: str) -> None:
    """--beam-arg: a Beam pipeline argument for ``what``, repeatable; ``default``: without."""
    parser.add_argument(
        "--beam-arg",
        action="append",
        default=None,
        metavar="ARG",
        help=f"a Beam pipeline argument for {what} (repeat the flag); default: {default}",
    )


class BeamArgsError(ValueError):
    """A --beam-arg that Beam does not know (Beam would drop it with a warning)."""


def checked_beam_args(flags: Sequence[str]) -> tuple[str, ...]:
    """``flags`` if Beam knows each of them; BeamArgsError naming those it does not."""
    from apache_beam.options.pipeline_options import PipelineOptions

    options = PipelineOptions(list(flags))
    unknown = set(options.get_all_options(retain_unknown_options=True))
    unknown -= set(options.get_all_options())
    if unknown:
        names = ", ".join(f"--{name}" for name in sorted(unknown))
        raise BeamArgsError(f"--beam-arg: Beam knows no option {names}")
    return tuple(flags)


def add_dataset_option(parser: argparse.ArgumentParser, default: str = datasets.DEFAULT) -> None:
    """--dataset: which declared dataset (datasets/NAME)."""
    parser.add_argument(
        "--dataset",
        default=default,
        help="the dataset declared in datasets/NAME (default: %(default)s)",
    )


def add_output_dir_option(parser: argparse.ArgumentParser) -> None:
    """--output-dir: where the runs' outputs are (the serving models among them)."""
    parser.add_argument(
        "--output-dir",
        type=Path,
        default=DEFAULT_OUTPUT_DIR,
        help="the run outputs (default: outputs/, or outputs/NAME for a dataset other than "
        "the taxi); the embedded metadata store is <output-dir>/metadata.sqlite",
    )


def add_store_options(parser: argparse.ArgumentParser) -> None:
    """--output-dir and --metadata: where the runs and their ML-Metadata are."""
    add_output_dir_option(parser)
    parser.add_argument(
        "--metadata",
        default=None,
        help=f"mysql://USER[:PASSWORD]@HOST[:PORT]/DATABASE for a shared store "
        f"(default: ${METADATA_ENV}, else the embedded SQLite); "
        f"the password may come from ${PASSWORD_ENV}",
    )


def add_read_options(parser: argparse.ArgumentParser, after_command: bool = False) -> None:
    """The read commands' options: the store, the dataset and the pipeline's name.

    After a subcommand they default to unset, so that options given before it stay,
    and options given after it win.
    """
    add_store_options(parser)
    add_dataset_option(parser)
    parser.add_argument("--pipeline-name", default=None, help="default: the dataset's")
    if after_command:
        for action in parser._actions:  # noqa: SLF001 - argparse has no public accessor
            if action.option_strings and action.dest != "help":
                # argparse drops a suppressed default from the values a help text is
                # formatted with: say the default in words instead.
                if action.help and "%(default)s" in action.help:
                    action.help = action.help.replace("%(default)s", str(action.default))
                action.default = argparse.SUPPRESS


def add_subcommand(
    subparsers: argparse._SubParsersAction, name: str, help_text: str
) -> argparse.ArgumentParser:
    """A subcommand that takes the read options after its name too."""
    parser = subparsers.add_parser(name, help=help_text)
    add_read_options(parser, after_command=True)
    return parser


def resolve_read_options(args: argparse.Namespace) -> None:
    """Fill the dataset's output dir and pipeline name in; CommandError for an unknown one."""
    try:
        dataset = datasets.load(args.dataset)
    except ValueError as err:
        raise CommandError(str(err)) from None
    args.output_dir = output_dir_for(args.dataset, args.output_dir)
    args.pipeline_name = args.pipeline_name or dataset.pipeline_name


def store_of(args: argparse.Namespace) -> MetadataStore:
    """The store the options name; CommandError for a bad --metadata URI."""
    try:
        return metadata_for(args.output_dir, args.metadata)
    except MetadataUriError as err:
        raise CommandError(str(err)) from None


def open_existing_store(args: argparse.Namespace) -> tuple[metadata_store.MetadataStore, str]:
    """An MLMD client on the store the options name, and the store in words.

    CommandError when it does not exist yet: reading must not create an empty one.
    """
    store = store_of(args)
    if isinstance(store, SqliteMetadata) and not Path(store.path).is_file():
        raise CommandError(f"no metadata store at {store.path}: run the pipeline first")
    return open_store(store), describe(store)


def execute(body: Callable[[], int], quiet: bool = True) -> int:
    """Run a command's body; an error line on stderr and its exit code if it stops.

    The process is prepared first (Keras 2 before TensorFlow loads, startup/process.py):
    the commands import TFX and TensorFlow only in their bodies.
    """
    process.prepare()
    if quiet:
        quiet_libraries()
    try:
        code = body()
        sys.stdout.flush()  # here, where a reader gone away is met, not at the exit
        return code
    except CommandError as err:
        return say_error(err, err.exit_code)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return _reader_gone()


def _reader_gone() -> int:
    """The reader of stdout went away (``| head``): stop quietly, as the shell's tools do.

    What is still buffered goes nowhere, so that Python's own flush at exit does not
    fail again (the way Python's documentation of SIGPIPE shows).
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return EXIT_READER_GONE

"""The commands people type (console scripts in pyproject.toml) and the exit codes they share."""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
from pathlib import Path

EXIT_OK = 0
# The command ran and what it reports does not hold: a step failed, the schemas
# differ, the run has no evaluation.
EXIT_FAILED = 1
# Bad input, or nothing to read: a bad flag, no store, run or artifact.
EXIT_BAD_INPUT = 2
# With --detailed-exitcode only: the run completed and its model was not blessed (the
# gate held it back). As Terraform's ``plan -detailed-exitcode`` gives the result CI
# acts on a code of its own beside the errors'; 2 is bad input here, so 3.
EXIT_NOT_BLESSED = 3
# wide-deep-score --fail-on-skew: the rows scored were skewed from the model's training data.
EXIT_SKEWED = 3
EXIT_INTERRUPTED = 130  # the shell's code for a command stopped by Ctrl-C
# The shell's code for a command whose reader went away (SIGPIPE), as in `... | head`.
EXIT_READER_GONE = 141

RUN = "wide-deep-run"
KUBEFLOW = "wide-deep-kubeflow"
INSPECT = "wide-deep-inspect"
REVIEW = "wide-deep-review"
SCHEMA_REVIEW = "wide-deep-schema-review"
DRAFT_DATASET = "wide-deep-draft-dataset"
SCORE = "wide-deep-score"


def command_line(name: str) -> str:
    """``name`` as people can type it here: bare when the shell finds this environment's."""
    script = Path(sys.executable).parent / name
    if shutil.which(name) == str(script):
        return name
    try:
        return shlex.quote(str(script.relative_to(Path.cwd())))
    except ValueError:
        return shlex.quote(str(script))


def add_detailed_exitcode(parser: argparse.ArgumentParser) -> None:
    """--detailed-exitcode: the run's verdict in the exit code, for CI."""
    parser.add_argument(
        "--detailed-exitcode",
        action="store_true",
        help=f"exit {EXIT_OK} when the run's model is blessed (pushed, or already serving), "
        f"{EXIT_NOT_BLESSED} when the gate held it back; errors keep their codes "
        f"(default: {EXIT_OK} for any completed run)",
    )


def verdict_exit_code(blessed: bool) -> int:
    """--detailed-exitcode's code for a run that completed: blessed or held back."""
    return EXIT_OK if blessed else EXIT_NOT_BLESSED

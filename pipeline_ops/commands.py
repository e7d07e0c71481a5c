"""The commands people type (console scripts in pyproject.toml) and the exit codes they share."""

from __future__ import annotations

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
EXIT_INTERRUPTED = 130  # the shell's code for a command stopped by Ctrl-C
# The shell's code for a command whose reader went away (SIGPIPE), as in `... | head`.
EXIT_READER_GONE = 141

RUN = "wide-deep-run"
KUBEFLOW = "wide-deep-kubeflow"
INSPECT = "wide-deep-inspect"
REVIEW = "wide-deep-review"
SCHEMA_REVIEW = "wide-deep-schema-review"
DRAFT_DATASET = "wide-deep-draft-dataset"


def command_line(name: str) -> str:
    """``name`` as people can type it here: bare when the shell finds this environment's."""
    script = Path(sys.executable).parent / name
    if shutil.which(name) == str(script):
        return name
    try:
        return shlex.quote(str(script.relative_to(Path.cwd())))
    except ValueError:
        return shlex.quote(str(script))

"""The software stack a run stands on: Python, TFX, TensorFlow, Beam, KFP, the C library.

Every run names it (``run_summary.json``, the run's ML-Metadata context,
``wide-deep-inspect runs``), so that figures of two runs are read knowing what each
ran on. Read from the installed distributions' metadata, without importing them: the
standard library only, in the image as on a laptop.
"""

from __future__ import annotations

import importlib.metadata
import platform
import sys

# The run context's custom property holding the stack (JSON).
STACK_PROPERTY = "stack"
# The stack's keys, and the distribution each one's version is read from.
_DISTRIBUTIONS = {
    "tfx": "tfx",
    "tensorflow": "tensorflow",
    "apache_beam": "apache-beam",
    "kfp": "kfp",
}
NOT_INSTALLED = "none"


def name() -> str:
    """Which of the two stacks this process runs: "current" (TFX 1.21) or "legacy" (1.16).

    Told apart by the Python, as pyproject.toml's markers tell them apart.
    """
    return "current" if sys.version_info >= (3, 11) else "legacy"


def stack() -> dict[str, str]:
    """The stack of the process that calls it, by key (see ``_DISTRIBUTIONS``), and libc.

    A distribution that is not installed (the image has no KFP SDK) is "none".
    """
    versions = {"python": platform.python_version()}
    for key, distribution in _DISTRIBUTIONS.items():
        try:
            versions[key] = importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            versions[key] = NOT_INSTALLED
    name, version = platform.libc_ver()
    versions["libc"] = f"{name} {version}".strip() or "unknown"
    return versions


def stack_line(versions: dict[str, str]) -> str:
    """The stack in one line, for people: ``python 3.10.13, tfx 1.16.0, ...``."""
    return ", ".join(f"{key} {value}" for key, value in versions.items())

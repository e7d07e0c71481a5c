"""Keep library chatter off the terminal of the read-only commands.

TF, TFMA and the Google client libraries print warnings on import that say nothing
to someone reading a review. Call ``quiet_libraries()`` before importing them.
"""

from __future__ import annotations

import builtins
import logging
import os
import warnings

_QUIET = ("FutureWarning", "DeprecationWarning", "UserWarning")


def quiet_libraries() -> None:
    """Silence TF's C++ log, Python warnings and the tensorflow/absl loggers below ERROR."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    # The same for the processes a command starts (a Beam pipeline's workers).
    os.environ.setdefault("PYTHONWARNINGS", ",".join(f"ignore::{c}" for c in _QUIET))
    for category in _QUIET:
        warnings.filterwarnings("ignore", category=getattr(builtins, category))
    for name in ("tensorflow", "absl", "apache_beam"):
        logging.getLogger(name).setLevel(logging.ERROR)

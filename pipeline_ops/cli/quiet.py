"""Keep library chatter off the terminal of the read-only commands.

TF, TFMA and the Google client libraries print warnings on import that say nothing
to someone reading a review. Call ``quiet_libraries()`` before importing them.
"""

from __future__ import annotations

import logging
import os
import warnings


def quiet_libraries() -> None:
    """Silence TF's C++ log, Python warnings and the tensorflow/absl loggers below ERROR."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    warnings.filterwarnings("ignore", category=UserWarning)
    for name in ("tensorflow", "absl", "apache_beam"):
        logging.getLogger(name).setLevel(logging.ERROR)

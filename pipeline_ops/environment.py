"""The commands' environment variables: ``WIDE_DEEP_*``, and the ``TAXI_*`` names they replace.

The variables were named after the one table the tool first knew; it serves any table
now. A former name is still read when the new one is absent, with one line on stderr,
once per process, naming the variable to set instead.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

PREFIX = "WIDE_DEEP_"
FORMER_PREFIX = "TAXI_"

_noted: set[str] = set()


def former_name(name: str) -> str:
    """The name ``name`` had before the product's prefix: WIDE_DEEP_METADATA -> TAXI_METADATA."""
    return FORMER_PREFIX + name.removeprefix(PREFIX)


def env_value(name: str, env: Mapping[str, str] = os.environ) -> str | None:
    """``env[name]``, else the former name's value with a deprecation note; None when neither."""
    if name in env:
        return env[name]
    former = former_name(name)
    if former not in env:
        return None
    if former not in _noted:
        _noted.add(former)
        print(f"note: {former} is deprecated: set {name} instead", file=sys.stderr)
    return env[former]

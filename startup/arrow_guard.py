"""CVE-2023-47248 closed in every process of the product, where its pyarrow has it.

pyarrow before 14.0.1 reads an Arrow IPC, Feather or Parquet column of type
``arrow.py_extension_type`` by unpickling what the file carries: an untrusted file
runs its code when read. TFX 1.16's tfx-bsl holds pyarrow at 10.0.1. The fix for
those releases, ``pyarrow_hotfix`` (by pyarrow's maintainer), refuses the type once
imported; apache_beam imports it too (Beam 2.60's ``apache_beam/__init__.py``), which
covers Beam's own worker processes, but no other process of this product should
depend on that: ``startup.process.prepare``, which each process calls first, calls
``close``.

A version difference is why this exists: from pyarrow 14.0.1 the type is not loaded
unless asked for, and ``close`` does nothing there.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import re

FIXED_IN = (14, 0, 1)


def needs_fix(version: str) -> bool:
    """Whether pyarrow ``version`` (e.g. "10.0.1") loads the pickled extension type."""
    numbers = tuple(int(n) for n in re.findall(r"\d+", version)[:3])
    return numbers < FIXED_IN


def close() -> bool:
    """Refuse the pickled extension type where this pyarrow would load it; whether it did."""
    if not needs_fix(importlib.metadata.version("pyarrow")):
        return False
    importlib.import_module("pyarrow_hotfix")  # installs the refusal on import
    return True

"""CVE-2023-47248: an Arrow file carrying a pickled extension type runs nothing in the product.

The payload is real: a file whose ``arrow.py_extension_type`` column unpickles into a
call that creates a file. A bare ``import pyarrow`` process on a pyarrow that has the
CVE runs it (the control); a process that imports the product first refuses it.
"""

from __future__ import annotations

import importlib.metadata
import pathlib
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from startup.arrow_guard import needs_fix

READ = "import pyarrow as pa, sys; pa.ipc.open_file(sys.argv[1]).read_all()"
VULNERABLE = needs_fix(importlib.metadata.version("pyarrow"))


class _Payload(pa.PyExtensionType):
    """An extension type whose pickle, when loaded, creates the file ``marker``."""

    def __init__(self, marker: str) -> None:
        self.marker = marker
        pa.PyExtensionType.__init__(self, pa.int64())

    def __reduce__(self) -> tuple:
        return pathlib.Path.touch, (pathlib.Path(self.marker),)


@pytest.fixture
def payload(tmp_path: Path) -> tuple[Path, Path]:
    """An Arrow IPC file carrying the payload, and the file the payload would create."""
    marker = tmp_path / "payload-ran"
    storage = pa.array([1, 2, 3], pa.int64())
    column = pa.ExtensionArray.from_storage(_Payload(str(marker)), storage)
    path = tmp_path / "untrusted.arrow"
    table = pa.table({"x": column})
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    return path, marker


def _read(path: Path, first: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", f"{first}{READ}", str(path)],
                          capture_output=True, text=True, check=False)  # fmt: skip


@pytest.mark.skipif(not VULNERABLE, reason="this pyarrow has the fix: nothing unpickles")
def test_the_payload_runs_where_nothing_guards_it(payload):
    path, marker = payload
    _read(path, "")
    assert marker.exists()


@pytest.mark.parametrize(
    "product",
    [
        "from startup import process; process.prepare(); ",
        "from pipeline_ops.cli.scaffold import execute; execute(lambda: 0); ",
    ],
)
def test_a_process_of_the_product_refuses_it(payload, product):
    path, marker = payload
    read = _read(path, product)
    assert not marker.exists()
    if VULNERABLE:
        assert read.returncode != 0
        assert "Disallowed deserialization of 'arrow.py_extension_type'" in read.stderr

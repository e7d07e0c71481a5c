"""scripts/uv.sh: uv fetched from the index as the lock pins it, with curl or without.

A Debian 13 root built before it held curl has python3 only: the fetch falls back to
Python's urllib there. The index here is a local HTTP server of a folder holding a wheel
of the lock's pin and hash, laid out as PyPI's simple index is.
"""

from __future__ import annotations

import functools
import hashlib
import shutil
import threading
import zipfile
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from stack_hosts import SCRIPTS, Host

PIN = "0.0.1"


@pytest.fixture
def index(tmp_path) -> Iterator[str]:
    """The URL of a simple index served from ``tmp_path/index`` while the test runs."""
    folder = tmp_path / "index"
    folder.mkdir()
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture
def project(tmp_path, index) -> Path:
    """A project whose lock pins uv 0.0.1, and an index (file://) offering its wheel."""
    copied = tmp_path / "project"
    shutil.copytree(SCRIPTS, copied / "scripts")
    listing = tmp_path / "index" / "uv"
    listing.mkdir()
    wheel = listing / f"uv-{PIN}-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as packed:
        packed.writestr(f"uv-{PIN}.data/scripts/uv", "#!/bin/sh\necho 'uv from the index'\n")
    (listing / "index.html").write_text(f'<a href="{wheel.name}#sha256=x">{wheel.name}</a>')
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    (copied / "requirements").mkdir()
    (copied / "requirements" / "current.lock").write_text(
        f"uv=={PIN} \\\n    --hash=sha256:{digest}\n"
    )
    return copied


CURL = pytest.param(
    "curl", marks=pytest.mark.skipif(shutil.which("curl") is None, reason="no curl here")
)


@pytest.mark.parametrize("fetcher", [CURL, "python3"])
def test_uv_is_fetched_checked_and_unpacked_with_curl_or_python(project, index, tmp_path, fetcher):
    host = Host(tmp_path / "host")
    (host.bin / "curl").unlink(missing_ok=True)
    if fetcher == "curl":
        (host.bin / "curl").symlink_to(shutil.which("curl"))
        if not (host.bin / "unzip").exists():  # the Debian 13 root has no unzip: python3 unpacks
            host.python("python3")
    else:
        host.python("python3")
    host.env["UV_INDEX_URL"] = index
    done = host.run(project / "scripts" / "uv.sh")
    assert done.returncode == 0, done.stderr
    uv = project / ".uv" / PIN / "uv"
    assert done.stdout.strip() == str(uv)
    assert uv.read_text().endswith("echo 'uv from the index'\n")
    assert [p.name for p in (project / ".uv").iterdir()] == [PIN]  # nothing half-fetched


def test_a_wheel_not_of_the_locks_hash_is_refused(project, index, tmp_path):
    lock = project / "requirements" / "current.lock"
    lock.write_text(f"uv=={PIN} \\\n    --hash=sha256:{'0' * 64}\n")
    host = Host(tmp_path / "host")
    host.python("python3")  # where curl is not, python3 fetches
    host.env["UV_INDEX_URL"] = index
    done = host.run(project / "scripts" / "uv.sh")
    assert done.returncode == 1
    assert "is not among requirements/current.lock's hashes for uv==0.0.1" in done.stderr
    assert not (project / ".uv" / PIN).exists()


def test_without_curl_or_python_the_line_says_what_to_install(project, index, tmp_path):
    host = Host(tmp_path / "host")
    (host.bin / "curl").unlink(missing_ok=True)
    host.env["UV_INDEX_URL"] = index
    done = host.run(project / "scripts" / "uv.sh")
    assert done.returncode == 1
    assert done.stderr.strip().endswith(
        "neither curl nor python3 is here to fetch it (sudo apt-get install curl)"
    )

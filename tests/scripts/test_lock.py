"""The current stack's lock (scripts/lock.sh): one file for Python 3.13 and 3.12.

Read as pip and uv read it (each requirement's marker evaluated for the Python at
hand): for each Python the stack runs on, every package is pinned exactly once, with
hashes; the pins that differ between them carry a marker naming their Python.
"""

from __future__ import annotations

import re
import subprocess

import pytest
from packaging.requirements import Requirement
from stack_hosts import PROJECT, SCRIPTS

LOCK = PROJECT / "requirements" / "current.lock"
VERSIONS = subprocess.run(
    [SCRIPTS / "stack.sh", "--versions", "current"], capture_output=True, text=True, check=True
).stdout.split()


def _entries() -> list[tuple[Requirement, list[str]]]:
    """Each requirement of the lock with its hashes."""
    found: list[tuple[Requirement, list[str]]] = []
    for line in LOCK.read_text().splitlines():
        if re.match(r"[A-Za-z0-9]", line):
            found.append((Requirement(line.rstrip(" \\")), []))
        elif "--hash=sha256:" in line:
            found[-1][1].append(line.split("sha256:")[1].rstrip(" \\"))
    return found


@pytest.mark.parametrize("version", VERSIONS)
def test_each_python_gets_every_package_once_with_hashes(version):
    taken = [
        (req, hashes) for req, hashes in _entries()
        if req.marker is None or req.marker.evaluate({"python_version": version})
    ]  # fmt: skip
    names = [req.name.lower() for req, _ in taken]
    assert len(names) == len(set(names)), "a package pinned twice for one Python"
    assert all(str(req.specifier).startswith("==") and hashes for req, hashes in taken)
    assert {"tfx", "tensorflow", "ml-metadata", "google-apitools"} <= set(names)


def test_a_pin_that_differs_by_python_names_its_python():
    marked = [req for req, _ in _entries() if req.marker is not None]
    assert marked, "the resolves for 3.12 and 3.13 differ in google-apitools: it is marked"
    for req in marked:
        assert re.fullmatch(r'python_version == "3\.1[23]"', str(req.marker)), req
    by_version = {str(req.marker)[-5:-1]: str(req.specifier) for req in marked}
    assert set(by_version) == set(VERSIONS)

"""Hosts for make's stack scripts: what a machine has, built in a temporary folder.

A host is a PATH of its own (the few commands the scripts use, linked from this
machine, and no Python unless one is added), a HOME of its own (no pyenv, no uv
Pythons), the C library ``getconf`` reports, and, where uv is to install a Python,
a downloads list of uv's format naming a local archive instead of github.com.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
SCRIPTS = PROJECT / "scripts"
# What the scripts run, besides Python: bash and the core tools, curl and unzip (uv's
# wheel), apt-get and dpkg-query (Debian's packages: absent unless a test adds them).
COMMANDS = (
    "bash", "sh", "env", "awk", "sed", "grep", "head", "tail", "sort", "cut", "tr", "paste",
    "mktemp", "rm", "mkdir", "mv", "cp", "ln", "chmod", "touch", "cat", "ls", "id", "uname",
    "basename", "dirname", "printf", "sha256sum", "curl", "unzip", "g++", "make",
)  # fmt: skip
# The environment a host keeps: certificates and proxies reach PyPI, nothing else.
KEPT = (
    "SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE", "PIP_CERT", "LANG",
    "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy",
)  # fmt: skip


@dataclass
class Host:
    """A machine as the scripts see it; ``run`` runs a command on it."""

    root: Path
    glibc: str = "2.36"
    env: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.bin = self.root / "bin"
        self.home = self.root / "home"
        self.bin.mkdir(parents=True, exist_ok=True)
        self.home.mkdir(exist_ok=True)
        for name in COMMANDS:
            found = shutil.which(name)
            if found and not (self.bin / name).exists():
                (self.bin / name).symlink_to(found)
        self.command("getconf", f"echo 'glibc {self.glibc}'")

    def command(self, name: str, body: str) -> Path:
        """Adds (or replaces) a shell command ``name`` on the host's PATH."""
        path = self.bin / name
        path.unlink(missing_ok=True)
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)
        return path

    def python(self, name: str, lacks: str = "", base: Path | None = None) -> Path:
        """Puts this test's Python (or ``base``) on the PATH as ``name``; ``lacks``: "venv"
        hides ensurepip, as Debian's Python is without python3.X-venv."""
        shadow = self.root / f"shadow-{name}"
        shadow.mkdir(exist_ok=True)
        if "venv" in lacks:
            (shadow / "ensurepip.py").write_text("raise ImportError('python3-venv is missing')\n")
        return self.command(name, f'PYTHONPATH="{shadow}" exec "{base or base_python()}" "$@"')

    def run(self, *argv: object, user: str | None = None) -> subprocess.CompletedProcess:
        """Runs ``argv`` on this host, from the project folder, as ``user`` if given."""
        command = [str(a) for a in argv]
        if user is not None:
            setpriv = shutil.which("setpriv")
            command = [setpriv, f"--reuid={user}", f"--regid={user}", "--clear-groups", *command]
        env = {k: os.environ[k] for k in KEPT if k in os.environ}
        env.update(PATH=str(self.bin), HOME=str(self.home), **self.env)
        return subprocess.run(
            command, cwd=PROJECT, env=env, capture_output=True, text=True, check=False
        )


def open_to_all(path: Path) -> None:
    """Lets any user reach ``path``: pytest's temporary folders are their owner's alone, and
    a test run as another user (without root) must reach its host's commands."""
    for folder in (path, *path.parents):
        if folder == Path(tempfile.gettempdir()):
            return
        folder.chmod(folder.stat().st_mode | 0o055)


def base_python() -> Path:
    """The interpreter this test's environment was built from (pyenv's, or the system's)."""
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    return Path(sys.base_prefix) / "bin" / f"python{version}"


def self_contained_python() -> bool:
    """Whether the base interpreter carries its own ensurepip wheels (pyenv, uv), so that a
    copy of it runs as a Python that uv downloaded would."""
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    return (Path(sys.base_prefix) / "lib" / f"python{version}" / "ensurepip" / "_bundled").is_dir()


def python_download(folder: Path, url: str | None = None, version: str | None = None) -> Path:
    """A downloads list of uv's format offering this test's Python, as python-build-standalone
    would: an archive of it under ``folder``; or, with ``url`` (where nothing is), Python
    ``version`` (``"3.10"``) whatever runs the test, so uv tries that URL for it."""
    major, minor, patch = sys.version_info[:3]
    if version is not None:
        major, minor, patch = (*map(int, version.split(".")), 0)
    archive = folder / "cpython.tar.gz"
    if url is None:
        version = f"python{major}.{minor}"
        skip = {"test", "site-packages", "__pycache__", "idlelib", "tkinter", "lib2to3"}
        with tarfile.open(archive, "w:gz") as tar:
            for part in ("bin", "include"):
                tar.add(Path(sys.base_prefix) / part, f"python/{part}")
            tar.add(
                Path(sys.base_prefix) / "lib" / version, f"python/lib/{version}",
                filter=lambda info: None if set(Path(info.name).parts) & skip else info,
            )  # fmt: skip
        url = archive.as_uri()
        digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    else:
        digest = "0" * 64
    key = f"cpython-{major}.{minor}.{patch}-linux-x86_64-gnu"
    listing = folder / "downloads.json"
    listing.write_text(json.dumps({key: {
        "name": "cpython", "arch": {"family": "x86_64", "variant": None}, "os": "linux",
        "libc": "gnu", "major": major, "minor": minor, "patch": patch, "prerelease": "",
        "url": url, "sha256": digest, "variant": None, "build": "test",
    }}))  # fmt: skip
    return listing

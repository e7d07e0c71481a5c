"""scripts/find_python.sh on the hosts people have: each choice, in its order, and its line.

The hosts are folders (tests/stack_hosts.py): a PATH with or without a Python of the
stack's version, Debian's Python without its venv package, no pyenv, and uv installing
a Python from a downloads list of its own format (a local archive, or an address that
refuses, standing in for github.com, which these machines cannot reach).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from stack_hosts import SCRIPTS, Host, open_to_all, python_download, self_contained_python

FIND = SCRIPTS / "find_python.sh"
VERSION = f"{sys.version_info.major}.{sys.version_info.minor}"


@pytest.fixture
def host(tmp_path) -> Host:
    """A host with no Python at all, whose uv downloads fail at once (nothing listens)."""
    made = Host(tmp_path)
    made.env["UV_PYTHON_DOWNLOADS_JSON_URL"] = str(
        python_download(tmp_path, url="http://127.0.0.1:9/cpython.tar.gz")
    )
    return made


def test_the_stacks_python_on_the_path_is_taken_first(host):
    python = host.python(f"python{VERSION}")
    done = host.run(FIND, "3.99", VERSION)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(python)
    assert done.stderr.strip() == f"python: Python {VERSION} at {python} (on the PATH)"


def test_pyenvs_version_is_found_where_the_path_has_none(host, tmp_path):
    pyenv = tmp_path / "pyenv" / "versions" / f"{VERSION}.7" / "bin"
    pyenv.mkdir(parents=True)
    host.python("python").rename(pyenv / "python")
    host.env["PYENV_ROOT"] = str(tmp_path / "pyenv")
    done = host.run(FIND, VERSION)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(pyenv / "python")
    assert "(pyenv)" in done.stderr


def test_a_python_of_another_version_is_named_in_the_last_line(host):
    host.python("python3")
    done = host.run(FIND, "3.99")
    assert done.returncode == 1
    last = done.stderr.splitlines()[-1]
    assert last.startswith(
        f"error: no Python 3.99 with venv and its headers here (python3 on the PATH is {VERSION})"
    )
    for choice in ("'pyenv install 3.99'", "'uv python install 3.99'", "PYTHON=", "STACK=legacy"):
        assert choice in last


def test_python_chosen_by_hand_must_be_of_the_stacks_version(host):
    python = host.python("python3")
    host.env["PYTHON"] = str(python)
    done = host.run(FIND, "3.99")
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"error: PYTHON={python} is Python {VERSION}; this stack runs on Python 3.99"
    )
    chosen = host.run(FIND, "3.99", VERSION)
    assert chosen.returncode == 0 and chosen.stdout.strip() == str(python)
    assert "(PYTHON)" in chosen.stderr


def test_without_root_a_python_lacking_venv_is_named_with_its_package(host):
    # The system's Python: one that another user may run (pyenv's lives in root's home).
    system = Path("/usr/bin/python3")
    version = subprocess.run(
        [system, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    host.python(f"python{version}", lacks="venv", base=system)
    if _can_drop_root():
        open_to_all(host.root)
        done = host.run(FIND, version, user="65534")
    else:
        done = host.run(FIND, version)
    assert done.returncode == 1
    last = done.stderr.splitlines()[-1]
    assert f"'sudo apt-get install python{version}-venv" in last


def test_as_root_the_venv_package_is_installed_and_the_python_taken(host):
    if not _can_drop_root():
        pytest.skip("root only: installs Debian's package")
    python = host.python(f"python{VERSION}", lacks="venv")
    installed = host.root / "apt-get.args"
    # Debian's apt-get, standing in: it records what it was asked and "installs" venv.
    shadows = f'"{host.root}"/shadow-*/ensurepip.py'
    host.command("apt-get", f'echo "$@" >> "{installed}"; rm -f {shadows}')
    done = host.run(FIND, VERSION)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(python)
    assert f"install -y -qq --no-install-recommends python{VERSION}-venv" in installed.read_text()
    assert f"(on the PATH, with python{VERSION}-venv installed)" in done.stderr


def test_a_failed_download_is_one_line_and_the_next_choice_follows(host):
    done = host.run(FIND, VERSION)
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    failed = [line for line in lines if "uv could not download" in line]
    (line,) = failed
    assert line.startswith(f"python: uv could not download Python {VERSION} from 127.0.0.1:9 (")
    assert lines[-1].startswith(f"error: no Python {VERSION}")
    assert not list((host.home / ".local" / "share" / "uv" / "python").glob("cpython-*"))


def test_a_python_uv_offers_no_download_of_is_named_with_uvs_reason(host, tmp_path):
    host.env["UV_PYTHON_DOWNLOADS_JSON_URL"] = str(
        python_download(tmp_path, url="http://127.0.0.1:9/cpython.tar.gz", version="3.99")
    )
    done = host.run(FIND, VERSION)
    assert done.returncode == 1
    assert (
        f"python: uv could not download Python {VERSION} (No download found for request: "
        f"cpython-{VERSION}-linux-x86_64-gnu)"
    ) in done.stderr.splitlines()


@pytest.mark.skipif(not self_contained_python(), reason="the base Python is the system's")
@pytest.mark.slow  # installs a Python with uv
def test_uv_installs_a_python_where_the_host_has_none_and_finds_it_next_time(host, tmp_path):
    host.env["UV_PYTHON_DOWNLOADS_JSON_URL"] = str(python_download(tmp_path))
    done = host.run(FIND, VERSION)
    assert done.returncode == 0, done.stderr
    installed = done.stdout.strip()
    assert installed.startswith(str(host.home / ".local" / "share" / "uv" / "python"))
    assert "(installed by uv)" in done.stderr
    assert not (host.home / ".local" / "bin").exists()  # the user's own bin folder untouched
    again = host.run(FIND, VERSION)
    assert again.stdout.strip() == installed and "(managed by uv)" in again.stderr


def _can_drop_root() -> bool:
    return os.geteuid() == 0 and shutil.which("setpriv") is not None

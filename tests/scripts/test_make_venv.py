"""scripts/make_venv.sh and scripts/sync_lock.sh: what a stopped make leaves, the next one mends.

A folder left half-built (a make stopped while the environment was created), a creation
that fails, and a sync stopped midway: each is found by the next make, said in a line,
and built again, without anyone removing a folder by hand.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from stack_hosts import PROJECT, SCRIPTS, Host, base_python

VERSION = f"{sys.version_info.major}.{sys.version_info.minor}"
MAKE_VENV = SCRIPTS / "make_venv.sh"
SIX = (
    "six==1.16.0 \\\n"
    "    --hash=sha256:1e61c37477a1626458e36f7b1d82aa5c9b094fa4802892072e49de9c60c4c926 \\\n"
    "    --hash=sha256:8abb2f1d86890a2dfb989f9a77cfcfd3e47c2a354b01111771326f8aa26e0254\n"
)


@pytest.fixture
def host(tmp_path) -> Host:
    """A host whose PATH has this test's Python as python<version>."""
    made = Host(tmp_path / "host")
    made.python(f"python{VERSION}")
    return made


@pytest.mark.slow
def test_a_half_built_environment_is_removed_and_built_again(host, tmp_path):
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("left by a stopped make")
    done = host.run(MAKE_VENV, venv, VERSION)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == (
        f"Removing {venv}, left half-built by a stopped make or without its Python;"
        " building it again"
    )
    pip = subprocess.run([venv / "bin" / "python", "-c", "import pip"], check=False)
    assert pip.returncode == 0
    again = host.run(MAKE_VENV, venv, VERSION)
    assert again.returncode == 0 and again.stdout == ""  # a working one is left as it is


def test_a_creation_that_fails_leaves_nothing(host, tmp_path):
    # A Python whose venv module stops after the folder's first files, as a full disk would.
    host.command(
        f"python{VERSION}",
        f'[ "$1 $2" = "-m venv" ] && {{ mkdir -p "$3/bin"; echo "No space left" >&2; exit 1; }}\n'
        f'exec "{base_python()}" "$@"',
    )
    venv = tmp_path / "venv"
    done = host.run(MAKE_VENV, venv, VERSION)
    assert done.returncode == 1
    last = done.stderr.splitlines()[-1]
    assert last.startswith("error: ") and "nothing was left behind" in last
    assert not venv.exists()


@pytest.mark.slow
def test_a_sync_that_was_stopped_reinstalls_everything_the_next_time(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([base_python(), "-m", "venv", "--without-pip", venv], check=True)
    lock = tmp_path / "requirements.lock"
    lock.write_text(SIX)
    fetched = subprocess.run([SCRIPTS / "uv.sh"], capture_output=True, text=True, check=True)
    uv = fetched.stdout.strip()
    sync = [SCRIPTS / "sync_lock.sh", uv, venv / "bin" / "python", lock]
    first = subprocess.run(sync, cwd=PROJECT, capture_output=True, text=True, check=False)
    assert first.returncode == 0, first.stderr
    assert not (venv / ".sync-unfinished").exists()
    # Stopped midway: six's module lost, its record still there, and the sync's marker left.
    module = next((venv / "lib").glob("python*/site-packages/six.py"))
    module.unlink()
    (venv / ".sync-unfinished").touch()
    again = subprocess.run(sync, cwd=PROJECT, capture_output=True, text=True, check=False)
    assert again.returncode == 0, again.stderr
    said = f"The last sync of {venv} did not finish: reinstalling every package"
    assert again.stdout.strip() == said
    assert module.exists() and not (venv / ".sync-unfinished").exists()


def test_a_failed_sync_leaves_its_marker_for_the_next(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([base_python(), "-m", "venv", "--without-pip", venv], check=True)
    lock = tmp_path / "requirements.lock"
    lock.write_text("six==99.0.0 \\\n    --hash=sha256:" + "0" * 64 + "\n")
    uv = Path(sys.executable).parent / "uv"
    done = subprocess.run(
        [SCRIPTS / "sync_lock.sh", uv, venv / "bin" / "python", lock],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 1
    assert (venv / ".sync-unfinished").exists()


def test_a_host_without_the_time_zone_database_is_told_to_install_it(host, tmp_path):
    host.env["TZDIR"] = str(tmp_path / "no-zoneinfo")  # where cctz (absl) looks for it
    venv = tmp_path / "venv"
    done = host.run(MAKE_VENV, venv, VERSION)
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        "error: missing Debian packages tzdata (TFX's libraries abort without the time zone"
        " database): install them with 'sudo apt-get install tzdata'"
    )
    assert not venv.exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="root only: make installs what is missing as root")
@pytest.mark.slow  # builds a virtual environment
def test_as_root_what_the_host_lacks_is_installed_and_said(host, tmp_path):
    zoneinfo = tmp_path / "zoneinfo"
    host.env["TZDIR"] = str(zoneinfo)
    (host.bin / "g++").unlink()
    asked = tmp_path / "apt-get.args"
    # Debian's apt-get, standing in: it records what it was asked and puts the package's
    # file where the check looks (g++ on the PATH, the zone the run needs).
    host.command(
        "apt-get",
        f'echo "$@" >> "{asked}"\n'
        f'case "$*" in *" g++"*) ln -sf "{shutil.which("g++")}" "{host.bin}/g++" ;; esac\n'
        f'case "$*" in *" tzdata"*) mkdir -p "{zoneinfo}/America"'
        f' && touch "{zoneinfo}/America/Los_Angeles" ;; esac',
    )
    venv = tmp_path / "venv"
    done = host.run(MAKE_VENV, venv, VERSION)
    assert done.returncode == 0, done.stderr
    said = done.stdout.splitlines()
    assert (
        "Installing Debian packages: g++ (pyfarmhash, which TFDV needs, compiles from source)"
        in said
    )
    assert (
        "Installing Debian packages: tzdata (TFX's libraries abort without the time zone database)"
        in said
    )
    assert "install -y -qq --no-install-recommends g++" in asked.read_text()
    assert (venv / "bin" / "python").exists()

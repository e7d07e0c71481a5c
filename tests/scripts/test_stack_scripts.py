"""The scripts make uses to choose a stack and build its environment, on bad input.

Each case is the script itself, run as make runs it: what the host says (its glibc,
through ``getconf`` on the PATH), a Python that is missing, a Debian root that is
half-built or asked for without root, a lock edited by hand.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from stack_hosts import Host, open_to_all, python_download

PROJECT = Path(__file__).resolve().parents[2]
SCRIPTS = PROJECT / "scripts"


def _run(
    *argv: object, env: dict[str, str] | None = None, user: str | None = None
) -> subprocess.CompletedProcess:
    command = [str(a) for a in argv]
    if user is not None:
        command = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *command]
    # As on a host: not inside the Debian root (where the outer make has already decided).
    host = {k: v for k, v in os.environ.items() if k not in ("WIDE_DEEP_IN_ROOT", "STACK")}
    return subprocess.run(
        command, cwd=PROJECT, env={**host, **(env or {})},
        capture_output=True, text=True, check=False,
    )  # fmt: skip


def _host_with_glibc(tmp_path: Path, version: str) -> dict[str, str]:
    """A PATH whose ``getconf GNU_LIBC_VERSION`` answers ``version``, as that host's would,
    with a Python of the legacy stack."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    getconf = bin_dir / "getconf"
    getconf.write_text(f"#!/bin/sh\necho 'glibc {version}'\n")
    getconf.chmod(0o755)
    # And a Python 3.10 for the legacy stack: what find_python.sh asks of one, answered.
    legacy = bin_dir / "python3.10"
    legacy.write_text("#!/bin/sh\necho 3.10\n")
    legacy.chmod(0o755)
    return {"PATH": f"{bin_dir}:{os.environ['PATH']}"}


@pytest.mark.parametrize(
    ("glibc", "asked", "first_words", "says"),
    [
        ("2.36", "", "legacy native default", "glibc 2.36 is older than the 2.39"),
        ("2.41", "", "current native default", "glibc 2.41 runs it"),
        ("2.39", "", "current native default", "glibc 2.39 runs it"),
        ("2.36", "current", "current root asked", "in a Debian 13 root"),
        ("2.41", "legacy", "legacy native asked", "as STACK asks"),
    ],
)
def test_the_host_decides_and_says_why(tmp_path, glibc, asked, first_words, says):
    done = _run(SCRIPTS / "stack.sh", asked, env=_host_with_glibc(tmp_path, glibc))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(first_words)
    assert says in done.stdout and len(done.stdout.splitlines()) == 1


def test_an_unknown_stack_is_one_line_and_exit_2():
    done = _run(SCRIPTS / "stack.sh", "newest")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "error: STACK must be current or legacy (or unset, to let the host decide), not 'newest'"
    )


def test_make_names_the_stack_on_its_first_line_and_stops_on_a_bad_one():
    done = _run("make", "-s", "help", "STACK=legacy")
    first = done.stdout.splitlines()[0]
    assert first == "stack: legacy (TFX 1.16, Python 3.10), as STACK asks"
    bad = _run("make", "-s", "help", "STACK=newest")
    assert bad.returncode != 0
    assert "STACK must be current or legacy" in bad.stderr


@pytest.fixture
def bare_host(tmp_path) -> Host:
    """A Debian 12 host without any Python of a stack, whose uv downloads fail, and a
    copy of the scripts in a project of their own (no environment built yet)."""
    project = tmp_path / "project"
    shutil.copytree(SCRIPTS, project / "scripts")
    (project / "requirements").mkdir()
    shutil.copy2(PROJECT / "requirements" / "current.lock", project / "requirements")
    if (PROJECT / ".uv").is_dir():
        (project / ".uv").symlink_to(PROJECT / ".uv")  # uv, fetched once
    host = Host(tmp_path / "host", glibc="2.36")
    host.env["UV_PYTHON_DOWNLOADS_JSON_URL"] = str(
        python_download(host.root, url="http://127.0.0.1:9/cpython.tar.gz", version="3.10")
    )
    host.project = project
    return host


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root")
@pytest.mark.slow  # runs the stack scripts
def test_without_a_legacy_python_root_runs_the_current_stack_in_the_debian_root(bare_host):
    stack = bare_host.project / "scripts" / "stack.sh"
    done = bare_host.run(stack)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(
        "current root default stack: current (TFX 1.21, Python 3.13 or 3.12) in a Debian 13 root"
    )
    assert "no Python 3.10 for the legacy stack" in done.stdout
    said = done.stderr.splitlines()
    assert said[0] == (
        "python: none of Python 3.10 on the PATH or in pyenv; asking uv to install Python 3.10"
    )
    assert said[1].startswith("python: uv could not download Python 3.10 from 127.0.0.1:9")
    assert not any(line.startswith("error:") for line in said)  # the next choice follows
    open_to_all(bare_host.root)
    (bare_host.project / ".uv").unlink(missing_ok=True)
    bare_host.project.chmod(0o777)
    not_root = bare_host.run(stack, user="65534")
    assert not_root.stdout.startswith("legacy native default"), not_root.stderr


def test_a_stack_names_the_pythons_it_runs_on():
    assert _run(SCRIPTS / "stack.sh", "--versions", "current").stdout.split() == ["3.13", "3.12"]
    assert _run(SCRIPTS / "stack.sh", "--versions", "legacy").stdout.split() == ["3.10"]


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root")
def test_a_root_asked_for_without_root_says_what_to_do_instead(tmp_path):
    tmp_path.chmod(0o777)
    done = _run(SCRIPTS / "debian_root.sh", tmp_path / "root", user="65534")
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert "only root can build the Debian 13 root" in line
    assert "use the image" in line and "STACK=legacy runs here" in line
    assert not (tmp_path / "root").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="builds a Debian root: root only")
def test_a_half_built_root_is_removed_and_never_used(tmp_path):
    root = tmp_path / "root"
    partial = tmp_path / "root.partial"
    (partial / "usr" / "bin").mkdir(parents=True)
    (partial / "usr" / "bin" / "python3").write_text("left by a killed build")
    # The build itself is Debian's debootstrap; here one that fails at once, so that
    # what the script does around it is what is seen.
    env = _host_with_glibc(tmp_path, "2.36")
    failing = tmp_path / "bin" / "debootstrap"
    failing.write_text("#!/bin/sh\necho 'E: Failed getting release file' >&2\nexit 1\n")
    failing.chmod(0o755)
    done = _run(SCRIPTS / "debian_root.sh", root, env=env)
    assert "half-built Debian root" in done.stdout and "removing it" in done.stdout
    assert done.returncode == 1
    assert "debootstrap failed" in done.stderr and "Failed getting release file" in done.stderr
    assert not root.exists()  # never a root that looks usable
    assert not (partial / "usr" / "bin" / "python3").exists()
    incomplete = tmp_path / "incomplete"
    incomplete.mkdir()
    refused = _run(SCRIPTS / "in_root.sh", incomplete, "true")
    assert refused.returncode == 2
    assert "is not a complete Debian root" in refused.stderr


def test_a_lock_edited_by_hand_is_one_line_naming_it(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    lock = tmp_path / "current.lock"
    lock.write_text("six==99.0.0 \\\n    --hash=sha256:" + "0" * 64 + "\n")
    uv = Path(sys.executable).parent / "uv"
    done = _run(SCRIPTS / "sync_lock.sh", uv, venv / "bin" / "python", lock)
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"error: {lock} does not install (")
    assert "six" in line and "edited by hand?" in line and "make lock" in line


def _locked(package: str) -> str:
    """The entry of ``package`` in the lock of the stack these tests run on, with its hashes."""
    stack = Path(sys.prefix).name.removeprefix(".venv-")
    lines = (PROJECT / "requirements" / f"{stack}.lock").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{package}=="))
    end = next(i for i in range(start, len(lines)) if not lines[i].endswith("\\"))
    return "\n".join(lines[start : end + 1]) + "\n"


@pytest.fixture
def small_disk(tmp_path: Path) -> Path:
    """A real 2 MB file system (tmpfs), mounted for this test only."""
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", disk], check=True)
    yield disk
    subprocess.run(["umount", disk], check=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="root only: mounts a small file system")
def test_a_full_disk_is_named_not_blamed_on_the_lock(small_disk, tmp_path):
    # A CI host ran out of disk midway through a sync and was told its lock was edited.
    venv = small_disk / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    lock = tmp_path / "current.lock"
    lock.write_text(_locked("numpy"))  # far more than the 2 MB the disk holds
    uv = Path(sys.executable).parent / "uv"
    done = _run(SCRIPTS / "sync_lock.sh", uv, venv / "bin" / "python", lock)
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"error: the disk is full while installing {lock} into {venv} (")
    assert "Free some space and run make again." in line
    assert "edited by hand" not in line
    assert (venv / ".sync-unfinished").exists()  # the next make reinstalls what was half-copied

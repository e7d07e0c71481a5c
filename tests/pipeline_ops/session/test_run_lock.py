"""The output folder's run lock, between real processes: one holds it, another fires.

The holder is a process of its own (a Python that takes the lock as a run does and
waits); the firing is this test's process, or the real ``wide-deep-run``.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from run_commands import PROJECT, runner_command

from pipeline_ops.session.run_lock import LOCK_FILE, LockHeldError, one_run_at_a_time

# A run's stand-in: takes the lock, says so by a file, holds it for argv[3] seconds.
_HOLDER = """
import sys, time
from pathlib import Path
from pipeline_ops.session.run_lock import one_run_at_a_time
with one_run_at_a_time(Path(sys.argv[1])):
    Path(sys.argv[2]).touch()
    time.sleep(float(sys.argv[3]))
"""


def _hold(output_dir: Path, seconds: float) -> subprocess.Popen:
    """A process holding ``output_dir``'s lock for ``seconds``, started and holding."""
    ready = output_dir / "holding"
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(output_dir), str(ready), str(seconds)], cwd=PROJECT
    )
    deadline = time.monotonic() + 60
    while not ready.exists():
        assert holder.poll() is None and time.monotonic() < deadline, "the holder did not start"
        time.sleep(0.05)
    return holder


@pytest.fixture
def held(tmp_path) -> Iterator[subprocess.Popen]:
    """``tmp_path``'s lock held by another process for a minute (ended after the test)."""
    holder = _hold(tmp_path, 60)
    yield holder
    holder.kill()
    holder.wait()


def test_a_firing_names_the_run_under_way_and_gives_up_at_once(held, tmp_path):
    with pytest.raises(LockHeldError) as raised, one_run_at_a_time(tmp_path):
        pytest.fail("the lock was taken while another process held it")
    said = str(raised.value)
    assert f"(process {held.pid} on {socket.gethostname()}) holds {tmp_path / LOCK_FILE}" in said
    assert said.startswith("the run started 20")


@pytest.mark.slow  # waits on a lock for seconds
def test_a_firing_waits_only_as_long_as_it_is_told(held, tmp_path):
    started = time.monotonic()
    waited = pytest.raises(LockHeldError, match=r"after waiting 1\.5 s$")
    with waited, one_run_at_a_time(tmp_path, wait_s=1.5):
        pytest.fail("the lock was taken while another process held it")
    assert 1.5 <= time.monotonic() - started < 10


@pytest.mark.slow  # waits on a lock for seconds
def test_a_run_that_ends_within_the_wait_hands_the_lock_over(tmp_path, capsys):
    holder = _hold(tmp_path, 1.0)
    with one_run_at_a_time(tmp_path, wait_s=30):
        assert holder.wait(timeout=5) == 0  # it ended: that is how the lock came free
    assert capsys.readouterr().out == ""  # a clean hand-over, nothing to say
    assert (tmp_path / LOCK_FILE).read_text() == ""  # released, and its note cleared


def test_a_lock_left_by_a_killed_run_is_taken_over_and_said(tmp_path, capsys):
    holder = _hold(tmp_path, 60)
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    with one_run_at_a_time(tmp_path):
        note = (tmp_path / LOCK_FILE).read_text()
        assert f'"pid": {os.getpid()}' in note  # the lock now names this run
    said = capsys.readouterr().out.strip()
    assert said.startswith(f"note: taking over {tmp_path / LOCK_FILE} from the run started 20")
    assert f"(process {holder.pid} on {socket.gethostname()}), which ended without" in said


@pytest.mark.slow
def test_wide_deep_run_finds_a_run_under_way_and_exits_0_before_any_step(held, tmp_path):
    data = PROJECT / "data" / "taxi"
    started = time.monotonic()
    done = subprocess.run(
        runner_command(data, tmp_path, "--wait-for-lock", "1"),
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("span 0: the run started ")
    assert f"(process {held.pid} on " in last
    assert last.endswith(f"holds {tmp_path / LOCK_FILE} after waiting 1 s; nothing to do")
    assert not (tmp_path / "pipeline").exists() and not (tmp_path / "metadata.sqlite").exists()
    assert time.monotonic() - started < 120

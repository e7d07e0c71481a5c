"""A benchmarked command's seconds and the memory its processes hold together."""

from __future__ import annotations

import sys

import pytest

# A parent holding 150 MiB and a child holding 250 MiB, both for a second.
HOLDERS = """
import subprocess, sys, time
held = bytearray(150 << 20)
child = subprocess.Popen([sys.executable, "-c",
    "import time; held = bytearray(250 << 20); time.sleep(1.5)"])
time.sleep(1.5)
child.wait()
"""


@pytest.fixture
def memory(load_script):
    return load_script("memory")


@pytest.mark.slow  # samples a command's memory for seconds
def test_the_memory_of_a_command_s_processes_is_summed(memory):
    seconds, peak_mib = memory.measured_run([sys.executable, "-c", HOLDERS], "the holders")

    assert seconds >= 1.5
    # Both processes' pages, each counted once; the interpreters add some tens of MiB.
    assert 400 <= peak_mib < 600


def test_a_failing_command_exits_naming_it_with_its_output(memory):
    failing = [sys.executable, "-c", "print('said first'); raise SystemExit(3)"]

    with pytest.raises(SystemExit) as stopped:
        memory.measured_run(failing, "the failing step")

    assert str(stopped.value).startswith("the failing step failed (exit 3):\nsaid first")

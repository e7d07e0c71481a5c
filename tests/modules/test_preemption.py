"""A Trainer killed mid-training and started again resumes after its last finished epoch.

Real processes (``trainer_process.py``): one alone (one member, and an ensemble's towers
in one fit), and two MultiWorkerMirroredStrategy workers of which one is killed with
SIGKILL, as a lost machine or an evicted pod.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from run_commands import free_port

from modules.training import backup_dir

pytestmark = pytest.mark.slow

HELPER = Path(__file__).resolve().parent / "trainer_process.py"
STEPS = "250"  # 5 epochs of 50 steps: killed after the third, resumed for the last two
EPOCH = re.compile(r"epoch (\d+) \(train")
VAL_AUC = re.compile(r"epoch (\d+) \(train.*val_auc ([0-9.]+)")


def _start(
    pipeline_root: Path, out: Path, log: Path, env: dict | None = None, *flags: str
) -> subprocess.Popen:
    """The Trainer as a process, its output (run_fn's log lines) to ``log``."""
    return subprocess.Popen(
        [sys.executable, str(HELPER), str(pipeline_root), str(out), "--steps", STEPS, *flags],
        stdout=log.open("w"), stderr=subprocess.STDOUT, env={**os.environ, **(env or {})},
    )  # fmt: skip


def _epochs(log: Path) -> list[int]:
    return [int(n) for n in EPOCH.findall(log.read_text())]


def _kill_after_epoch(process: subprocess.Popen, log: Path, epoch: int) -> None:
    """SIGKILL once ``epoch`` is logged."""
    deadline = time.monotonic() + 600
    while epoch not in _epochs(log):
        assert process.poll() is None, log.read_text()[-3000:]
        assert time.monotonic() < deadline, f"no epoch {epoch} in 600 s"
        time.sleep(0.2)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)


def _finish(process: subprocess.Popen, log: Path) -> None:
    assert process.wait(timeout=900) == 0, log.read_text()[-3000:]


@pytest.fixture(scope="module")
def pipeline_root(first_run) -> Path:
    return first_run[0] / "pipeline"


@pytest.mark.parametrize("members", ["1", "2"])
def test_a_killed_trainer_resumes_after_its_last_epoch(pipeline_root, tmp_path, members):
    out = tmp_path / "out"
    killed, resumed = tmp_path / "killed.log", tmp_path / "resumed.log"
    flags = ("--members", members)
    _kill_after_epoch(_start(pipeline_root, out, killed, None, *flags), killed, epoch=3)
    done = _epochs(killed)[-1]
    assert not (out / "model").exists()
    backup = Path(backup_dir(str(out / "run")))
    assert backup.parent == out and backup.is_dir()

    _finish(_start(pipeline_root, out, resumed, None, *flags), resumed)
    epochs = _epochs(resumed)
    assert epochs[0] == done + 1, resumed.read_text()[-3000:]
    assert epochs == list(range(done + 1, epochs[-1] + 1))
    # Early stopping goes on from the best epoch before the kill, not afresh.
    best_epoch, best_auc = max(VAL_AUC.findall(killed.read_text()), key=lambda m: float(m[1]))
    assert f"early stopping resumed: best val_auc {best_auc} at epoch {best_epoch}," in (
        resumed.read_text()
    )
    assert (out / "model" / "saved_model.pb").is_file()
    assert not backup.exists()


def test_multi_worker_training_resumes_after_a_worker_is_killed(pipeline_root, tmp_path):
    out = tmp_path / "out"

    def start_both(attempt: str) -> tuple[list[subprocess.Popen], list[Path]]:
        workers = [f"127.0.0.1:{free_port()}" for _ in range(2)]
        processes, logs = [], []
        for index in range(2):
            task = {"cluster": {"worker": workers}, "task": {"type": "worker", "index": index}}
            logs.append(tmp_path / f"{attempt}-worker{index}.log")
            processes.append(_start(pipeline_root, out, logs[-1], {"TF_CONFIG": json.dumps(task)}))
        return processes, logs

    (chief, worker), (chief_log, worker_log) = start_both("killed")
    _kill_after_epoch(worker, worker_log, epoch=3)
    try:  # the chief fails when its peer is gone, or waits for it: stop it too
        chief.wait(timeout=60)
    except subprocess.TimeoutExpired:
        chief.send_signal(signal.SIGKILL)
        chief.wait(timeout=60)
    done = _epochs(chief_log)[-1]  # the chief saves the backup before it logs the epoch
    assert done >= 3
    assert not (out / "model").exists()

    processes, logs = start_both("resumed")
    for process, log in zip(processes, logs, strict=True):
        _finish(process, log)
    for log in logs:
        assert _epochs(log)[0] == done + 1, log.read_text()[-3000:]
    assert (out / "model" / "saved_model.pb").is_file()
    assert not Path(backup_dir(str(out / "run"))).exists()

"""run_fn under real distribution strategies: 2 logical CPUs, and 2 worker processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf
from run_commands import free_port

from datasets.taxi import DATASET as TAXI

pytestmark = pytest.mark.slow

HELPER = Path(__file__).resolve().parent / "trainer_process.py"


def _start(pipeline_root: Path, out: Path, *args: str, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(HELPER), str(pipeline_root), str(out), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, **(env or {})},
    )


def _finish(process: subprocess.Popen) -> str:
    output, _ = process.communicate(timeout=600)
    assert process.returncode == 0, output[-3000:]
    return output


def _predict(model_dir: Path, pipeline_root: Path) -> np.ndarray:
    files = sorted(pipeline_root.glob("CsvExampleGen/examples/*/Split-validation/*"))
    records = tf.data.TFRecordDataset([str(f) for f in files], compression_type="GZIP")
    examples = next(iter(records.batch(200)))
    serve = tf.saved_model.load(str(model_dir)).signatures["serving_default"]
    return serve(examples=examples)[TAXI.prediction_key].numpy()


@pytest.fixture(scope="module")
def pipeline_root(first_run) -> Path:
    return first_run[0] / "pipeline"


@pytest.fixture(scope="module")
def single_worker(pipeline_root, tmp_path_factory) -> np.ndarray:
    out = tmp_path_factory.mktemp("single")
    output = _finish(_start(pipeline_root, out, "--distribution", "single"))
    assert "1 replica(s)" in output
    return _predict(out / "model", pipeline_root)


def _like_single_worker(predictions: np.ndarray, single: np.ndarray) -> None:
    assert predictions.shape == single.shape == (200, 1)
    assert ((predictions >= 0) & (predictions <= 1)).all()
    # Same data, same model: the two agree on which trips tip well.
    assert np.corrcoef(predictions[:, 0], single[:, 0])[0, 1] > 0.9


def test_mirrored_strategy_over_two_logical_cpus(pipeline_root, single_worker, tmp_path):
    process = _start(pipeline_root, tmp_path, "--distribution", "mirrored", "--logical-cpus", "2")
    output = _finish(process)
    assert "2 replica(s)" in output
    assert "global batch 512" in output  # 256 per replica
    _like_single_worker(_predict(tmp_path / "model", pipeline_root), single_worker)


def test_multi_worker_mirrored_strategy_with_two_processes(pipeline_root, single_worker, tmp_path):
    workers = [f"127.0.0.1:{free_port()}" for _ in range(2)]
    out = tmp_path / "out"
    scratch = [tmp_path / f"tmp{i}" for i in range(2)]
    processes = []
    for index in range(2):
        scratch[index].mkdir()
        tf_config = {"cluster": {"worker": workers}, "task": {"type": "worker", "index": index}}
        env = {"TF_CONFIG": json.dumps(tf_config), "TMPDIR": str(scratch[index])}
        processes.append(_start(pipeline_root, out, env=env))
    outputs = [_finish(p) for p in processes]
    for index, output in enumerate(outputs):
        assert f"training worker:{index}: 2 replica(s)" in output
        assert "global batch 512" in output
    # Exactly one model, written by the chief; the other worker's scratch is gone.
    assert sorted(p.name for p in out.iterdir()) == ["model", "run"]
    assert (out / "model" / "saved_model.pb").is_file()
    assert not list(scratch[1].glob("trainer-worker-*"))
    assert not list(scratch[0].glob("trainer-worker-*"))
    _like_single_worker(_predict(out / "model", pipeline_root), single_worker)

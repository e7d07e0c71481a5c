"""An ensemble for real: the Trainer trains its members and exports one averaging model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import tensorflow as tf
import tensorflow_transform as tft
from run_commands import PROJECT, TEST_TRAIN_STEPS

from modules import datasets
from modules.hparams import HParams
from modules.model import build_model
from modules.training import cardinalities
from pipeline_def import node_ids as P

pytestmark = pytest.mark.slow


def _only(folder: Path) -> Path:
    (only,) = folder.iterdir()
    return only


def _scalar_tags(folder: Path) -> set[str]:
    tags: set[str] = set()
    for events in folder.glob("events.out.tfevents.*"):
        for event in tf.compat.v1.train.summary_iterator(str(events)):
            tags.update(v.tag for v in event.summary.value)
    return tags


def test_two_members_train_apart_and_serve_as_one_model(tmp_path):
    out = tmp_path / "out"
    run = subprocess.run(
        [
            sys.executable, str(PROJECT / "local_runner.py"), "--dataset", "credit_data",
            "--output-dir", str(out), "--train-steps", TEST_TRAIN_STEPS,
            "--hparam", "ensemble_members=2",
        ],
        capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    pipeline = out / "pipeline"

    # Each member's TensorBoard logs in its own folder; one hparams.json and diagram on top.
    run_dir = _only(pipeline / P.TRAINER / "model_run")
    assert sorted(p.name for p in run_dir.glob("member_*")) == ["member_1", "member_2"]
    for member in ("member_1", "member_2"):
        for split in ("train", "validation"):
            assert "epoch_auc" in _scalar_tags(run_dir / member / split), (member, split)
    assert json.loads((run_dir / "hparams.json").read_text())["ensemble_members"] == 2
    assert (run_dir / "model.png").is_file()

    # The served model carries both members' weights: twice one member's.
    credit = datasets.load("credit_data")
    graph = tft.TFTransformOutput(str(_only(pipeline / P.TRANSFORM / "transform_graph")))
    one = build_model(credit, cardinalities(credit, graph), HParams())
    model_dir = _only(pipeline / P.TRAINER / "model") / "Format-Serving"
    saved = tf.saved_model.load(str(model_dir))
    assert len(saved.weights) == 2 * len(one.variables)

"""The warm-start benchmark's reading of a Trainer's validation curve."""

from __future__ import annotations

import pytest
import tensorflow as tf


@pytest.fixture(scope="module")
def bench(load_script):
    return load_script("bench_warm_start")


EPOCHS = [(0, 110.0, 0.80), (1, 120.0, 0.90), (2, 130.0, 0.93), (3, 140.0, 0.92)]


@pytest.mark.parametrize(
    ("target", "expected"),
    [(0.80, (1, 10.0)), (0.91, (3, 30.0)), (0.93, (3, 30.0)), (0.95, (None, None))],
)
def test_epochs_and_seconds_to_the_first_epoch_at_the_target(bench, target, expected):
    assert bench.reached(100.0, EPOCHS, target) == expected


def test_the_curve_is_read_from_the_keras_logs_of_a_model_run(bench, tmp_path):
    run = tmp_path / "model_run"
    for sub, values in (("train", [0.7, 0.8]), ("validation", [0.75, 0.85])):
        with tf.summary.create_file_writer(str(run / sub)).as_default():
            for epoch, value in enumerate(values):
                tf.summary.scalar("epoch_auc", value, step=epoch)
    started, epochs = bench.curve(str(run))
    assert [(step, round(auc, 2)) for step, _, auc in epochs] == [(0, 0.75), (1, 0.85)]
    assert started <= epochs[0][1]

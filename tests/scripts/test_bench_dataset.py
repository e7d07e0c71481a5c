"""The dataset benchmark's interval of the AUC difference between two models."""

from __future__ import annotations

import random

import pytest


@pytest.fixture(scope="module")
def bench(load_script):
    return load_script("bench_dataset")


@pytest.fixture(scope="module")
def scored() -> tuple[list[int], list[float], list[float]]:
    """800 rows: a score that separates the classes well, and one that barely does."""
    rng = random.Random(7)
    labels = [i % 3 == 0 for i in range(800)]
    good = [y + rng.gauss(0, 0.5) for y in labels]
    weak = [0.2 * y + rng.gauss(0, 0.5) for y in labels]
    return [int(y) for y in labels], good, weak


def test_a_model_against_itself_differs_by_nothing(bench, scored):
    labels, good, _ = scored
    assert bench.auc_difference_interval(labels, good, good, rounds=200) == (0.0, 0.0)


def test_a_clearly_better_model_has_the_whole_interval_above_zero(bench, scored):
    labels, good, weak = scored
    low, high = bench.auc_difference_interval(labels, good, weak, rounds=300)
    assert 0.0 < low < high
    assert bench.auc_difference_interval(labels, weak, good, rounds=300) == (-high, -low)


def test_a_tie_up_to_noise_has_zero_inside_the_interval(bench, scored):
    labels, good, _ = scored
    rng = random.Random(3)
    jittered = [s + rng.gauss(0, 0.05) for s in good]
    low, high = bench.auc_difference_interval(labels, good, jittered, rounds=300)
    assert low < 0.0 < high

"""TFMA's binary confusion matrices counted in arrays: bit for bit TFMA's own, in its own path."""

from __future__ import annotations

import importlib
import random

import pytest
from fresh_process import printed_by
from tensorflow_model_analysis.metrics import binary_confusion_matrices as matrices_module
from tensorflow_model_analysis.metrics import calibration_histogram

from startup import tfma_matrices

NUM_BUCKETS = calibration_histogram.DEFAULT_NUM_BUCKETS


def _histogram(rng: random.Random, weighted: bool) -> list:
    """A sparse histogram as TFMA's combiner leaves it, the -inf and +inf buckets included."""
    ids = sorted(rng.sample(range(NUM_BUCKETS + 2), rng.choice([1, 3, 40, 900, 5000])))
    weights = [rng.choice([0.5, 1.0, 2.3]) if weighted else 1.0 for _ in ids]
    return [
        calibration_histogram.Bucket(
            i, w * rng.randint(0, 3), rng.random() * w, w * rng.randint(3, 6)
        )
        for i, w in zip(ids, weights, strict=True)
    ]


def _thresholds(rng: random.Random) -> list[float]:
    """Thresholds as metrics ask: many or one, inside [0, 1] or past it, or only -epsilon."""
    kind = rng.choice(["even", "drawn", "one", "past", "negative"])
    if kind == "even":
        count = rng.choice([200, 2_000, 10_000])
        return [i / (count - 1) for i in range(count)]
    if kind == "drawn":
        return sorted({rng.random() for _ in range(rng.choice([2, 50, 1000]))})
    if kind == "one":
        return [rng.choice([0.0, 0.5, 0.999, 1.5])]
    if kind == "past":
        return [0.25, 0.5, 1.5]
    return [-1e-7]


def _derived(thresholds: list[float]):
    """TFMA's own computation of the matrices from a histogram, and the histogram's key."""
    computations = matrices_module.binary_confusion_matrices(
        thresholds=thresholds, use_histogram=True
    )
    return computations[-1], computations[-2].keys[-1]


@pytest.fixture
def as_tfma_counts(monkeypatch):
    """A function that puts TFMA's own counting back (the conftest's prepare() changed it)."""
    adjusted = matrices_module.calibration_histogram
    assert isinstance(adjusted, tfma_matrices.RebinningInArrays), "prepare() left TFMA as is"

    def restore() -> None:
        monkeypatch.setattr(matrices_module, "calibration_histogram", adjusted.module)
        monkeypatch.setattr(
            matrices_module,
            "_histogram_to_binary_confusion_matrices",
            matrices_module._histogram_to_binary_confusion_matrices.__wrapped__,
        )

    return restore


def test_the_matrices_are_tfmas_own_to_the_bit(as_tfma_counts):
    rng = random.Random(7)
    cases = [(_histogram(rng, weighted=i % 2 == 1), _thresholds(rng)) for i in range(30)]
    counted = []
    for histogram, thresholds in cases:
        derived, key = _derived(thresholds)
        counted.append(derived.result({key: histogram}))
    as_tfma_counts()
    for (histogram, thresholds), ours in zip(cases, counted, strict=True):
        derived, key = _derived(thresholds)
        tfmas = derived.result({key: histogram})
        (ours_matrices,), (tfma_matrices,) = ours.values(), tfmas.values()
        assert type(ours_matrices) is type(tfma_matrices)
        # Lists of Python floats in both, equal float for float.
        assert ours_matrices == tfma_matrices, (len(histogram), thresholds[:3])
        assert all(type(v) is float for v in ours_matrices.tp)


def test_an_empty_histogram_counts_nothing_at_each_threshold(as_tfma_counts):
    derived, key = _derived([0.0, 0.5, 1.0])
    ours = derived.result({key: []})
    as_tfma_counts()
    derived, key = _derived([0.0, 0.5, 1.0])
    assert ours == derived.result({key: []})


@pytest.mark.parametrize("pickler", ["cloudpickle_pickler", "dill_pickler"])
def test_the_counting_goes_through_beams_picklers(pickler):
    # Beam pickles TFMA's computations to run them, even in one process.
    beam_pickler = importlib.import_module(f"apache_beam.internal.{pickler}")
    thresholds = [i / 999 for i in range(1000)]
    derived, key = _derived(thresholds)
    histogram = _histogram(random.Random(3), weighted=False)
    again = beam_pickler.loads(beam_pickler.dumps(derived.result))
    assert again({key: histogram}) == derived.result({key: histogram})


def test_the_calibration_plots_rebin_is_tfmas_own():
    # Only the matrices' module sees the rebinning in arrays.
    assert calibration_histogram.rebin.__module__ == calibration_histogram.__name__


# TFMA loaded after prepare(): not by it, and its matrices' module adjusted.
_AFTER_PREPARE = """
import sys
from startup import process
process.prepare()
assert "tensorflow_model_analysis" not in sys.modules, "prepare() imported TFMA"
from tensorflow_model_analysis.metrics import binary_confusion_matrices as m
from startup import tfma_matrices
print(isinstance(m.calibration_histogram, tfma_matrices.RebinningInArrays),
      hasattr(m._histogram_to_binary_confusion_matrices, "__wrapped__"))
"""


@pytest.mark.slow  # starts a process that imports TFMA
def test_tfma_loaded_after_prepare_counts_in_arrays():
    assert printed_by(_AFTER_PREPARE) == ["True", "True"]

"""TFMA's confusion matrices from a calibration histogram, counted in arrays: the same floats.

TFMA counts a slice's confusion matrices at N thresholds from its calibration histogram
of 10,000 buckets (``tensorflow_model_analysis.metrics.binary_confusion_matrices``): it
rebins the histogram into N buckets (``calibration_histogram.rebin``), one Python
object each, then sums them bucket by bucket in Python. The precision-recall AUC asks
for 10,000 thresholds, so each slice of each model paid about 50 ms for it: 2.4 s of
every Evaluator run on the taxi data (49 slices), twice that with a serving model to
compare against (legacy stack, 2026-11-30; ``benchmarks/bench_tfma_matrices.py``).

Here the rebinning keeps the bucket sums as arrays for the matrices, and the matrices
are running sums of those arrays. Every sum is taken in the order TFMA takes it, one
addition after another (``numpy.bincount`` and ``numpy.cumsum`` add sequentially), so
the counts are the same floats, bit for bit, weighted or not. Only the matrices' path
changes: ``calibration_histogram.rebin`` itself, which the calibration plot also calls,
is left as it is. A Beam worker process (started for large inputs, or on a distributed
runner) counts either way, as its computations come from the driver's pickles (the
stand-in pickles by name) or from TFMA itself; the floats are the same.
"""

from __future__ import annotations

import importlib
import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from startup.after_import import when_imported

MATRICES = "tensorflow_model_analysis.metrics.binary_confusion_matrices"


def count_in_arrays() -> None:
    """Have TFMA's binary confusion matrices counted in arrays, when TFMA loads them (or now)."""
    when_imported(MATRICES, _adjust)


def _adjust(module: types.ModuleType) -> None:
    if isinstance(module.calibration_histogram, RebinningInArrays):
        return
    module.calibration_histogram = RebinningInArrays(module.calibration_histogram)
    module._histogram_to_binary_confusion_matrices = matrices_from(
        module._histogram_to_binary_confusion_matrices, module.Matrices, module._EPSILON
    )


class Rebinned:
    """A histogram rebinned to thresholds: each new bucket's weighted labels and examples."""

    def __init__(self, labels: np.ndarray, examples: np.ndarray) -> None:
        self.labels, self.examples = labels, examples

    def __len__(self) -> int:
        return len(self.labels)


class RebinningInArrays:
    """TFMA's ``calibration_histogram`` module as the matrices' module sees it.

    Every name is the module's own but ``rebin``, which returns a ``Rebinned``.
    """

    def __init__(self, module: types.ModuleType) -> None:
        self.module = module

    def __getattr__(self, name: str) -> Any:
        if name == "module":  # not set yet: an instance being unpickled
            raise AttributeError(name)
        return getattr(self.module, name)

    def __reduce__(self) -> tuple[Callable[[str], RebinningInArrays], tuple[str]]:
        # Beam pickles TFMA's computations, this module among their globals: by name.
        return rebinning_of, (self.module.__name__,)

    def rebin(
        self,
        thresholds: Sequence[float],
        histogram: Sequence[Any],
        num_buckets: int | None = None,
        left: float = 0.0,
        right: float = 1.0,
    ) -> Rebinned:
        """The sums ``calibration_histogram.rebin`` would put in each of its buckets."""
        num_buckets = num_buckets or self.module.DEFAULT_NUM_BUCKETS
        ids = np.fromiter((b.bucket_id for b in histogram), np.int64, len(histogram))
        # Each bucket's prediction as rebin reckons it: the first bucket is -inf, those
        # past the last +inf, the others their left edge.
        edges = (ids - 1) / num_buckets * (right - left) + left
        edges[ids == 0] = -np.inf
        edges[ids >= num_buckets + 1] = np.inf
        # rebin moves to the next threshold while the prediction reaches it.
        later = np.asarray(thresholds[1:], np.float64)
        offsets = np.searchsorted(later, edges, side="right")

        def summed(values: Any) -> np.ndarray:
            weights = np.fromiter(values, np.float64, len(histogram))
            return np.bincount(offsets, weights, minlength=len(thresholds))

        return Rebinned(
            summed(b.weighted_labels for b in histogram),
            summed(b.weighted_examples for b in histogram),
        )


def rebinning_of(name: str) -> RebinningInArrays:
    """TFMA's calibration histogram module ``name``, rebinning in arrays."""
    return RebinningInArrays(importlib.import_module(name))


def matrices_from(
    original: Callable[[Sequence[float], Any], Any], matrices: type, epsilon: float
) -> Callable[[Sequence[float], Any], Any]:
    """TFMA's ``_histogram_to_binary_confusion_matrices``, in arrays for a ``Rebinned``."""

    def histogram_to_matrices(thresholds: Sequence[float], histogram: Any) -> Any:
        if not isinstance(histogram, Rebinned):
            return original(thresholds, histogram)
        positive = histogram.labels
        negative = histogram.examples - histogram.labels
        # At or above each bucket, summed from the top as TFMA does; below it, from 0.0.
        tp, fp = (np.cumsum(a[::-1])[::-1] for a in (positive, negative))
        fn, tn = (np.cumsum(np.concatenate(([0.0], a[:-1]))) for a in (positive, negative))
        # Without the -epsilon bucket TFMA's first threshold would be its second.
        start = 1 if (thresholds[0] >= 0 or len(thresholds) == 1) and len(histogram) > 1 else 0
        tp, tn, fp, fn = (a[start : start + len(thresholds)].tolist() for a in (tp, tn, fp, fn))
        for i, threshold in enumerate(thresholds):
            if threshold >= 1.0 + epsilon:  # past the last bucket: every row is below
                # In TFMA's order: at the first threshold, tp[0] and fp[0] are zeroed first.
                tp[i] = fp[i] = 0.0
                fn[i], tn[i] = tp[0], fp[0]
        return matrices(thresholds, tp, tn, fp, fn)

    histogram_to_matrices.__wrapped__ = original
    return histogram_to_matrices

"""TFMA's confusion matrices from a histogram: in arrays (``startup.tfma_matrices``) and as TFMA.

    python benchmarks/bench_tfma_matrices.py [--buckets 400] [--thresholds 10000] [--calls 20]

One slice's matrices, as the Evaluator computes them for a metric at ``--thresholds``
thresholds (the precision-recall AUC asks for 10,000): TFMA's own derived computation
on a calibration histogram of ``--buckets`` filled buckets, timed with the counting in
arrays and then with TFMA's own, alternately, ``--calls`` times each. Prints the mean
milliseconds a call of each and checks that both give the same matrices.
"""

from __future__ import annotations

from startup import process

process.prepare()  # the adjusted TFMA, and Keras 2 before TensorFlow loads

# ruff: noqa: E402 - the imports below follow that choice

import argparse
import json
import random
import time
from collections.abc import Callable, Sequence

from tensorflow_model_analysis.metrics import binary_confusion_matrices as matrices_module
from tensorflow_model_analysis.metrics import calibration_histogram


def _histogram(buckets: int) -> list:
    """``buckets`` filled buckets of 10,000, as a slice of a few thousand rows fills them."""
    draw = random.Random(0)
    ids = sorted(draw.sample(range(1, calibration_histogram.DEFAULT_NUM_BUCKETS + 1), buckets))
    bucket = calibration_histogram.Bucket
    return [bucket(i, float(draw.random() < 0.3), draw.random(), 1.0) for i in ids]


def _as_tfma_counts() -> Callable[[], None]:
    """Put TFMA's own counting in place; the function that puts the arrays back."""
    adjusted = (
        matrices_module.calibration_histogram,
        matrices_module._histogram_to_binary_confusion_matrices,
    )
    matrices_module.calibration_histogram = adjusted[0].module
    matrices_module._histogram_to_binary_confusion_matrices = adjusted[1].__wrapped__

    def back() -> None:
        (
            matrices_module.calibration_histogram,
            matrices_module._histogram_to_binary_confusion_matrices,
        ) = adjusted

    return back


def _call(thresholds: int, histogram: list) -> tuple[float, object]:
    """Seconds of one derived computation of the matrices, and its result."""
    computations = matrices_module.binary_confusion_matrices(
        num_thresholds=thresholds, use_histogram=True
    )
    derived, key = computations[-1], computations[-2].keys[-1]
    started = time.perf_counter()
    result = derived.result({key: histogram})
    return time.perf_counter() - started, result


def main(argv: Sequence[str] | None = None) -> int:
    """Time both ways alternately; print the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--buckets", type=int, default=400)
    parser.add_argument("--thresholds", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args(argv)
    histogram = _histogram(args.buckets)
    seconds = {"arrays": 0.0, "tfma": 0.0}
    for _ in range(args.calls):
        took, ours = _call(args.thresholds, histogram)
        seconds["arrays"] += took
        back = _as_tfma_counts()
        try:
            took, tfmas = _call(args.thresholds, histogram)
        finally:
            back()
        seconds["tfma"] += took
        if ours != tfmas:
            raise SystemExit("the two countings differ: startup/tfma_matrices.py is wrong")
    figures = {f"{way}_ms": round(s / args.calls * 1000, 2) for way, s in seconds.items()}
    print(json.dumps({**vars(args), **figures}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

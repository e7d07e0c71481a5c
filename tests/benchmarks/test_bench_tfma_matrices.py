"""The matrices' benchmark: both countings timed, the same matrices, TFMA's counting put back."""

from __future__ import annotations

import json

from tensorflow_model_analysis.metrics import binary_confusion_matrices as matrices_module

from startup import tfma_matrices


def test_both_countings_are_timed_and_the_arrays_are_back_after(load_script, capsys):
    bench = load_script("bench_tfma_matrices")
    assert bench.main(["--calls", "2", "--thresholds", "200", "--buckets", "50"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["arrays_ms"] > 0 and figures["tfma_ms"] > 0
    assert (figures["thresholds"], figures["buckets"], figures["calls"]) == (200, 50, 2)
    assert isinstance(matrices_module.calibration_histogram, tfma_matrices.RebinningInArrays)

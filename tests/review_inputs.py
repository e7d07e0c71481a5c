"""Inputs for the review's tests: an evaluation of the recorded runs, given per-slice data.

The recorded runs keep plots of the overall slice only: these helpers copy an
evaluation, add plots of given slices, and put given per-slice comparisons in place of
the gate's, so that a test controls what the review reads.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import tensorflow as tf
from tensorflow_model_analysis.proto import metrics_for_slice_pb2

from review import paired_comparison
from review.paired_comparison import Comparison, SliceComparison


def evaluation_of(recorded_runs, run_id: str, folder: Path) -> Path:
    """A copy of the Evaluator's output of the recorded run ``run_id`` in ``folder``."""
    from pipeline_def import node_ids
    from pipeline_def.metadata_stores import SqliteMetadata
    from pipeline_ops.metadata.runs import find_run
    from pipeline_ops.metadata.store import open_store

    store = open_store(SqliteMetadata(str(recorded_runs.output_dir / "metadata.sqlite")))
    run = find_run(store, "taxi-wide-deep", run_id)
    source = run.output(node_ids.EVALUATOR, "evaluation").uri
    shutil.copytree(source, folder)
    return folder


def comparison(candidate: float, serving: float, low: float, high: float, rows: int) -> Comparison:
    """A paired comparison as the gate writes it (tolerance 0.01)."""
    return Comparison(rows, candidate, serving, low, high, 0.01)


def write_slices(folder: Path, slices: list[SliceComparison]) -> None:
    """The gate's per-slice comparisons, written as the gate writes them."""
    paired_comparison.write_slices(slices, str(folder))


def add_slice_plots(folder: Path, slices: dict[tuple[str, str], float]) -> None:
    """Copy the overall plots to each (column, value) slice, its counts scaled by a factor.

    The factor moves the true positives against the false ones, so each slice's
    curve differs from the others' (and a chart drawn from it too).
    """
    for path in folder.glob("plots-*"):
        records = [r.numpy() for r in tf.data.TFRecordDataset(str(path))]
        overall = next(
            metrics_for_slice_pb2.PlotsForSlice.FromString(r)
            for r in records
            if not metrics_for_slice_pb2.PlotsForSlice.FromString(r).slice_key.single_slice_keys
        )
        with tf.io.TFRecordWriter(str(path)) as writer:
            for record in records:
                writer.write(record)
            for (column, value), factor in slices.items():
                plots = metrics_for_slice_pb2.PlotsForSlice()
                plots.CopyFrom(overall)
                key = plots.slice_key.single_slice_keys.add()
                key.column, key.bytes_value = column, value.encode()
                for kv in plots.plot_keys_and_values:
                    for m in kv.value.confusion_matrix_at_thresholds.matrices:
                        moved = m.true_positives * (1 - factor)
                        m.true_positives -= moved
                        m.false_negatives += moved
                        m.false_positives *= factor
                writer.write(plots.SerializeToString())

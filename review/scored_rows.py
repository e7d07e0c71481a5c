"""The rows the paired comparison judges, through TensorFlow: examples, labels, scores, slices.

A split's serialized examples, each model's scores on them through its serving
signature, the labels its Transform graph computes, and each row's slice values. The
Evaluator computes with these; the review only reads what it kept
(``paired_comparison``), and so imports no TensorFlow.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import tensorflow as tf
from tfx_bsl.coders import example_coder

from data_layout import files, tfrecord_files
from modules.export import SERVING_DEFAULT, TRANSFORM_FEATURES

_BATCH = 1024


def split_records(examples_uri: str, split: str) -> list[bytes]:
    """The serialized examples of one split of an Examples artifact (any file system)."""
    found = files.glob(os.path.join(examples_uri, f"Split-{split}", "*"))
    return [r for path in found for r in tfrecord_files.read_records(path, gzipped=True)]


def _outputs(model: Any, signature: str, records: list[bytes], key: str) -> np.ndarray:
    """One output of a loaded SavedModel's signature on serialized examples, by batch."""
    if not records:
        return np.array([])
    run = model.signatures[signature]
    batches = [records[i : i + _BATCH] for i in range(0, len(records), _BATCH)]
    return np.concatenate([run(examples=tf.constant(b))[key].numpy().ravel() for b in batches])


def model_scores(model_dir: str, records: list[bytes], prediction_key: str) -> np.ndarray:
    """A SavedModel's scores on serialized examples, through its serving signature."""
    return _outputs(tf.saved_model.load(str(model_dir)), SERVING_DEFAULT, records, prediction_key)


def labels_and_scores(
    model_dir: str, records: list[bytes], label_key: str, prediction_key: str
) -> tuple[np.ndarray, np.ndarray]:
    """The labels the model's Transform graph computes from raw examples, and its scores.

    The model is loaded once for both (a load takes seconds, the scoring of a test
    split a fraction of that).
    """
    model = tf.saved_model.load(str(model_dir))
    labels = _outputs(model, TRANSFORM_FEATURES, records, label_key).astype(int)
    return labels, _outputs(model, SERVING_DEFAULT, records, prediction_key)


def _texts(values: list[Any] | None) -> list[str]:
    """One cell's values as TFMA names its slices (text decoded); [] for an empty cell."""
    return [v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in values or ()]


def slice_values(records: Sequence[bytes], columns: Sequence[str]) -> dict[str, list[list[str]]]:
    """Each column's values in each serialized example ([] where the cell is empty).

    A row without a value is in none of its column's slices, as in TFMA's slicing. The
    examples are decoded together by tfx_bsl's decoder (in C++), as TFMA decodes the
    same split before this runs: a feature of two kinds fails there first. A
    ``tf.train.Example`` a row, read feature by feature, took 2.5 times as long.
    """
    batch = example_coder.ExamplesToRecordBatchDecoder().DecodeBatch(list(records))
    names = batch.schema.names
    return {
        c: [_texts(v) for v in batch.column(names.index(c)).to_pylist()]
        if c in names
        else [[] for _ in records]
        for c in columns
    }

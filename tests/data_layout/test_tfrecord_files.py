"""Gzipped TFRecord files written through Beam's file systems, as TensorFlow writes them."""

from __future__ import annotations

import random

import pytest
import tensorflow as tf

from data_layout import tfrecord_files


def _records(count: int, seed: int = 0) -> list[bytes]:
    """``count`` records of assorted lengths (0 to 3,000 bytes), from a fixed seed."""
    rng = random.Random(seed)
    return [rng.randbytes(rng.choice([0, 7, 300, 3_000])) for _ in range(count)]


# 1,500 records of up to 3,000 bytes pass the 1 MiB chunk handed to zlib more than once.
@pytest.mark.parametrize("count", [0, 1, 1_500])
def test_a_file_is_byte_for_byte_what_tensorflow_writes(tmp_path, count):
    records = _records(count)
    options = tf.io.TFRecordOptions(compression_type="GZIP")
    with tf.io.TFRecordWriter(str(tmp_path / "tf.gz"), options) as writer:
        for record in records:
            writer.write(record)

    tfrecord_files.write_gzipped(str(tmp_path / "beam.gz"), records)

    assert (tmp_path / "beam.gz").read_bytes() == (tmp_path / "tf.gz").read_bytes()
    read = tf.data.TFRecordDataset(str(tmp_path / "beam.gz"), compression_type="GZIP")
    assert [r.numpy() for r in read] == records


def test_a_file_is_replaced_and_its_folder_made(tmp_path):
    path = tmp_path / "new" / "folder" / "data.gz"
    tfrecord_files.write_gzipped(str(path), _records(5, seed=1))
    tfrecord_files.write_gzipped(str(path), [b"only"])

    read = tf.data.TFRecordDataset(str(path), compression_type="GZIP")
    assert [r.numpy() for r in read] == [b"only"]

"""TFRecord files: gzipped ones written as TensorFlow writes them, plain or gzipped read back."""

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


@pytest.mark.parametrize("count", [0, 1, 1_500])
def test_read_records_reads_what_tensorflow_writes(tmp_path, count):
    records = _records(count, seed=2)
    with tf.io.TFRecordWriter(str(tmp_path / "plain.tfrecord")) as writer:
        for record in records:
            writer.write(record)

    assert list(tfrecord_files.read_records(str(tmp_path / "plain.tfrecord"))) == records


@pytest.mark.parametrize("count", [0, 1, 1_500])
def test_read_records_reads_gzipped_files_as_tensorflow_does(tmp_path, count):
    records = _records(count, seed=3)
    options = tf.io.TFRecordOptions(compression_type="GZIP")
    with tf.io.TFRecordWriter(str(tmp_path / "tf.gz"), options) as writer:
        for record in records:
            writer.write(record)

    read = tfrecord_files.read_records(str(tmp_path / "tf.gz"), gzipped=True)
    assert list(read) == records


@pytest.fixture
def gzipped(tmp_path) -> bytes:
    """The bytes of a gzipped file of 200 records, as TensorFlow writes them."""
    tfrecord_files.write_gzipped(str(tmp_path / "whole.gz"), _records(200, seed=4))
    return (tmp_path / "whole.gz").read_bytes()


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda b: b[:-10], "Compressed file ended before the end-of-stream marker"),
        (lambda b: b[:-4] + bytes(4), "Incorrect length of data produced"),  # the size
        (lambda b: b"PK" + b[2:], "Not a gzipped file"),
    ],
)
def test_a_damaged_gzip_file_is_named(tmp_path, gzipped, damage, reason):
    path = tmp_path / "damaged.gz"
    path.write_bytes(damage(gzipped))

    with pytest.raises(tfrecord_files.CorruptRecordError) as raised:
        list(tfrecord_files.read_records(str(path), gzipped=True))
    assert str(raised.value).startswith(f"{path}: not a whole gzip file (")
    assert reason in str(raised.value)


@pytest.fixture
def written(tmp_path) -> bytes:
    """The bytes of a file of three records (300, 0 and 40 bytes), as TensorFlow writes them."""
    with tf.io.TFRecordWriter(str(tmp_path / "whole.tfrecord")) as writer:
        for record in (b"a" * 300, b"", b"b" * 40):
            writer.write(record)
    return (tmp_path / "whole.tfrecord").read_bytes()


@pytest.mark.parametrize(
    ("where", "message"),
    [
        (5, "the checksum of bytes 0..8 does not match"),  # the first record's length
        (100, "the checksum of bytes 12..312 does not match"),  # its data
    ],
)
def test_an_altered_byte_is_found_and_named(tmp_path, written, where, message):
    altered = bytearray(written)
    altered[where] ^= 0x01
    path = tmp_path / "altered.tfrecord"
    path.write_bytes(bytes(altered))

    with pytest.raises(tfrecord_files.CorruptRecordError) as raised:
        list(tfrecord_files.read_records(str(path)))
    assert str(raised.value) == f"{path}: {message}"


def test_a_file_cut_short_is_found_and_named(tmp_path, written):
    path = tmp_path / "cut.tfrecord"
    path.write_bytes(written[:-10])

    with pytest.raises(tfrecord_files.CorruptRecordError, match=r"cut\.tfrecord: cut short"):
        list(tfrecord_files.read_records(str(path)))

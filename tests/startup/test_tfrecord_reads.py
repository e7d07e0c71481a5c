"""Beam's TFRecord reads from large buffers: the same records, claims and errors as Beam's."""

from __future__ import annotations

import gzip
import random
from pathlib import Path

import apache_beam as beam
import pytest
from apache_beam.io import range_trackers, tfrecordio
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.testing.util import assert_that, equal_to

from data_layout import tfrecord_files
from startup import tfrecord_reads

# Lengths around the reader's 1 MiB buffer, empty records, and one longer than a buffer.
_LENGTHS = [0, 1, 7, 12, 300, 1 << 20, (1 << 20) - 11, 3 * (1 << 20) + 5, 0, 53]


@pytest.fixture(scope="module")
def records() -> list[bytes]:
    """Seeded random records of many lengths, a few thousand small ones among them."""
    rng = random.Random(7)
    lengths = _LENGTHS + [rng.randrange(40, 400) for _ in range(3000)]
    rng.shuffle(lengths)
    return [rng.randbytes(n) for n in lengths]


def _write(path: Path, records: list[bytes], gzipped: bool) -> Path:
    framed = b"".join(tfrecord_files.frame(r) for r in records)
    path.write_bytes(gzip.compress(framed) if gzipped else framed)
    return path


def _read(path: Path, implementation) -> tuple[list[bytes], list[int]]:
    """What ``implementation`` reads from ``path``, and the offsets it claims, given the
    range tracker Beam gives a file it cannot split (every TFRecord file)."""
    source = tfrecordio._TFRecordSource(
        str(path), beam.coders.BytesCoder(), CompressionTypes.AUTO, validate=False
    )
    tracker = range_trackers.UnsplittableRangeTracker(
        range_trackers.OffsetRangeTracker(0, range_trackers.OffsetRangeTracker.OFFSET_INFINITY)
    )
    claims: list[int] = []
    claim = tracker.try_claim

    def recorded(offset: int) -> bool:
        claims.append(offset)
        return claim(offset)

    tracker.try_claim = recorded
    return list(implementation(source, str(path), tracker)), claims


def _beam(source, path, tracker):
    return tfrecord_reads.BEAM["read_records"](source, path, tracker)


def _ours(source, path, tracker):
    return tfrecord_reads.read_records(source, path, tracker)


def test_beam_s_source_reads_with_the_buffered_reader():
    assert tfrecordio._TFRecordSource.read_records is tfrecord_reads.read_records


@pytest.mark.parametrize("gzipped", [True, False], ids=["gzip", "plain"])
def test_the_same_records_and_claims_as_beam_s_reader(tmp_path, records, gzipped):
    path = _write(tmp_path / ("r.tfrecord.gz" if gzipped else "r.tfrecord"), records, gzipped)

    ours = _read(path, _ours)

    assert ours[0] == records
    assert ours == _read(path, _beam)


def _damaged(path: Path, records: list[bytes], at: int) -> Path:
    framed = bytearray(b"".join(tfrecord_files.frame(r) for r in records))
    if at < 0:
        path.write_bytes(framed[:at])
    else:
        framed[at] ^= 0x40
        path.write_bytes(framed)
    return path


@pytest.mark.parametrize(
    "at",
    [3, 9, 20, 2_000, -1, -5, -300],
    ids=["length", "length-crc", "data", "later-data", "cut-crc", "cut-data", "cut-header"],
)
def test_a_damaged_file_stops_with_beam_s_own_error(tmp_path, records, at):
    path = _damaged(tmp_path / "r.tfrecord", records[:20], at)

    with pytest.raises(ValueError) as ours:
        _read(path, _ours)
    with pytest.raises(ValueError) as beams:
        _read(path, _beam)

    assert str(ours.value) == str(beams.value)
    assert str(ours.value).startswith("Not a valid TFRecord.")


def test_a_pipeline_reads_gzipped_records_as_written(tmp_path, records):
    path = _write(tmp_path / "r.tfrecord.gz", records[:500], gzipped=True)

    with beam.Pipeline() as pipeline:
        read = pipeline | beam.io.ReadFromTFRecord(str(path), coder=beam.coders.BytesCoder())
        assert_that(read, equal_to(records[:500]))

"""Beam's TFRecord reads from large buffers: the same records, claims and errors as Beam's."""

from __future__ import annotations

import gzip
import random
from pathlib import Path

import apache_beam as beam
import pytest
from apache_beam.io import range_trackers, tfrecordio
from apache_beam.io.filesystem import CompressionTypes

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


def _framed(records: list[bytes]) -> bytearray:
    return bytearray(b"".join(tfrecord_files.frame(r) for r in records))


def _write(path: Path, framed: bytes, gzipped: bool) -> Path:
    path.write_bytes(gzip.compress(framed) if gzipped else framed)
    return path


def _read(
    path: Path, implementation, claims: list[int] | None = None
) -> tuple[list[bytes], list[int]]:
    """What ``implementation`` reads from ``path``, and the offsets it claims, given the
    range tracker Beam gives a file it cannot split (every TFRecord file)."""
    source = tfrecordio._TFRecordSource(
        str(path), beam.coders.BytesCoder(), CompressionTypes.AUTO, validate=False
    )
    tracker = range_trackers.UnsplittableRangeTracker(
        range_trackers.OffsetRangeTracker(0, range_trackers.OffsetRangeTracker.OFFSET_INFINITY)
    )
    claims = [] if claims is None else claims
    claim = tracker.try_claim

    def recorded(offset: int) -> bool:
        claims.append(offset)
        return claim(offset)

    tracker.try_claim = recorded
    return list(implementation(source, str(path), tracker)), claims


def test_beam_s_source_reads_with_the_buffered_reader():
    assert tfrecordio._TFRecordSource.read_records is tfrecord_reads.read_records


@pytest.mark.parametrize("gzipped", [True, False], ids=["gzip", "plain"])
def test_the_same_records_and_claims_as_beam_s_reader(tmp_path, records, gzipped):
    name = "r.tfrecord.gz" if gzipped else "r.tfrecord"
    path = _write(tmp_path / name, bytes(_framed(records)), gzipped)

    ours = _read(path, tfrecord_reads.read_records)

    assert ours[0] == records
    assert ours == _read(path, tfrecord_reads.BEAM["read_records"])


def _read_until_error(path: Path, implementation) -> tuple[str, list[bytes], list[int]]:
    """The error ``implementation`` stops with, the records read before it, its claims."""
    read: list[bytes] = []
    claims: list[int] = []

    def reading(source, name, tracker):
        for record in implementation(source, name, tracker):
            read.append(record)
            yield record

    with pytest.raises(ValueError) as stopped:
        _read(path, reading, claims)
    return str(stopped.value), read, claims


def _damaged(framed: bytearray, begin: int, end: int, damage: str) -> bytes:
    """``framed`` with the record from ``begin`` to ``end`` damaged one way."""
    flips = {"length": 3, "length-crc": 9, "data": 12 + 5}
    cuts = {"cut-header": begin + 5, "cut-data": (begin + 12 + end) // 2, "cut-crc": end - 2}
    if damage in flips:
        framed[begin + flips[damage]] ^= 0x40
        return bytes(framed)
    return bytes(framed[: cuts[damage]])


@pytest.mark.parametrize("gzipped", [True, False], ids=["gzip", "plain"])
@pytest.mark.parametrize("index", [0, 10, 11], ids=["first", "past-1MiB", "later"])
@pytest.mark.parametrize(
    "damage", ["length", "length-crc", "data", "cut-header", "cut-data", "cut-crc"]
)
def test_a_damaged_file_stops_with_beam_s_error_after_the_same_records(
    tmp_path, records, damage, index, gzipped
):
    # Ten records of 40 bytes or more, then one of 1 MiB, so that the damage at index 10
    # and 11 lies past the reader's first mebibyte.
    around = [r for r in records if len(r) >= 40][:9] + [bytes(1 << 20)] + records[-20:]
    around[10:12] = [r for r in records if 40 <= len(r) < 1 << 16][-2:]
    begin, end = len(_framed(around[:index])), len(_framed(around[: index + 1]))
    damaged = _damaged(_framed(around), begin, end, damage)
    path = _write(tmp_path / ("r.tfrecord.gz" if gzipped else "r.tfrecord"), damaged, gzipped)

    ours = _read_until_error(path, tfrecord_reads.read_records)

    assert ours == _read_until_error(path, tfrecord_reads.BEAM["read_records"])
    assert ours[0].startswith("Not a valid TFRecord.")
    assert len(ours[1]) == index  # every record before the damaged one, no more

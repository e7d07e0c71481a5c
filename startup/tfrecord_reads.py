"""Beam's TFRecord reads framed from large buffers, not two file reads per record.

Every Beam step that reads examples (StatisticsGen, Transform, the Evaluator) reads them
through TFX-BSL's ``ReadTfRecord``, which is Beam's ``ReadFromTFRecord``. Beam reads each
record with two small reads of the (gzip) file object, checks both of its CRC-32Cs
through a Python wrapper and unpacks it (``apache_beam/io/tfrecordio.py``,
``_TFRecordUtil.read_record``): about 50 µs a record. In a profile of StatisticsGen on
375,000 taxi rows in one process (legacy stack, 2026-11-30) that was 20 s of 62 s, and
19 s of Transform's 83 s: more than decoding the examples took.

``read_records`` here replaces ``_TFRecordSource.read_records`` (the same code in Beam
2.60 and 2.77). It reads the file a mebibyte at a time and frames the records from that
buffer, with each checksum computed by ``google_crc32c`` in C. What Beam sees is the
same: the same records, each offset claimed from the range tracker before its record as
Beam claims it (and the end's), the same coder, and a damaged file stops the read with
Beam's own ``ValueError`` messages.
"""

from __future__ import annotations

import codecs
import struct
import types
from collections.abc import Iterator
from typing import Any, BinaryIO

import google_crc32c

from startup.after_import import when_imported

TFRECORDIO = "apache_beam.io.tfrecordio"
# Decompressed bytes asked of the file at a time.
_CHUNK = 1 << 20
_LENGTH = struct.Struct("<Q")
_HEADER = struct.Struct("<QI")
_CRC = struct.Struct("<I")
_MASK_DELTA = 0xA282EAD8
# A record's bytes beyond its data: the length, its checksum, the data's checksum.
FRAMING = _HEADER.size + _CRC.size
# Beam's own ``read_records``, once it is replaced.
BEAM: dict[str, Any] = {}


def read_in_buffers() -> None:
    """Have Beam's TFRecord source frame records from large reads, when Beam's loads (or now)."""
    when_imported(TFRECORDIO, _adjust)


def _adjust(tfrecordio: types.ModuleType) -> None:
    source = tfrecordio._TFRecordSource
    if source.read_records is not read_records:
        BEAM.setdefault("read_records", source.read_records)
        source.read_records = read_records


def read_records(self: Any, file_name: str, offset_range_tracker: Any) -> Iterator[Any]:
    """Each record of ``file_name`` decoded by the source's coder, its offset claimed first."""
    if offset_range_tracker.start_position():
        raise ValueError(f"Start position not 0:{offset_range_tracker.start_position()}")
    offset = offset_range_tracker.start_position()
    with self.open_file(file_name) as handle:
        records = framed(handle)
        while True:
            _claim(offset_range_tracker, offset)  # before each record and the end, as Beam
            record = next(records, None)
            if record is None:
                return
            offset += len(record) + FRAMING
            yield self._coder.decode(record)


def _claim(tracker: Any, offset: int) -> None:
    if not tracker.try_claim(offset):
        raise RuntimeError(f"Unable to claim position: {offset}")


def masked_crc(data: bytes) -> int:
    """TFRecord's checksum of ``data``: CRC-32C, rotated and offset (crc32c.h, Mask)."""
    crc = google_crc32c.value(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def framed(handle: BinaryIO) -> Iterator[bytes]:
    """The records of a TFRecord stream, each checksum verified as Beam verifies it."""
    buffer, start = b"", 0
    while True:
        if len(buffer) - start < _HEADER.size:
            buffer, start = buffer[start:] + handle.read(_CHUNK), 0
            if not buffer:
                return
            _whole(buffer, _HEADER.size)
        length, length_crc = _HEADER.unpack_from(buffer, start)
        if masked_crc(buffer[start : start + _LENGTH.size]) != length_crc:
            header = buffer[start : start + _HEADER.size]
            raise ValueError(f"Not a valid TFRecord. Mismatch of length mask: {_hex(header)}")
        start += _HEADER.size
        if len(buffer) - start < length + _CRC.size:
            buffer, start = buffer[start:] + handle.read(max(_CHUNK, length + _CRC.size)), 0
            _whole(buffer, length + _CRC.size)
        data = buffer[start : start + length]
        (data_crc,) = _CRC.unpack_from(buffer, start + length)
        if masked_crc(data) != data_crc:
            framed_data = buffer[start : start + length + _CRC.size]
            raise ValueError(f"Not a valid TFRecord. Mismatch of data mask: {_hex(framed_data)}")
        start += length + _CRC.size
        yield data


def _whole(buffer: bytes, expected: int) -> None:
    """Beam's error for a record cut short: fewer bytes left than its framing says."""
    if len(buffer) < expected:
        raise ValueError(f"Not a valid TFRecord. Fewer than {expected} bytes: {_hex(buffer)}")


def _hex(data: bytes) -> bytes:
    return codecs.encode(data, "hex")

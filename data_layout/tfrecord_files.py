"""TFRecord files: gzipped ones written through Beam's file systems, plain or gzipped read back.

TensorFlow's ``TFRecordWriter`` writes only where TensorFlow has a file system, and it
has had no ``s3://`` one since 2.6 (``kubeflow/step/s3_fileio.py`` says why). Beam's
``FileSystems`` reach local paths, ``gs://`` and ``s3://`` (Beam's ``[aws]`` extra) in
every worker of every runner, configured by the pipeline's own options, so a step's
encoding can be written by Dataflow, Flink or Spark workers straight to the store.

The records are framed as TensorFlow frames them (``tensorflow/core/lib/io/
record_writer.cc``: the length, its masked CRC-32C, the data, its masked CRC-32C) and
compressed with TensorFlow's gzip settings (``zlib_compression_options.h``: zlib's
default level, 15 window bits plus 16 for the gzip wrapper, memory level 9), so a file
is byte for byte what ``tf.io.TFRecordWriter`` writes with ``GZIP``.

``read_records`` reads the same framing, uncompressed (as TFMA writes its metrics) or
gzipped (as ExampleGen writes examples), with neither TensorFlow nor Beam imported, so a
tool that only reads runs starts fast. A whole file is read and unzipped at once: a
25,069-row test split took 0.14 s this way against 4.2 s a record at a time through
``tf.data`` in eager mode (side by side, ``benchmarks/bench_checks.py``).
"""

from __future__ import annotations

import functools
import gzip
import struct
import zlib
from collections.abc import Iterable, Iterator

from data_layout import files
from startup.tfrecord_reads import masked_crc

_GZIP_WINDOW = zlib.MAX_WBITS | 16
_MEMORY_LEVEL = 9
# Bytes of framed records handed to zlib at a time: few calls, little memory.
_CHUNK = 1 << 20


_CRC = struct.Struct("<I")
_LENGTH = struct.Struct("<Q")


def _masked_crc(data: bytes) -> bytes:
    """TFRecord's checksum of ``data``, as the four bytes a file holds."""
    return _CRC.pack(masked_crc(data))


# A block's examples have few distinct lengths: each length's header is framed once.
@functools.lru_cache(maxsize=1 << 14)
def _header(length: int) -> bytes:
    """The bytes before a record of ``length`` bytes: the length and its checksum."""
    packed = _LENGTH.pack(length)
    return packed + _masked_crc(packed)


def frame(record: bytes) -> bytes:
    """One record as a TFRecord file holds it."""
    return _header(len(record)) + record + _masked_crc(record)


def write_gzipped(path: str, records: Iterable[bytes]) -> None:
    """Write ``records`` as the gzipped TFRecord file ``path`` (replaced if it exists).

    On an object store the file appears when it is closed; a write cut off by an error
    can still leave part of it there (Beam completes the upload on close), so readers
    take a file only once a marker written after it says it is whole.
    """
    # Beam takes a second and a half to import: a tool that only reads records needs none.
    from apache_beam.io.filesystem import CompressionTypes
    from apache_beam.io.filesystems import FileSystems

    compressor = zlib.compressobj(
        zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, _GZIP_WINDOW, _MEMORY_LEVEL
    )
    pending: list[bytes] = []
    size = 0
    with FileSystems.create(path, compression_type=CompressionTypes.UNCOMPRESSED) as out:
        for record in records:
            pending.append(frame(record))
            size += len(pending[-1])
            if size >= _CHUNK:
                out.write(compressor.compress(b"".join(pending)))
                pending, size = [], 0
        out.write(compressor.compress(b"".join(pending)))
        out.write(compressor.flush())


class CorruptRecordError(ValueError):
    """A TFRecord file cut short or altered: its framing or a checksum does not hold."""


def _checked(data: bytes, start: int, size: int, path: str) -> bytes:
    """``size`` bytes of ``data`` from ``start``, with the checksum after them verified."""
    end = start + size
    if end + _CRC.size > len(data):
        raise CorruptRecordError(f"{path}: cut short at byte {len(data)} (a record ran to {end})")
    if _masked_crc(data[start:end]) != data[end : end + _CRC.size]:
        raise CorruptRecordError(f"{path}: the checksum of bytes {start}..{end} does not match")
    return data[start:end]


def _unzipped(data: bytes, path: str) -> bytes:
    """The gzip file ``path``'s ``data`` decompressed; CorruptRecordError where it is not whole."""
    try:
        return gzip.decompress(data)
    except (gzip.BadGzipFile, EOFError, zlib.error) as error:
        raise CorruptRecordError(f"{path}: not a whole gzip file ({error})") from None


def read_records(path: str, *, gzipped: bool = False) -> Iterator[bytes]:
    """The records of the TFRecord file ``path``, each checksum verified.

    The records ``tf.data.TFRecordDataset`` reads from a whole file
    (``compression_type="GZIP"`` where ``gzipped``), without TensorFlow; every gzip
    member is read, and bytes after the last are refused, not skipped.
    CorruptRecordError names the file and the byte (of the uncompressed records)
    that failed, or gzip's reason.
    """
    data, start = files.read_bytes(path), 0
    if gzipped:
        data = _unzipped(data, path)
    while start < len(data):
        (length,) = _LENGTH.unpack(_checked(data, start, _LENGTH.size, path))
        start += _LENGTH.size + _CRC.size
        yield _checked(data, start, length, path)
        start += length + _CRC.size

"""Encoded spans: each span's examples written once and reused by later runs.

A rolling window reads the same spans run after run. ExampleGen encodes a span into
``<cache>/span-<N>/<key>/Split-<split>/`` once, and later runs copy those files into
their own Examples artifact instead of parsing the CSV again. The key is a digest of
everything the encoding depends on: the span's files (names and bytes, so a span whose
files changed is encoded again), the column kinds and the split's hash buckets. A
folder counts only once its ``ENCODED`` marker is written, last, with the rows of each
split: a step killed mid-write leaves a folder that is never read and is encoded again.
The cache lives under the pipeline root, on any filesystem TFX reads (s3:// on KFP).
Beam's workers write an encoding and its marker straight there, through Beam's file
systems (``tfrecord_files``); the step reads them through TFX's ``fileio``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems
from tfx.dsl.io import fileio

MARKER = "ENCODED"


def encoding_key(files: str, kinds: Iterable[int], buckets: Iterable[tuple[str, int | str]]) -> str:
    """The cache key of a span's encoding: its files' digest, the kinds, the split."""
    settings = json.dumps({"files": files, "kinds": list(kinds), "split": list(buckets)})
    return hashlib.sha256(settings.encode()).hexdigest()[:24]


def kinds_path(cache: str, span: int, key: str) -> str:
    """Where the span's column kinds under ``key`` are kept."""
    return os.path.join(cache, f"span-{span}", f"kinds-{key}.json")


def cached_kinds(
    cache: str, span: int, key: str, infer: Callable[[], Sequence[int]]
) -> tuple[int, ...]:
    """The span's column kinds under ``key``: read from the cache, or inferred and kept."""
    path = kinds_path(cache, span, key)
    if fileio.exists(path):
        with fileio.open(path, "r") as f:
            try:
                return tuple(json.loads(f.read()))
            except json.JSONDecodeError:  # a write cut off: infer again
                pass
    kinds = tuple(int(k) for k in infer())
    fileio.makedirs(os.path.dirname(path))
    with fileio.open(path, "w") as f:
        f.write(json.dumps(kinds))
    return kinds


@dataclass(frozen=True)
class EncodedSpan:
    """One span's encoding in the cache: where, and the rows of each split once complete."""

    span: int
    uri: str
    rows: dict[str, int] | None  # None until the marker is written
    # A test period's two newest values in the span (the second None: one only), as it
    # was split; None without a period. Kept so a reused span is not read again for them.
    periods: tuple[int | str, int | str | None] | None = None

    def split_files(self, split: str) -> list[str]:
        """The encoded files of ``split``."""
        folder = os.path.join(self.uri, f"Split-{split}")
        return sorted(os.path.join(folder, n.rstrip("/")) for n in fileio.listdir(folder))


def lookup(cache: str, span: int, key: str) -> EncodedSpan:
    """The span's encoding under ``key`` in ``cache``; ``rows`` None when not complete."""
    uri = os.path.join(cache, f"span-{span}", key)
    marker = os.path.join(uri, MARKER)
    rows, periods = None, None
    if fileio.exists(marker):
        with fileio.open(marker, "r") as f:
            written = json.loads(f.read())
        rows, periods = written["rows"], written.get("periods")
    return EncodedSpan(span, uri, rows, tuple(periods) if periods else None)


def mark_encoded(
    uri: str, rows: dict[str, int], periods: tuple[int | str, int | str | None] | None = None
) -> None:
    """Write the marker that makes the encoding at ``uri`` usable: the last write.

    ``periods``: the test period's two newest values the span was split by. Written,
    as the encoding is, by a Beam worker through Beam's file systems.
    """
    written: dict[str, object] = {"rows": rows}
    if periods is not None:
        written["periods"] = list(periods)
    path = os.path.join(uri, MARKER)
    with FileSystems.create(path, compression_type=CompressionTypes.UNCOMPRESSED) as f:
        f.write(json.dumps(written).encode())


def forget(cache: str, span: int, kinds_key: str, encoding_uri: str | None) -> None:
    """Remove the span's kinds under ``kinds_key`` and the encoding at ``encoding_uri``.

    For what was made from files that changed while they were read.
    """
    path = kinds_path(cache, span, kinds_key)
    if fileio.exists(path):
        fileio.remove(path)
    if encoding_uri is not None and fileio.exists(encoding_uri):
        fileio.rmtree(encoding_uri)


def copied_prefix(span: int, split: str) -> str:
    """The start of the names ``copy_into`` gives the span's ``split`` files.

    The hyphen after the span number keeps span 1's prefix off span 11's files.
    """
    return f"span-{span}-{split}-"


def copy_into(encoded: EncodedSpan, split: str, target_dir: str) -> None:
    """Copy the span's ``split`` files into ``target_dir``, named after span and split."""
    fileio.makedirs(target_dir)
    for path in encoded.split_files(split):
        name = copied_prefix(encoded.span, split) + os.path.basename(path)
        fileio.copy(path, os.path.join(target_dir, name), overwrite=True)

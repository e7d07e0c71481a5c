"""Transform's analyzer cache across runs: one analysis dataset per encoded span split.

A window of K spans moves by one span a run, so K - 1 of its spans were analyzed by the
run before. tf.Transform can keep each analysis dataset's accumulators (a vocabulary's
counts, a quantile sketch, a mean's sums) and combine them with new datasets' instead of
reading them again, but TFX's Transform keys a dataset by its file pattern, which names
the run's own Examples artifact: no key ever repeats, and the window's train split is
one dataset. Here the train split is cut into its parts, one per span and encoded split
(ExampleGen records them, ``TRAIN_PARTS_PROPERTY``), each keyed by the span's encoding
key: a span whose files changed has a new key, and is analyzed again. TFT's own cache
entry keys (a fingerprint of each analyzer and what feeds it) keep a changed
``preprocessing_fn`` from reading accumulators of another.

The cache lives under the pipeline root (``<root>/analyzer-cache/<dataset key>/``, as
TFT lays it out: a ``MANIFEST`` naming each entry's files), on any filesystem TFX
writes (s3:// on KFP). TFT writes a manifest before the entries it lists, so a run
writes into a staging folder, and ``publish`` copies only finished entries into the
cache, under names no other writer uses, and the merged manifest last: a cut-off
publish leaves files no manifest names, never a manifest naming files that are not
there. Locally the manifest is written under a temporary name and renamed into place;
on an object store (s3://, gs://) a rename is a copy and a delete, while one upload of
a small object is already all or nothing, so the manifest is written in place.

The cache is bounded by the spans a run could use (``evict``): after publishing, a run
on span S with a window of K removes the datasets of spans older than S - 2K + 1, and
those of its window's spans under an encoding it did not use (files since changed).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tfx.dsl.io import fileio

from data_layout import encoded_spans
from data_layout.files import on_object_store

MANIFEST = "MANIFEST"  # TFT's name (tensorflow_transform.beam.analyzer_cache)
_METADATA_GLOB = "METADATA-*-of-*"
_SHARD = re.compile(r"(\d+)-(\d+)-of-(\d+)")  # TFT's entry files: <index>-SSSSS-of-NNNNN.gz
_DATASET = re.compile(r"span-(\d+)-(\w+?)-(\w+)")  # Part.dataset_key


@dataclass(frozen=True)
class Part:
    """One encoded split of one span inside the run's train split."""

    span: int
    split: str
    key: str  # the span's encoding key (data_layout.encoded_spans)

    @property
    def label(self) -> str:
        """How people and the run's records name it: ``span-N/split``."""
        return f"span-{self.span}/{self.split}"

    @property
    def dataset_key(self) -> str:
        """The analysis dataset's key: the same wherever and whenever the part is read."""
        return f"span-{self.span}-{self.key}-{self.split}"

    def pattern(self, train_dir: str) -> str:
        """The file pattern of the part's copies in the run's train split folder."""
        return os.path.join(train_dir, encoded_spans.copied_prefix(self.span, self.split) + "*")


def parts_of(recorded: Sequence[Mapping[str, Any]]) -> list[Part]:
    """The parts as ExampleGen records them on the Examples (a JSON list of objects)."""
    return [Part(int(p["span"]), str(p["split"]), str(p["key"])) for p in recorded]


def covers(parts: Sequence[Part], train_dir: str, files: Iterable[str]) -> bool:
    """Whether the parts' patterns match every file of ``train_dir``, each once.

    When they do not (an Examples artifact written otherwise), analyzing the parts
    would leave rows out or count them twice: the caller analyzes the whole split.
    """
    names = [os.path.basename(f.rstrip("/")) for f in files]
    prefixes = [os.path.basename(p.pattern(train_dir))[:-1] for p in parts]
    if not names or len(set(prefixes)) != len(prefixes):
        return False
    return all(sum(n.startswith(prefix) for prefix in prefixes) == 1 for n in names)


def read_manifest(folder: str) -> dict[bytes, int]:
    """A dataset folder's manifest: each cache entry key's file index ({} when none)."""
    path = os.path.join(folder, MANIFEST)
    if not fileio.exists(path):
        return {}
    with fileio.open(path, "rb") as f:
        try:
            manifest = pickle.loads(f.read())
        except Exception:  # noqa: BLE001 - as TFT: an unreadable manifest is no cache
            return {}
    return manifest if isinstance(manifest, dict) else {}


def readable(cache: str, dataset_keys: Iterable[str], folder: str) -> str:
    """The cache folder as tf.Transform can read it, for ``dataset_keys``.

    TFT reads its cache through TensorFlow, which reads no ``s3://``: on an object
    store the datasets' folders are copied into the local ``folder`` first, and that
    is returned; a local cache is read where it is.
    """
    if not on_object_store(cache):
        return cache
    for key in dataset_keys:
        source, target = os.path.join(cache, key), os.path.join(folder, key)
        if not fileio.isdir(source):
            continue
        fileio.makedirs(target)
        for name in fileio.listdir(source):
            fileio.copy(os.path.join(source, name), os.path.join(target, name), overwrite=True)
    return folder


def _write_manifest(folder: str, manifest: Mapping[bytes, int]) -> None:
    """Write the manifest so that readers see the old one or the whole new one."""
    data = pickle.dumps(dict(manifest), protocol=0)  # TFT's own encoding
    path = os.path.join(folder, MANIFEST)
    if on_object_store(folder):
        with fileio.open(path, "wb") as f:
            f.write(data)
        return
    temporary = os.path.join(folder, f".{MANIFEST}-{uuid.uuid4().hex}")
    with fileio.open(temporary, "wb") as f:
        f.write(data)
    fileio.rename(temporary, path, overwrite=True)


def _entry_files(folder: str, index: int) -> list[str]:
    """The files of a folder's entry ``index``, or [] unless all its shards are there.

    On an object store Beam finishes a write shard by shard, each a copy of a
    temporary object.
    """
    files = sorted(fileio.glob(os.path.join(folder, f"{index}-*-of-*")))
    shards = [_SHARD.match(os.path.basename(f)) for f in files]
    counts = {int(m.group(3)) for m in shards if m}
    numbers = {int(m.group(2)) for m in shards if m}
    complete = len(counts) == 1 and numbers == set(range(counts.pop()))
    return files if complete else []


def _copy_entry(staged: str, index: int, cache: str) -> int:
    """Copy entry ``index`` of the staged folder into ``cache``; its index there.

    The new index is random, so two runs publishing to one folder at once never write
    the same file names.
    """
    new = uuid.uuid4().int % 10**12
    for path in _entry_files(staged, index):
        shards = os.path.basename(path)[len(str(index)) :]
        fileio.copy(path, os.path.join(cache, f"{new}{shards}"), overwrite=True)
    return new


def publish_dataset(staged: str, cache: str) -> list[bytes]:
    """Add the staged folder's entries the cache folder lacks; the keys added.

    Entries and metadata first, the merged manifest last: until it is renamed into
    place, readers see the manifest before, whose files are all there.
    """
    current = read_manifest(cache)
    fresh = {k: i for k, i in read_manifest(staged).items() if k not in current}
    fresh = {k: i for k, i in fresh.items() if _entry_files(staged, i)}
    if not fresh:
        return []
    fileio.makedirs(cache)
    merged = dict(current)
    for key, index in fresh.items():
        merged[key] = _copy_entry(staged, index, cache)
    if not fileio.glob(os.path.join(cache, _METADATA_GLOB)):
        for path in fileio.glob(os.path.join(staged, _METADATA_GLOB)):
            fileio.copy(path, os.path.join(cache, os.path.basename(path)), overwrite=True)
    _write_manifest(cache, merged)
    return sorted(fresh)


def publish(staging: str, cache: str, dataset_keys: Iterable[str]) -> dict[str, list[bytes]]:
    """Publish the staged folders of ``dataset_keys`` into ``cache``; the keys each added."""
    added = {}
    for key in dataset_keys:
        staged = os.path.join(staging, key)
        if fileio.isdir(staged):
            added[key] = publish_dataset(staged, os.path.join(cache, key))
    return added


def _dataset_folders(cache: str) -> dict[str, tuple[int, str]]:
    """The cache's dataset folders: each name's span and encoding key."""
    if not fileio.isdir(cache):
        return {}
    folders = {}
    for name in fileio.listdir(cache):
        match = _DATASET.fullmatch(name.rstrip("/"))
        if match:
            folders[name.rstrip("/")] = (int(match.group(1)), match.group(2))
    return folders


def stale(cache: str, parts: Sequence[Part]) -> list[str]:
    """The dataset folders a run on ``parts`` leaves to no later run in its sequence.

    The run's span S and window K are its parts' newest span and their number of
    spans. Kept: spans from S - 2K + 1 on (the next run's window, and a rerun's or a
    window twice as wide), and any newer span (a backfill leaves them alone). Stale:
    an older span, or a span of the window under another encoding than the run's.
    """
    keys = {p.span: p.key for p in parts}
    oldest_kept = max(keys) - 2 * len(keys) + 1
    return sorted(
        name
        for name, (span, key) in _dataset_folders(cache).items()
        if span < oldest_kept or keys.get(span, key) != key
    )


def _remove_folder(folder: str) -> None:
    """Remove a dataset folder, its manifest first: a reader sees it whole or not at all."""
    # Gone already: a cut-off removal, or another run's.
    with contextlib.suppress(fileio.NotFoundError):
        fileio.remove(os.path.join(folder, MANIFEST))
    with contextlib.suppress(fileio.NotFoundError):
        fileio.rmtree(folder)


def evict(cache: str, parts: Sequence[Part]) -> list[str]:
    """Remove the dataset folders ``stale`` names; their names."""
    removed = stale(cache, parts)
    for name in removed:
        _remove_folder(os.path.join(cache, name))
    return removed

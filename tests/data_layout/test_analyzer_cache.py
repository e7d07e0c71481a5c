"""Transform's analyzer cache: a part's dataset key, the patterns, and a safe publish."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from tensorflow_transform.beam.analyzer_cache import DatasetKey
from tfx.dsl.io import fileio

from components.cached_transform import _PartsProcessor
from data_layout import analyzer_cache, encoded_spans
from data_layout.analyzer_cache import MANIFEST, Part, covers, publish, read_manifest

PARTS = [Part(1, "train", "aaa"), Part(1, "test", "aaa"), Part(11, "train", "bbb")]


def _encoded(root: Path, span: int, key: str, splits: dict[str, int]) -> encoded_spans.EncodedSpan:
    """A span's encoding on disk: ``files`` empty record files per split, and its marker."""
    uri = root / f"span-{span}" / key
    for split, files in splits.items():
        (uri / f"Split-{split}").mkdir(parents=True)
        for i in range(files):
            (uri / f"Split-{split}" / f"data_tfrecord-{i:05d}-00000.gz").write_bytes(b"")
    encoded_spans.mark_encoded(str(uri), {s: 1 for s in splits})
    return encoded_spans.lookup(str(root), span, key)


def test_a_parts_dataset_key_is_its_span_encoding_and_split_not_the_runs_path(tmp_path):
    run_1, run_2 = tmp_path / "examples" / "1", tmp_path / "examples" / "2"
    keys = [
        {d.file_pattern.split("/")[-1]: d.dataset_key for d in _datasets(PARTS, run)}
        for run in (run_1, run_2)
    ]
    assert keys[0] == keys[1]  # two runs' Examples: the same keys
    assert keys[0]["span-1-train-*"] == DatasetKey("span-1-aaa-train")
    changed = [Part(1, "train", "ccc"), *PARTS[1:]]  # span 1's files changed: a new key
    assert _datasets(changed, run_1)[0].dataset_key != keys[0]["span-1-train-*"]


def _datasets(parts: list[Part], examples: Path) -> list:
    """The analysis datasets TFX's Transform makes of the parts' patterns in ``examples``."""
    train = str(examples / "Split-train")
    processor = _PartsProcessor(parts, train, "cache")
    patterns = [p.pattern(train) for p in parts]
    datasets = processor._MakeDatasetList(patterns, ["tfrecords_gzip"] * len(parts), 1, None, True)
    assert [d.index for d in datasets] == list(range(len(parts)))
    return sorted(datasets, key=lambda d: patterns.index(d.file_pattern))


def test_the_parts_patterns_are_exactly_the_copies_example_gen_makes(tmp_path):
    cache = tmp_path / "encoded"
    one = _encoded(cache, 1, "aaa", {"train": 2, "test": 1})
    eleven = _encoded(cache, 11, "bbb", {"train": 1})
    train = tmp_path / "Split-train"
    for encoded, split in ((one, "train"), (one, "test"), (eleven, "train")):
        encoded_spans.copy_into(encoded, split, str(train))
    files = fileio.listdir(str(train))
    assert covers(PARTS, str(train), files)
    matched = {p.label: len(fileio.glob(p.pattern(str(train)))) for p in PARTS}
    assert matched == {"span-1/train": 2, "span-1/test": 1, "span-11/train": 1}
    # A file no part names (or a part listed twice): analyze the split whole instead.
    assert not covers(PARTS, str(train), [*files, "span-2-train-data_tfrecord-0.gz"])
    assert not covers([*PARTS, PARTS[0]], str(train), files)
    assert not covers(PARTS[:2], str(train), files)


def _stage(folder: Path, entries: dict[bytes, int], missing: tuple[int, ...] = ()) -> None:
    """A dataset folder as TFT writes it: entry files, METADATA and the MANIFEST."""
    folder.mkdir(parents=True)
    for key, index in entries.items():
        if index not in missing:
            (folder / f"{index}-00000-of-00001.gz").write_bytes(key)
    (folder / "METADATA-00000-of-00001").write_bytes(b"size")
    (folder / MANIFEST).write_bytes(pickle.dumps(entries, protocol=0))


def _entries(folder: Path) -> dict[bytes, bytes]:
    """Each cache entry key and the bytes of the file its manifest names."""
    return {
        key: (folder / f"{index}-00000-of-00001.gz").read_bytes()
        for key, index in read_manifest(str(folder)).items()
    }


def test_publish_adds_only_finished_entries_the_cache_lacks(tmp_path):
    cache, key = tmp_path / "cache", "span-1-aaa-train"
    _stage(tmp_path / "run1" / key, {b"quantiles": 0, b"vocabulary": 1})
    assert publish(str(tmp_path / "run1"), str(cache), [key]) == {
        key: [b"quantiles", b"vocabulary"]
    }
    assert _entries(cache / key) == {b"quantiles": b"quantiles", b"vocabulary": b"vocabulary"}
    # A later run (a changed preprocessing_fn) staged its copy of the cache plus a new
    # entry at TFT's next index, and one whose files never got written.
    _stage(tmp_path / "run2" / key, {b"quantiles": 0, b"mean": 2, b"cut_off": 3}, missing=(3,))
    assert publish(str(tmp_path / "run2"), str(cache), [key]) == {key: [b"mean"]}
    assert set(_entries(cache / key)) == {b"quantiles", b"vocabulary", b"mean"}
    assert _entries(cache / key)[b"mean"] == b"mean"


def test_a_publish_cut_off_mid_way_leaves_nothing_to_read(tmp_path, monkeypatch):
    key = "span-1-aaa-train"
    _stage(tmp_path / "run" / key, {b"quantiles": 0, b"vocabulary": 1})
    copied = []

    def killed_at_the_second(staged: str, index: int, cache: str) -> int:
        if copied:
            raise KeyboardInterrupt
        copied.append(index)
        return real_copy(staged, index, cache)

    real_copy = analyzer_cache._copy_entry
    monkeypatch.setattr(analyzer_cache, "_copy_entry", killed_at_the_second)
    with pytest.raises(KeyboardInterrupt):
        publish(str(tmp_path / "run"), str(tmp_path / "cache"), [key])
    assert read_manifest(str(tmp_path / "cache" / key)) == {}  # nothing is read ...
    assert list((tmp_path / "cache" / key).iterdir())  # ... of the entry copied


def test_an_unreadable_manifest_is_no_cache(tmp_path):
    (tmp_path / MANIFEST).write_bytes(b"(dp0\nS'cut")
    assert read_manifest(str(tmp_path)) == {}


def test_an_entry_missing_a_shard_is_not_published(tmp_path):
    key = "span-1-aaa-train"
    _stage(tmp_path / "run" / key, {b"quantiles": 0, b"vocabulary": 1})
    # Entry 1 is two shards, one of them not there yet.
    (tmp_path / "run" / key / "1-00000-of-00001.gz").rename(
        tmp_path / "run" / key / "1-00001-of-00002.gz"
    )
    assert publish(str(tmp_path / "run"), str(tmp_path / "cache"), [key]) == {key: [b"quantiles"]}


def test_eviction_keeps_twice_the_window_newer_spans_and_only_the_runs_encodings(tmp_path):
    folders = ["span-0-aaa-train", "span-1-bbb-train", "span-1-bbb-test", "span-2-ccc-train",
               "span-3-old-train", "span-3-ddd-train", "span-9-eee-train"]  # fmt: skip
    for name in folders:
        _stage(tmp_path / name, {b"mean": 0})
    (tmp_path / "not-a-dataset").mkdir()
    # A run on span 4 with a window of 2 (spans 3 and 4): spans from 1 on are kept.
    run = [Part(3, "train", "ddd"), Part(3, "test", "ddd"), Part(4, "train", "fff")]
    assert analyzer_cache.evict(str(tmp_path), run) == ["span-0-aaa-train", "span-3-old-train"]
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert kept == sorted({*folders, "not-a-dataset"} - {"span-0-aaa-train", "span-3-old-train"})
    assert _entries(tmp_path / "span-1-bbb-test") == {b"mean": b"mean"}
    assert analyzer_cache.evict(str(tmp_path), run) == []

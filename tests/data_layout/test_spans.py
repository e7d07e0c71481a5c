"""Which spans a run reads: the newest by default, a window, and every bad root refused."""

from __future__ import annotations

import shutil
from typing import BinaryIO

import pytest

from data_layout import spans
from data_layout.spans import LATEST, SpanError, resolve, span_folders

FOLDERS = span_folders(["span-0", "span-3", "span-7", "README.md"])


def test_span_folders_take_leading_zeros_and_ignore_other_names():
    assert span_folders(["span-003", "span-10/", "notes", "span-x", "span-"]) == {
        3: "span-003",
        10: "span-10",
    }


def test_two_folders_of_one_span_are_refused():
    with pytest.raises(SpanError, match="span-01 and span-1 are both span 1"):
        span_folders(["span-01", "span-1"])


def test_the_newest_span_and_its_window_by_default():
    window = resolve("root", FOLDERS, [], LATEST, 2)
    assert (window.span, window.spans, window.previous, window.note) == (7, (3, 7), 3, "")
    assert window.folders == {3: "span-3", 7: "span-7"}


def test_a_window_larger_than_the_spans_trains_on_those_there_and_says_so():
    window = resolve("root", FOLDERS, [], 3, 4)
    assert window.spans == (0, 3)
    assert window.note == ("a window of 4 spans was asked; 2 exist up to span 3, training on 0, 3")


def test_the_previous_span_is_read_even_outside_a_window_of_one():
    window = resolve("root", FOLDERS, [], 3, 1)
    assert (window.spans, window.previous) == ((3,), 0)
    assert window.folders == {3: "span-3", 0: "span-0"}


def test_a_span_that_is_not_there_lists_the_spans_found():
    with pytest.raises(SpanError, match="data root root has no span 5: it holds spans 0, 3, 7"):
        resolve("root", FOLDERS, [], 5, 1)


def test_span_folders_beside_data_files_are_refused_naming_both():
    with pytest.raises(SpanError, match=r"mixes span folders and data files \(span-0/ and a.csv\)"):
        resolve("root", FOLDERS, ["b.csv", "a.csv"], LATEST, 1)


def test_a_flat_root_is_span_zero_and_refuses_another_span():
    window = resolve("root", {}, ["a.csv"], LATEST, 3)
    assert (window.flat, window.span, window.spans, window.previous) == (True, 0, (0,), None)
    with pytest.raises(SpanError, match="has no span folders"):
        resolve("root", {}, ["a.csv"], 2, 1)


@pytest.mark.parametrize(("text", "span"), [("latest", LATEST), ("0", 0), ("007", 7)])
def test_a_span_is_written_as_a_number_or_latest(text, span):
    assert spans.parse_span(text) == span
    assert spans.parse_span(spans.span_text(span)) == span


@pytest.mark.parametrize("text", ["-1", "newest", "1.5", ""])
def test_other_span_texts_are_refused(text):
    with pytest.raises(SpanError, match="a span is a number >= 0 or 'latest'"):
        spans.parse_span(text)


def _root(tmp_path, spans_files: dict[str, list[str]]):
    """A data root of span folders, each holding the named files (``_SUCCESS`` included)."""
    root = tmp_path / "root"
    root.mkdir()
    for folder, names in spans_files.items():
        (root / folder).mkdir()
        for name in names:
            (root / folder / name).write_text("a,b\n1,2\n")
    return root


def _read(root, span=LATEST, window=2):
    return spans.read_root(spans.LOCAL, str(root), "*.csv*", span, window)


def test_with_markers_a_span_without_one_is_not_latest_and_the_run_says_so(tmp_path):
    marker = spans.SUCCESS_MARKER
    root = _root(
        tmp_path, {"span-1": ["a.csv", marker], "span-2": ["a.csv", marker], "span-3": ["a.csv"]}
    )
    window = _read(root)
    assert (window.span, window.spans, window.previous) == (2, (1, 2), 1)
    assert window.unfinished == (
        "span 3 (span-3/) has no _SUCCESS yet: still being written; taking span 2"
    )
    with pytest.raises(spans.SpanNotReady, match=r"span 3 \(span-3/\) has no _SUCCESS yet"):
        _read(root, span=3)


def test_with_markers_a_span_being_written_is_left_out_of_the_window(tmp_path):
    marker = spans.SUCCESS_MARKER
    root = _root(tmp_path, {"span-1": ["a.csv", marker], "span-2": [], "span-3": ["a.csv", marker]})
    window = _read(root)
    assert (window.span, window.spans) == (3, (1, 3))
    assert "span 2 (span-2/) has no _SUCCESS yet" in window.unfinished


def test_without_markers_every_span_counts_and_an_empty_newest_one_is_waited_for(tmp_path):
    root = _root(tmp_path, {"span-1": ["a.csv"], "span-2": ["a.csv"]})
    assert (_read(root).span, _read(root).unfinished) == (2, "")
    (root / "span-3").mkdir()
    with pytest.raises(spans.SpanNotReady, match=r"span 3 \(span-3/\) holds no data file yet"):
        _read(root)
    # Asked for by number, the same folder is bad input, found by the data checks.
    assert _read(root, span=3).span == 3


def test_an_empty_root_is_waited_for_and_a_missing_one_refused(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(spans.SpanNotReady, match="holds no span yet"):
        _read(tmp_path / "empty")
    with pytest.raises(SpanError, match="does not exist"):
        _read(tmp_path / "missing")


def test_a_spans_files_digest_changes_with_its_bytes_and_hidden_files_are_not_data(tmp_path):
    root = _root(tmp_path, {"span-1": ["a.csv", "b.csv", ".b.csv.crc", "_SUCCESS"]})
    window = _read(root)
    files, before = spans.read_window(spans.LOCAL, str(root), window, "*.csv*", _open)
    assert [p.rsplit("/", 1)[-1] for p in files[1]] == ["a.csv", "b.csv"]
    # Same size, same second: what TFX's own fingerprint (size and mtime) cannot tell.
    (root / "span-1" / "b.csv").write_text("a,b\n1,3\n")
    _, after = spans.read_window(spans.LOCAL, str(root), window, "*.csv*", _open)
    assert spans.changed_span(before, after) == 1
    assert spans.changed_span(before, before) is None
    shutil.rmtree(root / "span-1")
    files, gone = spans.read_window(spans.LOCAL, str(root), window, "*.csv*", _open)
    assert (files, gone) == ({}, {})
    assert spans.changed_span(before, gone) == 1


def test_a_window_reads_back_as_written():
    window = resolve("root", FOLDERS, [], LATEST, 2)
    assert spans.window_from_json(spans.window_json(window)) == window


def _open(path: str) -> BinaryIO:
    return open(path, "rb")  # noqa: SIM115 - the digest closes it

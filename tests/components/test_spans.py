"""Which spans a run reads: the newest by default, a window, and every bad root refused."""

from __future__ import annotations

import pytest

from components import spans
from components.spans import LATEST, SpanError, resolve, span_folders

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

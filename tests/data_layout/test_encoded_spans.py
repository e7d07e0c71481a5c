"""A span's encoding is reused only for the same bytes, column kinds and split."""

from __future__ import annotations

from data_layout.encoded_spans import encoding_key

FILES, KINDS, SPLIT = "ab12", [1, 2, 3], [("train", 3), ("validation", 1), ("test", 1)]


def test_the_same_files_kinds_and_split_are_the_same_key():
    assert encoding_key(FILES, KINDS, SPLIT) == encoding_key(FILES, tuple(KINDS), list(SPLIT))


def test_other_files_kinds_or_split_are_another_key():
    key = encoding_key(FILES, KINDS, SPLIT)
    assert encoding_key("ab13", KINDS, SPLIT) != key
    assert encoding_key(FILES, [1, 2, 2], SPLIT) != key
    assert encoding_key(FILES, KINDS, [("train", 8), ("validation", 1), ("test", 1)]) != key

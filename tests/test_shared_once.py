"""The session's shared folders: made once, by the first to ask, and never left half made."""

from __future__ import annotations

from pathlib import Path

import pytest
from shared_once import shared_folder


def test_a_folder_is_made_once_and_read_by_every_later_ask(tmp_path_factory):
    made = []

    def make(folder: Path) -> None:
        made.append(folder)
        (folder / "run.txt").write_text("ran")

    first = shared_folder(tmp_path_factory, "once-test", make)
    again = shared_folder(tmp_path_factory, "once-test", make)
    assert first == again and len(made) == 1
    assert (again / "run.txt").read_text() == "ran"


def test_a_make_that_fails_is_started_again_by_the_next_ask(tmp_path_factory):
    def fail(folder: Path) -> None:
        (folder / "half.txt").write_text("half")
        raise RuntimeError("the install failed")

    with pytest.raises(RuntimeError, match="the install failed"):
        shared_folder(tmp_path_factory, "fails-test", fail)
    folder = shared_folder(tmp_path_factory, "fails-test", lambda f: (f / "ok").touch())
    assert sorted(p.name for p in folder.iterdir()) == [".done", "ok"]

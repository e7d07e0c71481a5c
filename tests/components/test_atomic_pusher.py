"""The Pusher's publishing step, on real SavedModels in a real directory."""

from pathlib import Path

import pytest
import tensorflow as tf
from conftest import save_scaler

from components import atomic_pusher
from components.atomic_pusher import push_model


@pytest.fixture
def models(tmp_path) -> tuple[str, str]:
    return save_scaler(tmp_path / "a", 1.0), save_scaler(tmp_path / "b", 2.0)


def _listing(base: Path) -> list[str]:
    return sorted(p.name for p in base.iterdir())


def test_first_push_publishes_a_loadable_version(models, tmp_path):
    base = tmp_path / "serving"
    push = push_model(models[0], str(base), now=1_700_000_000)
    assert push.version == "1700000000" and not push.already_serving
    assert _listing(base) == ["1700000000"]
    assert tf.saved_model.load(push.path).f(tf.constant(3.0)).numpy() == 3.0


def test_a_new_model_gets_a_higher_version_and_never_overwrites(models, tmp_path):
    base = tmp_path / "serving"
    first = push_model(models[0], str(base), now=1_700_000_000)
    # Same second (or a clock behind the newest version): the version still goes up.
    second = push_model(models[1], str(base), now=1_600_000_000)
    assert int(second.version) == int(first.version) + 1
    assert _listing(base) == [first.version, second.version]
    assert tf.saved_model.load(first.path).f(tf.constant(1.0)).numpy() == 1.0
    assert tf.saved_model.load(second.path).f(tf.constant(1.0)).numpy() == 2.0


def test_the_model_already_serving_is_not_copied_again(models, tmp_path):
    base = tmp_path / "serving"
    first = push_model(models[0], str(base), now=1_700_000_000)
    again = push_model(models[0], str(base), now=1_700_000_100)
    assert again.already_serving and again.path == first.path
    assert _listing(base) == [first.version]


def test_an_older_model_pushed_again_becomes_the_newest_version(models, tmp_path):
    base = tmp_path / "serving"
    push_model(models[0], str(base), now=1_700_000_000)
    push_model(models[1], str(base), now=1_700_000_001)
    rollback = push_model(models[0], str(base), now=1_700_000_002)
    assert not rollback.already_serving
    assert _listing(base) == ["1700000000", "1700000001", "1700000002"]


def test_a_copy_that_fails_leaves_no_version_and_no_staging_dir(models, tmp_path, monkeypatch):
    base = tmp_path / "serving"
    push_model(models[0], str(base), now=1_700_000_000)
    copied = []

    def copy_then_fail(src: str, dst: str, *args: object, **kwargs: object) -> None:
        if copied:
            raise OSError("disk full")
        copied.append(src)
        Path(dst).write_bytes(Path(src).read_bytes())

    monkeypatch.setattr(atomic_pusher.fileio, "copy", copy_then_fail)
    with pytest.raises(OSError, match="disk full"):
        push_model(models[1], str(base), now=1_700_000_001)
    assert copied  # the failure came mid-copy, after a file was written
    assert _listing(base) == ["1700000000"]

"""TFX's fileio on s3:// through kubeflow.step.s3_fileio, against a real S3 server.

The server is the one ``make kfp-local`` runs (moto's); the calls are TFX's own
``fileio`` functions, as the steps' code makes them, once the entry point registered
the plugin.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tfx.dsl.io import fileio, filesystem

from kubeflow.harness import object_store
from kubeflow.operator.spec import S3Access
from kubeflow.step import s3_fileio


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object_store.ObjectStore]:
    """A running S3 server, its keys and endpoint in this process's environment."""
    folder = tmp_path_factory.mktemp("s3")
    with (
        object_store.running_store(folder / "mirror", folder / "s3.log") as running,
        pytest.MonkeyPatch.context() as patch,
    ):
        for name, value in {
            **S3Access(running.endpoint, None).env(),
            **running.credentials(),
        }.items():
            patch.setenv(name, value)
        s3_fileio._client.cache_clear()
        s3_fileio.register()
        yield running
    s3_fileio._client.cache_clear()


@pytest.fixture
def root(store: object_store.ObjectStore, request: pytest.FixtureRequest) -> str:
    """An empty folder of the bucket, one per test."""
    return store.uri(f"tests/{request.node.name}")


def _write(path: str, text: str) -> None:
    with fileio.open(path, "w") as f:
        f.write(text)


def test_s3_goes_through_this_plugin_not_tensorflow(store):
    assert fileio._get_filesystem("s3://b/k") is s3_fileio.S3Filesystem  # noqa: SLF001
    assert fileio._get_filesystem("/tmp/x") is not s3_fileio.S3Filesystem  # noqa: SLF001


def test_files_are_written_whole_and_read_back(root):
    _write(f"{root}/a/b.txt", "héllo")
    with fileio.open(f"{root}/a/c.bin", "wb") as f:
        f.write(b"\x00\x01")
    with fileio.open(f"{root}/a/b.txt") as f:
        assert f.read() == "héllo"
    with fileio.open(f"{root}/a/c.bin", "rb") as f:
        assert f.read() == b"\x00\x01"
    assert fileio.stat(f"{root}/a/c.bin").length == 2
    with pytest.raises(filesystem.NotFoundError):
        fileio.open(f"{root}/missing.txt")


def test_folders_are_prefixes_of_keys(root):
    fileio.makedirs(f"{root}/empty")
    assert not fileio.exists(f"{root}/empty")  # nothing written under it yet
    _write(f"{root}/d/one.txt", "1")
    _write(f"{root}/d/sub/two.txt", "2")
    assert fileio.exists(f"{root}/d") and fileio.isdir(f"{root}/d")
    assert fileio.exists(f"{root}/d/one.txt") and not fileio.isdir(f"{root}/d/one.txt")
    assert fileio.listdir(f"{root}/d") == ["one.txt", "sub"]
    assert fileio.listdir(f"{root}/d/") == ["one.txt", "sub"]
    assert not fileio.exists(f"{root}/d/on")  # a prefix of a name is not a path
    assert list(fileio.walk(f"{root}/d")) == [
        (f"{root}/d", ["sub"], ["one.txt"]),
        (f"{root}/d/sub", [], ["two.txt"]),
    ]
    with pytest.raises(filesystem.NotFoundError):
        fileio.listdir(f"{root}/nothing")


def test_glob_stars_stop_at_slashes_and_match_folders(root):
    for name in ("x/1-0-of-2", "x/1-1-of-2", "x/2-0-of-1", "x/deep/1-0-of-1"):
        _write(f"{root}/{name}", name)
    assert fileio.glob(f"{root}/x/1-*-of-*") == [f"{root}/x/1-0-of-2", f"{root}/x/1-1-of-2"]
    assert fileio.glob(f"{root}/x/*") == [
        f"{root}/x/1-0-of-2", f"{root}/x/1-1-of-2", f"{root}/x/2-0-of-1", f"{root}/x/deep",
    ]  # fmt: skip
    assert fileio.glob(f"{root}/x/none-*") == []


def test_copy_between_the_store_and_local_files(root, tmp_path: Path):
    local = tmp_path / "local.txt"
    local.write_text("from here")
    fileio.copy(str(local), f"{root}/up.txt")
    fileio.copy(f"{root}/up.txt", f"{root}/again.txt")
    fileio.copy(f"{root}/again.txt", str(tmp_path / "down.txt"))
    assert (tmp_path / "down.txt").read_text() == "from here"
    with pytest.raises(OSError, match="exists"):
        fileio.copy(str(local), f"{root}/up.txt")
    with pytest.raises(OSError, match="exists"):
        fileio.copy(f"{root}/up.txt", f"{root}/again.txt")
    fileio.copy(str(local), f"{root}/up.txt", overwrite=True)


def test_a_folder_renamed_is_copied_then_deleted(root):
    _write(f"{root}/staging/model/saved_model.pb", "m")
    _write(f"{root}/staging/model/variables/v", "v")
    fileio.rename(f"{root}/staging", f"{root}/target")
    assert not fileio.exists(f"{root}/staging")
    assert [w[2] for w in fileio.walk(f"{root}/target")] == [[], ["saved_model.pb"], ["v"]]
    _write(f"{root}/other/x", "x")
    with pytest.raises(FileExistsError):
        fileio.rename(f"{root}/other", f"{root}/target")
    with pytest.raises(filesystem.NotFoundError):
        fileio.rename(f"{root}/gone", f"{root}/elsewhere")


def test_remove_and_rmtree(root):
    _write(f"{root}/t/a", "a")
    _write(f"{root}/t/b/c", "c")
    fileio.remove(f"{root}/t/a")
    assert fileio.listdir(f"{root}/t") == ["b"]
    with pytest.raises(filesystem.NotFoundError):
        fileio.remove(f"{root}/t/a")
    fileio.rmtree(f"{root}/t")
    assert not fileio.exists(f"{root}/t")
    with pytest.raises(filesystem.NotFoundError):
        fileio.rmtree(f"{root}/t")

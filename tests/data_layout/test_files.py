"""Files read and written wherever they are: local paths by Python, URIs through TensorFlow."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from data_layout import files


@pytest.fixture(params=["local", "uri"])
def folder(request, tmp_path) -> str:
    """An empty folder: a local path, or TensorFlow's in-memory file system (a URI)."""
    if request.param == "local":
        return str(tmp_path)
    return f"ram://{uuid.uuid4().hex}"


def test_text_written_is_read_back_and_found(folder):
    path = f"{folder}/evaluation/a.json"
    if not files.on_object_store(path):
        (Path(folder) / "evaluation").mkdir()
    files.write_text(path, '{"é": 1}')
    files.write_text(f"{folder}/evaluation/b.json", "second")

    assert files.read_text(path) == '{"é": 1}'
    assert files.read_bytes(path) == '{"é": 1}'.encode()
    assert files.exists(path) and not files.exists(f"{folder}/evaluation/c.json")
    assert files.isdir(f"{folder}/evaluation") and not files.isdir(path)
    assert files.glob(f"{folder}/evaluation/*.json") == [path, f"{folder}/evaluation/b.json"]


def test_only_a_uri_is_on_an_object_store():
    assert files.on_object_store("s3://bucket/run") and files.on_object_store("gs://b/x")
    assert not files.on_object_store("/work/outputs") and not files.on_object_store("out/x")

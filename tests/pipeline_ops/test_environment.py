"""The commands' variables: the WIDE_DEEP_ names, and the TAXI_ names they replace."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline_def.config import MysqlMetadata
from pipeline_ops import environment
from pipeline_ops.environment import env_value
from pipeline_ops.metadata.store import metadata_for

NOTE = "note: TAXI_METADATA is deprecated: set WIDE_DEEP_METADATA instead\n"


@pytest.fixture(autouse=True)
def fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts as a new process would: no deprecation noted yet."""
    monkeypatch.setattr(environment, "_noted", set())


def test_the_new_name_is_read_quietly(capsys: pytest.CaptureFixture[str]) -> None:
    assert env_value("WIDE_DEEP_METADATA", {"WIDE_DEEP_METADATA": "new"}) == "new"
    assert env_value("WIDE_DEEP_METADATA", {}) is None
    assert capsys.readouterr().err == ""


def test_the_former_name_is_read_with_one_note_per_process(
    capsys: pytest.CaptureFixture[str],
) -> None:
    env = {"TAXI_METADATA": "old"}
    assert env_value("WIDE_DEEP_METADATA", env) == "old"
    assert env_value("WIDE_DEEP_METADATA", env) == "old"
    assert capsys.readouterr().err == NOTE


def test_the_new_name_wins_over_the_former(capsys: pytest.CaptureFixture[str]) -> None:
    env = {"WIDE_DEEP_METADATA": "new", "TAXI_METADATA": "old"}
    assert env_value("WIDE_DEEP_METADATA", env) == "new"
    assert capsys.readouterr().err == ""


def test_the_store_and_its_password_come_from_the_former_names(
    capsys: pytest.CaptureFixture[str],
) -> None:
    env = {"TAXI_METADATA": "mysql://ml@db.example.com/mlmd", "TAXI_METADATA_PASSWORD": "pw"}
    store = metadata_for(Path("outputs"), None, env)
    assert store == MysqlMetadata("db.example.com", 3306, "mlmd", "ml", "pw")
    assert capsys.readouterr().err == NOTE + (
        "note: TAXI_METADATA_PASSWORD is deprecated: set WIDE_DEEP_METADATA_PASSWORD instead\n"
    )

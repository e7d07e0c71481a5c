"""Where the commands find ML-Metadata: the flag, else $WIDE_DEEP_METADATA, else SQLite."""

from __future__ import annotations

from pathlib import Path

from pipeline_def.metadata_stores import MysqlMetadata, SqliteMetadata
from pipeline_ops.metadata.store import METADATA_ENV, PASSWORD_ENV, metadata_for


def test_the_store_and_its_password_come_from_the_environment():
    env = {METADATA_ENV: "mysql://ml@db.example.com/mlmd", PASSWORD_ENV: "pw"}
    assert metadata_for(Path("outputs"), None, env) == MysqlMetadata(
        "db.example.com", 3306, "mlmd", "ml", "pw"
    )


def test_the_flag_wins_over_the_environment_and_sqlite_is_the_default(tmp_path):
    env = {METADATA_ENV: "mysql://ml@db.example.com/mlmd"}
    assert metadata_for(tmp_path, "mysql://me@other/db", env).host == "other"
    assert metadata_for(tmp_path, None, {}) == SqliteMetadata(str(tmp_path / "metadata.sqlite"))

"""The ML-Metadata stores a run can record in, and the connection config TFX takes for each.

A local run names one (an SQLite file under its output dir, or a team's MySQL server);
on Kubeflow the orchestrator provides its own, and the config names none.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ml_metadata.proto import metadata_store_pb2 as mlmd_pb2


@dataclass(frozen=True)
class SqliteMetadata:
    """ML-Metadata in an embedded SQLite file."""

    path: str


@dataclass(frozen=True)
class MysqlMetadata:
    """ML-Metadata on a MySQL-compatible server, shared by a team."""

    host: str
    port: int
    database: str
    user: str
    # Kept out of repr: a config or store is printed in logs and error messages.
    password: str = field(default="", repr=False)


MetadataStore = SqliteMetadata | MysqlMetadata


def metadata_connection(store: MetadataStore) -> mlmd_pb2.ConnectionConfig:
    """The ML-Metadata connection config for a store."""
    config = mlmd_pb2.ConnectionConfig()
    if isinstance(store, SqliteMetadata):
        config.sqlite.filename_uri = store.path
        config.sqlite.connection_mode = mlmd_pb2.SqliteMetadataSourceConfig.READWRITE_OPENCREATE
        return config
    config.mysql.host = store.host
    config.mysql.port = store.port
    config.mysql.database = store.database
    config.mysql.user = store.user
    config.mysql.password = store.password
    return config

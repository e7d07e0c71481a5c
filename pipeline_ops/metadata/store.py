"""Where a pipeline's ML-Metadata lives, and how the commands find it.

The embedded default is ``<output-dir>/metadata.sqlite``. A team points every
command at a shared MySQL-compatible server with ``--metadata mysql://...`` or the
``WIDE_DEEP_METADATA`` environment variable; the password may come from
``WIDE_DEEP_METADATA_PASSWORD`` so that it never sits on a command line.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ml_metadata.metadata_store import metadata_store

from pipeline_def.metadata_stores import (
    MetadataStore,
    MysqlMetadata,
    SqliteMetadata,
    metadata_connection,
)

METADATA_FILE = "metadata.sqlite"
METADATA_ENV = "WIDE_DEEP_METADATA"
PASSWORD_ENV = "WIDE_DEEP_METADATA_PASSWORD"
MYSQL_DEFAULT_PORT = 3306


class MetadataUriError(ValueError):
    """A --metadata / WIDE_DEEP_METADATA value that names no usable store."""


def parse_metadata_uri(uri: str, env: Mapping[str, str] = os.environ) -> MysqlMetadata:
    """``mysql://USER[:PASSWORD]@HOST[:PORT]/DATABASE`` as a MysqlMetadata."""
    parts = urlsplit(uri)
    if parts.scheme != "mysql":
        raise MetadataUriError(
            f"metadata URI {_redact(uri)!r}: the scheme must be mysql:// "
            "(leave it unset for the embedded SQLite store)"
        )
    database = parts.path.lstrip("/")
    missing = [
        name
        for name, value in (
            ("user", parts.username),
            ("host", parts.hostname),
            ("database", database),
        )
        if not value
    ]
    if missing:
        raise MetadataUriError(
            f"metadata URI {_redact(uri)!r} has no {', '.join(missing)}: "
            "expected mysql://USER[:PASSWORD]@HOST[:PORT]/DATABASE"
        )
    try:
        port = parts.port or MYSQL_DEFAULT_PORT
    except ValueError as err:
        raise MetadataUriError(f"metadata URI {_redact(uri)!r}: bad port ({err})") from None
    password = unquote(parts.password) if parts.password else env.get(PASSWORD_ENV, "")
    return MysqlMetadata(
        host=parts.hostname or "",
        port=port,
        database=database,
        user=unquote(parts.username or ""),
        password=password,
    )


def _redact(uri: str) -> str:
    parts = urlsplit(uri)
    if parts.password:
        return uri.replace(f":{parts.password}@", ":***@", 1)
    return uri


def metadata_for(
    output_dir: Path, uri: str | None, env: Mapping[str, str] = os.environ
) -> MetadataStore:
    """The store a command uses: the URI (or $WIDE_DEEP_METADATA), else SQLite in output_dir."""
    uri = uri or env.get(METADATA_ENV)
    if uri:
        return parse_metadata_uri(uri, env)
    return SqliteMetadata(str(output_dir.resolve() / METADATA_FILE))


def _mysql_address(store: MysqlMetadata) -> str:
    """``user@host:port/database``: the store without its password."""
    return f"{store.user}@{store.host}:{store.port}/{store.database}"


def describe(store: MetadataStore) -> str:
    """The store in words, without its password."""
    if isinstance(store, SqliteMetadata):
        return f"SQLite {store.path}"
    return f"MySQL {_mysql_address(store)}"


def store_flags(store: MetadataStore) -> str:
    """The flags that point the commands at ``store``; a password is never printed.

    A MySQL store is named in full, so the command finds it without the environment
    the run had; its password is taken from WIDE_DEEP_METADATA_PASSWORD, as for any command.
    """
    if isinstance(store, SqliteMetadata):
        return f"--output-dir {shlex.quote(str(Path(store.path).parent))}"
    return f"--metadata {shlex.quote('mysql://' + _mysql_address(store))}"


def open_store(store: MetadataStore) -> metadata_store.MetadataStore:
    """An MLMD client on the store (reading leaves it as it was)."""
    return metadata_store.MetadataStore(metadata_connection(store))

"""TFX's file layer (``tfx.dsl.io.fileio``) for ``s3://``, through boto3.

TensorFlow has had no ``s3://`` filesystem of its own since 2.6; tensorflow-io's plugin
gave it one up to TensorFlow 2.16 and has no build for 2.17 or later (tensorflow/io#2104,
open). The route this product takes on both stacks is KFP's own: its launcher copies a
step's input artifacts from the object store to local paths (``/s3/<bucket>/<key>``)
before the step and its output artifacts back after it (kubeflow/pipelines,
``backend/src/v2/component/launcher_v2.go``, downloadArtifacts and
uploadOutputArtifacts), and ``kubeflow.step.entrypoint`` hands TFX's executor those
local paths, so TensorFlow reads and writes no ``s3://`` path at all. What remains are
the folders a step finds by path rather than as an artifact (the data root, the
encoded spans, the analyzer cache, the serving folder), which the project's code and
TFX's reach through ``fileio``: this plugin serves them with boto3, which reads the
endpoint (``AWS_ENDPOINT_URL``), region and keys from the step's environment.

Object stores have keys, not folders: a folder is the prefix ``<path>/`` of some key,
made by writing a file under it (``makedirs`` writes nothing), and a rename is a copy
and a delete.
"""

from __future__ import annotations

import fnmatch
import io
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import boto3
from botocore.exceptions import ClientError
from tfx.dsl.io import filesystem, filesystem_registry

SCHEME = "s3://"
# Ahead of TFX's TensorFlow plugin (priority 10), which would ask TensorFlow.
_PRIORITY = 5


@cache
def _client() -> Any:
    """One S3 client per process, configured by the environment."""
    return boto3.client("s3")


def _split(path: str) -> tuple[str, str]:
    """``s3://bucket/key`` as (bucket, key)."""
    bucket, _, key = str(path).removeprefix(SCHEME).partition("/")
    return bucket, key


def _folder(key: str) -> str:
    """The prefix of the keys inside folder ``key`` ("" for the bucket)."""
    return f"{key.rstrip('/')}/" if key.strip("/") else ""


def _keys(bucket: str, prefix: str) -> Iterator[str]:
    """Every key under ``prefix``."""
    pages = _client().get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
    for page in pages:
        yield from (item["Key"] for item in page.get("Contents", []))


def _head(bucket: str, key: str) -> dict[str, Any] | None:
    """The object's metadata, or None when there is no object ``key``."""
    try:
        return _client().head_object(Bucket=bucket, Key=key)
    except ClientError as err:
        if err.response["Error"]["Code"] in ("404", "NoSuchKey", "NotFound"):
            return None
        raise


def _is_file(bucket: str, key: str) -> bool:
    return _head(bucket, key) is not None


class _Upload(io.BytesIO):
    """A file opened for writing: its bytes are one upload when it closes."""

    def __init__(self, bucket: str, key: str) -> None:
        super().__init__()
        self._target = (bucket, key)

    def close(self) -> None:
        if not self.closed:
            bucket, key = self._target
            _client().put_object(Bucket=bucket, Key=key, Body=self.getvalue())
        super().close()


@dataclass(frozen=True)
class _Stat:
    """What TFX reads of a stat: the length, and whether the path is a folder."""

    length: int
    is_directory: bool


class S3Filesystem(filesystem.Filesystem):
    """``s3://`` for TFX's fileio, with boto3."""

    SUPPORTED_SCHEMES = [SCHEME]

    @staticmethod
    def open(name: str, mode: str = "r") -> Any:
        """The object ``name``, read whole; or a new object written when closed."""
        bucket, key = _split(name)
        if "w" in mode:
            upload = _Upload(bucket, key)
            return upload if "b" in mode else io.TextIOWrapper(upload, encoding="utf-8")
        if "r" not in mode or "+" in mode:
            raise ValueError(f"mode {mode!r} is not supported on {name}")
        try:
            body = _client().get_object(Bucket=bucket, Key=key)["Body"].read()
        except _client().exceptions.NoSuchKey as err:
            raise filesystem.NotFoundError(f"{name} does not exist") from err
        return io.BytesIO(body) if "b" in mode else io.StringIO(body.decode("utf-8"))

    @staticmethod
    def copy(src: str, dst: str, overwrite: bool = False) -> None:
        """Copy the object ``src`` to ``dst`` inside the store.

        fileio itself copies between a local file and the store, through ``open``.
        """
        if not overwrite and _exists(dst):
            raise FileExistsError(f"{dst} exists")
        bucket, key = _split(src)
        _client().copy({"Bucket": bucket, "Key": key}, *_split(dst))

    @staticmethod
    def exists(path: str) -> bool:
        """Whether ``path`` is a file or a folder."""
        return _exists(path)

    @staticmethod
    def glob(pattern: str) -> list[str]:
        """The files and folders matching ``pattern`` (``*`` stops at ``/``, as TF's glob)."""
        bucket, key = _split(pattern)
        fixed = key[: min((key.find(c) for c in "*?[" if c in key), default=len(key))]
        depth = key.count("/")
        found = set()
        for name in _keys(bucket, fixed[: fixed.rfind("/") + 1]):
            parts = name.split("/")
            if len(parts) > depth:
                found.add("/".join(parts[: depth + 1]))
        return sorted(
            f"{SCHEME}{bucket}/{name}"
            for name in found
            if all(map(fnmatch.fnmatchcase, name.split("/"), key.split("/")))
        )

    @staticmethod
    def isdir(path: str) -> bool:
        """Whether some key lies under ``path``."""
        bucket, key = _split(path)
        return next(_keys(bucket, _folder(key)), None) is not None

    @staticmethod
    def listdir(path: str) -> list[str]:
        """The names of the files and folders directly inside ``path``."""
        bucket, key = _split(path)
        prefix = _folder(key)
        names = {name[len(prefix) :].split("/", 1)[0] for name in _keys(bucket, prefix)}
        if not names and not _exists(path):
            raise filesystem.NotFoundError(f"{path} does not exist")
        return sorted(names - {""})

    @staticmethod
    def makedirs(path: str) -> None:
        """Nothing to make: a folder exists once a file is written under it."""

    @staticmethod
    def mkdir(path: str) -> None:
        """Nothing to make: a folder exists once a file is written under it."""

    @staticmethod
    def remove(path: str) -> None:
        """Delete the file ``path``."""
        bucket, key = _split(path)
        if not _is_file(bucket, key):
            raise filesystem.NotFoundError(f"{path} does not exist")
        _client().delete_object(Bucket=bucket, Key=key)

    @staticmethod
    def rename(src: str, dst: str, overwrite: bool = False) -> None:
        """Move the file or folder ``src`` to ``dst``: a copy, then a delete."""
        if not overwrite and _exists(dst):
            raise FileExistsError(f"{dst} exists")
        bucket, key = _split(src)
        target_bucket, target = _split(dst)
        if _is_file(bucket, key):
            moves = [(key, target)]
        else:
            prefix = _folder(key)
            moves = [
                (name, _folder(target) + name[len(prefix) :]) for name in _keys(bucket, prefix)
            ]
        if not moves:
            raise filesystem.NotFoundError(f"{src} does not exist")
        for old, new in moves:
            _client().copy({"Bucket": bucket, "Key": old}, target_bucket, new)
        for old, _ in moves:
            _client().delete_object(Bucket=bucket, Key=old)

    @staticmethod
    def rmtree(path: str) -> None:
        """Delete every file under the folder ``path``."""
        bucket, key = _split(path)
        names = list(_keys(bucket, _folder(key)))
        if not names:
            raise filesystem.NotFoundError(f"{path} does not exist")
        for start in range(0, len(names), 1000):  # the API's limit per request
            chunk = [{"Key": name} for name in names[start : start + 1000]]
            _client().delete_objects(Bucket=bucket, Delete={"Objects": chunk})

    @staticmethod
    def stat(path: str) -> _Stat:
        """The length of the file ``path``, or a folder's zero."""
        head = _head(*_split(path))
        if head is not None:
            return _Stat(length=head["ContentLength"], is_directory=False)
        if S3Filesystem.isdir(path):
            return _Stat(length=0, is_directory=True)
        raise filesystem.NotFoundError(f"{path} does not exist")

    @staticmethod
    def walk(
        top: str, topdown: bool = True, onerror: Any = None
    ) -> Iterator[tuple[str, list[str], list[str]]]:
        """(folder, its folders, its files) for ``top`` and every folder under it."""
        bucket, key = _split(top)
        prefix = _folder(key)
        tree: dict[str, tuple[set[str], set[str]]] = {prefix: (set(), set())}
        for name in _keys(bucket, prefix):
            *folders, file = name[len(prefix) :].split("/")
            here = prefix
            for folder in folders:
                tree.setdefault(here, (set(), set()))[0].add(folder)
                here = f"{here}{folder}/"
            tree.setdefault(here, (set(), set()))[1].add(file)
        order = sorted(tree, reverse=not topdown)
        for folder in order:
            subfolders, files = tree[folder]
            uri = f"{SCHEME}{bucket}/{folder.rstrip('/')}" if folder else f"{SCHEME}{bucket}"
            yield uri, sorted(subfolders), sorted(files)


def _exists(path: str) -> bool:
    bucket, key = _split(path)
    return _is_file(bucket, key) or S3Filesystem.isdir(path)


def register() -> None:
    """Serve ``s3://`` in this process's fileio with boto3 (idempotent)."""
    filesystem_registry.DEFAULT_FILESYSTEM_REGISTRY.register(S3Filesystem, priority=_PRIORITY)

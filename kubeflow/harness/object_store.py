"""The object store KFP keeps artifacts in, here an S3-compatible server on 127.0.0.1.

KFP installs MinIO for this; the harness runs moto's S3 server, which speaks the
same protocol to the steps (boto3, for Beam and TFX's fileio) and to the harness.
The server holds its objects in memory: the bucket is mirrored to a folder
of the output dir after each run and restored before the next, so that a second run
finds the model the first one pushed.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import boto3

from kubeflow.harness import SetupError

BUCKET = "mlpipeline"  # KFP's own bucket name
# Credentials of the Kubernetes secret the steps read them from (MinIO's keys in KFP's
# mlpipeline-minio-artifact secret are called accesskey and secretkey).
ACCESS_KEY, SECRET_KEY = "kfp-local", "kfp-local-secret"
REGION = "us-east-1"


@dataclass(frozen=True)
class ObjectStore:
    """A running S3 server: its endpoint and the bucket's URI."""

    endpoint: str  # http://127.0.0.1:PORT

    def client(self) -> boto3.client:
        """A boto3 S3 client on the server."""
        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY,
            region_name=REGION,
        )

    def uri(self, key: str) -> str:
        """``s3://mlpipeline/<key>``."""
        return f"s3://{BUCKET}/{key.strip('/')}"

    def upload_folder(self, folder: Path, prefix: str) -> None:
        """Upload every file under ``folder`` to ``prefix/<relative path>``."""
        client = self.client()
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            key = "/".join(p for p in (prefix.strip("/"), path.relative_to(folder).as_posix()) if p)
            client.upload_file(str(path), BUCKET, key)

    def upload_to_uri(self, local: Path, uri: str) -> None:
        """objectstore.UploadBlob: a file to the object ``uri``, a folder below it.

        ``uri`` is an s3://mlpipeline/ URI; a folder's files keep their relative paths.
        """
        if local.is_file():
            self.client().upload_file(str(local), BUCKET, self.key(uri))
        else:
            self.upload_folder(local, self.key(uri))

    def key(self, uri: str) -> str:
        """The object key of ``uri``; ValueError for a URI outside the bucket."""
        prefix = f"s3://{BUCKET}/"
        if not uri.startswith(prefix):
            raise ValueError(f"{uri} is not in the bucket {prefix}")
        return uri[len(prefix) :]

    def replace_folder(self, folder: Path, prefix: str) -> None:
        """Make ``prefix/`` hold exactly the files under ``folder``."""
        client = self.client()
        pages = client.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=f"{prefix}/")
        for page in pages:
            for entry in page.get("Contents", []):
                client.delete_object(Bucket=BUCKET, Key=entry["Key"])
        self.upload_folder(folder, prefix)

    def holds(self, prefix: str) -> bool:
        """Whether any object lies under ``prefix/``."""
        found = self.client().list_objects_v2(Bucket=BUCKET, Prefix=f"{prefix}/", MaxKeys=1)
        return bool(found.get("Contents"))

    def keys(self) -> tuple[str, str]:
        """The access key and the secret key."""
        return ACCESS_KEY, SECRET_KEY

    def credentials(self) -> dict[str, str]:
        """The keys, as the environment variables S3 clients read."""
        return {"AWS_ACCESS_KEY_ID": ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": SECRET_KEY}

    def download_uri(self, uri: str, local: Path) -> None:
        """objectstore.DownloadBlob: the object ``uri`` to a file, or a folder to a folder.

        Every object under ``uri/`` lands in the folder ``local``.
        """
        key = self.key(uri)
        found = self.client().list_objects_v2(Bucket=BUCKET, Prefix=key, MaxKeys=1)
        if [entry["Key"] for entry in found.get("Contents", [])] == [key]:
            local.parent.mkdir(parents=True, exist_ok=True)
            self.client().download_file(BUCKET, key, str(local))
        else:
            local.mkdir(parents=True, exist_ok=True)
            self.download_folder(f"{key.rstrip('/')}/", local)

    def download_folder(self, prefix: str, folder: Path) -> None:
        """Download every object under ``prefix/`` into ``folder`` (emptied first)."""
        client = self.client()
        pages = client.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix)
        for page in pages:
            for entry in page.get("Contents", []):
                target = folder / entry["Key"][len(prefix) :].lstrip("/")
                target.parent.mkdir(parents=True, exist_ok=True)
                client.download_file(BUCKET, entry["Key"], str(target))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(port: int, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 30
    while True:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        if process.poll() is not None or time.monotonic() > deadline:
            raise SetupError(f"the S3 server did not start: see {log}")
        time.sleep(0.2)


@contextmanager
def running_store(mirror: Path, log: Path) -> Iterator[ObjectStore]:
    """An S3 server holding the bucket mirrored in ``mirror``; mirrored back on exit."""
    port = _free_port()
    server = Path(sys.executable).with_name("moto_server")
    with log.open("w") as out:
        process = subprocess.Popen(
            [str(server), "-H", "127.0.0.1", "-p", str(port)], stdout=out, stderr=out
        )
    try:
        _wait_for(port, process, log)
        store = ObjectStore(f"http://127.0.0.1:{port}")
        store.client().create_bucket(Bucket=BUCKET)
        if mirror.is_dir():
            store.upload_folder(mirror, "")
        try:
            yield store
        finally:
            _save(store, mirror)
    finally:
        process.terminate()
        process.wait(timeout=30)


def _save(store: ObjectStore, mirror: Path) -> None:
    """Replace ``mirror`` with the bucket's content, whole or not at all."""
    staging = mirror.with_name(mirror.name + ".new")
    shutil.rmtree(staging, ignore_errors=True)
    store.download_folder("", staging)
    shutil.rmtree(mirror, ignore_errors=True)
    staging.mkdir(parents=True, exist_ok=True)
    staging.rename(mirror)

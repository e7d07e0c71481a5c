"""Spans encoded by Beam's workers straight into an object store, as on Dataflow, Flink or Spark.

The executor runs as a Kubeflow step runs it (``encode_run.py``: data root and span
cache on the S3 server ``make kfp-local`` runs, no driver before it), on Beam's
DirectRunner in multi-process mode. Each worker process starts in a mount namespace of
its own where the driver's folder (its temporary files and the Examples) is an empty
file system: the workers share no folder with the driver, so whatever they write
reaches the driver only through the store.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kubeflow.harness import object_store
from kubeflow.operator.spec import S3Access
from pipeline_def.project_paths import sample_csv

pytestmark = pytest.mark.slow

RUN = Path(__file__).with_name("encode_run.py")
PROJECT = Path(__file__).resolve().parents[3]
ROWS = 1_000  # per file; two files per span, so that both workers get files
MULTI_PROCESS = ["--direct_running_mode=multi_processing", "--direct_num_workers=2"]
# A Beam worker: the driver's folder hidden under an empty file system, its pid and
# what it saw of that folder logged, then this Python with Beam's arguments.
WORKER = """#!/bin/sh
exec unshare --mount --propagation {propagation} sh -c \
  'mount -t tmpfs tmpfs "$HIDE" && echo "$$ $(ls -A "$HIDE" | wc -l)" >> "$WORKER_LOG" \
   && exec "$0" "$@"' {python} "$@"
"""


@pytest.fixture
def store(tmp_path) -> Iterator[object_store.ObjectStore]:
    """The S3 server, holding two spans of two files each under ``data/``."""
    with sample_csv("taxi").open(newline="") as f:
        reader = csv.reader(f)
        header, rows = next(reader), list(reader)
    with object_store.running_store(tmp_path / "mirror", tmp_path / "s3.log") as s3:
        for index in range(4):
            path = tmp_path / "landed" / f"span-{index // 2}" / f"part-{index % 2}.csv"
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("w", newline="") as f:
                writer = csv.writer(f, lineterminator="\n")
                writer.writerow(header)
                writer.writerows(rows[index * ROWS : (index + 1) * ROWS])
        s3.upload_folder(tmp_path / "landed", "data")
        yield s3


@pytest.fixture
def driver_folder(tmp_path) -> tuple[Path, str]:
    """The driver's own folder, and how to hide it from a worker; skip where it cannot be.

    A new mount namespace is private by default, which needs ``/`` to be a mount point;
    inside the current stack's Debian 13 root (a chroot in a private namespace already,
    ``scripts/in_root.sh``) it is not, and there a namespace that keeps its parent's
    propagation is private too. Whichever way is taken must not hide the folder here.
    """
    folder = tmp_path / "driver"
    folder.mkdir()
    (folder / "here").touch()
    tried = []
    for propagation in ("private", "unchanged"):
        hidden = subprocess.run(
            ["unshare", "--mount", "--propagation", propagation, "mount", "-t", "tmpfs",
             "tmpfs", str(folder)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if not (folder / "here").exists():  # the mount reached this namespace: undo it
            subprocess.run(["umount", str(folder)], check=True)
        elif hidden.returncode == 0:
            return folder, propagation
        tried.append(f"{propagation}: {hidden.stderr.strip() or 'not private'}")
    pytest.skip(f"cannot hide a folder from a process here ({'; '.join(tried)})")


def _start(
    s3: object_store.ObjectStore, driver: tuple[Path, str], name: str, beam: list[str], cache: str
) -> tuple[subprocess.CompletedProcess, list[str]]:
    """One executor run in a process of its own, into the span cache ``cache`` (a URI).

    The process and the workers' log lines (pid, and the entries they saw in the
    driver's folder).
    """
    folder, propagation = driver
    worker, log = folder.parent / "worker.sh", folder.parent / f"{name}-workers.log"
    worker.write_text(WORKER.format(python=sys.executable, propagation=propagation))
    worker.chmod(0o755)
    (folder / "tmp").mkdir(exist_ok=True)
    run = {
        "root": s3.uri("data"),
        "cache": cache,
        "examples": str(folder / name),
        "beam": beam,
        "worker": str(worker),
    }
    env = {
        **os.environ,
        **S3Access(s3.endpoint, secret=None).env(),
        **s3.credentials(),
        "HIDE": str(folder),
        "WORKER_LOG": str(log),
        "TMPDIR": str(folder / "tmp"),
    }
    ran = subprocess.run(
        [sys.executable, str(RUN), json.dumps(run)],
        cwd=PROJECT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    return ran, log.read_text().splitlines() if log.exists() else []


def _encode(
    s3: object_store.ObjectStore,
    driver: tuple[Path, str],
    name: str,
    beam: list[str],
    cache: str = "cache",
) -> dict:
    """A run into the store's folder ``cache`` that succeeds; what it printed, its workers."""
    ran, workers = _start(s3, driver, name, beam, s3.uri(cache))
    assert ran.returncode == 0, ran.stderr[-3000:]
    return {**json.loads(ran.stdout.splitlines()[-1]), "workers": workers}


def _listing(s3: object_store.ObjectStore, prefix: str) -> dict[str, str]:
    """Each object under ``prefix/``, with its ETag."""
    pages = (
        s3.client()
        .get_paginator("list_objects_v2")
        .paginate(Bucket=object_store.BUCKET, Prefix=f"{prefix}/")
    )
    return {e["Key"]: e["ETag"] for page in pages for e in page.get("Contents", [])}


def _relative(listing: dict[str, str]) -> dict[str, str]:
    """The listing with each key's first folder left off."""
    return {key.split("/", 1)[1]: tag for key, tag in listing.items()}


def test_workers_that_share_no_folder_with_the_driver_write_the_spans_to_the_store(
    store, driver_folder
):
    first = _encode(store, driver_folder, "first", MULTI_PROCESS)

    pids = [line.split() for line in first["workers"]]
    assert len(pids) == 2, first["workers"]
    # Each worker is a process of its own that saw the driver's folder empty.
    assert all(pid != str(first["driver"]) and seen == "0" for pid, seen in pids)
    cache = _listing(store, "cache")
    for span in (0, 1):
        # cache/span-<N>/<key>/<file>, beside the span's kinds-<key>.json
        written = {"/".join(k.split("/")[3:]) for k in cache if k.startswith(f"cache/span-{span}/")}
        assert "ENCODED" in written
        for split in ("train", "validation", "test"):
            assert {f"Split-{split}/data_tfrecord-00000-00000.gz"} <= written
            assert {f"Split-{split}/data_tfrecord-00001-00000.gz"} <= written
    assert first["reused"] == []

    # The same files, byte for byte, as Beam's in-process runner writes into a cache of its own.
    in_process = _encode(store, driver_folder, "in-process", [], cache="in-process")
    assert in_process["reused"] == []
    assert in_process["splits"] == first["splits"]
    assert sum(len(v) for v in first["splits"].values()) == 4 * ROWS
    assert _relative(_listing(store, "in-process")) == _relative(cache)

    # Keyed as before: a second multi-process run reuses both spans and writes none.
    again = _encode(store, driver_folder, "again", MULTI_PROCESS)
    assert again["reused"] == [0, 1]
    assert _listing(store, "cache") == cache


def test_workers_given_a_cache_they_cannot_share_are_refused_by_name(store, driver_folder):
    # A local cache: each worker writes to a disk of its own, as remote workers would.
    cache = driver_folder[0] / "cache"

    ran, workers = _start(store, driver_folder, "local", MULTI_PROCESS, str(cache))

    assert len(workers) == 2
    assert ran.returncode != 0
    last = ran.stderr.strip().splitlines()[-1]
    assert f"span 0 was encoded, but its encoding is not at {cache}/span-0/" in last
    assert "the pipeline root must be on a store every worker reaches" in last

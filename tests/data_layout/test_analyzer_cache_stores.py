"""Transform's analyzer cache on a real tf.Transform analysis, locally and on S3.

Each run is ``analysis_run.py`` in a process of its own, as a step runs: it reads the
cache, analyzes what the cache does not serve, publishes and evicts. The S3 store is
the one ``make kfp-local`` runs (moto's S3 server, reached through boto3, by Beam and
by ``kubeflow.step.s3_fileio``, as KFP's steps reach MinIO). On S3 a rename is a copy
and a delete: the manifest goes up in one upload, and a publish cut off mid-way is
never read.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from kubeflow.harness import object_store
from kubeflow.operator.spec import S3Access
from pipeline_def.project_paths import sample_csv

pytestmark = pytest.mark.slow

RUN = Path(__file__).with_name("analysis_run.py")
STEPS = Path(__file__).with_name("cached_transform_run.py")
PROJECT = Path(__file__).resolve().parents[2]
VALUES = {0: [1.0, 2.0, 3.0], 1: [5.0], 2: [7.0, 9.0], 3: [4.0]}


@dataclass(frozen=True)
class Store:
    """Where the cache lives, and how a step reaches it."""

    root: str  # a local folder or an s3:// URI
    env: dict[str, str]
    s3: object_store.ObjectStore | None = None

    def path(self, name: str) -> str:
        """``name`` below the root."""
        return f"{self.root}/{name}"

    def names(self, folder: str) -> list[str]:
        """The file names below ``folder`` (relative to it), wherever the store is."""
        if self.s3 is None:
            return sorted(
                str(p.relative_to(folder)) for p in Path(folder).rglob("*") if p.is_file()
            )
        prefix = self.s3.key(folder) + "/"
        pages = (
            self.s3.client()
            .get_paginator("list_objects_v2")
            .paginate(Bucket=object_store.BUCKET, Prefix=prefix)
        )
        return sorted(e["Key"][len(prefix) :] for page in pages for e in page.get("Contents", []))


@pytest.fixture(params=["local", "s3"])
def store(request, tmp_path) -> Iterator[Store]:
    """An empty cache root: a local folder, or a bucket on a running S3 server."""
    if request.param == "local":
        yield Store(str(tmp_path / "store"), {})
        return
    with object_store.running_store(tmp_path / "mirror", tmp_path / "s3.log") as s3:
        access = S3Access(s3.endpoint, secret=None)
        yield Store(s3.uri("store"), {**access.env(), **s3.credentials()}, s3)


def _run(store: Store, name: str, spans: dict[int, str], cut_after: int | None = None) -> dict:
    """One analysis run over ``spans`` (span: encoding key), each span's train rows."""
    parts = [
        {"span": span, "key": key, "split": "train", "values": VALUES[span]}
        for span, key in spans.items()
    ]
    run = {
        "cache": store.path("analyzer-cache"),
        "parts": parts,
        "cut_after": cut_after,
    }
    done = subprocess.run(
        [sys.executable, str(RUN), json.dumps(run)],
        cwd=PROJECT, env={**os.environ, **store.env}, capture_output=True, text=True,
        timeout=300, check=False,
    )  # fmt: skip
    if cut_after is not None:
        assert done.returncode == 3, done.stderr[-2000:]
        return {}
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


def _mean(*spans: int) -> float:
    rows = [v for span in spans for v in VALUES[span]]
    return sum(rows) / len(rows)


def test_a_window_reads_what_the_run_before_analyzed_and_eviction_bounds_the_cache(store):
    first = _run(store, "run1", {0: "aaa", 1: "bbb"})
    assert (first["read"], first["analyzed"]) == ([], ["span-0/train", "span-1/train"])
    second = _run(store, "run2", {1: "bbb", 2: "ccc"})
    assert (second["read"], second["analyzed"]) == (["span-1/train"], ["span-2/train"])
    assert second["mean"] == pytest.approx(_mean(1, 2))
    assert second["evicted"] == []
    # A window of 1 on span 3 keeps spans 2 and 3 (S - 2K + 1 on): spans 0 and 1 go.
    third = _run(store, "run3", {3: "ddd"})
    assert third["evicted"] == ["span-0-aaa-train", "span-1-bbb-train"]
    cached = {name.split("/")[0] for name in store.names(store.path("analyzer-cache"))}
    assert cached == {"span-2-ccc-train", "span-3-ddd-train"}
    # A backfill of spans 1 and 2: span 2 is read, the evicted span 1 analyzed again.
    backfill = _run(store, "run4", {1: "bbb", 2: "ccc"})
    assert (backfill["read"], backfill["analyzed"]) == (["span-2/train"], ["span-1/train"])
    assert backfill["mean"] == pytest.approx(_mean(1, 2))
    # Manifests went up whole: no temporary object, nor a manifest without its entries.
    names = store.names(store.path("analyzer-cache"))
    assert not [n for n in names if "/." in n]
    assert {n.split("/")[0] for n in names if n.endswith("/MANIFEST")} == {
        "span-1-bbb-train", "span-2-ccc-train", "span-3-ddd-train"
    }  # fmt: skip


@pytest.mark.parametrize("store", ["s3"], indirect=True)  # locally: test_analyzer_cache.py
def test_a_publish_cut_off_mid_way_is_never_read(store):
    # Two entries per part (a mean and a max): cut off after the first part's first.
    _run(store, "cut", {0: "aaa", 1: "bbb"}, cut_after=1)
    names = store.names(store.path("analyzer-cache"))
    assert [n.split("/")[0] for n in names] == ["span-0-aaa-train"]  # one entry file ...
    assert not any(n.endswith("MANIFEST") for n in names)  # ... that no manifest names
    again = _run(store, "again", {0: "aaa", 1: "bbb"})
    assert (again["read"], again["analyzed"]) == ([], ["span-0/train", "span-1/train"])
    assert again["mean"] == pytest.approx(_mean(0, 1))
    reread = _run(store, "reread", {0: "aaa", 1: "bbb"})
    assert reread["read"] == ["span-0/train", "span-1/train"]
    assert reread["mean"] == pytest.approx(_mean(0, 1))


def _write_spans(folder: Path, spans: int, rows: int) -> None:
    """span-0/ .. : the shipped sample's rows, ``rows`` a span, in order."""
    with sample_csv("taxi").open(newline="") as f:
        reader = csv.DictReader(f)
        header, table = list(reader.fieldnames), list(reader)
    for span in range(spans):
        (folder / f"span-{span}").mkdir(parents=True)
        with (folder / f"span-{span}" / "taxi.csv").open("w", newline="") as f:
            writer = csv.DictWriter(f, header)
            writer.writeheader()
            writer.writerows(table[span * rows : (span + 1) * rows])


def _steps(store: Store, span: int) -> dict:
    """ExampleGen and CachedTransform on ``span`` with a window of 2, in their own process."""
    done = subprocess.run(
        [sys.executable, str(STEPS), store.path("root"), store.path("data"), str(span), "2"],
        cwd=PROJECT, env={**os.environ, **store.env}, capture_output=True, text=True,
        timeout=900, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("store", ["s3"], indirect=True)
def test_cached_transform_on_s3_reads_what_the_run_before_analyzed(store, tmp_path):
    _write_spans(tmp_path / "data", 3, 1000)
    store.s3.upload_to_uri(tmp_path / "data", store.path("data"))
    first = _steps(store, 1)
    assert first["read"] == []
    assert first["analyzed"] == ["span-0/train", "span-0/validation", "span-0/test", "span-1/train"]
    second = _steps(store, 2)
    assert second["read"] == ["span-1/train"]
    assert second["analyzed"] == ["span-1/validation", "span-1/test", "span-2/train"]
    assert [name.rsplit("-", 1)[-1] for name in second["cached"] if name.startswith("span-1-")] == [
        "test", "train", "validation"
    ]  # fmt: skip

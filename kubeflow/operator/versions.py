"""A compiled package as a version of its pipeline, named after what it was built from.

The version's name is the git commit of the checkout and the first digits of the
package's sha256, so the UI says which commit a run came from, and a package already
uploaded (the same digest, whatever the commit) is found and not uploaded again. The
pipeline itself is created bare the first time (``CreatePipeline``), so every version,
the first too, carries such a name; ``upload_pipeline`` would name the first one after
the pipeline.
"""

from __future__ import annotations

import hashlib
import subprocess
from dataclasses import dataclass
from pathlib import Path

import kfp_server_api

from kubeflow.operator.api import IS_SUBSTRING, KfpApi, name_filter

DIGEST_CHARS = 12
PAGE_SIZE = 100


@dataclass(frozen=True)
class Build:
    """What a package was built from: the commit, and whether the checkout had changes."""

    commit: str  # the full hash, or "unknown" outside a git checkout
    dirty: bool

    @property
    def label(self) -> str:
        """The commit's short form, marked when the checkout had uncommitted changes."""
        short = self.commit[:DIGEST_CHARS]
        return f"{short}-dirty" if self.dirty else short


@dataclass(frozen=True)
class Version:
    """A pipeline version on the server, and whether this deploy uploaded it."""

    pipeline_id: str
    version_id: str
    name: str
    uploaded: bool  # False: the same package was there already


def current_build(folder: Path) -> Build:
    """The commit checked out at ``folder``; "unknown" when it is not a git checkout."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(folder), *args], capture_output=True, text=True, check=True
        ).stdout.strip()

    try:
        return Build(git("rev-parse", "HEAD"), bool(git("status", "--porcelain")))
    except (OSError, subprocess.CalledProcessError):
        return Build("unknown", dirty=False)


def package_digest(package: Path) -> str:
    """The sha256 of the package's bytes."""
    return hashlib.sha256(package.read_bytes()).hexdigest()


def version_name(build: Build, digest: str) -> str:
    """``<commit>-<digest>``: the commit it was built from and the package's content."""
    return f"{build.label}-{digest[:DIGEST_CHARS]}"


def find_pipeline(api: KfpApi, name: str) -> str | None:
    """The id of the pipeline called ``name`` in the target's namespace, or None."""
    found = api.call(
        f"look up pipeline {name}",
        api.pipelines.list_pipelines,
        filter=name_filter(name),
        namespace=api.target.namespace,
    )
    return next((p.pipeline_id for p in found.pipelines or () if p.display_name == name), None)


def _version_with_digest(api: KfpApi, pipeline_id: str, digest: str) -> tuple[str, str] | None:
    """(id, name) of a version whose name ends with the package's digest, or None."""
    suffix = f"-{digest[:DIGEST_CHARS]}"
    found = api.call(
        "list the pipeline's versions",
        api.pipelines.list_pipeline_versions,
        pipeline_id,
        filter=name_filter(suffix, IS_SUBSTRING),
        page_size=PAGE_SIZE,
    )
    for version in found.pipeline_versions or ():
        if version.display_name.endswith(suffix):
            return version.pipeline_version_id, version.display_name
    return None


def publish(api: KfpApi, pipeline: str, package: Path, build: Build, description: str) -> Version:
    """``package`` as a version of ``pipeline``, created and uploaded unless already there."""
    digest = package_digest(package)
    pipeline_id = find_pipeline(api, pipeline)
    if pipeline_id is None:
        body = kfp_server_api.V2beta1Pipeline(
            display_name=pipeline, description=description, namespace=api.target.namespace
        )
        pipeline_id = api.call(f"create pipeline {pipeline}", api.pipelines.create_pipeline, body)
        pipeline_id = pipeline_id.pipeline_id
    elif existing := _version_with_digest(api, pipeline_id, digest):
        return Version(pipeline_id, *existing, uploaded=False)
    name = version_name(build, digest)
    uploaded = api.call(
        f"upload version {name} of {pipeline}",
        api.uploads.upload_pipeline_version,
        str(package),
        name=name,
        pipelineid=pipeline_id,
        description=f"{description}; commit {build.commit}"
        + (" with uncommitted changes" if build.dirty else "")
        + f"; package sha256 {digest}",
    )
    return Version(pipeline_id, uploaded.pipeline_version_id, name, uploaded=True)

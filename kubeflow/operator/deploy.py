"""Deploying to Kubeflow Pipelines: compile, publish a version, schedule it, run and follow.

The order keeps a failed deploy from leaving anything half-done: everything given on
the command line is checked before the first call; the version is uploaded before a
schedule or run refers to it; a schedule is replaced by creating the new one before
deleting the old. The TFX/TF log goes to a file beside the package; the console gets a
line per step. ``deploy`` returns the process exit code.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from kubeflow.operator import runs, schedules
from kubeflow.operator.api import KfpApi, KfpError, Target
from kubeflow.operator.parameters import (
    declared_parameters,
    package_spec,
    parse_parameters,
    task_names,
)
from kubeflow.operator.versions import Version, current_build, publish
from pipeline_def.config import PipelineConfig
from pipeline_ops.commands import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK
from pipeline_ops.session.progress import logs_to_file

PROJECT = Path(__file__).resolve().parents[2]
# KFP's launcher takes object-store roots only (gs://, s3://, minio://:
# backend/src/v2/objectstore/config.go), and TensorFlow has no minio:// filesystem:
# KFP's MinIO is reached through s3:// and an S3 endpoint (docs/how-to/deploy-kubeflow.md).
SCHEMES = ("gs://", "s3://")


def object_store_uri(flag: str, value: str) -> str:
    """``value`` without a trailing slash; ValueError naming ``flag`` unless gs:// or s3://."""
    if not value.startswith(SCHEMES) or not value.split("://", 1)[1].strip("/"):
        raise ValueError(
            f"--{flag} {value!r} must be a gs:// or s3:// URI with a bucket: Kubeflow's "
            "launcher keeps artifacts in object storage only, and TensorFlow reaches KFP's "
            "MinIO through s3://"
        )
    return value.rstrip("/")


@dataclass(frozen=True)
class Deployment:
    """How the package is built: the image every step runs, where it goes, object store access."""

    image: str
    output: Path  # the package, a PipelineSpec YAML
    s3_endpoint: str | None = None
    s3_secret: str | None = None
    scoring: bool = False  # the scoring pipeline, not the training one

    def pipeline_name(self, config: PipelineConfig) -> str:
        """The name the package's pipeline has on Kubeflow."""
        return config.scoring_pipeline_name if self.scoring else config.pipeline_name


@dataclass(frozen=True)
class Operations:
    """What to do on the cluster once the package is built; no target: compile only."""

    target: Target | None = None
    run: bool = False
    wait: bool = False
    schedule: str | None = None  # KFP cron (kubeflow.operator.cron.kfp_cron)
    catchup: bool = False
    parameters: tuple[str, ...] = ()  # NAME=VALUE, checked against the package
    experiment: str | None = None  # None: the pipeline's name
    run_name: str | None = None
    poll_seconds: float = 10.0


def _compile(config: PipelineConfig, target: Deployment) -> Path:
    from kubeflow.operator.spec import S3Access, compile_package

    s3 = None
    if target.s3_endpoint or target.s3_secret:
        s3 = S3Access(target.s3_endpoint, target.s3_secret)
    return compile_package(config, target.image, target.output, s3, target.scoring)


def _publish(api: KfpApi, pipeline: str, package: Path, image: str) -> Version:
    """Upload the package as a version of ``pipeline`` unless the same bytes are there."""
    build = current_build(PROJECT)
    version = publish(api, pipeline, package, build, f"image {image}")
    state = "uploaded" if version.uploaded else "already there, not uploaded again"
    url = f"{api.target.ui}/#/pipelines/details/{version.pipeline_id}/version/{version.version_id}"
    print(f"version {version.name} of {pipeline}: {state} ({url})")
    return version


def _schedule(api: KfpApi, name: str, version: Version, schedule: schedules.Schedule) -> None:
    new_id, removed = schedules.replace(api, version, schedule)
    catchup = "catching up missed periods" if schedule.catchup else "no catch-up"
    replaced = f"; replaced {len(removed)} older" if removed else ""
    print(
        f"schedule {name}: cron {schedule.cron!r}, at most {schedules.MAX_CONCURRENCY} run at a "
        f"time, {catchup}{replaced} ({api.target.ui}/#/recurringrun/details/{new_id})"
    )


def _run(
    api: KfpApi, version: Version, request: runs.RunRequest, ops: Operations,
    tasks: list[str], people: TextIO,
) -> int:  # fmt: skip
    name = request.name
    run_id = runs.start_run(api, version, request)
    url = runs.run_url(api, run_id)
    print(f"started run {name}: {url}", flush=True)
    if not ops.wait:
        return EXIT_OK
    try:
        end = runs.follow_run(api, run_id, tasks, sys.stdout, ops.poll_seconds)
    except KeyboardInterrupt:
        print(f"stopped waiting; the run keeps going: {url}", file=people)
        return EXIT_INTERRUPTED
    except KfpError as err:
        print(f"error: lost track of run {name} ({err}); it keeps going: {url}", file=people)
        return EXIT_FAILED
    if end.succeeded:
        print(f"run {name} {end.state}: {url}")
        return EXIT_OK
    failed = f" (failed: {', '.join(end.failed_tasks)})" if end.failed_tasks else ""
    print(f"error: run {name} {end.state}{failed}: {url}", file=people)
    return EXIT_FAILED


def _operate(config: PipelineConfig, target: Deployment, ops: Operations, package: Path,
             people: TextIO) -> int:  # fmt: skip
    spec = package_spec(package)
    try:
        parameters = parse_parameters(ops.parameters, declared_parameters(spec))
    except ValueError as err:
        print(f"error: {err}", file=people)
        return EXIT_BAD_INPUT
    api = KfpApi(ops.target)
    pipeline = target.pipeline_name(config)
    version = _publish(api, pipeline, package, target.image)
    if not (ops.run or ops.schedule):
        return EXIT_OK
    experiment = runs.experiment_id(api, ops.experiment or pipeline)
    run_config = runs.runtime_config(parameters, config.pipeline_root)
    if ops.schedule:
        schedule = schedules.Schedule(pipeline, ops.schedule, ops.catchup, experiment, run_config)
        _schedule(api, pipeline, version, schedule)
    if not ops.run:
        return EXIT_OK
    name = ops.run_name or f"{pipeline} {version.name} {time.strftime('%Y-%m-%d %H:%M:%S')}"
    request = runs.RunRequest(name, experiment, run_config)
    return _run(api, version, request, ops, task_names(spec), people)


def deploy(config: PipelineConfig, target: Deployment, ops: Operations, verbose: bool) -> int:
    """Compile ``config``'s pipeline and carry out ``ops`` on Kubeflow; the exit code."""
    log_file = target.output.resolve().parent / f"{target.output.stem}.log"
    with logs_to_file(log_file, verbose) as people:
        package = _compile(config, target)
        name = target.pipeline_name(config)
        print(f"compiled {name} to {package} (image {target.image})", flush=True)
        if ops.target is None:
            return EXIT_OK
        try:
            return _operate(config, target, ops, package, people)
        except KfpError as err:
            print(f"error: {err} (package kept: {package}; log: {log_file})", file=people)
            return EXIT_FAILED


def manage_schedules(target: Target, pipeline: str, unschedule: bool) -> int:
    """``--unschedule`` (remove the pipeline's recurring run) or ``--list-schedules``."""
    api = KfpApi(target)
    try:
        if unschedule:
            removed = schedules.remove(api, schedules.named(api, pipeline))
            print(f"removed {len(removed)} recurring run(s) named {pipeline}")
            return EXIT_OK
        lines = schedules.listing(api)
    except KfpError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_FAILED
    print("\n".join(lines) if lines else "no recurring runs")
    return EXIT_OK

"""Deploying to Kubeflow Pipelines: compile the package, and upload it and start a run.

The TFX/TF log goes to a file beside the package; the console gets a line per
outcome. ``deploy`` returns the process exit code.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pipeline_def.config import PipelineConfig
from pipeline_ops.commands import EXIT_FAILED, EXIT_OK
from pipeline_ops.session.progress import logs_to_file

# KFP's launcher takes object-store roots only (gs://, s3://, minio://:
# backend/src/v2/objectstore/config.go), and TensorFlow has no minio:// filesystem:
# KFP's MinIO is reached through s3:// and an S3 endpoint (see the README).
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
    """Where the package goes and, with an endpoint, where it runs."""

    image: str
    output: Path  # the package, a PipelineSpec YAML
    s3_endpoint: str | None = None
    s3_secret: str | None = None
    endpoint: str | None = None  # KFP's API; None: compile only
    experiment: str | None = None  # None: the pipeline's name
    run_name: str | None = None


class SubmitError(RuntimeError):
    """Kubeflow Pipelines could not be reached or refused the run; the message says why."""


def _reason(err: Exception) -> str:
    """The root cause of a connection error, in a few words."""
    cause = getattr(err, "reason", None) or err  # urllib3 wraps the socket error
    text = str(cause).strip().splitlines()[0] if str(cause).strip() else ""
    return f"{type(cause).__name__}: {text.rsplit(': ', 1)[-1]}"


def submit_run(
    package: Path, endpoint: str, pipeline_root: str, experiment: str, run_name: str | None
) -> str:
    """Upload ``package`` to KFP at ``endpoint`` and start a run; the run's URL.

    The root goes with the run: a YAML package does not carry it, and without it KFP
    writes to its default root (minio://mlpipeline/v2/artifacts), which TensorFlow
    cannot open. Raises SubmitError when the endpoint cannot be reached or refuses.
    """
    import kfp
    import urllib3
    from kfp_server_api.exceptions import ApiException

    try:
        result = kfp.Client(host=endpoint).create_run_from_pipeline_package(
            str(package),
            arguments={},
            experiment_name=experiment,
            run_name=run_name,
            pipeline_root=pipeline_root,
        )
    except (urllib3.exceptions.HTTPError, ApiException, OSError, ValueError) as err:
        raise SubmitError(_reason(err)) from err
    return f"{endpoint.rstrip('/')}/#/runs/details/{result.run_id}"


def deploy(config: PipelineConfig, target: Deployment, verbose: bool) -> int:
    """Compile ``config``'s pipeline, and submit it when an endpoint is given; the exit code."""
    log_file = target.output.resolve().parent / f"{target.output.stem}.log"
    with logs_to_file(log_file, verbose) as people:
        from pipeline_def.orchestrate import S3Access, compile_package

        s3 = None
        if target.s3_endpoint or target.s3_secret:
            s3 = S3Access(target.s3_endpoint, target.s3_secret)
        package = compile_package(config, target.image, target.output, s3)
        print(f"compiled {config.pipeline_name} to {package} (image {target.image})")
        if not target.endpoint:
            return EXIT_OK
        try:
            url = submit_run(
                package,
                target.endpoint,
                config.pipeline_root,
                target.experiment or config.pipeline_name,
                target.run_name,
            )
        except SubmitError as err:
            print(
                f"error: could not reach Kubeflow Pipelines at {target.endpoint}: {err} "
                f"(log: {log_file})",
                file=people,
            )
            return EXIT_FAILED
    print(f"started run: {url}")
    return EXIT_OK

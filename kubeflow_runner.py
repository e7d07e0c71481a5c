"""Compile the pipeline for Kubeflow Pipelines, and optionally start a run there.

    python kubeflow_runner.py --image IMAGE --pipeline-root URI --data-root URI
        [--output pipeline.yaml] [--serving-dir URI] [--train-steps N]
        [--beam-arg=--runner=... ...] [--resolvers]
        [--endpoint URL [--experiment NAME] [--run-name NAME]]

Builds a cluster PipelineConfig and compiles the same ``create_pipeline`` the local
runner uses with TFX's KubeflowV2DagRunner into a PipelineSpec YAML that the KFP UI
and ``kfp.Client`` accept. Compiling needs no cloud credentials or network. Every
flag can also come from the environment (``TAXI_KFP_IMAGE``, ``TAXI_KFP_PIPELINE_ROOT``,
``TAXI_KFP_DATA_ROOT``, ``TAXI_KFP_ENDPOINT``, ...), so nothing secret sits on a
command line. The TFX/TF log goes to ``<output>.log`` beside the package
(``--verbose`` also shows it). Exit codes: 0 success, 1 the endpoint refused or
failed, 2 bad input.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from pipeline_def.config import CURATED_SCHEMA_DIR, PROJECT_ROOT, PipelineConfig
from pipeline_def.progress import logs_to_file

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2
ENV_PREFIX = "TAXI_KFP_"
# Where a pipeline root or data root may live: object storage, or a path on a
# volume mounted into every step's container.
REMOTE_SCHEMES = ("gs://", "s3://", "abfs://", "hdfs://")


def _env_name(flag: str) -> str:
    """The environment variable a flag falls back to: --pipeline-root -> TAXI_KFP_PIPELINE_ROOT."""
    return ENV_PREFIX + flag.upper().replace("-", "_")


def _env(flag: str, default: str | None = None) -> str | None:
    return os.environ.get(_env_name(flag), default)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line; each flag falls back to its TAXI_KFP_* variable."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for flag, help_text in (
        ("image", "container image every step runs in (see the Dockerfile)"),
        ("pipeline-root", "artifact root: gs://, s3:// or a mounted volume path"),
        ("data-root", "folder of CSV files the steps can read"),
        ("serving-dir", "where blessed models are pushed (default: <pipeline-root>/serving)"),
        ("endpoint", "KFP API endpoint; when given, the package is uploaded and run"),
    ):
        parser.add_argument(f"--{flag}", default=_env(flag), help=help_text)
    parser.add_argument("--output", type=Path, default=Path(_env("output", "pipeline.yaml")))
    parser.add_argument("--experiment", default=_env("experiment", "taxi-wide-deep"))
    parser.add_argument("--run-name", default=_env("run-name"))
    parser.add_argument("--train-steps", type=int, default=PipelineConfig.train_steps)
    parser.add_argument(
        "--beam-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="a Beam pipeline argument for every Beam step (repeat), "
        "e.g. --beam-arg=--runner=DataflowRunner",
    )
    parser.add_argument(
        "--resolvers",
        action="store_true",
        help="compare with the latest blessed model and the previous run's statistics "
        "(Vertex AI Pipelines only: open-source KFP cannot execute resolver steps)",
    )
    parser.add_argument(
        "--verbose", action="store_true", help="also show the TFX/TF log on the console"
    )
    return parser.parse_args(argv)


def _check_location(name: str, value: str | None) -> str:
    if not value:
        raise ValueError(f"--{name} is required (or {_env_name(name)})")
    if not (value.startswith(REMOTE_SCHEMES) or value.startswith("/")):
        raise ValueError(
            f"--{name} {value!r} must be a URI ({', '.join(REMOTE_SCHEMES)}) or an absolute "
            "path on a volume mounted into the steps"
        )
    return value.rstrip("/")


# Where the Dockerfile puts the project inside the image (its WORKDIR).
IMAGE_PROJECT_DIR = "/pipeline"


def build_config(args: argparse.Namespace) -> PipelineConfig:
    """The pipeline config for a cluster; ValueError naming a bad or missing flag."""
    if not args.image:
        raise ValueError(f"--image is required (or {_env_name('image')})")
    if args.output.suffix not in (".yaml", ".yml"):
        raise ValueError(
            f"--output {args.output} must end in .yaml: KFP uploads a PipelineSpec YAML "
            "(TFX writes a PipelineJob, which kfp.Client rejects, for other names)"
        )
    pipeline_root = _check_location("pipeline-root", args.pipeline_root)
    return PipelineConfig(
        pipeline_root=pipeline_root,
        data_root=_check_location("data-root", args.data_root),
        serving_dir=_check_location("serving-dir", args.serving_dir or f"{pipeline_root}/serving"),
        metadata=None,  # Kubeflow provides the ML-Metadata store.
        train_steps=args.train_steps,
        beam_pipeline_args=tuple(args.beam_arg),
        resolvers=args.resolvers,
        # The curated schema ships in the image, like the module files.
        schema_dir=f"{IMAGE_PROJECT_DIR}/{CURATED_SCHEMA_DIR.relative_to(PROJECT_ROOT).as_posix()}",
    )


def compile_pipeline(config: PipelineConfig, image: str, output: Path) -> Path:
    """Compile ``config``'s pipeline into a KFP PipelineSpec YAML at ``output``."""
    from tfx import v1 as tfx

    from pipeline_def.pipeline import create_pipeline

    output.parent.mkdir(parents=True, exist_ok=True)
    runner = tfx.orchestration.experimental.KubeflowV2DagRunner(
        config=tfx.orchestration.experimental.KubeflowV2DagRunnerConfig(default_image=image),
        output_dir=str(output.parent),
        output_filename=output.name,
    )
    runner.run(create_pipeline(config))
    return output


def submit(package: Path, endpoint: str, experiment: str, run_name: str | None) -> str:
    """Upload ``package`` and start a run through the KFP SDK; the run's URL."""
    import kfp

    client = kfp.Client(host=endpoint)
    result = client.create_run_from_pipeline_package(
        str(package), arguments={}, experiment_name=experiment, run_name=run_name
    )
    return f"{endpoint.rstrip('/')}/#/runs/details/{result.run_id}"


def _reason(err: Exception) -> str:
    """The root cause of a connection error, in a few words."""
    cause = getattr(err, "reason", None) or err  # urllib3 wraps the socket error
    text = str(cause).strip().splitlines()[0] if str(cause).strip() else ""
    return f"{type(cause).__name__}: {text.rsplit(': ', 1)[-1]}"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: check the flags, compile, and submit when an endpoint is given."""
    args = parse_args(argv)
    try:
        config = build_config(args)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    log_file = args.output.resolve().parent / f"{args.output.stem}.log"
    with logs_to_file(log_file, args.verbose) as people:
        package = compile_pipeline(config, args.image, args.output)
        print(f"compiled {config.pipeline_name} to {package} (image {args.image})")
        if not args.endpoint:
            return EXIT_OK
        import urllib3
        from kfp_server_api.exceptions import ApiException

        try:
            url = submit(package, args.endpoint, args.experiment, args.run_name)
        except (urllib3.exceptions.HTTPError, ApiException, OSError, ValueError) as err:
            reason = _reason(err)
            print(
                f"error: could not reach Kubeflow Pipelines at {args.endpoint}: {reason} "
                f"(log: {log_file})",
                file=people,
            )
            return EXIT_FAILED
    print(f"started run: {url}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())

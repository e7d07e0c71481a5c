"""Compile the pipeline for Kubeflow Pipelines, and optionally start a run there.

    python kubeflow_runner.py --image IMAGE --pipeline-root URI --data-root URI
        [--dataset NAME] [--output pipeline.yaml] [--serving-dir URI] [--train-steps N]
        [--min-auc X]
        [--s3-endpoint URL] [--s3-secret NAME] [--beam-arg=--runner=... ...] [--vertex]
        [--tune [--tune-trials N] [--tune-minutes M]]
        [--endpoint URL [--experiment NAME] [--run-name NAME]]

Compiles the same ``create_pipeline`` the local runner uses into a KFP PipelineSpec
YAML (schema 2.1.0) that the KFP UI and ``kfp.Client`` accept, and with
``--endpoint`` uploads it and starts a run with the pipeline root. The data root,
train steps and AUC bound are the run-time parameters' defaults: a run started from
the KFP UI can change them. Every flag can come from the environment
(``TAXI_KFP_IMAGE``, ``TAXI_KFP_PIPELINE_ROOT``, ...). The TFX/TF log goes to
``<output>.log``. Exit codes: 0 success, 1 the endpoint refused or failed, 2 bad input.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from modules import datasets
from pipeline_def.config import PipelineConfig, add_tuning_arguments, tuning_settings
from pipeline_def.progress import logs_to_file

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2
ENV_PREFIX = "TAXI_KFP_"
# KFP's launcher takes object-store roots only (gs://, s3://, minio://:
# backend/src/v2/objectstore/config.go), and TensorFlow has no minio:// filesystem:
# KFP's MinIO is reached through s3:// and an S3 endpoint (see the README).
SCHEMES = ("gs://", "s3://")


def _env_name(flag: str) -> str:
    """The environment variable a flag falls back to: --pipeline-root -> TAXI_KFP_PIPELINE_ROOT."""
    return ENV_PREFIX + flag.upper().replace("-", "_")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line; each flag falls back to its TAXI_KFP_* variable."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for flag, help_text in (
        ("image", "container image every step runs in (see the Dockerfile)"),
        ("pipeline-root", "artifact root, gs:// or s3:// (KFP's MinIO: s3://)"),
        ("data-root", "folder of CSV files, gs:// or s3:// (a run-time parameter's default)"),
        ("serving-dir", "where blessed models are pushed (default: <pipeline-root>/serving)"),
        ("endpoint", "KFP API endpoint; when given, the package is uploaded and run"),
        ("run-name", "the run's name in KFP"),
        (
            "s3-endpoint",
            "S3 API the steps use, e.g. KFP's MinIO: http://minio-service.kubeflow:9000",
        ),
        ("s3-secret", "Kubernetes secret with the S3 keys (KFP's: mlpipeline-minio-artifact)"),
    ):
        parser.add_argument(f"--{flag}", default=os.environ.get(_env_name(flag)), help=help_text)
    env = os.environ.get
    parser.add_argument(
        "--output", type=Path, default=Path(env(_env_name("output"), "pipeline.yaml"))
    )
    parser.add_argument(
        "--dataset",
        default=env(_env_name("dataset"), datasets.DEFAULT),
        help="the dataset declared in modules/datasets/NAME (default: %(default)s)",
    )
    parser.add_argument(
        "--experiment", default=env(_env_name("experiment")), help="default: the pipeline's name"
    )
    parser.add_argument("--train-steps", type=int, default=PipelineConfig.train_steps)
    parser.add_argument("--min-auc", type=float, default=None, help="default: the dataset's bound")
    add_tuning_arguments(parser)
    parser.add_argument(
        "--beam-arg", action="append", default=[], metavar="ARG",
        help="a Beam pipeline argument for every Beam step (repeat), "
        "e.g. --beam-arg=--runner=DataflowRunner",
    )  # fmt: skip
    parser.add_argument(
        "--vertex", action="store_true",
        help="Vertex AI Pipelines: find the baseline and drift reference with Resolver steps "
        "(open-source KFP cannot execute them)",
    )  # fmt: skip
    parser.add_argument("--verbose", action="store_true", help="also show the TFX/TF log")
    return parser.parse_args(argv)


def _uri(flag: str, value: str) -> str:
    """``value`` without a trailing slash; ValueError naming ``flag`` unless gs:// or s3://."""
    if not value.startswith(SCHEMES) or not value.split("://", 1)[1].strip("/"):
        raise ValueError(
            f"--{flag} {value!r} must be a gs:// or s3:// URI with a bucket: Kubeflow's "
            "launcher keeps artifacts in object storage only, and TensorFlow reaches KFP's "
            "MinIO through s3://"
        )
    return value.rstrip("/")


def build_config(args: argparse.Namespace) -> PipelineConfig:
    """The pipeline config for a cluster; ValueError naming a bad or missing flag."""
    for flag in ("image", "pipeline-root", "data-root"):
        if not getattr(args, flag.replace("-", "_")):
            raise ValueError(f"--{flag} is required (or {_env_name(flag)})")
    if args.output.suffix not in (".yaml", ".yml"):
        raise ValueError(
            f"--output {args.output} must end in .yaml: KFP uploads a PipelineSpec YAML"
        )
    root = _uri("pipeline-root", args.pipeline_root)
    return PipelineConfig(
        dataset=args.dataset,
        pipeline_root=root,
        data_root=_uri("data-root", args.data_root),
        serving_dir=_uri("serving-dir", args.serving_dir or f"{root}/serving"),
        metadata=None,  # Kubeflow provides the ML-Metadata store.
        train_steps=args.train_steps,
        min_auc=args.min_auc,
        beam_pipeline_args=tuple(args.beam_arg),
        resolvers=args.vertex,
        **tuning_settings(args),
    )


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
        from pipeline_def.orchestrate import S3Access, SubmitError, compile_package, submit_run

        s3 = (
            S3Access(args.s3_endpoint, args.s3_secret)
            if args.s3_endpoint or args.s3_secret
            else None
        )
        package = compile_package(config, args.image, args.output, s3)
        print(f"compiled {config.pipeline_name} to {package} (image {args.image})")
        if not args.endpoint:
            return EXIT_OK
        try:
            url = submit_run(
                package,
                args.endpoint,
                config.pipeline_root,
                args.experiment or config.pipeline_name,
                args.run_name,
            )
        except SubmitError as err:
            print(
                f"error: could not reach Kubeflow Pipelines at {args.endpoint}: {err} "
                f"(log: {log_file})",
                file=people,
            )
            return EXIT_FAILED
    print(f"started run: {url}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())

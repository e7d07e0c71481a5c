"""Compile the pipeline for Kubeflow Pipelines, and optionally start a run there.

    wide-deep-kubeflow --image IMAGE --pipeline-root URI --data-root URI
        [--dataset NAME] [--output pipeline.yaml] [--serving-dir URI] [--train-steps N]
        [--min-auc X] [--hparam NAME=VALUE ...] [--tune [--tune-trials N] [--tune-minutes M]]
        [--s3-endpoint URL] [--s3-secret NAME] [--beam-arg=--runner=... ...] [--vertex]
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
from pipeline_def.config import PipelineConfig
from pipeline_ops.cli.run_options import add_run_options, run_settings
from pipeline_ops.commands import EXIT_BAD_INPUT, KUBEFLOW
from pipeline_ops.session.kubeflow_deploy import Deployment, deploy, object_store_uri

ENV_PREFIX = "TAXI_KFP_"


def _env_name(flag: str) -> str:
    """The environment variable a flag falls back to: --pipeline-root -> TAXI_KFP_PIPELINE_ROOT."""
    return ENV_PREFIX + flag.upper().replace("-", "_")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line; each flag falls back to its TAXI_KFP_* variable."""
    parser = argparse.ArgumentParser(prog=KUBEFLOW, description=__doc__.split("\n\n")[0])
    env = os.environ.get
    add_run_options(parser, env(_env_name("dataset"), datasets.DEFAULT))
    for flag, help_text in (
        ("image", "container image every step runs in (see the Dockerfile)"),
        ("pipeline-root", "artifact root, gs:// or s3:// (KFP's MinIO: s3://)"),
        ("data-root", "folder of CSV files, gs:// or s3:// (a run-time parameter's default)"),
        ("serving-dir", "where blessed models are pushed (default: <pipeline-root>/serving)"),
        ("endpoint", "KFP API endpoint; when given, the package is uploaded and run"),
        ("run-name", "the run's name in KFP"),
        ("experiment", "the KFP experiment (default: the pipeline's name)"),
        ("s3-endpoint", "S3 API the steps use, e.g. http://minio-service.kubeflow:9000"),
        ("s3-secret", "Kubernetes secret with the S3 keys (KFP's: mlpipeline-minio-artifact)"),
    ):
        parser.add_argument(f"--{flag}", default=env(_env_name(flag)), help=help_text)
    parser.add_argument(
        "--output", type=Path, default=Path(env(_env_name("output"), "pipeline.yaml"))
    )
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
    return parser.parse_args(argv)


def build_config(args: argparse.Namespace) -> PipelineConfig:
    """The pipeline config for a cluster; ValueError naming a bad or missing flag."""
    for flag in ("image", "pipeline-root", "data-root"):
        if not getattr(args, flag.replace("-", "_")):
            raise ValueError(f"--{flag} is required (or {_env_name(flag)})")
    if args.output.suffix not in (".yaml", ".yml"):
        raise ValueError(
            f"--output {args.output} must end in .yaml: KFP uploads a PipelineSpec YAML"
        )
    root = object_store_uri("pipeline-root", args.pipeline_root)
    return PipelineConfig(
        **run_settings(args),
        pipeline_root=root,
        data_root=object_store_uri("data-root", args.data_root),
        serving_dir=object_store_uri("serving-dir", args.serving_dir or f"{root}/serving"),
        metadata=None,  # Kubeflow provides the ML-Metadata store.
        beam_pipeline_args=tuple(args.beam_arg),
        resolvers=args.vertex,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: check the flags, compile, and submit when an endpoint is given."""
    args = parse_args(argv)
    try:
        config = build_config(args)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    fields = ("image", "output", "s3_endpoint", "s3_secret", "endpoint", "experiment", "run_name")
    return deploy(config, Deployment(**{f: getattr(args, f) for f in fields}), args.verbose)


if __name__ == "__main__":
    sys.exit(main())

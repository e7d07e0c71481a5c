"""Compile the pipeline for Kubeflow Pipelines; publish it as a version, run it, schedule it.

    wide-deep-kubeflow --image IMAGE --pipeline-root URI --data-root URI [run options]
        [--output pipeline.yaml] [--s3-endpoint URL] [--s3-secret NAME] [--vertex] [--scoring]
        [--endpoint URL [--namespace NS] [--token T | --token-file F | --cookie C]
         [--run [--wait]] [--schedule CRON [--catchup]] [--param NAME=VALUE ...]]
    wide-deep-kubeflow --endpoint URL [--namespace NS ...] --unschedule | --list-schedules

Compiles the same ``create_pipeline`` the local runner uses into a KFP PipelineSpec
YAML (schema 2.1.0); with ``--scoring``, the scoring pipeline beside it instead (the
serving model scores a span of the data root: batch prediction, run and scheduled as
training is; ``scoring.yaml`` by default). With ``--endpoint`` the package becomes a
version of the pipeline, named after the git commit and the package's digest (an
identical package is not uploaded twice); ``--run`` starts a run of it, ``--wait``
follows it, and ``--schedule`` replaces the pipeline's recurring run. Every flag with a
value can come from the environment (``WIDE_DEEP_KFP_IMAGE``, ``WIDE_DEEP_KFP_NAMESPACE``,
...). The TFX/TF log goes to ``<output>.log``. Exit codes: 0 success, 1 Kubeflow refused
or the run failed, 2 bad input, 130 Ctrl-C while waiting (the run keeps going).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import datasets
from kubeflow.operator.deploy import Deployment, deploy, manage_schedules, object_store_uri
from kubeflow.operator.options import (
    add_cluster_options,
    cluster_operations,
    cluster_target,
    env_default,
    env_name,
)
from pipeline_def.config import PipelineConfig, scoring_pipeline_name
from pipeline_ops.cli.run_options import add_run_options, run_settings
from pipeline_ops.cli.scaffold import bad_input, execute, parser_for
from pipeline_ops.commands import KUBEFLOW


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line; each flag falls back to its WIDE_DEEP_KFP_* variable."""
    parser = parser_for(KUBEFLOW, __doc__)
    add_run_options(parser, env_default("dataset") or datasets.DEFAULT)
    for flag, help_text in (
        ("image", "container image every step runs in (see the Dockerfile)"),
        ("pipeline-root", "artifact root, gs:// or s3:// (KFP's MinIO: s3://)"),
        ("data-root", "folder of CSV files, gs:// or s3:// (a run-time parameter's default)"),
        ("serving-dir", "where blessed models are pushed (default: <pipeline-root>/serving)"),
        ("s3-endpoint", "S3 API the steps use, e.g. http://minio-service.kubeflow:9000"),
        ("s3-secret", "Kubernetes secret with the S3 keys (KFP's: mlpipeline-minio-artifact)"),
    ):
        parser.add_argument(f"--{flag}", default=env_default(flag), help=help_text)
    parser.add_argument(
        "--output", type=Path, default=env_default("output"),
        help="the package (default: pipeline.yaml; scoring.yaml with --scoring)",
    )  # fmt: skip
    parser.add_argument(
        "--scoring", action="store_true",
        help="the scoring pipeline: the serving model scores the span --param span=N names "
        "(default: the newest)",
    )  # fmt: skip
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
    add_cluster_options(parser)
    return parser.parse_args(argv)


def build_config(args: argparse.Namespace) -> PipelineConfig:
    """The pipeline config for a cluster; ValueError naming a bad or missing flag."""
    for flag in ("image", "pipeline-root", "data-root"):
        if not getattr(args, flag.replace("-", "_")):
            raise ValueError(f"--{flag} is required (or {env_name(flag)})")
    args.output = Path(args.output or ("scoring.yaml" if args.scoring else "pipeline.yaml"))
    if args.output.suffix not in (".yaml", ".yml"):
        raise ValueError(
            f"--output {args.output} must end in .yaml: KFP uploads a PipelineSpec YAML"
        )
    root = object_store_uri("pipeline-root", args.pipeline_root)
    return PipelineConfig.resolve(
        **run_settings(args),
        pipeline_root=root,
        data_root=object_store_uri("data-root", args.data_root),
        serving_dir=object_store_uri("serving-dir", args.serving_dir or f"{root}/serving"),
        metadata=None,  # Kubeflow provides the ML-Metadata store.
        beam_pipeline_args=tuple(args.beam_arg),
        resolvers=args.vertex,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: check every flag, then compile and act on the cluster as asked."""
    args = parse_args(argv)
    return execute(lambda: _deploy(args), quiet=False)


def _deploy(args: argparse.Namespace) -> int:
    with bad_input():
        target = cluster_target(args)
        if target and (args.unschedule or args.list_schedules):  # no package needed
            pipeline = datasets.load(args.dataset).pipeline_name
            if args.scoring:
                pipeline = scoring_pipeline_name(pipeline)
            return manage_schedules(target, pipeline, args.unschedule)
        operations = cluster_operations(args, target)
        config = build_config(args)
    deployment = Deployment(
        args.image, args.output, args.s3_endpoint, args.s3_secret, scoring=args.scoring
    )
    return deploy(config, deployment, operations, args.verbose)


if __name__ == "__main__":
    sys.exit(main())

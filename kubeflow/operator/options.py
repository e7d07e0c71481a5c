"""The options of ``wide-deep-kubeflow`` that act on a cluster: who, where, and what to do.

Each string flag falls back to an environment variable, ``WIDE_DEEP_KFP_<FLAG>``
(``--namespace`` -> ``WIDE_DEEP_KFP_NAMESPACE``), so a CI job or a pod sets them once.
Everything is checked here, before the package is compiled and before any call.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from kubeflow.operator.api import Target
from kubeflow.operator.credentials import find_credential
from kubeflow.operator.cron import kfp_cron
from kubeflow.operator.deploy import Operations

ENV_PREFIX = "WIDE_DEEP_KFP_"


def env_name(flag: str) -> str:
    """The variable a flag falls back to: --pipeline-root -> WIDE_DEEP_KFP_PIPELINE_ROOT."""
    return ENV_PREFIX + flag.upper().replace("-", "_")


def env_default(flag: str) -> str | None:
    """The flag's value from its environment variable, or None."""
    return os.environ.get(env_name(flag))


def add_cluster_options(parser: argparse.ArgumentParser) -> None:
    """Where the API is and as whom; what to do there: publish, run, wait, schedule."""
    for flag, help_text in (
        ("endpoint", "KFP API endpoint; when given, the package is uploaded as a version"),
        ("namespace", "the Kubeflow profile namespace (multi-user Kubeflow)"),
        ("token", "a bearer token (default: the pod's service-account token, when mounted)"),
        ("cookie", "a Dex session cookie, e.g. authservice_session=..."),
        ("experiment", "the KFP experiment of runs and schedules (default: the pipeline's name)"),
        ("run-name", "the run's name in KFP"),
        ("schedule", "a cron expression: create or replace the pipeline's recurring run"),
    ):
        parser.add_argument(f"--{flag}", default=env_default(flag), help=help_text)
    token_file = env_default("token-file")
    parser.add_argument(
        "--token-file", type=Path, default=Path(token_file) if token_file else None,
        help="a file holding a bearer token",
    )  # fmt: skip
    parser.add_argument("--run", action="store_true", help="start one run of the version")
    parser.add_argument(
        "--wait", action="store_true",
        help="with --run: follow the run, print each task's state, exit 1 if it fails",
    )  # fmt: skip
    parser.add_argument(
        "--catchup", action="store_true",
        help="with --schedule: start the periods missed while paused (default: skip them)",
    )  # fmt: skip
    parser.add_argument(
        "--param", action="append", default=[], metavar="NAME=VALUE",
        help="a run-time parameter of the run or schedule (span, data_root, train_steps, "
        "min_auc); repeat the flag for several",
    )  # fmt: skip
    parser.add_argument(
        "--unschedule", action="store_true", help="remove the pipeline's recurring run"
    )
    parser.add_argument(
        "--list-schedules", action="store_true", help="list the recurring runs of the namespace"
    )
    parser.add_argument(
        "--poll-seconds", type=float, default=10.0, help="with --wait: seconds between reads"
    )


def cluster_target(args: argparse.Namespace) -> Target | None:
    """The API target, or None without --endpoint; ValueError naming a bad or missing flag."""
    alone = [
        f"--{f.replace('_', '-')}" for f in ("unschedule", "list_schedules") if getattr(args, f)
    ]
    if len(alone) > 1:
        raise ValueError("--unschedule and --list-schedules: give one of them")
    if alone and (args.run or args.wait or args.schedule or args.catchup or args.param):
        raise ValueError(
            f"{alone[0]} acts alone: give it without --run, --wait, --schedule, --catchup, --param"
        )
    needs_endpoint = [f for f in ("run", "wait", "schedule", "unschedule", "list_schedules")
                      if getattr(args, f)]  # fmt: skip
    if not args.endpoint:
        if needs_endpoint:
            flag = needs_endpoint[0].replace("_", "-")
            raise ValueError(f"--{flag} needs --endpoint (or {env_name('endpoint')})")
        return None
    credential = find_credential(args.token, args.token_file, args.cookie, os.environ)
    return Target(args.endpoint, args.namespace or None, credential)


def cluster_operations(args: argparse.Namespace, target: Target | None) -> Operations:
    """What to do on the cluster; ValueError naming a flag that cannot be carried out."""
    if args.wait and not args.run:
        raise ValueError("--wait follows a run: give --run too")
    if args.catchup and not args.schedule:
        raise ValueError("--catchup is a schedule's setting: give --schedule too")
    if args.param and not (args.run or args.schedule):
        raise ValueError("--param sets a run's or a schedule's values: give --run or --schedule")
    if args.poll_seconds <= 0:
        raise ValueError(f"--poll-seconds {args.poll_seconds} must be above 0")
    return Operations(
        target=target,
        run=args.run,
        wait=args.wait,
        schedule=kfp_cron(args.schedule) if args.schedule else None,
        catchup=args.catchup,
        parameters=tuple(args.param),
        experiment=args.experiment,
        run_name=args.run_name,
        poll_seconds=args.poll_seconds,
    )

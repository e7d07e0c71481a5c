"""Starting a run of a pipeline version, and following it to its end.

Runs and recurring runs belong to an experiment, which holds the profile namespace on
multi-user Kubeflow (``kfp/client/client.py``, ``create_experiment`` and
``run_pipeline``). Following a run reads it every few seconds and prints each task's
state when it changes, as ``kfp.Client.wait_for_run_completion`` polls, with the
tasks of the package by name rather than every Argo node.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, TextIO

import kfp_server_api

from kubeflow.operator.api import KfpApi, KfpError, name_filter
from kubeflow.operator.versions import Version

# backend/api/v2beta1/run.proto, RuntimeState: the states a run ends in.
SUCCEEDED = "SUCCEEDED"
ENDED = (SUCCEEDED, "SKIPPED", "FAILED", "CANCELED")
FAILED_TASK_STATES = ("FAILED", "CANCELED")
READ_ATTEMPTS = 5  # reads of a followed run that may fail in a row before giving up


def experiment_id(api: KfpApi, name: str) -> str:
    """The id of experiment ``name`` in the target's namespace, created when missing."""
    namespace = api.target.namespace
    found = api.call(
        f"look up experiment {name}",
        api.experiments.list_experiments,
        filter=name_filter(name),
        namespace=namespace,
    )
    for experiment in found.experiments or ():
        if experiment.display_name == name:
            return experiment.experiment_id
    body = kfp_server_api.V2beta1Experiment(display_name=name, namespace=namespace)
    created = api.call(f"create experiment {name}", api.experiments.create_experiment, body)
    return created.experiment_id


def runtime_config(
    parameters: Mapping[str, Any], pipeline_root: str
) -> kfp_server_api.V2beta1RuntimeConfig:
    """The run's parameters and root.

    A YAML package does not carry the root, and without it KFP writes to
    minio://mlpipeline/v2/artifacts, which TensorFlow cannot open.
    """
    return kfp_server_api.V2beta1RuntimeConfig(
        parameters=dict(parameters), pipeline_root=pipeline_root
    )


def version_reference(version: Version) -> kfp_server_api.V2beta1PipelineVersionReference:
    """The reference a run or recurring run takes to a pipeline version."""
    return kfp_server_api.V2beta1PipelineVersionReference(
        pipeline_id=version.pipeline_id, pipeline_version_id=version.version_id
    )


@dataclass(frozen=True)
class RunRequest:
    """A run to start: its name, experiment, parameters and root."""

    name: str
    experiment_id: str
    config: kfp_server_api.V2beta1RuntimeConfig


def start_run(api: KfpApi, version: Version, request: RunRequest) -> str:
    """Start one run of ``version``; its id."""
    body = kfp_server_api.V2beta1Run(
        display_name=request.name,
        experiment_id=request.experiment_id,
        pipeline_version_reference=version_reference(version),
        runtime_config=request.config,
    )
    return api.call(f"start a run of version {version.name}", api.runs.create_run, body).run_id


def run_url(api: KfpApi, run_id: str) -> str:
    """The run's page in the KFP UI."""
    return f"{api.target.ui}/#/runs/details/{run_id}"


@dataclass(frozen=True)
class RunEnd:
    """How a followed run ended: its state, and the tasks that failed."""

    state: str
    failed_tasks: tuple[str, ...]

    @property
    def succeeded(self) -> bool:
        """True when the run succeeded."""
        return self.state == SUCCEEDED


def _task_states(run: kfp_server_api.V2beta1Run) -> dict[str, str]:
    details = run.run_details.task_details if run.run_details else None
    return {task.display_name: task.state for task in details or () if task.display_name}


def follow_run(
    api: KfpApi, run_id: str, tasks: Collection[str], out: TextIO,
    poll_seconds: float, sleep: Callable[[float], None] = time.sleep,
) -> RunEnd:  # fmt: skip
    """Read the run until it ends, printing each of ``tasks``' state changes; how it ended.

    A task outside ``tasks`` (Argo's driver and DAG nodes) is printed only when it fails.
    """
    seen: dict[str, str] = {}
    started = time.monotonic()
    failed_reads = 0
    while True:
        try:
            run = api.call(f"read run {run_id}", api.runs.get_run, run_id)
        except KfpError:
            # A blip over an hours-long run is not the run's failure: read again.
            failed_reads += 1
            if failed_reads >= READ_ATTEMPTS:
                raise
            sleep(poll_seconds)
            continue
        failed_reads = 0
        states = _task_states(run)
        for name, state in sorted(states.items()):
            if seen.get(name) != state and (name in tasks or state in FAILED_TASK_STATES):
                minutes, seconds = divmod(int(time.monotonic() - started), 60)
                print(f"  {minutes:3d}:{seconds:02d}  {name:<28} {state}", file=out, flush=True)
        seen = states
        if run.state in ENDED:
            failed = sorted(n for n, s in states.items() if s in FAILED_TASK_STATES)
            return RunEnd(run.state, tuple(failed))
        sleep(poll_seconds)

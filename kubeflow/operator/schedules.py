"""The pipeline's recurring run: replaced as code, removed, listed.

KFP cannot update a recurring run (kubeflow/pipelines#3789), so a deploy replaces it:
the new one is created first and the old ones of the same name deleted after, so a
failed creation leaves the old schedule running, never none and never one pointing at
a version that failed to upload. ``max_concurrency`` 1 keeps two periods from
training at once; no catch-up, unless asked, so a paused schedule does not start every
missed period when it resumes. The fields follow ``kfp.Client.create_recurring_run``
(``kfp/client/client.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import kfp_server_api

from kubeflow.operator.api import KfpApi, name_filter
from kubeflow.operator.runs import version_reference
from kubeflow.operator.versions import Version

MAX_CONCURRENCY = 1


@dataclass(frozen=True)
class Schedule:
    """A recurring run to create: its name, KFP cron, catch-up, and what it runs."""

    name: str
    cron: str  # KFP's six fields, or a descriptor (kubeflow.operator.cron.kfp_cron)
    catchup: bool
    experiment_id: str
    config: kfp_server_api.V2beta1RuntimeConfig


def named(api: KfpApi, name: str) -> list[kfp_server_api.V2beta1RecurringRun]:
    """The recurring runs called ``name`` in the target's namespace."""
    found = api.call(
        f"list recurring runs named {name}",
        api.recurring_runs.list_recurring_runs,
        filter=name_filter(name),
        namespace=api.target.namespace,
    )
    return [r for r in found.recurring_runs or () if r.display_name == name]


def replace(api: KfpApi, version: Version, schedule: Schedule) -> tuple[str, list[str]]:
    """Create ``schedule`` for ``version``, then delete the older ones of its name.

    Returns the new recurring run's id and the ids deleted.
    """
    old = named(api, schedule.name)
    body = kfp_server_api.V2beta1RecurringRun(
        display_name=schedule.name,
        description=f"every period: {schedule.cron}, version {version.name}",
        pipeline_version_reference=version_reference(version),
        runtime_config=schedule.config,
        trigger=kfp_server_api.V2beta1Trigger(
            cron_schedule=kfp_server_api.V2beta1CronSchedule(cron=schedule.cron)
        ),
        mode="ENABLE",
        max_concurrency=str(MAX_CONCURRENCY),  # int64 travels as a string in the API's JSON
        no_catchup=not schedule.catchup,
        experiment_id=schedule.experiment_id,
    )
    created = api.call(
        f"create recurring run {schedule.name}", api.recurring_runs.create_recurring_run, body
    )
    return created.recurring_run_id, remove(api, old)


def remove(api: KfpApi, recurring: list[kfp_server_api.V2beta1RecurringRun]) -> list[str]:
    """Delete ``recurring``; the ids deleted."""
    for run in recurring:
        api.call(
            f"delete recurring run {run.display_name} ({run.recurring_run_id})",
            api.recurring_runs.delete_recurring_run,
            run.recurring_run_id,
        )
    return [run.recurring_run_id for run in recurring]


def listing(api: KfpApi) -> list[str]:
    """One line per recurring run in the target's namespace: name, cron, mode, concurrency."""
    found = api.call(
        "list recurring runs",
        api.recurring_runs.list_recurring_runs,
        namespace=api.target.namespace,
        page_size=100,
    )
    lines = []
    for run in found.recurring_runs or ():
        cron = run.trigger.cron_schedule.cron if run.trigger and run.trigger.cron_schedule else "-"
        catchup = "no catch-up" if run.no_catchup else "catch-up"
        lines.append(
            f"{run.display_name:<28} {cron:<20} {run.mode or '-':<8} at most {run.max_concurrency} "
            f"at a time, {catchup}  {api.target.ui}/#/recurringrun/details/{run.recurring_run_id}"
        )
    return lines

"""The recurring run service: job_server.go and resource_manager.go."""

from __future__ import annotations

import json
import uuid
from types import SimpleNamespace
from typing import Any

from kfp_server_api import models

from fake_kfp.rules import (
    _PROPAGATION_POLICIES,
    _RECURRING_RUN_KEYS,
    INTERNAL,
    INVALID_ARGUMENT,
    ApiError,
    _cron_parses,
    _gateway_violation,
    _none_if_empty,
    _not_found,
    _now,
    _runtime_config,
    _violation,
)


class RecurringRunRoutes:
    """The recurring run service: job_server.go and resource_manager.go.

    A part of ``FakeKfpApi`` (``fake_kfp.server``), whose state and routing it uses.
    """

    def _create_recurring_run(self, body: dict[str, Any], headers: dict[str, str], **_: Any) -> Any:
        """POST /recurringruns (job_server.go, CreateRecurringRun; api_converter.go, toModelJob)."""
        wrap = "Failed to create a recurring run"
        concurrency = self._check_recurring_body(body, wrap)
        experiment_id, namespace = self._experiment_and_namespace(
            body.get("experiment_id", ""),
            body.get("namespace", "") if self.namespaces is not None else "",
            f"{wrap}: Failed to create a recurring run due to invalid experimentId and namespace "
            "combination",
        )
        if self.namespaces is not None:
            if not namespace:
                raise ApiError(
                    INVALID_ARGUMENT,
                    f"{wrap}: Invalid input error: Recurring run cannot have an empty namespace "
                    "in multi-user mode",
                    "Recurring run cannot have an empty namespace in multi-user mode",
                )
            self._authorize(namespace, "create", "jobs", headers)
        ref, service_account = self._recurring_source(body, wrap)
        # toModelJobEnabled: only ENABLE enables; MODE_UNSPECIFIED and DISABLE disable.
        enabled = body.get("mode") == "ENABLE"
        now = _now()
        recurring = models.V2beta1RecurringRun(
            recurring_run_id=str(uuid.uuid4()),
            display_name=body["display_name"],
            description=_none_if_empty(body.get("description", "")),
            pipeline_version_reference=models.V2beta1PipelineVersionReference(**ref)
            if ref
            else None,
            pipeline_spec=None if ref else body["pipeline_spec"],
            runtime_config=_runtime_config(body),
            service_account=service_account,
            max_concurrency=str(concurrency),
            trigger=self._client.deserialize(
                SimpleNamespace(data=json.dumps(body["trigger"])), "V2beta1Trigger"
            ),
            mode="ENABLE" if enabled else "DISABLE",
            created_at=now,
            updated_at=now,
            status="ENABLED" if enabled else "DISABLED",
            no_catchup=body.get("no_catchup") or None,
            namespace=_none_if_empty(namespace),
            experiment_id=experiment_id,
        )
        self._remember(recurring.recurring_run_id, self.recurring_runs, recurring)
        return recurring

    def _check_recurring_body(self, body: dict[str, Any], wrap: str) -> int:
        """toModelJob's checks of a recurring run: name, max_concurrency, trigger.

        Returns the max concurrency.
        """
        if not body.get("display_name"):
            raise _violation(
                f"{wrap} due to conversion error: InternalServerError: Invalid input error: "
                "Recurring run's name cannot be empty",
                INTERNAL,
            )
        concurrency = int(body.get("max_concurrency", 0) or 0)
        if not 1 <= concurrency <= 10:
            # toModelJob: the server's own bounds, 1 to 10 (0 when left out); KFP 2.16.1
            # fixed the message's "at leas 1" (api_converter.go).
            least = "at least 1" if self.kfp_2_16 else "at leas 1"
            raise _violation(
                f"{wrap} due to conversion error: Invalid input error: Max concurrency of a "
                f"recurring run must be {least} and at most 10. Received {concurrency}"
            )
        self._check_trigger(body.get("trigger") or {}, wrap)
        return concurrency

    def _recurring_source(
        self, body: dict[str, Any], wrap: str
    ) -> tuple[dict[str, str] | None, str | None]:
        """The version reference a new recurring run keeps, and its service account.

        Its inputs are checked as template/v2_template.go, ScheduledWorkflow checks
        them (as RunWorkflow does). KFP 2.0.5 resource_manager.go, CreateJob pins
        every recurring run to a version (the latest when given a pipeline alone);
        KFP 2.16.1 keeps one given a pipeline alone unpinned (``_unpinned_spec``), and
        its service account as sent, since no workflow is made for it then.
        """
        ref = body.get("pipeline_version_reference") or {}
        if self.kfp_2_16 and not ref.get("pipeline_version_id") and not body.get("pipeline_spec"):
            pipeline_id = ref.get("pipeline_id", "")
            if not pipeline_id:
                # errors.New there, not a UserError: Internal (util/error.go, ToGRPCError).
                raise _violation(
                    f"Internal error: {wrap}: Cannot create a job with an empty pipeline ID",
                    INTERNAL,
                )
            spec = self._unpinned_spec(pipeline_id, wrap)
            self._check_parameters(
                spec,
                body,
                f"{wrap}: Failed to validate the input parameters on the latest pipeline version",
            )
            return {"pipeline_id": pipeline_id}, body.get("service_account") or None
        spec, pinned = self._pipeline_source(
            body, f"{wrap}: Failed to create a recurring run with an invalid pipeline spec manifest"
        )
        self._check_parameters(
            spec,
            body,
            f"{wrap}: Failed to create a recurring run during scheduled workflow creation",
        )
        return pinned, body.get("service_account") or "pipeline-runner"

    def _check_trigger(self, trigger: dict[str, Any], wrap: str) -> None:
        """A cron or a periodic schedule, valid as toModelJob checks them."""
        cron = (trigger.get("cron_schedule") or {}).get("cron", "")
        interval = (trigger.get("periodic_schedule") or {}).get("interval_second")
        if not cron and interval is None:
            # Stricter than the server, which stores a recurring run without a schedule
            # (toModelTrigger): one that never fires is a deploy bug.
            raise _violation(
                f"{wrap}: the trigger needs a cron_schedule.cron or a "
                "periodic_schedule.interval_second"
            )
        if cron and not _cron_parses(cron):
            # toModelJob: robfig/cron v1.2.0 cron.Parse.
            raise _violation(
                f"{wrap} due to conversion error: Invalid input error: Schedule cron is not a "
                f"supported format(https://godoc.org/github.com/robfig/cron). Error: {cron!r}"
            )
        if interval is not None and int(interval) < 1:
            raise _violation(
                f"{wrap} due to conversion error: Invalid input error: Found invalid period "
                f"schedule interval {interval}. Set at interval to least 1 second"
            )

    def _recurring(
        self, jid: str, verb: str, headers: dict[str, str]
    ) -> models.V2beta1RecurringRun:
        """The recurring run, authorized (job_server.go, canAccessJob)."""
        recurring = self.recurring_runs.get(jid)
        if recurring is None:
            raise _not_found("Job", jid, f"Failed to {verb} a recurring run")
        if self.namespaces is not None:
            self._authorize(recurring.namespace or "", verb, "jobs", headers)
        return recurring

    def _list_recurring_runs(self, query: dict[str, str], headers: dict[str, str], **_: Any) -> Any:
        """GET /recurringruns (job_server.go, listJobs)."""
        items = self._scoped(
            self.recurring_runs.values(),
            query,
            headers,
            "recurring runs",
            "a recurring run cannot have an empty namespace in multi-user mode",
        )
        page, total, token = self._page(items, query, _RECURRING_RUN_KEYS, "created_at")
        return models.V2beta1ListRecurringRunsResponse(
            recurring_runs=page or None, total_size=total or None, next_page_token=token
        )

    def _get_recurring_run(self, jid: str, headers: dict[str, str], **_: Any) -> Any:
        """GET /recurringruns/{id}."""
        return self._recurring(jid, "get", headers)

    def _delete_recurring_run(
        self, jid: str, query: dict[str, str], headers: dict[str, str], **_: Any
    ) -> Any:
        """DELETE /recurringruns/{id}: answers {} (google.protobuf.Empty).

        KFP 2.16.1 takes propagation_policy, how Kubernetes deletes the scheduled
        workflow's runs (recurring_run.proto, DeleteRecurringRunRequest); grpc-gateway
        v2.27.1 (runtime/query.go) refuses a value that is no DeletePropagationPolicy.
        """
        policy = query.get("propagation_policy")
        numbers = [str(n) for n in range(len(_PROPAGATION_POLICIES))]
        if policy is not None and policy not in (*_PROPAGATION_POLICIES, *numbers):
            raise _gateway_violation(f'"{policy}" is not a valid value')
        self._recurring(jid, "delete", headers)
        del self.recurring_runs[jid]
        return {}

    def _set_recurring_mode(self, jid: str, verb: str, headers: dict[str, str], **_: Any) -> Any:
        """POST /recurringruns/{id}:enable or :disable."""
        recurring = self._recurring(jid, verb, headers)
        recurring.mode = "ENABLE" if verb == "enable" else "DISABLE"
        recurring.status = "ENABLED" if verb == "enable" else "DISABLED"
        recurring.updated_at = _now()
        return {}

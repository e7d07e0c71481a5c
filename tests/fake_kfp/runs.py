"""The run service: run_server.go and resource_manager.go."""

from __future__ import annotations

import uuid
from typing import Any

from kfp_server_api import models

from fake_kfp.rules import (
    _RUN_KEYS,
    _TERMINAL,
    INTERNAL,
    INVALID_ARGUMENT,
    ApiError,
    _internal,
    _none_if_empty,
    _not_found,
    _now,
    _RunRecord,
    _runtime_config,
    _violation,
)
from kubeflow.harness import backend_rules


class RunRoutes:
    """The run service: run_server.go and resource_manager.go.

    A part of ``FakeKfpApi`` (``fake_kfp.server``), whose state and routing it uses.
    """

    # Runs and recurring runs: run_server.go, job_server.go, resource_manager.go.

    def _experiment_and_namespace(
        self, experiment_id: str, namespace: str, wrap: str
    ) -> tuple[str, str]:
        """resource_manager.go, GetValidExperimentNamespacePair."""
        if self.namespaces is not None and not experiment_id:
            raise ApiError(
                INVALID_ARGUMENT,
                f"{wrap}: Invalid input error: Experiment id can not be empty in multi-user mode",
                "Experiment id can not be empty in multi-user mode",
            )
        if experiment_id:
            experiment = self._experiment(
                experiment_id, f"{wrap}: Failed to fetch namespace for experiment {experiment_id}"
            )
            own = experiment.namespace or ""
            if namespace and namespace != own:
                message = (
                    f"Experiment {experiment_id} belongs to namespace '{own}' instead of "
                    f"'{namespace}'"
                )
                raise ApiError(INVALID_ARGUMENT, f"{wrap}: Invalid input error: {message}", message)
            return experiment_id, own
        # Single-user mode: the "Default" experiment, made when first needed
        # (resource_manager.go, CreateDefaultExperiment).
        for experiment in self.experiments.values():
            if experiment.display_name == "Default" and not experiment.namespace:
                return experiment.experiment_id, namespace
        default = self._add_experiment(
            "Default",
            "All runs created without specifying an experiment will be grouped here.",
            namespace,
        )
        return default.experiment_id, namespace

    def _pipeline_source(
        self, body: dict[str, Any], wrap: str
    ) -> tuple[dict[str, Any], dict[str, str] | None]:
        """The spec a run or recurring run runs, and the version reference it names.

        resource_manager.go, fetchTemplateFromPipelineSpec: a version id, else the
        latest version of the pipeline id, else the inline pipeline_spec; none of
        them is "Failed to fetch a template with an empty pipeline spec manifest".
        CreateRun and CreateJob wrap any of these errors in NewInternalServerError (500).
        """
        ref = body.get("pipeline_version_reference") or {}
        pipeline_id, version_id = ref.get("pipeline_id", ""), ref.get("pipeline_version_id", "")
        if version_id:
            version = self.versions.get(version_id)
            if version is None:
                raise _internal(
                    wrap,
                    "Failed to fetch a template due to error retrieving pipeline version: "
                    f"ResourceNotFoundError: PipelineVersion {version_id} not found",
                )
            if pipeline_id and version.pipeline_id != pipeline_id:
                raise _internal(
                    wrap,
                    f"Invalid input error: Pipeline version {version_id} belongs to pipeline "
                    f"{version.pipeline_id} (not {pipeline_id})",
                )
        elif pipeline_id:
            version = self._latest_version(pipeline_id)
            if version is None:
                kind, why = (
                    ("Pipeline", "as pipeline was not found")
                    if pipeline_id not in self.pipelines
                    else ("PipelineVersion", "for a pipeline")
                )
                raise _internal(
                    wrap,
                    f"Failed to get the latest pipeline version {why}: ResourceNotFoundError: "
                    f"{kind} {pipeline_id} not found",
                )
        elif body.get("pipeline_spec"):
            spec = body["pipeline_spec"]
            spec = spec.get("pipeline_spec", spec) if "pipeline_spec" in spec else spec
            problems = backend_rules.upload_problems(spec)
            if problems:
                raise _internal(
                    wrap,
                    "Failed to fetch a template with an invalid pipeline spec manifest: "
                    f"{'; '.join(problems)}",
                )
            return spec, None
        else:
            raise _violation(
                f"{wrap}: InternalServerError: Invalid input error: Failed to fetch a template "
                "with an empty pipeline spec manifest (give pipeline_version_reference or "
                "pipeline_spec)",
                INTERNAL,
            )
        spec = version.pipeline_spec
        spec = spec["pipeline_spec"] if "platform_spec" in spec else spec
        return spec, {
            "pipeline_id": version.pipeline_id,
            "pipeline_version_id": version.pipeline_version_id,
        }

    def _latest_version(self, pipeline_id: str) -> models.V2beta1PipelineVersion | None:
        """The pipeline's newest version, if any (pipeline_store.go, GetLatestPipelineVersion)."""
        versions = [v for v in self.versions.values() if v.pipeline_id == pipeline_id]
        return max(
            versions,
            key=lambda v: (v.created_at, self._order[v.pipeline_version_id]),
            default=None,
        )

    def _unpinned_spec(self, pipeline_id: str, wrap: str) -> dict[str, Any]:
        """KFP 2.16.1: the spec a recurring run naming a pipeline alone is checked on.

        resource_manager.go, CreateJob: such a run is not pinned, the scheduled
        workflow takes each time the latest version; the inputs are checked on the
        latest one now (GetPipelineLatestTemplate), its errors keep their code
        (util.Wrap: a missing pipeline is NotFound, 404, not 500 as when pinned).
        """
        wrap = f"{wrap}: Failed to validate the input parameters on the latest pipeline version"
        version = self._latest_version(pipeline_id)
        if pipeline_id not in self.pipelines:
            raise _not_found(
                "Pipeline",
                pipeline_id,
                f"{wrap}: Failed to get the latest template as pipeline was not found",
            )
        if version is None:
            raise _not_found(
                "PipelineVersion",
                pipeline_id,
                f"{wrap}: Failed to get the latest template for a pipeline",
            )
        spec = version.pipeline_spec
        return spec["pipeline_spec"] if "platform_spec" in spec else spec

    def _check_parameters(self, spec: dict[str, Any], body: dict[str, Any], wrap: str) -> None:
        """template/v2_template.go, validatePipelineJobInputs (400).

        backend_rules.run_parameter_problems holds its rules but one: a value for a
        parameter the root does not declare, "parameter(s) provided are not required
        by pipeline".
        """
        values = (body.get("runtime_config") or {}).get("parameters") or {}
        problems = backend_rules.run_parameter_problems(spec, values)
        declared = spec.get("root", {}).get("inputDefinitions", {}).get("parameters", {})
        extra = sorted(set(values) - set(declared))
        if extra:
            problems.append(
                f"parameter(s) provided are not required by pipeline: {', '.join(extra)}"
            )
        if problems:
            message = "; ".join(problems)
            raise ApiError(
                INVALID_ARGUMENT,
                f"{wrap}: invalid pipeline job inputs: Invalid input error: {message}",
                message,
            )

    def _create_run(self, body: dict[str, Any], headers: dict[str, str], **_: Any) -> Any:
        """POST /runs (run_server.go, CreateRun and createRun; resource_manager.go, CreateRun)."""
        wrap = "Failed to create a new run"
        if not body.get("display_name"):
            # api_converter.go, toModelRun: "Run name cannot be empty" (Internal).
            raise _violation(
                f"{wrap}: InternalServerError: Invalid input error: Run name cannot be empty",
                INTERNAL,
            )
        experiment_id, namespace = self._run_home(body, headers, wrap)
        spec, ref = self._pipeline_source(
            body, f"{wrap}: Failed to create a run due to error fetching manifest"
        )
        self._check_parameters(spec, body, f"{wrap}: Failed to generate the ExecutionSpec")
        self._check_recurring_run_id(body.get("recurring_run_id", ""), wrap)
        run = self._new_run(body, experiment_id, ref)
        if self.kfp_2_16:
            # KFP 2.16.1 resource_manager.go, CreateRun: experimentStore.SetLastRunTimestamp.
            self.experiments[experiment_id].last_run_created_at = run.created_at
        tasks = sorted(spec.get("root", {}).get("dag", {}).get("tasks", {}))
        steps = self._script or [("SUCCEEDED", dict.fromkeys(tasks, "SUCCEEDED"))]
        record = _RunRecord(run, namespace, list(steps), history=[("PENDING", run.created_at)])
        self._remember(run.run_id, self.runs, record)
        return run

    def _run_home(
        self, body: dict[str, Any], headers: dict[str, str], wrap: str
    ) -> tuple[str, str]:
        """(experiment id, namespace) of a new run, authorized (run_server.go, createRun)."""
        # toModelRun leaves the v2beta1 run's namespace empty: the experiment's counts.
        experiment_id, namespace = self._experiment_and_namespace(
            body.get("experiment_id", ""),
            "",
            f"{wrap}: Failed to create a run due to invalid experimentId and namespace combination",
        )
        if self.namespaces is not None:
            if not namespace:
                raise ApiError(
                    INVALID_ARGUMENT,
                    f"{wrap}: Invalid input error: A run cannot have an empty namespace in "
                    "multi-user mode",
                    "A run cannot have an empty namespace in multi-user mode",
                )
            self._authorize(namespace, "create", "runs", headers)
        return experiment_id, namespace

    def _check_recurring_run_id(self, recurring_run_id: str, wrap: str) -> None:
        """KFP 2.16.1: a run's recurring_run_id must name a recurring run.

        resource_manager.go (2.16.1), CreateRun looks the job up to own the workflow
        (500 when it is missing); KFP 2.0.5 stores any id unchecked.
        """
        if self.kfp_2_16 and recurring_run_id and recurring_run_id not in self.recurring_runs:
            raise ApiError(
                INTERNAL,
                f"{wrap}: InternalServerError: Failed to create a run due to invalid recurring "
                f"run id: Invalid input error: RecurringRunId doesn't exist: {recurring_run_id}",
                "Internal Server Error",
            )

    def _new_run(
        self, body: dict[str, Any], experiment_id: str, ref: dict[str, str] | None
    ) -> models.V2beta1Run:
        """The run as the server answers it at creation."""
        now = _now()
        return models.V2beta1Run(
            experiment_id=experiment_id,
            run_id=str(uuid.uuid4()),
            display_name=body["display_name"],
            storage_state="AVAILABLE",
            description=_none_if_empty(body.get("description", "")),
            pipeline_version_reference=models.V2beta1PipelineVersionReference(**ref)
            if ref
            else None,
            pipeline_spec=None if ref else body["pipeline_spec"],
            runtime_config=_runtime_config(body),
            # The workflow's service account; KFP's default is pipeline-runner.
            service_account=body.get("service_account") or "pipeline-runner",
            created_at=now,
            scheduled_at=now,
            # resource_manager.go, CreateRun: a new run is PENDING.
            state="PENDING",
            recurring_run_id=_none_if_empty(body.get("recurring_run_id", "")),
        )

    def _run(self, run_id: str, verb: str, headers: dict[str, str]) -> _RunRecord:
        """The run, authorized (run_server.go, canAccessRun)."""
        record = self.runs.get(run_id)
        if record is None:
            raise _not_found("Run", run_id, f"Failed to get a run: Failed to fetch run {run_id}")
        if self.namespaces is not None:
            self._authorize(record.namespace, verb, "runs", headers)
        return record

    def _get_run(self, rid: str, headers: dict[str, str], **_: Any) -> Any:
        """GET /runs/{id}: the next step of the run's script."""
        record = self._run(rid, "get", headers)
        state, tasks = record.steps[min(record.reads, len(record.steps) - 1)]
        record.reads += 1
        now = _now()
        if record.history[-1][0] != state:
            record.history.append((state, now))
        run = record.run
        run.state = state
        run.finished_at = now if state in _TERMINAL and run.finished_at is None else run.finished_at
        run.state_history = [
            models.V2beta1RuntimeStatus(update_time=t, state=s) for s, t in record.history
        ]
        details = []
        for name, task_state in tasks.items():
            task_id = record.task_ids.setdefault(name, str(uuid.uuid4()))
            details.append(
                models.V2beta1PipelineTaskDetail(
                    run_id=run.run_id,
                    task_id=task_id,
                    display_name=name,
                    create_time=run.created_at,
                    start_time=None if task_state == "PENDING" else run.created_at,
                    end_time=now if task_state in _TERMINAL else None,
                    state=task_state,
                )
            )
        run.run_details = models.V2beta1RunDetails(task_details=details or None)
        return run

    def _list_runs(self, query: dict[str, str], headers: dict[str, str], **_: Any) -> Any:
        """GET /runs (run_server.go, listRuns): by experiment, else by namespace."""
        items = self._scoped(
            self.runs.values(),
            query,
            headers,
            "runs",
            "A run cannot have an empty namespace in multi-user mode",
        )
        page, total, token = self._page([r.run for r in items], query, _RUN_KEYS, "created_at")
        return models.V2beta1ListRunsResponse(
            runs=page or None, total_size=total or None, next_page_token=token
        )

    def _scoped(
        self,
        records: Any,
        query: dict[str, str],
        headers: dict[str, str],
        resource: str,
        empty: str,
    ) -> list[Any]:
        """The runs or recurring runs a list call may see (listRuns and listJobs)."""
        namespace = query.get("namespace", "") if self.namespaces is not None else ""
        experiment_id = query.get("experiment_id", "")
        if experiment_id:
            namespace = (
                self._experiment(experiment_id, f"Failed to list {resource}").namespace or ""
            )
        if self.namespaces is not None:
            if not namespace:
                raise ApiError(
                    INVALID_ARGUMENT,
                    f"Failed to list {resource}: Invalid input error: {empty}",
                    empty,
                )
            self._authorize(namespace, "list", resource, headers)
        out = []
        for record in records:
            item = record.run if isinstance(record, _RunRecord) else record
            own = record.namespace if isinstance(record, _RunRecord) else (record.namespace or "")
            if experiment_id and item.experiment_id != experiment_id:
                continue
            if not experiment_id and self.namespaces is not None and own != namespace:
                continue
            out.append(record)
        return out

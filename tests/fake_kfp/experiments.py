"""The experiment service: backend/src/apiserver/server/experiment_server.go."""

from __future__ import annotations

import uuid
from typing import Any

from kfp_server_api import models

from fake_kfp.rules import (
    _EPOCH,
    _EXPERIMENT_KEYS,
    _EXPERIMENT_KEYS_2_16,
    ALREADY_EXISTS,
    INTERNAL,
    INVALID_ARGUMENT,
    ApiError,
    _none_if_empty,
    _not_found,
    _now,
    _violation,
)


class ExperimentRoutes:
    """The experiment service: backend/src/apiserver/server/experiment_server.go.

    A part of ``FakeKfpApi`` (``fake_kfp.server``), whose state and routing it uses.
    """

    # Experiments: backend/src/apiserver/server/experiment_server.go.

    def _create_experiment(self, body: dict[str, Any], headers: dict[str, str], **_: Any) -> Any:
        """POST /experiments."""
        name = body.get("display_name", "")
        if not name:
            # api_converter.go, toModelExperiment.
            raise _violation(
                "Failed to create an experiment due to conversion error: InternalServerError: "
                "Failed to convert API experiment to model experiment: Invalid input error: "
                "Experiment must have a non-empty name",
                INTERNAL,
            )
        namespace = body.get("namespace", "") if self.namespaces is not None else ""
        if self.namespaces is not None:
            if not namespace:
                # canAccessExperiment: "An experiment cannot have an empty namespace in
                # multi-user mode" (before CreateExperiment's "Namespace cannot be empty").
                raise ApiError(
                    INVALID_ARGUMENT,
                    "Failed to create a new experiment: Failed to authorize the request: Invalid "
                    "input error: An experiment cannot have an empty namespace in multi-user mode",
                    "An experiment cannot have an empty namespace in multi-user mode",
                )
            self._authorize(namespace, "create", "experiments", headers)
        if any(
            x.display_name == name and (x.namespace or "") == namespace
            for x in self.experiments.values()
        ):
            # storage/experiment_store.go: (name, namespace) is unique.
            message = (
                f"Failed to create a new experiment. The name {name} already exists. Please "
                "specify a new name"
            )
            raise ApiError(
                ALREADY_EXISTS,
                f"Failed to create a new experiment: Already exist error: {message}",
                message,
            )
        return self._add_experiment(name, body.get("description", ""), namespace)

    def _add_experiment(
        self, name: str, description: str, namespace: str
    ) -> models.V2beta1Experiment:
        """Store an experiment."""
        experiment = models.V2beta1Experiment(
            experiment_id=str(uuid.uuid4()),
            display_name=name,
            description=_none_if_empty(description),
            created_at=_now(),
            namespace=_none_if_empty(namespace),
            storage_state="AVAILABLE",
        )
        if self.kfp_2_16:
            # KFP 2.16.1 api_converter.go, toApiExperiment: the time of the newest run,
            # the Unix epoch (not nothing) before the first one.
            experiment.last_run_created_at = _EPOCH
        self._remember(experiment.experiment_id, self.experiments, experiment)
        return experiment

    def _experiment(self, experiment_id: str, wrap: str) -> models.V2beta1Experiment:
        """The experiment, or 404."""
        experiment = self.experiments.get(experiment_id)
        if experiment is None:
            raise _not_found("Experiment", experiment_id, wrap)
        return experiment

    def _list_experiments(self, query: dict[str, str], headers: dict[str, str], **_: Any) -> Any:
        """GET /experiments."""
        namespace = query.get("namespace", "") if self.namespaces is not None else ""
        if self.namespaces is not None:
            if not namespace:
                raise ApiError(
                    INVALID_ARGUMENT,
                    "Failed to list experiments: Failed to authorize with API: Invalid input "
                    "error: An experiment cannot have an empty namespace in multi-user mode",
                    "An experiment cannot have an empty namespace in multi-user mode",
                )
            self._authorize(namespace, "list", "experiments", headers)
        items = [x for x in self.experiments.values() if (x.namespace or "") == namespace]
        keys = _EXPERIMENT_KEYS_2_16 if self.kfp_2_16 else _EXPERIMENT_KEYS
        page, total, token = self._page(items, query, keys, "created_at")
        return models.V2beta1ListExperimentsResponse(
            experiments=page or None, total_size=total or None, next_page_token=token
        )

    def _get_experiment(self, eid: str, headers: dict[str, str], **_: Any) -> Any:
        """GET /experiments/{id}."""
        experiment = self._experiment(eid, "Failed to get experiment")
        if self.namespaces is not None:
            self._authorize(experiment.namespace or "", "get", "experiments", headers)
        return experiment

"""One connection to the Kubeflow Pipelines API, and its failures as one line for people.

The generated services of ``kfp_server_api`` (the models of the API server's swagger,
``backend/api/v2beta1/swagger`` in kubeflow/pipelines) are set up as ``kfp.Client``
sets them up (``kfp/client/client.py``, ``__init__`` and ``_load_config``), without
what suits a notebook and not a command: no health probe retried for 25 seconds, no
context file read from or written to the home folder, no prints
(``docs/decisions/kfp-client.md`` has the measurements).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import kfp_server_api
import urllib3
from kfp_server_api.exceptions import ApiException

from kubeflow.operator.credentials import Credential, current_token

T = TypeVar("T")
# kfp/client/client.py, _FILTER_OPERATIONS: the predicate operations as kfp sends them.
EQUALS, IS_SUBSTRING = 1, 9


class Service:
    """A generated service whose operations are called by their names in the API.

    A version difference forces this: kfp-server-api 2.0 (the legacy stack's, beside
    kfp 2.5) names a method after its operation (``list_pipelines``); the releases for
    KFP 2.1 and later (2.16, the current stack's) prefix the service
    (``pipeline_service_list_pipelines``), as kfp.Client 2.16 calls them.
    """

    def __init__(self, generated: Any, prefix: str) -> None:
        self._generated = generated
        self._prefix = prefix

    def __getattr__(self, operation: str) -> Callable[..., Any]:
        named = getattr(self._generated, operation, None)
        return named or getattr(self._generated, f"{self._prefix}_{operation}")


def services(client: kfp_server_api.ApiClient) -> dict[str, Service]:
    """The five services the product calls, by the attribute names KfpApi gives them."""
    generated = {
        "pipelines": (kfp_server_api.PipelineServiceApi, "pipeline_service"),
        "uploads": (kfp_server_api.PipelineUploadServiceApi, "pipeline_upload_service"),
        "experiments": (kfp_server_api.ExperimentServiceApi, "experiment_service"),
        "runs": (kfp_server_api.RunServiceApi, "run_service"),
        "recurring_runs": (kfp_server_api.RecurringRunServiceApi, "recurring_run_service"),
    }
    return {name: Service(api(client), prefix) for name, (api, prefix) in generated.items()}


class KfpError(RuntimeError):
    """A call to Kubeflow Pipelines failed; the message is one line naming what and why."""


@dataclass(frozen=True)
class Target:
    """Where the API answers, for which profile namespace, and as whom."""

    endpoint: str
    namespace: str | None  # None: single-user KFP, no namespaces
    credential: Credential
    timeout_seconds: float = 60.0

    @property
    def ui(self) -> str:
        """The UI's base address: the endpoint without a trailing slash."""
        return self.endpoint.rstrip("/")


def name_filter(name: str, operation: int = EQUALS) -> str:
    """A list filter on the name, in the JSON kfp.Client sends (get_pipeline_id).

    The key ``name``: KFP 2.0.5 maps it to the display name, KFP 2.16 to the name, which
    there is the unique one (``backend/src/apiserver/model/pipeline.go``).
    """
    predicate = {"operation": operation, "key": "name", "stringValue": name}
    return json.dumps({"predicates": [predicate]})


def _server_message(err: ApiException) -> str:
    """The server's own reason, from its error body when it sent one."""
    try:
        body = json.loads(err.body or "{}")
    except json.JSONDecodeError:
        body = {}
    # The upload routes write {"error_message", "error_details"}, the others "message".
    text = body.get("message") or body.get("error_message") or body.get("error") or err.reason or ""
    return " ".join(str(text).split())[:300]


def _connection_reason(err: Exception) -> str:
    """The root cause of a connection error, in a few words."""
    cause = getattr(err, "reason", None) or err  # urllib3 wraps the socket error
    text = str(cause).strip().splitlines()[0] if str(cause).strip() else ""
    return f"{type(cause).__name__}: {text.rsplit(': ', 1)[-1]}"


class KfpApi:
    """The API's services for one target; ``call`` turns every failure into a KfpError."""

    def __init__(self, target: Target) -> None:
        self.target = target
        config = kfp_server_api.Configuration(host=target.ui)
        credential = target.credential
        if credential.token or credential.token_file:
            config.api_key["authorization"] = self._token()
            config.api_key_prefix["authorization"] = "Bearer"
            if credential.token_file:
                # A projected token rotates: read it again before each request, as kfp's
                # ServiceAccountTokenVolumeCredentials.refresh_api_key_hook does.
                config.refresh_api_key_hook = self._refresh
        found = services(kfp_server_api.ApiClient(config, cookie=credential.cookie))
        self.pipelines = found["pipelines"]
        self.uploads = found["uploads"]
        self.experiments = found["experiments"]
        self.runs = found["runs"]
        self.recurring_runs = found["recurring_runs"]

    def _token(self) -> str | None:
        """The bearer token now; KfpError when its file went missing or empty since."""
        try:
            return current_token(self.target.credential)
        except ValueError as err:
            raise KfpError(f"no token for Kubeflow Pipelines at {self.target.ui}: {err}") from err

    def _refresh(self, config: kfp_server_api.Configuration) -> None:
        config.api_key["authorization"] = self._token()

    def call(self, what: str, method: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``method(*args, **kwargs)`` with the timeout; KfpError saying ``what`` failed and why."""
        try:
            return method(*args, _request_timeout=self.target.timeout_seconds, **kwargs)
        except ApiException as err:
            if err.status == 0:  # the generated client's code for a TLS failure
                raise KfpError(self._unreachable(err)) from err
            raise KfpError(self._refusal(what, err)) from err
        except (urllib3.exceptions.HTTPError, OSError) as err:
            raise KfpError(self._unreachable(err)) from err

    def _unreachable(self, err: Exception) -> str:
        return f"could not reach Kubeflow Pipelines at {self.target.ui}: {_connection_reason(err)}"

    def _refusal(self, what: str, err: ApiException) -> str:
        where = f"namespace {self.target.namespace}" if self.target.namespace else "no namespace"
        reason = f"HTTP {err.status} {_server_message(err)}".rstrip()
        if err.status in (401, 403):
            return (
                f"Kubeflow Pipelines at {self.target.ui} refused to {what} in {where} with "
                f"{self.target.credential.source}: {reason}"
            )
        return f"could not {what} ({where}): {reason}"

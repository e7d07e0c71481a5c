"""A fake Kubeflow Pipelines API server (the v2beta1 REST API) for tests.

``FakeKfpApi`` serves the routes ``kfp_server_api``'s generated classes call (the same
ones ``kfp.Client`` uses) on 127.0.0.1, keeps pipelines, versions, experiments, runs
and recurring runs in memory, records every request in ``calls`` and every request
that breaks the API's spec in ``violations``.

The rules follow the API server of the KFP release the installed client was generated
from: kfp-server-api 2.0.x (the legacy stack) talks to KFP 2.0.5's server,
kfp-server-api 2.16.x (the current stack) to KFP 2.16.1's. ``RELEASE`` is picked once
from ``kfp_server_api.__version__``; ``FakeKfpApi(release=...)`` takes the other one,
so a test can check both behaviours on either stack (2.16.1's added fields then travel
as JSON the older client ignores). Each rule cites the Go file it follows
(kubeflow/pipelines at the release's tag, files under ``backend/``); where the
releases differ, both are cited. Status codes are the real server's: grpc-gateway
maps a gRPC code to HTTP (InvalidArgument 400, NotFound 404, AlreadyExists 409,
PermissionDenied 403, Unauthenticated 401, Internal 500, Unimplemented 501). The body
differs: KFP 2.0.5 (grpc-gateway v1.16, runtime/errors.go DefaultHTTPError) writes
``{"error", "code", "message", "details"}``, KFP 2.16.1 (grpc-gateway v2.27.1,
DefaultHTTPErrorHandler) ``{"code", "message", "details"}``; the two multipart upload
routes write their own ``{"error_message", "error_details"}`` body
(``server/pipeline_upload_server.go``, writeErrorToResponse), at 2.0.5 with the
wrapped cause, at 2.16.1 with a fixed message per failure. Messages follow the Go wrap
chains, shortened where the chain holds database or Kubernetes details.

Rules stricter than the real server (each is a violation, noted where it is checked):
query parameters the generated client never sends (grpc-gateway ignores them), a
recurring run without a schedule (the server stores it; it then never fires), and at
2.0.5 a JSON body field the model does not have (grpc-gateway v1.16 drops it; 2.16.1
refuses it with 400 too). ``token``/``cookie`` stand for the cluster's authentication
in front of the server: a request without them is 401 on every route but healthz (the
upload handlers themselves answer an authorization failure with 400, see ``_upload``).
Injected failures (``fail_next``) answer the test's message on every route.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import email.parser
import email.policy
import json
import re
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import kfp_server_api
import pytest
import yaml
from kfp_server_api import models

from kubeflow.harness import backend_rules

API = "/apis/v2beta1"
DEFAULT_USER = "user@example.com"
# The KFP releases whose API server this fake follows, oldest first.
RELEASES = ("2.0.5", "2.16.1")
# backend/src/apiserver/common/const.go, DefaultPodNamespace: where KFP runs.
SYSTEM_NAMESPACE = "kubeflow"
JSON = "application/json"


def release_for(client_version: str) -> str:
    """The KFP release whose API server answers kfp-server-api ``client_version``.

    kfp-server-api is generated from the server's swagger at each KFP release: 2.0.x
    comes from KFP 2.0.5, 2.16.x from KFP 2.16.1.
    """
    series = ".".join(client_version.split(".")[:2]) + "."
    for release in RELEASES:
        if release.startswith(series):
            return release
    raise RuntimeError(
        f"kfp-server-api {client_version}: this fake follows the API server of KFP "
        f"{' or '.join(RELEASES)} only"
    )


RELEASE = release_for(kfp_server_api.__version__)

# google.golang.org/grpc/codes, and the HTTP status grpc-gateway (v1.16 and v2.27.1
# alike, runtime/errors.go, HTTPStatusFromCode) answers for each.
INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS, PERMISSION_DENIED = 3, 5, 6, 7
INTERNAL, UNAUTHENTICATED, UNIMPLEMENTED = 13, 16, 12
_HTTP_STATUS = {3: 400, 5: 404, 6: 409, 7: 403, 12: 501, 13: 500, 14: 503, 16: 401}
_CODE_FOR_STATUS = {400: 3, 401: 16, 403: 7, 404: 5, 409: 6, 429: 8, 501: 12, 503: 14}

# backend/api/v2beta1/filter.proto: the numbers jsonpb also accepts for an operation
# (kfp.Client sends them: kfp/client/client.py, _FILTER_OPERATIONS).
_OPERATION_NUMBERS = {
    0: "OPERATION_UNSPECIFIED",
    1: "EQUALS",
    2: "NOT_EQUALS",
    3: "GREATER_THAN",
    5: "GREATER_THAN_EQUALS",
    6: "LESS_THAN",
    7: "LESS_THAN_EQUALS",
    8: "IN",
    9: "IS_SUBSTRING",
}
# Proto int64 fields: the generated models type them "str", jsonpb takes a number too.
_INT64_FIELDS = frozenset({"max_concurrency", "interval_second", "long_value", "execution_id"})
_TERMINAL = frozenset({"SUCCEEDED", "FAILED", "SKIPPED", "CANCELED"})

# backend/src/apiserver/model/{pipeline,pipeline_version,experiment,run,job}.go,
# APIToModelFieldMap: the keys a filter or sort_by may name, here mapped to the
# generated model's attribute holding that value.
_PIPELINE_KEYS = {
    "id": "pipeline_id",
    "pipeline_id": "pipeline_id",
    "name": "display_name",
    "display_name": "display_name",
    "created_at": "created_at",
    "description": "description",
    "namespace": "namespace",
}
_VERSION_KEYS = {
    "id": "pipeline_version_id",
    "pipeline_version_id": "pipeline_version_id",
    "name": "display_name",
    "display_name": "display_name",
    "created_at": "created_at",
    "status": "status",
    "description": "description",
    "pipeline_spec": "pipeline_spec",
}
_EXPERIMENT_KEYS = {
    "id": "experiment_id",
    "experiment_id": "experiment_id",
    "name": "display_name",
    "display_name": "display_name",
    "created_at": "created_at",
    "description": "description",
    "namespace": "namespace",
    "storage_state": "storage_state",
}
_RUN_KEYS = {
    "run_id": "run_id",
    "id": "run_id",
    "display_name": "display_name",
    "name": "display_name",
    "created_at": "created_at",
    "finished_at": "finished_at",
    "description": "description",
    "scheduled_at": "scheduled_at",
    "storage_state": "storage_state",
    "status": "state",
    "namespace": "namespace",
    "experiment_id": "experiment_id",
    "state": "state",
    "state_history": "state_history",
    "runtime_details": "run_details",
    "recurring_run_id": "recurring_run_id",
}
# KFP 2.16.1 gave pipelines and versions a name beside the display name
# (model/pipeline.go, model/pipeline_version.go): "name" means Name, "display_name"
# DisplayName; at 2.0.5 both mean Name, the one name. Experiments gained
# last_run_created_at (model/experiment.go).
_PIPELINE_KEYS_2_16 = {**_PIPELINE_KEYS, "name": "name"}
_VERSION_KEYS_2_16 = {**_VERSION_KEYS, "name": "name"}
_EXPERIMENT_KEYS_2_16 = {**_EXPERIMENT_KEYS, "last_run_created_at": "last_run_created_at"}
_RECURRING_RUN_KEYS = {
    "id": "recurring_run_id",
    "recurring_run_id": "recurring_run_id",
    "name": "display_name",
    "display_name": "display_name",
    "created_at": "created_at",
    "updated_at": "updated_at",
    "description": "description",
}
_LIST_QUERY = frozenset({"page_token", "page_size", "sort_by", "filter"})
# Fields KFP 2.16.1 answers that kfp-server-api 2.0.5's models lack: on the legacy stack
# with release 2.16.1 they are plain attributes of the stored models, written as JSON.
_ADDED_FIELDS = ("name", "last_run_created_at")
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

# pipeline_upload_server.go: what each failure of an upload route answers. KFP 2.0.5
# wraps the cause (util.Wrap): "<first>: <cause>"; KFP 2.16.1 logs the cause and
# answers errors.New(<second>) alone.
_VERSION_FAILED = "Failed to create a pipeline version"
_UPLOAD_FAILURES = {
    ("upload", "file"): ("Failed to read pipeline from file", "Failed to read pipeline from file"),
    ("upload", "spec"): (
        "Failed to read a pipeline spec file",
        "Failed to read a pipeline spec file",
    ),
    ("upload", "auth"): (
        "Failed to create a pipeline due to authorization error",
        "Failed to create a pipeline",
    ),
    ("upload", "create"): (
        "Failed to create a pipeline and a pipeline version",
        "Failed to create a pipeline and a pipeline version",
    ),
    ("upload_version", "file"): (
        f"{_VERSION_FAILED} due to error parsing pipeline spec filename",
        _VERSION_FAILED,
    ),
    ("upload_version", "spec"): (
        f"{_VERSION_FAILED} due to error reading pipeline spec file",
        _VERSION_FAILED,
    ),
    ("upload_version", "pipelineid"): (
        f"{_VERSION_FAILED} due to error reading pipeline id",
        _VERSION_FAILED,
    ),
    ("upload_version", "namespace"): (
        f"{_VERSION_FAILED} due to error reading namespace",
        _VERSION_FAILED,
    ),
    ("upload_version", "auth"): (f"{_VERSION_FAILED} due to authorization error", _VERSION_FAILED),
    ("upload_version", "create"): (_VERSION_FAILED, _VERSION_FAILED),
}
# KFP 2.16.1 backend/src/apiserver/validation/length.go, LengthSpecs: the lengths
# (in bytes) the server checks before storing; 2.0.5 leaves them to the database.
_MAX_LENGTH = {
    ("Pipeline", "Name"): 128,
    ("Pipeline", "Namespace"): 63,
    ("PipelineVersion", "Name"): 127,
}
# KFP 2.16.1 backend/api/v2beta1/recurring_run.proto, DeletePropagationPolicy.
_PROPAGATION_POLICIES = (
    "DELETE_PROPAGATION_POLICY_UNSPECIFIED",
    "FOREGROUND",
    "BACKGROUND",
    "ORPHAN",
)


@dataclass(frozen=True)
class Call:
    """One request the fake received, as the test sees it.

    ``headers`` has lower-cased names; ``body`` is the parsed JSON object, for a
    multipart upload a dict of its form fields with the file under its field name as
    ``{"filename": ..., "content": bytes}``, or None without a body. ``status`` is what
    the fake answered.
    """

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    status: int


class ApiError(Exception):
    """A refusal, answered as the real server answers it."""

    def __init__(
        self,
        code: int,
        message: str,
        external: str | None = None,
        *,
        http_status: int | None = None,
        violation: bool = False,
        rpc_detail: bool = True,
        plain: bool = False,
        details: str | None = None,
    ) -> None:
        """``code`` is the gRPC code; ``message`` the wrapped internal message.

        ``rpc_detail``: the status carries the google.rpc.Status detail a KFP UserError
        adds (util/error.go, GRPCStatus); grpc-gateway's own refusals (routing, a body
        that does not unmarshal) have none. ``plain``: answered as Go's http.Error, the
        message as text/plain. ``details``: an upload route's error_details.
        """
        super().__init__(message)
        self.code = code
        self.message = message
        self.external = external or message
        self.http_status = http_status or _HTTP_STATUS.get(code, 500)
        self.violation = violation
        self.rpc_detail = rpc_detail
        self.plain = plain
        self.details = details


def _violation(
    message: str,
    code: int = INVALID_ARGUMENT,
    http_status: int | None = None,
    rpc_detail: bool = True,
) -> ApiError:
    """A request that breaks the API's spec: refused, and listed in ``violations``."""
    return ApiError(code, message, http_status=http_status, violation=True, rpc_detail=rpc_detail)


def _gateway_violation(message: str) -> ApiError:
    """A request grpc-gateway refuses before KFP sees it: InvalidArgument, no detail."""
    return _violation(message, rpc_detail=False)


def _wrapped(err: ApiError, prefix: str) -> ApiError:
    """``err`` wrapped by util.Wrap: the same code and external message, a longer chain."""
    return ApiError(err.code, f"{prefix}: {err.message}", err.external)


def _not_found(kind: str, ident: str, wrap: str) -> ApiError:
    """util.NewResourceNotFoundError (backend/src/common/util/error.go), wrapped."""
    return ApiError(
        NOT_FOUND,
        f"{wrap}: ResourceNotFoundError: {kind} {ident} not found",
        f"{kind} {ident} not found",
    )


def _internal(message: str, cause: str) -> ApiError:
    """util.NewInternalServerError: code Internal whatever the cause's code was."""
    return ApiError(INTERNAL, f"{message}: InternalServerError: {cause}", "Internal Server Error")


def _now() -> datetime:
    """Now, to the second: the server keeps times as Unix seconds (model/*.go)."""
    return datetime.now(timezone.utc).replace(microsecond=0)


def _none_if_empty(value: Any) -> Any:
    """jsonpb (EmitDefaults off) leaves out empty strings, lists and zeros."""
    return value if value not in ("", [], {}, 0, None) else None


@dataclass
class _Route:
    """One route of the generated client: method, path pattern, query and body model."""

    method: str
    pattern: re.Pattern[str]
    handler: Callable[..., Any]
    query: frozenset[str] = frozenset()
    body: str | None = None
    multipart: bool = False


@dataclass
class _Injected:
    """Failures to answer to the next ``times`` requests matching method and path."""

    method: str
    path: str
    status: int
    times: int
    message: str


@dataclass
class _RunRecord:
    """A run and its scripted progress."""

    run: models.V2beta1Run
    namespace: str
    steps: list[tuple[str, dict[str, str]]]
    reads: int = 0
    task_ids: dict[str, str] = field(default_factory=dict)
    history: list[tuple[str, datetime]] = field(default_factory=list)


class _Serializer(kfp_server_api.ApiClient):
    """The generated client's (de)serializer, also writing the fields 2.16.1 added."""

    def sanitize_for_serialization(self, obj: Any) -> Any:
        """The JSON value of ``obj``, with those of ``_ADDED_FIELDS`` its class lacks."""
        data = super().sanitize_for_serialization(obj)
        types = getattr(obj, "openapi_types", None)
        if isinstance(types, dict) and isinstance(data, dict):
            for attr in _ADDED_FIELDS:
                value = vars(obj).get(attr)
                if attr not in types and value is not None:
                    data[attr] = super().sanitize_for_serialization(value)
        return data


class FakeKfpApi:
    """An in-memory KFP v2beta1 API server on 127.0.0.1, in a daemon thread.

    ``token``: every request but healthz must carry ``Authorization: Bearer <token>``
    (or ``cookie`` inside its Cookie header). ``namespaces``: multi-user mode, the
    namespaces the caller may use (None: single-user). ``multi_user``: what healthz
    says (default: whether ``namespaces`` is set). ``release``: the KFP release whose
    server to follow, one of ``RELEASES`` (default: ``RELEASE``, the installed
    client's).
    """

    def __init__(
        self,
        token: str | None = None,
        cookie: str | None = None,
        namespaces: set[str] | None = None,
        multi_user: bool | None = None,
        release: str = RELEASE,
    ) -> None:
        """Start serving; ``url`` says where."""
        if release not in RELEASES:
            raise ValueError(f"release {release!r}: this fake follows KFP {RELEASES}")
        self.release = release
        # The one switch between the releases' rules, named for the newer one.
        self.kfp_2_16 = release == "2.16.1"
        self.token = token
        self.cookie = cookie
        self.namespaces = namespaces
        self.multi_user = namespaces is not None if multi_user is None else multi_user
        self.calls: list[Call] = []
        self.violations: list[str] = []
        self.pipelines: dict[str, models.V2beta1Pipeline] = {}
        self.versions: dict[str, models.V2beta1PipelineVersion] = {}
        self.experiments: dict[str, models.V2beta1Experiment] = {}
        self.runs: dict[str, _RunRecord] = {}
        self.recurring_runs: dict[str, models.V2beta1RecurringRun] = {}
        self._order: dict[str, int] = {}
        self._script: list[tuple[str, dict[str, str]]] | None = None
        self._injected: list[_Injected] = []
        self._lock = threading.RLock()
        self._client = _Serializer()
        self._routes = self._build_routes()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()

    # Lifecycle and test helpers.

    def close(self) -> None:
        """Stop serving."""
        self._server.shutdown()
        self._server.server_close()
        self._client.close()

    def __enter__(self) -> FakeKfpApi:
        """The running fake."""
        return self

    def __exit__(self, *_exc: object) -> None:
        """Stop serving."""
        self.close()

    def calls_to(self, method: str, path: str) -> list[Call]:
        """The calls with ``method`` whose path ends with ``path`` or fully matches it (regex)."""
        with self._lock:
            return [
                c for c in self.calls if c.method == method.upper() and _path_matches(c.path, path)
            ]

    def script_run(
        self, steps: list[tuple[str, dict[str, str]]], run_id: str | None = None
    ) -> None:
        """Script the progress of ``run_id``, or of every run created from now on.

        Each step is (run state, {task display name: task state}), states from
        V2beta1RuntimeState; each GET of the run answers the next step, the last
        one repeats.
        """
        allowed = models.V2beta1RuntimeState.allowable_values
        for state, tasks in steps:
            for value in (state, *tasks.values()):
                if value not in allowed:
                    raise ValueError(f"{value!r} is not a V2beta1RuntimeState: {allowed}")
        if not steps:
            raise ValueError("a script needs at least one step")
        with self._lock:
            if run_id is None:
                self._script = list(steps)
            else:
                self.runs[run_id].steps = list(steps)

    def fail_next(
        self, method: str, path: str, status: int, times: int = 1, message: str = "injected failure"
    ) -> None:
        """Answer ``status`` to the next ``times`` requests matching method and path.

        ``path`` is matched as in ``calls_to``; the request is recorded, checked
        against the spec, and changes nothing.
        """
        with self._lock:
            self._injected.append(_Injected(method.upper(), path, status, times, message))

    # Routing.

    def _query(self, sent: set[str], added: set[str] | None = None) -> frozenset[str]:
        """The query parameters a route's generated client sends at this release.

        ``added``: those only kfp-server-api 2.16.1 sends (its api/*.py): display_name
        on both uploads, experiment_id on POST /runs and the run verbs, cascade on
        DELETE /pipelines/{id}, propagation_policy on DELETE /recurringruns/{id}.
        """
        return frozenset(sent | (added or set())) if self.kfp_2_16 else frozenset(sent)

    def _build_routes(self) -> list[_Route]:
        """Every route of kfp_server_api/api/*.py this fake knows, in matching order."""
        p = API + "/pipelines"
        e = API + "/experiments"
        r = API + "/runs"
        rr = API + "/recurringruns"
        todo = self._not_implemented
        q = self._query
        table: list[tuple[str, str, Callable[..., Any], frozenset[str], str | None]] = [
            ("GET", API + "/healthz", self._healthz, q(set()), None),
            (
                "POST",
                p + "/upload",
                self._upload,
                q({"name", "description", "namespace"}, {"display_name"}),
                None,
            ),
            (
                "POST",
                p + "/upload_version",
                self._upload_version,
                q({"name", "pipelineid", "description"}, {"display_name"}),
                None,
            ),
            ("POST", p + "/create", todo, q(set()), "V2beta1CreatePipelineAndVersionRequest"),
            (
                "GET",
                p + "/names/(?P<name>[^/]+)",
                self._get_pipeline_by_name,
                q({"namespace"}),
                None,
            ),
            ("GET", p, self._list_pipelines, _LIST_QUERY | {"namespace"}, None),
            ("POST", p, self._create_pipeline, q(set()), "V2beta1Pipeline"),
            ("GET", p + "/(?P<pid>[^/]+)/versions", self._list_versions, _LIST_QUERY, None),
            ("POST", p + "/(?P<pid>[^/]+)/versions", todo, q(set()), "V2beta1PipelineVersion"),
            (
                "GET",
                p + "/(?P<pid>[^/]+)/versions/(?P<vid>[^/]+)",
                self._get_version,
                q(set()),
                None,
            ),
            ("DELETE", p + "/(?P<pid>[^/]+)/versions/(?P<vid>[^/]+)", todo, q(set()), None),
            ("GET", p + "/(?P<pid>[^/]+)", self._get_pipeline, q(set()), None),
            ("DELETE", p + "/(?P<pid>[^/]+)", todo, q(set(), {"cascade"}), None),
            ("POST", e, self._create_experiment, q(set()), "V2beta1Experiment"),
            ("GET", e, self._list_experiments, _LIST_QUERY | {"namespace"}, None),
            ("GET", e + "/(?P<eid>[^/:]+)", self._get_experiment, q(set()), None),
            ("DELETE", e + "/(?P<eid>[^/:]+)", todo, q(set()), None),
            ("POST", e + "/(?P<eid>[^/:]+):(?:archive|unarchive)", todo, q(set()), None),
            ("POST", r, self._create_run, q(set(), {"experiment_id"}), "V2beta1Run"),
            ("GET", r, self._list_runs, _LIST_QUERY | {"namespace", "experiment_id"}, None),
            ("GET", r + "/(?P<rid>[^/:]+)", self._get_run, q({"experiment_id"}), None),
            ("DELETE", r + "/(?P<rid>[^/:]+)", todo, q({"experiment_id"}), None),
            (
                "POST",
                r + "/(?P<rid>[^/:]+):(?:archive|unarchive|retry|terminate)",
                todo,
                q(set(), {"experiment_id"}),
                None,
            ),
            (
                "GET",
                r + "/(?P<rid>[^/:]+)/nodes/[^/]+/artifacts/[^/]+:read",
                todo,
                q({"experiment_id"}),
                None,
            ),
            ("POST", rr, self._create_recurring_run, q(set()), "V2beta1RecurringRun"),
            (
                "GET",
                rr,
                self._list_recurring_runs,
                _LIST_QUERY | {"namespace", "experiment_id"},
                None,
            ),
            ("GET", rr + "/(?P<jid>[^/:]+)", self._get_recurring_run, q(set()), None),
            (
                "DELETE",
                rr + "/(?P<jid>[^/:]+)",
                self._delete_recurring_run,
                q(set(), {"propagation_policy"}),
                None,
            ),
            (
                "POST",
                rr + "/(?P<jid>[^/:]+):(?P<verb>enable|disable)",
                self._set_recurring_mode,
                q(set()),
                None,
            ),
        ]
        return [
            _Route(
                method,
                re.compile(pattern + "$"),
                handler,
                query,
                body,
                multipart=pattern.endswith(("/upload", "/upload_version")),
            )
            for method, pattern, handler, query, body in table
        ]

    def _handle(
        self, method: str, target: str, headers: dict[str, str], raw: bytes
    ) -> tuple[int, bytes, str]:
        """Answer one request and record it: (status, body, content type)."""
        parts = urlsplit(target)
        path = parts.path
        query = parse_qs(parts.query, keep_blank_values=True)
        route, match = self._route(method, path)
        multipart = route is not None and route.multipart
        body: Any = None
        try:
            body = self._parse_body(headers, raw, multipart)
            status, payload = self._dispatch(route, match, method, path, query, headers, body)
            content = json.dumps(payload).encode()
            content_type = JSON
        except ApiError as err:
            if err.violation:
                with self._lock:
                    self.violations.append(f"{method} {path}: {err.message}")
            status = err.http_status
            content, content_type = _error_body(err, multipart, self.kfp_2_16)
        except Exception as err:  # A bug of the fake must fail the test, not hang the client.
            with self._lock:
                self.violations.append(f"{method} {path}: the fake failed: {err!r}")
            status = 500
            failure = ApiError(INTERNAL, f"fake error: {err!r}")
            content, content_type = _error_body(failure, multipart, self.kfp_2_16)
        with self._lock:
            self.calls.append(Call(method, path, query, dict(headers), body, status))
        return status, content, content_type

    def _route(self, method: str, path: str) -> tuple[_Route | None, re.Match[str] | None]:
        """The route for ``method`` and ``path``, if any.

        The upload routes take any method: main.go (2.0.5 and 2.16.1) registers them
        on the top mux without one, so a GET reaches the handler and fails there.
        """
        for route in self._routes:
            match = route.pattern.match(path)
            if match and (route.method == method or route.multipart):
                return route, match
        return None, None

    def _dispatch(
        self,
        route: _Route | None,
        match: re.Match[str] | None,
        method: str,
        path: str,
        query: dict[str, list[str]],
        headers: dict[str, str],
        body: Any,
    ) -> tuple[int, Any]:
        """Check the request against the spec and the auth rules, then serve it."""
        if route is None or match is None:
            raise self._routing_error(path)
        if not path.endswith("/healthz"):
            self._authenticate(headers)
        unknown = sorted(set(query) - route.query)
        if unknown:
            # Stricter than grpc-gateway (v1.16 and v2.27.1, runtime/query.go), which
            # ignores unknown query fields: the generated client never sends these.
            raise _violation(
                f"query parameters {unknown} are not sent by the generated client for this route "
                f"(allowed: {sorted(route.query)})"
            )
        if route.body is not None:
            if not isinstance(body, dict):
                raise _gateway_violation(f"the body must be a JSON object ({route.body})")
            # At 2.16.1 the server's own rule (common/utils.go, CustomMarshaler:
            # DiscardUnknown false); at 2.0.5 stricter than grpc-gateway v1.16, whose
            # JSONPb drops unknown fields (runtime/marshal_jsonpb.go, allowUnknownFields).
            problems = self._check_model(body, route.body, "body")
            if problems:
                raise _gateway_violation("; ".join(problems))
        elif method == "POST" and not route.multipart and body not in (None, {}):
            raise _gateway_violation("this route takes no body")
        self._take_injected(method, path)
        with self._lock:
            args = {k: v for k, v in match.groupdict().items() if v is not None}
            flat = {k: v[-1] for k, v in query.items()}
            result = route.handler(body=body, query=flat, headers=headers, **args)
        if result is None:
            return 200, {}
        if isinstance(result, dict):
            return 200, result
        return 200, self._client.sanitize_for_serialization(result)

    def _routing_error(self, path: str) -> ApiError:
        """No route for the request: 405 (501 at 2.16.1) if the path has one, else 404.

        KFP 2.0.5, grpc-gateway v1.16 runtime/mux.go: http.Error, the status text as
        text/plain. KFP 2.16.1, grpc-gateway v2.27.1 runtime/errors.go,
        DefaultRoutingErrorHandler: a status without detail, Method Not Allowed as
        Unimplemented (HTTP 501) and Not Found as NotFound.
        """
        known = any(r.pattern.match(path) for r in self._routes)
        text = "Method Not Allowed" if known else "Not Found"
        if self.kfp_2_16:
            code = UNIMPLEMENTED if known else NOT_FOUND
            return ApiError(code, text, violation=True, rpc_detail=False)
        status = 405 if known else 404
        return ApiError(0, text, http_status=status, violation=True, plain=True)

    def _take_injected(self, method: str, path: str) -> None:
        """Raise the next injected failure for this request, if one is due."""
        with self._lock:
            for injected in self._injected:
                if (
                    injected.times > 0
                    and injected.method == method
                    and _path_matches(path, injected.path)
                ):
                    injected.times -= 1
                    code = _CODE_FOR_STATUS.get(injected.status, INTERNAL)
                    raise ApiError(code, injected.message, http_status=injected.status)

    def _authenticate(self, headers: dict[str, str]) -> None:
        """The token or cookie check; 401 as ResourceManager.IsAuthorized answers it.

        backend/src/apiserver/resource/resource_manager.go, IsAuthorized: no user
        identity gives util.NewUnauthenticatedError, "Failed to check authorization.
        User identity is empty in the request header".
        """
        if self.token is None and self.cookie is None:
            return
        if self.token is not None and headers.get("authorization") == f"Bearer {self.token}":
            return
        if self.cookie is not None and self.cookie in headers.get("cookie", ""):
            return
        external = "Failed to check authorization. User identity is empty in the request header"
        raise ApiError(
            UNAUTHENTICATED,
            f"Unauthenticated: {external}: Request header error: there is no user identity header.",
            external,
        )

    def _authorize(self, namespace: str, verb: str, resource: str, headers: dict[str, str]) -> None:
        """Multi-user: refuse a namespace outside ``namespaces`` (PermissionDenied, 403).

        resource_manager.go, IsAuthorized: a SubjectAccessReview that is not allowed
        gives util.NewPermissionDeniedError("User '%s' is not authorized with reason:
        %s (request: %+v)").
        """
        if self.namespaces is None or namespace in self.namespaces:
            return
        user = headers.get("kubeflow-userid", DEFAULT_USER)
        external = (
            f"User '{user}' is not authorized with reason:  (request: &ResourceAttributes{{"
            f"Namespace:{namespace},Verb:{verb},Group:pipelines.kubeflow.org,Version:v1beta1,"
            f"Resource:{resource},}})"
        )
        raise ApiError(
            PERMISSION_DENIED, f"PermissionDenied: {external}: Unauthorized access", external
        )

    # Spec checks.

    def _check_model(self, value: Any, type_name: str, where: str, attr: str = "") -> list[str]:
        """Why ``value`` is not a JSON ``type_name`` of kfp_server_api.models; [] if it is."""
        if value is None:
            return []
        if type_name.startswith("list["):
            if not isinstance(value, list):
                return [f"{where} must be a list"]
            inner = type_name[5:-1]
            return [
                p for i, v in enumerate(value) for p in self._check_model(v, inner, f"{where}[{i}]")
            ]
        if type_name.startswith("dict("):
            if not isinstance(value, dict):
                return [f"{where} must be an object"]
            inner = type_name[type_name.index(",") + 1 : -1].strip()
            return [
                p for k, v in value.items() for p in self._check_model(v, inner, f"{where}.{k}")
            ]
        if type_name == "object":
            # protobuf Struct (pipeline_spec) or Value (a run-time parameter).
            if attr == "pipeline_spec" and not isinstance(value, dict):
                return [f"{where} must be a JSON object (a PipelineSpec)"]
            return []
        if type_name == "str":
            if attr in _INT64_FIELDS:
                ok = (isinstance(value, int) and not isinstance(value, bool)) or (
                    isinstance(value, str) and re.fullmatch(r"-?\d+", value) is not None
                )
                return [] if ok else [f"{where} must be an int64 (number or decimal string)"]
            return [] if isinstance(value, str) else [f"{where} must be a string"]
        if type_name == "int":
            ok = isinstance(value, int) and not isinstance(value, bool)
            return [] if ok else [f"{where} must be an integer"]
        if type_name == "bool":
            return [] if isinstance(value, bool) else [f"{where} must be a boolean"]
        if type_name == "datetime":
            try:
                datetime.fromisoformat(str(value).replace("Z", "+00:00"))
            except ValueError:
                return [f"{where} must be an RFC 3339 timestamp"]
            return []
        klass = getattr(models, type_name)
        allowed = getattr(klass, "allowable_values", None)
        if allowed is not None:
            return (
                []
                if value in allowed
                else [f"{where}: {value!r} is not one of {type_name} {allowed}"]
            )
        if not isinstance(value, dict):
            return [f"{where} must be an object ({type_name})"]
        by_json = {j: a for a, j in klass.attribute_map.items()}
        problems = [f"{where}.{k}: no such field in {type_name}" for k in value if k not in by_json]
        for key, item in value.items():
            if key in by_json:
                name = by_json[key]
                problems += self._check_model(
                    item, klass.openapi_types[name], f"{where}.{key}", name
                )
        if not problems:
            # The generated client's own deserializer must take it too.
            try:
                self._client.deserialize(SimpleNamespace(data=json.dumps(value)), type_name)
            except (ValueError, TypeError, kfp_server_api.ApiException) as err:
                problems.append(f"{where}: {type_name} does not deserialize: {err}")
        return problems

    def _parse_body(self, headers: dict[str, str], raw: bytes, multipart: bool) -> Any:
        """The JSON body, or the multipart form of an upload."""
        content_type = headers.get("content-type", "")
        if multipart:
            # Not a form: the upload handler's r.FormFile fails (see _upload_file).
            if not content_type.startswith("multipart/form-data"):
                return None
            return _parse_multipart(content_type, raw)
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError as err:
            # grpc-gateway: the body does not unmarshal into the request message.
            raise _gateway_violation(f"the body is not JSON: {err}") from err

    # List options: backend/src/apiserver/server/list_request_util.go.

    def _page(
        self,
        items: list[Any],
        query: dict[str, str],
        keys: dict[str, str],
        default_sort: str,
    ) -> tuple[list[Any], int, str | None]:
        """Filter, sort and page ``items``: (page, total size, next page token)."""
        raw = query.get("filter", "")
        # Checked before any row is read: a bad filter fails on an empty table too.
        _filter_matches(SimpleNamespace(), raw, keys)
        items = [i for i in items if _filter_matches(i, raw, keys)]
        sort_by = query.get("sort_by", "")
        fields = sort_by.lower().split()
        # parseSortByQueryString: "field", "field asc" or "field desc".
        if len(fields) > 2 or (len(fields) == 2 and fields[1] not in ("asc", "desc")):
            raise _violation(
                f"Invalid query string: Received invalid sort by format '{sort_by}'. Supported "
                'format: "field_name", "field_name desc", or "field_name asc"'
            )
        if fields and fields[0] not in keys:
            raise _violation(
                f"Cannot sort on field {fields[0]}. Supported fields [{', '.join(keys)}]"
            )
        attr = keys[fields[0]] if fields else default_sort
        desc = len(fields) == 2 and fields[1] == "desc"
        # Ties: the server orders by the key (a uuid), here by creation order.
        items.sort(
            key=lambda i: (_sortable(getattr(i, attr, None)), self._order.get(_ident(i), 0)),
            reverse=desc,
        )
        try:
            size = int(query.get("page_size", "0") or 0)
        except ValueError as err:
            raise _gateway_violation(f"page_size {query['page_size']!r} is not an int32") from err
        if size < 0:
            raise _violation(f"The page size should be greater than 0. Got {size}")
        # validatePagination: 0 means the default 20, at most 200.
        size = min(size or 20, 200)
        offset = 0
        token = query.get("page_token", "")
        if token:
            try:
                offset = int(json.loads(base64.b64decode(token, validate=True))["offset"])
            except (ValueError, KeyError, TypeError, binascii.Error) as err:
                raise _violation("Invalid page token: Invalid package token") from err
        page = items[offset : offset + size]
        more = offset + size < len(items)
        next_token = (
            base64.b64encode(json.dumps({"offset": offset + size}).encode()).decode()
            if more
            else None
        )
        return page, len(items), next_token

    # Routes: healthz and pipelines.

    def _healthz(self, **_: Any) -> dict[str, Any]:
        """main.go writes this JSON itself (not a model).

        KFP 2.16.1 (main.go, startHTTPProxy) adds where pipelines are kept: "database",
        or "kubernetes" for the Kubernetes-native store this fake does not have.
        """
        answer = {"commit_sha": "unknown", "tag_name": "unknown", "multi_user": self.multi_user}
        if self.kfp_2_16:
            answer["pipeline_store"] = "database"
        return answer

    def _not_implemented(self, **_: Any) -> None:
        """A route of the generated client this fake does not serve."""
        raise _violation("the fake does not implement this route", UNIMPLEMENTED)

    def _upload_failure(
        self,
        route: str,
        stage: str,
        cause: str = "",
        *,
        http_status: int = 400,
        go_error: bool = False,
        violation: bool = False,
    ) -> ApiError:
        """A failure of an upload route, as pipeline_upload_server.go answers it.

        KFP 2.0.5 answers util.Wrap(cause, message): a KFP UserError stays one, whose
        "%+v" (error_details) is its message again; a plain Go error (``go_error``) is
        wrapped by github.com/pkg/errors, whose "%+v" is the cause, the message and a
        stack trace. KFP 2.16.1 answers errors.New(message): the message, then a stack.
        """
        first, fixed = _UPLOAD_FAILURES[(route, stage)]
        handler = "uploadPipeline" if route == "upload" else "uploadPipelineVersion"
        if self.kfp_2_16:
            message, details = fixed, fixed + _go_stack(handler)
        else:
            message = f"{first}: {cause}" if cause else first
            details = message
            if go_error:
                details = (f"{cause}\n{first}" if cause else first) + _go_stack(handler)
        code = INTERNAL if http_status >= 500 else INVALID_ARGUMENT
        return ApiError(
            code, message, http_status=http_status, violation=violation, details=details
        )

    def _upload_file(self, route: str, form: Any) -> tuple[str, bytes]:
        """The uploaded file's name and bytes: r.FormFile(FormFileKey), 400 without one.

        Go's multipart reader gives the file name without its folders (filepath.Base).
        """
        if form is None:
            cause = "request Content-Type isn't multipart/form-data"
        elif not isinstance(form.get("uploadfile"), dict):
            cause = "http: no such file"
        else:
            file = form["uploadfile"]
            return str(file["filename"]).rsplit("/", 1)[-1], file["content"]
        raise self._upload_failure(route, "file", cause, go_error=True, violation=True)

    def _read_spec(self, route: str, filename: str) -> None:
        """server/util.go, ReadPipelineFile: YAML, JSON, zip and tar.gz, read later.

        This fake reads YAML and JSON only; the file is parsed with the template
        (``_template``).
        """
        if not filename.endswith((".yaml", ".yml", ".json")):
            raise self._upload_failure(
                route,
                "spec",
                f"this fake reads only .yaml, .yml and .json packages, not {filename!r}",
                violation=True,
            )

    def _template(self, route: str, content: bytes) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The PipelineSpec (and platform specs) of an upload, if template.New takes it.

        resource_manager.go, CreatePipelineAndPipelineVersion and CreatePipelineVersion
        (2.0.5 and 2.16.1): "... due to template creation error", answered with 500.
        """
        wrap = _UPLOAD_FAILURES[(route, "create")][0]
        docs, problems = _spec_documents(content)
        if problems:
            cause = f"{wrap} due to template creation error: {'; '.join(problems)}"
            raise self._upload_failure(route, "create", cause, http_status=500)
        return docs[0], docs[1:]

    def _upload_names(self, query: dict[str, str], filename: str) -> tuple[str, str]:
        """(name, display name) of an uploaded pipeline or version.

        pipeline_server.go, buildPipelineName. KFP 2.0.5: the name query parameter,
        else the file's name as sent, extension and all; a pipeline has one name.
        KFP 2.16.1: name, else display_name, else the file's name; the display name is
        display_name, else that name (pipeline_upload_server.go).
        """
        if not self.kfp_2_16:
            name = query.get("name") or filename
            return name, name
        name = query.get("name") or query.get("display_name") or filename
        return name, query.get("display_name") or name

    def _too_long(self, model: str, field_name: str, value: str) -> str | None:
        """KFP 2.16.1's length check (validation/length.go), or None when it passes.

        KFP 2.0.5 has no such check: its database refuses what does not fit.
        """
        limit = _MAX_LENGTH[(model, field_name)]
        if self.kfp_2_16 and len(value.encode()) > limit:
            return f"{model}.{field_name} length cannot exceed {limit}"
        return None

    def _check_length(self, model: str, field_name: str, value: str) -> None:
        """KFP 2.16.1 pipeline_upload_server.go, ValidateFieldLength: http.Error, 400."""
        problem = self._too_long(model, field_name, value)
        if problem:
            message = f"Invalid input error: {problem}"
            raise ApiError(INVALID_ARGUMENT, message, http_status=400, plain=True)

    def _duplicate(self, route: str, cause: str) -> ApiError:
        """An upload the store's unique index refuses (AlreadyExists).

        KFP 2.0.5 answers any failure to create with 500; KFP 2.16.1 answers
        AlreadyExists with 409 (util.IsUserErrorCodeMatch), the rest with 500.
        """
        status = 409 if self.kfp_2_16 else 500
        return self._upload_failure(route, "create", cause, http_status=status)

    def _upload(self, body: Any, query: dict[str, str], headers: dict[str, str], **_: Any) -> Any:
        """POST /pipelines/upload: a pipeline and its first version (pipeline_upload_server.go)."""
        filename, content = self._upload_file("upload", body)
        self._read_spec("upload", filename)
        self._check_length("Pipeline", "Namespace", query.get("namespace", ""))
        # ReplaceNamespace (resource_manager.go): single-user mode drops the namespace.
        namespace = query.get("namespace", "") if self.namespaces is not None else ""
        if namespace:
            # canUploadVersionedPipeline: an empty namespace (a shared pipeline) skips
            # authorization, at 2.16.1 too (unlike POST /pipelines).
            self._authorize_upload("upload", namespace, headers)
        name, display = self._upload_names(query, filename)
        self._check_length("Pipeline", "Name", name)
        spec, platform = self._template("upload", content)
        if self._pipeline_exists(name, namespace):
            # storage/pipeline_store.go, CreatePipelineAndPipelineVersion: the
            # (name, namespace) unique index.
            raise self._duplicate(
                "upload",
                "Failed to create a pipeline and a pipeline version: Already exist error: Failed "
                f"to create a new pipeline. The name {name} already exists. Please specify a new "
                "name",
            )
        description = query.get("description", "")
        pipeline = self._add_pipeline(name, display, description, namespace)
        self._add_version(pipeline, name, display, description, spec, platform)
        # The v2beta1 upload answers the pipeline only (toApiPipeline).
        return pipeline

    def _authorize_upload(self, route: str, namespace: str, headers: dict[str, str]) -> None:
        """canUploadVersionedPipeline: an authorization error is answered with 400 there."""
        try:
            self._authorize(namespace, "create", "pipelines", headers)
        except ApiError as err:
            cause = f"Authorization Failure: {err.message}"
            raise self._upload_failure(route, "auth", cause) from err

    def _create_pipeline(self, body: dict[str, Any], headers: dict[str, str], **_: Any) -> Any:
        """POST /pipelines: a pipeline without versions (pipeline_server.go, CreatePipeline)."""
        wrap = "Failed to create a pipeline due to server error"
        # ReplaceNamespace (resource_manager.go): single-user mode drops the namespace.
        namespace = body.get("namespace", "") if self.namespaces is not None else ""
        if self.kfp_2_16:
            name, display = self._new_pipeline_2_16(body, namespace, headers, wrap)
        else:
            name = display = self._new_pipeline_2_0_5(body, namespace, headers, wrap)
        if self._pipeline_exists(name, namespace):
            # storage/pipeline_store.go, CreatePipeline: the (name, namespace) unique index.
            raise ApiError(
                ALREADY_EXISTS,
                f"{wrap}: Failed to create a pipeline in PipelineStore: Already exist error: "
                f"Failed to create a new pipeline. The name {name} already exist. Please specify "
                "a new name",
            )
        return self._add_pipeline(name, display, body.get("description", ""), namespace)

    def _new_pipeline_2_0_5(
        self, body: dict[str, Any], namespace: str, headers: dict[str, str], wrap: str
    ) -> str:
        """KFP 2.0.5: the name is display_name (api_converter.go, toModelPipeline).

        pipeline_server.go, createPipeline authorizes first (canAccessPipeline: a
        shared pipeline skips it); resource_manager.go, CreatePipeline refuses no name.
        """
        if namespace:
            self._authorize(namespace, "create", "pipelines", headers)
        name = body.get("display_name", "")
        if not name:
            raise _violation(f"{wrap}: Invalid input error: pipeline's name cannot be empty")
        return name

    def _new_pipeline_2_16(
        self, body: dict[str, Any], namespace: str, headers: dict[str, str], wrap: str
    ) -> tuple[str, str]:
        """KFP 2.16.1: (name, display name) of a new pipeline.

        api_converter.go, toModelPipeline: name, else display_name; display_name,
        else name; then the lengths (500 there). pipeline_server.go, createPipeline:
        no name is "name is required", then canAccessPipeline authorizes.
        """
        name = body.get("name") or body.get("display_name", "")
        for field_name, value in (("Name", name), ("Namespace", body.get("namespace", ""))):
            problem = self._too_long("Pipeline", field_name, value)
            if problem:
                raise ApiError(
                    INTERNAL,
                    "Failed to create a pipeline as pipeline conversion failed: "
                    "InternalServerError: Failed to convert API pipeline to model pipeline: "
                    f"Invalid input error: {problem}",
                    "Internal Server Error",
                )
        if not name:
            raise _violation(f"{wrap}: Invalid input error: name is required")
        self._authorize_pipeline_write(namespace, headers, wrap)
        return name, body.get("display_name") or name

    def _authorize_pipeline_write(self, namespace: str, headers: dict[str, str], wrap: str) -> None:
        """KFP 2.16.1 pipeline_server.go, canAccessPipeline for the create verb.

        A shared pipeline (no namespace) in multi-user mode is authorized against KFP's
        own namespace (common.GetPodNamespace); KFP 2.0.5 skipped the check for it.
        """
        try:
            self._authorize(namespace or SYSTEM_NAMESPACE, "create", "pipelines", headers)
        except ApiError as err:
            access = (
                f"Failed to access pipeline . Check if you have access to namespace {namespace}"
                if namespace
                else "Failed to access shared pipeline . Check if you have permission to "
                "create shared pipelines"
            )
            raise _wrapped(
                err,
                f"{wrap}: Failed to create a pipeline due to authorization error. Check if you "
                f"have write permissions to namespace {namespace}: {access}",
            ) from err

    def _pipeline_exists(self, name: str, namespace: str) -> bool:
        """A pipeline of that name in that namespace: the store's unique index."""
        return any(
            _name_of(p) == name and (p.namespace or "") == namespace
            for p in self.pipelines.values()
        )

    def _add_pipeline(
        self, name: str, display: str, description: str, namespace: str
    ) -> models.V2beta1Pipeline:
        """Store a pipeline without versions."""
        pipeline = models.V2beta1Pipeline(
            pipeline_id=str(uuid.uuid4()),
            display_name=display,
            description=_none_if_empty(description),
            created_at=_now(),
            namespace=_none_if_empty(namespace),
        )
        if self.kfp_2_16:
            # api_converter.go (2.16.1), toApiPipeline answers the name beside the display name.
            pipeline.name = name
        self._remember(pipeline.pipeline_id, self.pipelines, pipeline)
        return pipeline

    def _add_version(
        self,
        pipeline: models.V2beta1Pipeline,
        name: str,
        display: str,
        description: str,
        spec: dict[str, Any],
        platform: list[dict[str, Any]],
    ) -> models.V2beta1PipelineVersion:
        """Store a version of ``pipeline``; the spec is kept as its pipeline_spec."""
        version = models.V2beta1PipelineVersion(
            pipeline_id=pipeline.pipeline_id,
            pipeline_version_id=str(uuid.uuid4()),
            display_name=display,
            description=_none_if_empty(description),
            created_at=_now(),
            # toApiPipelineVersion: a spec with platform specs is answered as
            # {"pipeline_spec": ..., "platform_spec": ...}; a lone spec as itself.
            pipeline_spec={"pipeline_spec": spec, "platform_spec": platform[0]}
            if platform
            else spec,
        )
        if self.kfp_2_16:
            # api_converter.go (2.16.1), toApiPipelineVersion: the name too.
            version.name = name
        self._remember(version.pipeline_version_id, self.versions, version)
        return version

    def _upload_version(
        self, body: Any, query: dict[str, str], headers: dict[str, str], **_: Any
    ) -> Any:
        """POST /pipelines/upload_version (pipeline_upload_server.go, uploadPipelineVersion)."""
        route = "upload_version"
        filename, content = self._upload_file(route, body)
        self._read_spec(route, filename)
        pipeline_id = query.get("pipelineid", "")
        if not pipeline_id:
            # Optional in the generated client, required by the server (400).
            raise self._upload_failure(route, "pipelineid", go_error=True, violation=True)
        name, display = self._upload_names(query, filename)
        self._check_length("PipelineVersion", "Name", name)
        pipeline = self.pipelines.get(pipeline_id)
        if pipeline is None:
            raise self._upload_failure(
                route,
                "namespace",
                f"Failed to get namespace for pipeline id {pipeline_id}: ResourceNotFoundError: "
                f"Pipeline {pipeline_id} not found",
            )
        if pipeline.namespace:
            self._authorize_upload(route, pipeline.namespace, headers)
        spec, platform = self._template(route, content)
        if any(
            v.pipeline_id == pipeline_id and _name_of(v) == name for v in self.versions.values()
        ):
            # storage/pipeline_store.go, CreatePipelineVersion: (pipeline id, name) is unique.
            raise self._duplicate(
                route,
                "Failed to create pipeline version in PipelineStore: Already exist error: Failed "
                f"to create a new pipeline version. The name {name} already exist. Specify a new "
                "name",
            )
        description = query.get("description", "")
        return self._add_version(pipeline, name, display, description, spec, platform)

    def _pipeline(
        self, pipeline_id: str, wrap: str, headers: dict[str, str]
    ) -> models.V2beta1Pipeline:
        """The pipeline, authorized (pipeline_server.go, canAccessPipeline)."""
        pipeline = self.pipelines.get(pipeline_id)
        if pipeline is None:
            raise _not_found("Pipeline", pipeline_id, wrap)
        if pipeline.namespace:
            self._authorize(pipeline.namespace, "get", "pipelines", headers)
        return pipeline

    def _list_pipelines(self, query: dict[str, str], headers: dict[str, str], **_: Any) -> Any:
        """GET /pipelines (pipeline_server.go, ListPipelines)."""
        namespace = query.get("namespace", "") if self.namespaces is not None else ""
        if namespace:
            # canAccessPipeline: an empty namespace lists the shared pipelines unchecked.
            self._authorize(namespace, "list", "pipelines", headers)
        items = [p for p in self.pipelines.values() if (p.namespace or "") == namespace]
        keys = _PIPELINE_KEYS_2_16 if self.kfp_2_16 else _PIPELINE_KEYS
        page, total, token = self._page(items, query, keys, "created_at")
        return models.V2beta1ListPipelinesResponse(
            pipelines=page or None, total_size=total or None, next_page_token=token
        )

    def _get_pipeline(self, pid: str, headers: dict[str, str], **_: Any) -> Any:
        """GET /pipelines/{id}."""
        return self._pipeline(pid, "Failed to get pipeline", headers)

    def _get_pipeline_by_name(
        self, name: str, query: dict[str, str], headers: dict[str, str], **_: Any
    ) -> Any:
        """GET /pipelines/names/{name}: broken in KFP 2.0.5, so broken here; works at 2.16.1.

        KFP 2.0.5 pipeline_server.go, GetPipelineByName passes "v2beta1" to
        getPipelineByName, whose switch expects "V2beta1": every call ends in its
        default case, 500. KFP 2.16.1 fixed the case (``_pipeline_named``).
        """
        if self.kfp_2_16:
            return self._pipeline_named(unquote(name), query, headers)
        raise _internal(
            "Failed to get a pipeline by name and namespace. API request version v2beta1",
            "Invalid input error: Invalid api version detected",
        )

    def _pipeline_named(
        self, name: str, query: dict[str, str], headers: dict[str, str]
    ) -> models.V2beta1Pipeline:
        """KFP 2.16.1 pipeline_server.go, getPipelineByName: the newest pipeline of that Name.

        storage/pipeline_store.go, GetPipelineByNameAndNamespace: no namespace matches
        every namespace; canAccessPipeline reads a shared pipeline unchecked.
        """
        namespace = query.get("namespace", "") if self.namespaces is not None else ""
        wrap = (
            f"Failed to get a pipeline with name {name} and namespace {namespace}. Check error "
            "stack."
        )
        if namespace:
            try:
                self._authorize(namespace, "get", "pipelines", headers)
            except ApiError as err:
                raise _wrapped(
                    err,
                    f"{wrap}: Failed to fetch a pipeline due to authorization error. Check if "
                    f"you have read permission to namespace {namespace}: Failed to access "
                    f"pipeline . Check if you have access to namespace {namespace}",
                ) from err
        found = [
            p
            for p in self.pipelines.values()
            if _name_of(p) == name and (not namespace or (p.namespace or "") == namespace)
        ]
        if not found:
            raise _not_found(
                "Namespace/Pipeline",
                f"{namespace}/{name}",
                f"{wrap}: Failed to get a pipeline named {name} in namespace {namespace}",
            )
        return max(found, key=lambda p: (p.created_at, self._order[p.pipeline_id]))

    def _list_versions(
        self, pid: str, query: dict[str, str], headers: dict[str, str], **_: Any
    ) -> Any:
        """GET /pipelines/{id}/versions (pipeline_server.go, ListPipelineVersions)."""
        self._pipeline(
            pid,
            "Failed to list pipeline versions due to error fetching the namespace for pipeline "
            f"{pid}",
            headers,
        )
        items = [v for v in self.versions.values() if v.pipeline_id == pid]
        keys = _VERSION_KEYS_2_16 if self.kfp_2_16 else _VERSION_KEYS
        page, total, token = self._page(items, query, keys, "created_at")
        return models.V2beta1ListPipelineVersionsResponse(
            pipeline_versions=page or None, total_size=total or None, next_page_token=token
        )

    def _get_version(self, pid: str, vid: str, headers: dict[str, str], **_: Any) -> Any:
        """GET /pipelines/{id}/versions/{vid}: looked up by version id alone, as the server does."""
        version = self.versions.get(vid)
        if version is None:
            raise _not_found("PipelineVersion", vid, f"Failed to get a pipeline version {vid}")
        self._pipeline(version.pipeline_id, "Failed to get a pipeline version", headers)
        return version

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

    def _remember(self, ident: str, table: dict[str, Any], item: Any) -> None:
        """Store ``item`` and its creation order (the tie-break of sorting)."""
        table[ident] = item
        self._order[ident] = len(self._order)


def _handler_for(fake: FakeKfpApi) -> type[BaseHTTPRequestHandler]:
    """A request handler class bound to ``fake``."""

    class Handler(BaseHTTPRequestHandler):
        """Hands every request to the fake."""

        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            """Read the request, answer what the fake says."""
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            status, content, content_type = fake._handle(self.command, self.path, headers, raw)
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            # The client may have gone away (a command stopped by Ctrl-C): nothing to answer.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(content)

        # BaseHTTPRequestHandler's names for the method handlers.
        do_GET = _serve  # noqa: N815
        do_POST = _serve  # noqa: N815
        do_DELETE = _serve  # noqa: N815
        do_PUT = _serve  # noqa: N815
        do_PATCH = _serve  # noqa: N815

        def log_message(self, *_args: Any) -> None:
            """Quiet: the calls are in ``fake.calls``."""

    return Handler


def _error_body(err: ApiError, upload: bool, kfp_2_16: bool) -> tuple[bytes, str]:
    """The error body the real server writes for this route, and its content type."""
    if err.plain:
        # Go's http.Error: the text and a newline.
        return f"{err.message}\n".encode(), "text/plain; charset=utf-8"
    if upload:
        # pipeline_upload_server.go, writeErrorToResponse: an apiv1beta1.Error.
        details = err.details or err.message
        return json.dumps({"error_message": err.message, "error_details": details}).encode(), JSON
    body: dict[str, Any] = {"code": err.code, "message": err.message}
    if err.rpc_detail:
        # UserError.GRPCStatus puts the external message in a google.rpc.Status detail
        # (backend/src/common/util/error.go, 2.0.5 and 2.16.1).
        detail = {
            "@type": "type.googleapis.com/google.rpc.Status",
            "code": err.code,
            "message": err.external,
        }
        body["details"] = [detail]
    if not kfp_2_16:
        # KFP 2.0.5: grpc-gateway v1.16 runtime/errors.go, DefaultHTTPError, repeats the
        # message as "error". KFP 2.16.1: grpc-gateway v2.27.1 DefaultHTTPErrorHandler
        # writes the google.rpc.Status alone (main.go, startHTTPProxy).
        body = {"error": err.message, **body}
    return json.dumps(body).encode(), JSON


def _spec_documents(content: bytes) -> tuple[list[Any], list[str]]:
    """The YAML documents of a package, and why the first is no PipelineSpec KFP takes."""
    try:
        docs = [d for d in yaml.safe_load_all(content) if d is not None]
    except yaml.YAMLError as err:
        return [], [f"invalid YAML: {err}"]
    if not docs or not isinstance(docs[0], dict):
        return docs, ["no pipeline spec in the file"]
    return docs, backend_rules.upload_problems(docs[0])


def _go_stack(handler: str) -> str:
    """What github.com/pkg/errors' "%+v" adds after a message: the stack it was made on."""
    server = "github.com/kubeflow/pipelines/backend/src/apiserver/server"
    return (
        f"\n{server}.(*PipelineUploadServer).{handler}\n"
        f"\t/go/src/{server}/pipeline_upload_server.go\n"
        "net/http.HandlerFunc.ServeHTTP\n\t/usr/local/go/src/net/http/server.go"
    )


def _name_of(item: Any) -> str:
    """The Name a store's unique index holds: KFP 2.16.1's name, else the display name."""
    return getattr(item, "name", None) or item.display_name


def _parse_multipart(content_type: str, raw: bytes) -> dict[str, Any]:
    """The form of a multipart/form-data body: fields as strings, files as dicts."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + raw
    )
    form: dict[str, Any] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        filename = part.get_filename()
        content = part.get_payload(decode=True) or b""
        form[str(name)] = (
            {"filename": filename, "content": content} if filename else content.decode()
        )
    return form


def _runtime_config(body: dict[str, Any]) -> models.V2beta1RuntimeConfig | None:
    """The request's runtime config as the server echoes it."""
    config = body.get("runtime_config") or {}
    if not config:
        return None
    return models.V2beta1RuntimeConfig(
        parameters=config.get("parameters") or None,
        pipeline_root=_none_if_empty(config.get("pipeline_root", "")),
    )


def _path_matches(path: str, pattern: str) -> bool:
    """``path`` ends with ``pattern``, or ``pattern`` as a regex matches all of it."""
    if path.endswith(pattern):
        return True
    try:
        return re.fullmatch(pattern, path) is not None
    except re.error:
        return False


def _ident(item: Any) -> str:
    """The id of a stored model."""
    for attr in (
        "pipeline_version_id",
        "run_id",
        "recurring_run_id",
        "experiment_id",
        "pipeline_id",
    ):
        value = getattr(item, attr, None)
        if value:
            return value
    return ""


def _sortable(value: Any) -> tuple[int, Any]:
    """A sort key that puts missing values first and never compares across types."""
    if value is None:
        return (0, "")
    if isinstance(value, datetime):
        return (1, value.timestamp())
    return (2, str(value))


_DESCRIPTORS = ("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly")
_CRON_FIELD = re.compile(
    r"(\*|\?|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(/\d+)?(,(\*|\?|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(/\d+)?)*"
)


def _cron_parses(spec: str) -> bool:
    """Whether robfig/cron v1.2.0's Parse takes ``spec``.

    Its parser.go: a descriptor (@daily, @every 1h, ...), or 5 or 6 fields whose
    first is the seconds ("0 0 * * *" fires every hour, not daily).
    """
    if spec.startswith("@"):
        return (
            spec in _DESCRIPTORS
            or re.fullmatch(r"@every \d+(\.\d+)?(ns|us|ms|s|m|h)([\d.]+(ns|us|ms|s|m|h))*", spec)
            is not None
        )
    fields = spec.split()
    return len(fields) in (5, 6) and all(_CRON_FIELD.fullmatch(f) for f in fields)


def _filter_matches(item: Any, raw: str, keys: dict[str, str]) -> bool:
    """Whether ``item`` passes the JSON filter ``raw`` (all predicates hold).

    backend/src/apiserver/server/list_request_util.go, parseAPIFilter (jsonpb: proto
    or lowerCamel field names, an operation by name or number) and
    backend/src/apiserver/filter/filter.go (checkPredicate, the key map).
    """
    if not raw:
        return True
    try:
        spec = json.loads(raw)
    except ValueError as err:
        raise _violation(f"failed to parse valid filter from {raw!r}: {err}") from err
    if not isinstance(spec, dict) or set(spec) - {"predicates"}:
        raise _violation(f"failed to parse valid filter from {raw!r}: a Filter has only predicates")
    return all(_predicate_holds(item, p, keys, raw) for p in spec.get("predicates") or [])


_PREDICATE_FIELDS = {
    "operation": "operation",
    "key": "key",
    "intValue": "int_value",
    "longValue": "long_value",
    "stringValue": "string_value",
    "timestampValue": "timestamp_value",
    "intValues": "int_values",
    "longValues": "long_values",
    "stringValues": "string_values",
}


def _predicate_holds(item: Any, predicate: Any, keys: dict[str, str], raw: str) -> bool:
    """One predicate of a filter, checked as filter.go checks it, then applied."""
    if not isinstance(predicate, dict):
        raise _violation(f"failed to parse valid filter from {raw!r}: a predicate is an object")
    fields = {}
    for name, value in predicate.items():
        proto = _PREDICATE_FIELDS.get(name, name)
        if proto not in _PREDICATE_FIELDS.values():
            raise _violation(
                f"failed to parse valid filter from {raw!r}: unknown field {name!r} in Predicate"
            )
        fields[proto] = value
    operation = fields.get("operation", "OPERATION_UNSPECIFIED")
    operation = (
        _OPERATION_NUMBERS.get(operation, operation) if isinstance(operation, int) else operation
    )
    if operation not in models.V2beta1PredicateOperation.allowable_values:
        raise _violation(
            f"failed to parse valid filter from {raw!r}: unknown operation {operation!r}"
        )
    key = fields.get("key", "")
    values = [
        fields[v]
        for v in ("int_value", "long_value", "string_value", "timestamp_value")
        if v in fields
    ]
    lists = [fields[v] for v in ("int_values", "long_values", "string_values") if v in fields]
    if not key:
        raise _violation(f"Predicate key cannot be empty for operation {operation}")
    if key not in keys:
        raise _violation(
            f'Invalid input error: no support for filtering on unrecognized field "{key}"'
        )
    if operation == "IN":
        if not lists or not isinstance(lists[0], dict):
            raise _violation("cannot use IN operator with scalar type")
        wanted = [str(v) for v in lists[0].get("values") or []]
    elif operation == "OPERATION_UNSPECIFIED":
        raise _violation(f"invalid predicate operation: {operation}")
    else:
        if lists or not values:
            raise _violation(f"cannot use scalar operator {operation} on array type")
        wanted = values[0]
        if (
            operation == "IS_SUBSTRING"
            and not isinstance(wanted, str)
            or "timestamp_value" in fields
            and operation == "IS_SUBSTRING"
        ):
            raise _violation(f"cannot use non string value type with operator {operation}")
    actual = getattr(item, keys[key], None)
    if isinstance(actual, datetime):
        actual_cmp: Any = actual.timestamp()
        if isinstance(wanted, str):
            wanted = datetime.fromisoformat(wanted.replace("Z", "+00:00")).timestamp()
    else:
        actual_cmp = "" if actual is None else actual
        if isinstance(wanted, (int, float)) or (isinstance(wanted, str) and "long_value" in fields):
            try:
                actual_cmp, wanted = float(actual_cmp), float(wanted)
            except ValueError:
                return False
    return _compare(operation, actual_cmp, wanted)


def _compare(operation: str, actual: Any, wanted: Any) -> bool:
    """filter.go, AddToSelect: the SQL each operation becomes, on one value."""
    if operation == "IN":
        return str(actual) in wanted
    if operation == "IS_SUBSTRING":
        return str(wanted) in str(actual)
    try:
        return {
            "EQUALS": actual == wanted,
            "NOT_EQUALS": actual != wanted,
            "GREATER_THAN": actual > wanted,
            "GREATER_THAN_EQUALS": actual >= wanted,
            "LESS_THAN": actual < wanted,
            "LESS_THAN_EQUALS": actual <= wanted,
        }[operation]
    except TypeError:
        return False


@pytest.fixture
def kfp_api() -> Iterator[FakeKfpApi]:
    """A fresh fake KFP API server (single-user, no auth), closed after the test."""
    with FakeKfpApi() as fake:
        yield fake

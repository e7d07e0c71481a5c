"""``FakeKfpApi``: the fake server's state, routing, authentication and spec checks; ``kfp_api``."""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import re
import threading
from collections.abc import Callable, Iterator
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace
from typing import Any
from urllib.parse import parse_qs, urlsplit

import kfp_server_api
import pytest
from kfp_server_api import models

from fake_kfp.experiments import ExperimentRoutes
from fake_kfp.pipelines import PipelineRoutes
from fake_kfp.recurring_runs import RecurringRunRoutes
from fake_kfp.rules import (
    _CODE_FOR_STATUS,
    _INT64_FIELDS,
    _LIST_QUERY,
    API,
    DEFAULT_USER,
    INTERNAL,
    JSON,
    NOT_FOUND,
    PERMISSION_DENIED,
    RELEASE,
    RELEASES,
    UNAUTHENTICATED,
    UNIMPLEMENTED,
    ApiError,
    Call,
    _error_body,
    _filter_matches,
    _gateway_violation,
    _ident,
    _Injected,
    _parse_multipart,
    _path_matches,
    _Route,
    _RunRecord,
    _Serializer,
    _sortable,
    _violation,
)
from fake_kfp.runs import RunRoutes


class FakeKfpApi(PipelineRoutes, ExperimentRoutes, RunRoutes, RecurringRunRoutes):
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


@pytest.fixture
def kfp_api() -> Iterator[FakeKfpApi]:
    """A fresh fake KFP API server (single-user, no auth), closed after the test."""
    with FakeKfpApi() as fake:
        yield fake

"""The rules of KFP's API server the services share: releases, errors, filters, sorting, cron."""

from __future__ import annotations

import email.parser
import email.policy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import kfp_server_api
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

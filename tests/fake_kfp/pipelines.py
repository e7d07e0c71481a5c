"""Healthz and the pipeline service: uploads, pipelines and their versions."""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import unquote

from kfp_server_api import models

from fake_kfp.rules import (
    _MAX_LENGTH,
    _PIPELINE_KEYS,
    _PIPELINE_KEYS_2_16,
    _UPLOAD_FAILURES,
    _VERSION_KEYS,
    _VERSION_KEYS_2_16,
    ALREADY_EXISTS,
    INTERNAL,
    INVALID_ARGUMENT,
    SYSTEM_NAMESPACE,
    UNIMPLEMENTED,
    ApiError,
    _go_stack,
    _internal,
    _name_of,
    _none_if_empty,
    _not_found,
    _now,
    _spec_documents,
    _violation,
    _wrapped,
)


class PipelineRoutes:
    """Healthz and the pipeline service: uploads, pipelines and their versions.

    A part of ``FakeKfpApi`` (``fake_kfp.server``), whose state and routing it uses.
    """

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

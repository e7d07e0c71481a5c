"""The fake KFP API server answers kfp_server_api's generated client as KFP's API server does.

The client is the stack's own: kfp-server-api 2.0.5 (legacy) or 2.16.1 (current), each
through ``kubeflow.operator.api.Service``, which calls an operation by its name in
the API whichever way the generated client spells it. The fake follows the server of
the client's release (KFP 2.0.5 or 2.16.1); the tests of what differs between the two
run both on either stack (``FakeKfpApi(release=...)``), reading the JSON answered where
the older client's models would drop a field.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import kfp_server_api
import pytest
import yaml
from fake_kfp.rules import API, RELEASE, RELEASES, release_for
from fake_kfp.server import FakeKfpApi, kfp_api  # noqa: F401 - the fixture, used by name
from kfp_server_api import models

from kubeflow.harness import backend_rules
from kubeflow.operator.api import Service, services

SPEC = {
    "schemaVersion": "2.1.0",
    "sdkVersion": "kfp-2.5.0",
    "pipelineInfo": {"name": "tiny-pipeline"},
    "root": {
        "inputDefinitions": {
            "parameters": {"message": {"parameterType": "STRING", "defaultValue": "hello"}}
        },
        "dag": {
            "tasks": {
                "say": {
                    "taskInfo": {"name": "say"},
                    "componentRef": {"name": "comp-say"},
                    "inputs": {"parameters": {"message": {"componentInputParameter": "message"}}},
                }
            }
        },
    },
    "components": {
        "comp-say": {
            "executorLabel": "exec-say",
            "inputDefinitions": {"parameters": {"message": {"parameterType": "STRING"}}},
        }
    },
    "deploymentSpec": {
        "executors": {
            "exec-say": {
                "container": {
                    "image": "python:3.10-slim",
                    "command": ["echo"],
                    "args": ["{{$.inputs.parameters['message']}}"],
                }
            }
        }
    },
}
FILTER_BY_NAME = (
    '{{"predicates": [{{"operation": "{op}", "key": "display_name", "stringValue": "{v}"}}]}}'
)


@pytest.fixture
def fake() -> Iterator[FakeKfpApi]:
    """A single-user fake without auth."""
    with FakeKfpApi() as server:
        yield server


@pytest.fixture
def package(tmp_path: Path) -> str:
    """The tiny spec as a YAML package file."""
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(SPEC))
    return str(path)


def client_for(
    fake: FakeKfpApi, token: str | None = None, cookie: str | None = None
) -> kfp_server_api.ApiClient:
    """A generated ApiClient pointed at ``fake``, with a bearer token or cookie if given."""
    config = kfp_server_api.Configuration(host=fake.url)
    if token:
        config.api_key["authorization"] = token
        config.api_key_prefix["authorization"] = "Bearer"
    return kfp_server_api.ApiClient(config, cookie=cookie)


def upload(fake: FakeKfpApi, package: str, name: str = "tiny", **kw: str) -> models.V2beta1Pipeline:
    """Upload ``package`` as pipeline ``name``."""
    api = services(client_for(fake))["uploads"]
    return api.upload_pipeline(package, name=name, **kw)


def healthz(fake: FakeKfpApi) -> Service:
    """The health service, which the product does not call (kfp.Client probes it)."""
    return Service(kfp_server_api.HealthzServiceApi(client_for(fake)), "healthz_service")


def error_of(excinfo: pytest.ExceptionInfo[kfp_server_api.ApiException]) -> dict:
    """The JSON body of a refused call."""
    return json.loads(excinfo.value.body)


@pytest.fixture(params=RELEASES)
def either(request: pytest.FixtureRequest) -> Iterator[FakeKfpApi]:
    """A single-user fake following each KFP release in turn, whatever client is installed."""
    with FakeKfpApi(release=request.param) as server:
        yield server


def raw(
    fake: FakeKfpApi,
    method: str,
    path: str,
    query: dict[str, str] | None = None,
    body: dict | None = None,
    upload: str | None = None,
) -> tuple[int, Any]:
    """(status, body) of a request through the generated client's REST layer.

    The body is parsed JSON, or text when the server wrote none. ``upload``: a package
    sent as the uploadfile form field.
    """
    kind = "multipart/form-data" if upload else "application/json"
    files = None
    if upload:
        files = [("uploadfile", (Path(upload).name, Path(upload).read_bytes(), "text/yaml"))]
    try:
        answer = client_for(fake).rest_client.request(
            method,
            fake.url + API + path,
            query_params=list((query or {}).items()),
            headers={"Content-Type": kind},
            body=body,
            post_params=files,
        )
        status, data = answer.status, answer.data
    except kfp_server_api.ApiException as err:
        status, data = err.status, err.body
    text = data.decode() if isinstance(data, bytes) else data
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def run_of(pipeline_id: str, **fields: Any) -> models.V2beta1Run:
    """A run of the pipeline's latest version with the tiny spec's parameter."""
    return models.V2beta1Run(
        display_name="r",
        pipeline_version_reference=models.V2beta1PipelineVersionReference(pipeline_id=pipeline_id),
        runtime_config=models.V2beta1RuntimeConfig(parameters={"message": "hi"}),
        **fields,
    )


def test_the_test_spec_is_one_kfp_takes() -> None:
    """The spec the tests upload passes the server's own upload checks."""
    assert backend_rules.upload_problems(SPEC) == []
    assert backend_rules.compile_problems(SPEC) == []


def test_upload_versions_and_filters(fake: FakeKfpApi, package: str) -> None:
    """Upload, a second version, a refused duplicate version, filters and sorting."""
    pipeline = upload(fake, package, description="first")
    assert pipeline.display_name == "tiny" and pipeline.pipeline_id
    assert pipeline.created_at is not None
    uploads = services(client_for(fake))["uploads"]
    version = uploads.upload_pipeline_version(package, name="v2", pipelineid=pipeline.pipeline_id)
    assert version.pipeline_id == pipeline.pipeline_id
    assert version.pipeline_spec["pipelineInfo"]["name"] == "tiny-pipeline"

    # Refused as AlreadyExists: 500 from KFP 2.0.5's upload server, 409 from 2.16.1's.
    duplicate = 409 if fake.kfp_2_16 else 500
    with pytest.raises(kfp_server_api.ApiException) as dup:
        uploads.upload_pipeline_version(package, name="v2", pipelineid=pipeline.pipeline_id)
    assert dup.value.status == duplicate
    assert error_of(dup)["error_message"].startswith("Failed to create a pipeline version")
    with pytest.raises(kfp_server_api.ApiException) as dup_pipeline:
        upload(fake, package)
    assert dup_pipeline.value.status == duplicate

    pipelines = services(client_for(fake))["pipelines"]
    versions = pipelines.list_pipeline_versions(
        pipeline.pipeline_id, filter=FILTER_BY_NAME.format(op="EQUALS", v="v2")
    )
    assert [v.display_name for v in versions.pipeline_versions] == ["v2"]
    newest = pipelines.list_pipeline_versions(pipeline.pipeline_id, sort_by="created_at desc")
    assert [v.display_name for v in newest.pipeline_versions] == ["v2", "tiny"]
    assert newest.total_size == 2
    paged = pipelines.list_pipeline_versions(pipeline.pipeline_id, page_size=1)
    rest = pipelines.list_pipeline_versions(pipeline.pipeline_id, page_token=paged.next_page_token)
    assert [v.display_name for v in paged.pipeline_versions + rest.pipeline_versions] == [
        "tiny",
        "v2",
    ]
    assert rest.next_page_token is None

    # kfp.Client sends the operation as its number (client.py, _FILTER_OPERATIONS).
    found = pipelines.list_pipelines(
        filter=FILTER_BY_NAME.format(op=1, v="tiny").replace('"1"', "1")
    )
    assert [p.pipeline_id for p in found.pipelines] == [pipeline.pipeline_id]
    none = pipelines.list_pipelines(filter=FILTER_BY_NAME.format(op="NOT_EQUALS", v="tiny"))
    assert none.pipelines is None and none.total_size is None
    substring = pipelines.list_pipelines(filter=FILTER_BY_NAME.format(op="IS_SUBSTRING", v="in"))
    assert substring.total_size == 1
    in_filter = json.dumps(
        {
            "predicates": [
                {"operation": "IN", "key": "name", "string_values": {"values": ["x", "tiny"]}}
            ]
        }
    )
    assert pipelines.list_pipelines(filter=in_filter).total_size == 1
    assert (
        pipelines.get_pipeline_version(
            pipeline.pipeline_id, version.pipeline_version_id
        ).display_name
        == "v2"
    )
    assert fake.violations == []
    assert [c.query["name"] for c in fake.calls_to("POST", "upload_version")] == [["v2"], ["v2"]]
    assert (
        fake.calls_to("POST", "/pipelines/upload")[0].body["uploadfile"]["filename"] == "tiny.yaml"
    )


def test_bad_filter_and_sort_are_violations(fake: FakeKfpApi) -> None:
    """An unknown filter key or sort field is refused with 400 and listed."""
    pipelines = services(client_for(fake))["pipelines"]
    bad = json.dumps({"predicates": [{"operation": "EQUALS", "key": "colour", "stringValue": "x"}]})
    with pytest.raises(kfp_server_api.ApiException) as err:
        pipelines.list_pipelines(filter=bad)
    assert err.value.status == 400
    assert {"code", "message", "details"} <= set(error_of(err))
    with pytest.raises(kfp_server_api.ApiException):
        pipelines.list_pipelines(sort_by="colour desc")
    assert len(fake.violations) == 2


def test_runs_parameters_and_script(fake: FakeKfpApi, package: str) -> None:
    """A run with a parameter; a bad parameter refused; scripted states read in order."""
    pipeline = upload(fake, package)
    experiments = services(client_for(fake))["experiments"]
    experiment = experiments.create_experiment(models.V2beta1Experiment(display_name="exp"))
    with pytest.raises(kfp_server_api.ApiException) as dup:
        experiments.create_experiment(models.V2beta1Experiment(display_name="exp"))
    assert dup.value.status == 409
    runs = services(client_for(fake))["runs"]

    def run_body(parameters: dict) -> models.V2beta1Run:
        return models.V2beta1Run(
            display_name="r",
            experiment_id=experiment.experiment_id,
            pipeline_version_reference=models.V2beta1PipelineVersionReference(
                pipeline_id=pipeline.pipeline_id
            ),
            runtime_config=models.V2beta1RuntimeConfig(
                parameters=parameters, pipeline_root="s3://b"
            ),
        )

    for bad in ({"message": 3}, {"message": "hi", "extra": 1}):
        with pytest.raises(kfp_server_api.ApiException) as refused:
            runs.create_run(run_body(bad))
        assert refused.value.status == 400, bad
    fake.script_run([("RUNNING", {"say": "RUNNING"}), ("FAILED", {"say": "FAILED"})])
    run = runs.create_run(run_body({"message": "hi"}))
    assert run.state == "PENDING"
    assert run.pipeline_version_reference.pipeline_version_id
    first, second, third = (runs.get_run(run.run_id) for _ in range(3))
    assert [first.state, second.state, third.state] == ["RUNNING", "FAILED", "FAILED"]
    task = first.run_details.task_details[0]
    assert (task.display_name, task.state) == ("say", "RUNNING") and task.task_id
    assert second.finished_at is not None
    assert runs.list_runs(experiment_id=experiment.experiment_id).total_size == 1
    assert fake.violations == []


def test_default_script_succeeds_at_once(fake: FakeKfpApi, package: str) -> None:
    """Without a script a run succeeds on its first read, its tasks too."""
    pipeline = upload(fake, package)
    runs = services(client_for(fake))["runs"]
    run = runs.create_run(
        models.V2beta1Run(
            display_name="r",
            pipeline_version_reference=models.V2beta1PipelineVersionReference(
                pipeline_id=pipeline.pipeline_id
            ),
            runtime_config=models.V2beta1RuntimeConfig(parameters={"message": "hi"}),
        )
    )
    read = runs.get_run(run.run_id)
    assert read.state == "SUCCEEDED"
    assert [(t.display_name, t.state) for t in read.run_details.task_details] == [
        ("say", "SUCCEEDED")
    ]
    # Single-user mode files a run without experiment under "Default".
    assert (
        services(client_for(fake))["experiments"].get_experiment(read.experiment_id).display_name
        == "Default"
    )


def test_recurring_runs(fake: FakeKfpApi, package: str) -> None:
    """Create, list and delete a recurring run; its bounds are the server's."""
    pipeline = upload(fake, package)
    experiment = services(client_for(fake))["experiments"].create_experiment(
        models.V2beta1Experiment(display_name="exp")
    )
    api = services(client_for(fake))["recurring_runs"]

    def body(**kw: object) -> models.V2beta1RecurringRun:
        fields = {
            "display_name": "nightly",
            "experiment_id": experiment.experiment_id,
            "pipeline_version_reference": models.V2beta1PipelineVersionReference(
                pipeline_id=pipeline.pipeline_id
            ),
            "runtime_config": models.V2beta1RuntimeConfig(parameters={"message": "hi"}),
            "trigger": models.V2beta1Trigger(
                cron_schedule=models.V2beta1CronSchedule(cron="0 0 2 * * *")
            ),
            "max_concurrency": "1",
            "mode": "ENABLE",
        }
        return models.V2beta1RecurringRun(**{**fields, **kw})

    created = api.create_recurring_run(body())
    assert created.status == "ENABLED" and created.trigger.cron_schedule.cron == "0 0 2 * * *"
    listed = api.list_recurring_runs(experiment_id=experiment.experiment_id)
    assert [r.recurring_run_id for r in listed.recurring_runs] == [created.recurring_run_id]
    api.delete_recurring_run(created.recurring_run_id)
    assert api.list_recurring_runs().recurring_runs is None
    with pytest.raises(kfp_server_api.ApiException) as gone:
        api.get_recurring_run(created.recurring_run_id)
    assert gone.value.status == 404
    assert fake.violations == []

    for bad in (
        body(max_concurrency="11"),
        body(trigger=models.V2beta1Trigger()),
        body(trigger=models.V2beta1Trigger(cron_schedule=models.V2beta1CronSchedule(cron="daily"))),
    ):
        with pytest.raises(kfp_server_api.ApiException) as refused:
            api.create_recurring_run(bad)
        assert refused.value.status == 400
    assert len(fake.violations) == 3


def test_spec_violations(fake: FakeKfpApi) -> None:
    """An unknown key, a bad enum, a missing pipeline, an unknown route: refused and listed."""
    rest = client_for(fake).rest_client
    headers = {"Content-Type": "application/json"}
    cases = [
        ("POST", "/apis/v2beta1/experiments", {"display_name": "x", "colour": "red"}, 400),
        ("POST", "/apis/v2beta1/recurringruns", {"display_name": "x", "mode": "ON"}, 400),
        ("POST", "/apis/v2beta1/runs", {"display_name": "x"}, 500),
        ("GET", "/apis/v2beta1/pipelines?colour=red", None, 400),
        ("GET", "/apis/v2beta1/nothing", None, 404),
    ]
    for method, path, payload, status in cases:
        with pytest.raises(kfp_server_api.ApiException) as err:
            rest.request(method, fake.url + path, headers=headers, body=payload)
        assert err.value.status == status, path
    assert len(fake.violations) == len(cases)
    assert "colour: no such field in V2beta1Experiment" in fake.violations[0]
    assert "RecurringRunMode" in fake.violations[1]


def test_auth_token_and_cookie(package: str) -> None:
    """401 without the token; the token or the cookie lets a call through; healthz is open."""
    with FakeKfpApi(token="s3cret", cookie="authservice_session=abc") as fake:
        assert healthz(fake).get_healthz().multi_user is False
        with pytest.raises(kfp_server_api.ApiException) as err:
            services(client_for(fake))["pipelines"].list_pipelines()
        assert err.value.status == 401 and error_of(err)["code"] == 16
        with pytest.raises(kfp_server_api.ApiException):
            services(client_for(fake, token="wrong"))["pipelines"].list_pipelines()
        assert (
            services(client_for(fake, token="s3cret"))["pipelines"].list_pipelines().pipelines
            is None
        )
        cookie = "authservice_session=abc"
        assert (
            services(client_for(fake, cookie=cookie))["pipelines"].list_pipelines().pipelines
            is None
        )
        assert fake.calls_to("GET", "/pipelines")[-1].headers["cookie"] == cookie
        assert fake.violations == []


def test_multi_user_namespaces(package: str) -> None:
    """Another namespace is 403; an experiment or run without a namespace is refused."""
    with FakeKfpApi(namespaces={"team-a"}) as fake:
        assert healthz(fake).get_healthz().multi_user is True
        experiments = services(client_for(fake))["experiments"]
        with pytest.raises(kfp_server_api.ApiException) as other:
            experiments.create_experiment(
                models.V2beta1Experiment(display_name="e", namespace="team-b")
            )
        assert other.value.status == 403 and "is not authorized" in error_of(other)["message"]
        with pytest.raises(kfp_server_api.ApiException) as empty:
            experiments.create_experiment(models.V2beta1Experiment(display_name="e"))
        assert empty.value.status == 400
        with pytest.raises(kfp_server_api.ApiException) as listing:
            experiments.list_experiments(namespace="team-b")
        assert listing.value.status == 403
        mine = experiments.create_experiment(
            models.V2beta1Experiment(display_name="e", namespace="team-a")
        )
        assert (
            experiments.list_experiments(namespace="team-a").experiments[0].experiment_id
            == mine.experiment_id
        )
        pipeline = upload(fake, package, namespace="team-a")
        with pytest.raises(kfp_server_api.ApiException) as no_experiment:
            services(client_for(fake))["runs"].create_run(
                models.V2beta1Run(
                    display_name="r",
                    pipeline_version_reference=models.V2beta1PipelineVersionReference(
                        pipeline_id=pipeline.pipeline_id
                    ),
                    runtime_config=models.V2beta1RuntimeConfig(parameters={"message": "hi"}),
                )
            )
        assert no_experiment.value.status == 400
        assert (
            "Experiment id can not be empty in multi-user mode"
            in error_of(no_experiment)["message"]
        )


def test_injected_failures(kfp_api: FakeKfpApi, package: str) -> None:  # noqa: F811
    """The next upload fails with 500 and changes nothing; the one after succeeds."""
    fake = kfp_api
    fake.fail_next("POST", "/pipelines/upload", 500)
    with pytest.raises(kfp_server_api.ApiException) as err:
        upload(fake, package)
    assert err.value.status == 500 and "error_message" in error_of(err)
    assert fake.pipelines == {}
    upload(fake, package)
    fake.fail_next("GET", "/pipelines", 503, times=2)
    pipelines = services(client_for(fake))["pipelines"]
    for _ in range(2):
        with pytest.raises(kfp_server_api.ApiException) as unavailable:
            pipelines.list_pipelines()
        assert unavailable.value.status == 503
    assert pipelines.list_pipelines().total_size == 1
    assert [c.status for c in fake.calls_to("GET", "/pipelines")] == [503, 503, 200]
    assert fake.violations == []


def test_kfp_client_speaks_to_the_fake(
    fake: FakeKfpApi, package: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """kfp.Client's own upload_pipeline and run_pipeline work against the fake."""
    import kfp

    monkeypatch.setattr(kfp.Client, "_LOCAL_KFP_CONTEXT", str(tmp_path / "context.json"))
    client = kfp.Client(host=fake.url, namespace="team-a")
    pipeline = client.upload_pipeline(package, pipeline_name="tiny")
    assert client.get_pipeline_id("tiny") == pipeline.pipeline_id
    version_id = (
        client.list_pipeline_versions(pipeline.pipeline_id).pipeline_versions[0].pipeline_version_id
    )
    experiment = client.create_experiment("exp")
    run = client.run_pipeline(
        experiment.experiment_id,
        "r",
        params={"message": "hi"},
        pipeline_id=pipeline.pipeline_id,
        version_id=version_id,
    )
    assert (
        client.wait_for_run_completion(run.run_id, timeout=5, sleep_duration=0).state == "SUCCEEDED"
    )
    assert fake.violations == []
    assert not (tmp_path / "context.json").exists()


# What KFP 2.0.5's and 2.16.1's API servers answer differently, each release in turn.


def test_the_release_is_the_installed_clients() -> None:
    """kfp-server-api 2.0.x talks to KFP 2.0.5, 2.16.x to KFP 2.16.1; nothing else."""
    assert release_for(kfp_server_api.__version__) == RELEASE
    assert [release_for(v) for v in ("2.0.5", "2.0.1", "2.16.1")] == ["2.0.5", "2.0.5", "2.16.1"]
    with pytest.raises(RuntimeError):
        release_for("2.1.0")
    with pytest.raises(ValueError):
        FakeKfpApi(release="2.5.0")


def test_error_body(either: FakeKfpApi) -> None:
    """2.0.5 repeats the message as "error" (grpc-gateway v1.16); 2.16.1 has no "error"."""
    with pytest.raises(kfp_server_api.ApiException) as err:
        services(client_for(either))["pipelines"].list_pipelines(sort_by="colour")
    body = error_of(err)
    status_fields = {"code", "message", "details"}
    assert set(body) == (status_fields if either.kfp_2_16 else status_fields | {"error"})
    assert body["code"] == 3 and body["message"].startswith("Cannot sort on field colour")
    assert body["details"][0]["@type"] == "type.googleapis.com/google.rpc.Status"


def test_routing_errors(either: FakeKfpApi) -> None:
    """A wrong method and an unknown path: plain text at 2.0.5, a status at 2.16.1."""
    wrong = raw(either, "PUT", "/pipelines")
    nowhere = raw(either, "GET", "/nothing")
    if either.kfp_2_16:
        assert wrong == (501, {"code": 12, "message": "Method Not Allowed"})
        assert nowhere == (404, {"code": 5, "message": "Not Found"})
    else:
        assert wrong == (405, "Method Not Allowed\n")
        assert nowhere == (404, "Not Found\n")
    assert len(either.violations) == 2


def test_upload_failures(either: FakeKfpApi, package: str) -> None:
    """2.0.5 wraps the cause and answers any store error with 500; 2.16.1 fixed text, 409."""
    upload(either, package)
    with pytest.raises(kfp_server_api.ApiException) as dup:
        upload(either, package)
    with pytest.raises(kfp_server_api.ApiException) as no_pipeline:
        services(client_for(either))["uploads"].upload_pipeline_version(package, name="v")
    body, missing = error_of(dup), error_of(no_pipeline)
    assert no_pipeline.value.status == 400
    if either.kfp_2_16:
        assert dup.value.status == 409
        assert body["error_message"] == "Failed to create a pipeline and a pipeline version"
        assert missing["error_message"] == "Failed to create a pipeline version"
        # errors.New's "%+v": the message, then the stack it was made on.
        assert body["error_details"].startswith(body["error_message"] + "\n")
        assert "pipeline_upload_server.go" in body["error_details"]
    else:
        assert dup.value.status == 500
        assert "The name tiny already exists" in body["error_message"]
        assert body["error_details"] == body["error_message"]  # a UserError's "%+v"
        message = "Failed to create a pipeline version due to error reading pipeline id"
        assert missing["error_message"] == message
        assert missing["error_details"].startswith(message + "\n")  # errors.New: a stack
    assert len(either.violations) == 1  # the upload without pipelineid


def test_upload_names(either: FakeKfpApi, package: str) -> None:
    """No name: the file's full name; 2.16.1 also takes display_name and answers name."""
    status, unnamed = raw(either, "POST", "/pipelines/upload", upload=package)
    assert (status, unnamed["display_name"]) == (200, "tiny.yaml")
    shown = raw(either, "POST", "/pipelines/upload", {"display_name": "Shown"}, upload=package)
    if not either.kfp_2_16:
        assert "name" not in unnamed
        assert shown[0] == 400 and "display_name" in either.violations[0]  # not a 2.0.5 parameter
        return
    both = {"name": "tiny-2", "display_name": "Tiny"}
    status, named = raw(either, "POST", "/pipelines/upload", both, upload=package)
    assert unnamed["name"] == "tiny.yaml"
    assert (shown[0], shown[1]["name"], shown[1]["display_name"]) == (200, "Shown", "Shown")
    assert (named["name"], named["display_name"]) == ("tiny-2", "Tiny")
    pipelines = services(client_for(either))["pipelines"]
    for key, value in (("name", "tiny-2"), ("display_name", "Tiny")):
        found = pipelines.list_pipelines(
            filter=json.dumps({"predicates": [{"operation": 1, "key": key, "stringValue": value}]})
        )
        assert [p.pipeline_id for p in found.pipelines] == [named["pipeline_id"]], key
    too_long = raw(either, "POST", "/pipelines/upload", {"name": "x" * 129}, upload=package)
    assert too_long == (400, "Invalid input error: Pipeline.Name length cannot exceed 128\n")
    assert either.violations == []


def test_create_pipeline_and_look_it_up_by_name(either: FakeKfpApi) -> None:
    """2.16.1 answers a name (display_name when not given) and serves /pipelines/names/."""
    status, created = raw(either, "POST", "/pipelines", body={"display_name": "bare"})
    assert (status, created["display_name"]) == (200, "bare")
    pipelines = services(client_for(either))["pipelines"]
    if either.kfp_2_16:
        assert created["name"] == "bare"
        assert pipelines.get_pipeline_by_name("bare").pipeline_id == created["pipeline_id"]
        with pytest.raises(kfp_server_api.ApiException) as missing:
            pipelines.get_pipeline_by_name("nope")
        assert missing.value.status == 404
        assert error_of(missing)["details"][0]["message"] == "Namespace/Pipeline /nope not found"
    else:
        assert "name" not in created
        with pytest.raises(kfp_server_api.ApiException) as broken:  # the "V2beta1" typo
            pipelines.get_pipeline_by_name("bare")
        assert broken.value.status == 500
    assert either.violations == []


def test_shared_pipeline_creation_in_multi_user_mode() -> None:
    """2.16.1 authorizes creating a shared pipeline against KFP's namespace; 2.0.5 did not."""
    body = models.V2beta1Pipeline(display_name="shared")
    for namespaces, release, allowed in (
        ({"team-a"}, "2.0.5", True),
        ({"team-a"}, "2.16.1", False),
        ({"team-a", "kubeflow"}, "2.16.1", True),
    ):
        with FakeKfpApi(namespaces=namespaces, release=release) as fake:
            pipelines = services(client_for(fake))["pipelines"]
            if allowed:
                assert pipelines.create_pipeline(body).display_name == "shared"
                continue
            with pytest.raises(kfp_server_api.ApiException) as refused:
                pipelines.create_pipeline(body)
            assert refused.value.status == 403
            assert "Failed to access shared pipeline" in error_of(refused)["message"]


def test_healthz(either: FakeKfpApi) -> None:
    """2.16.1 says where pipelines are kept."""
    answer = json.loads(healthz(either).get_healthz(_preload_content=False).data)
    assert answer.get("pipeline_store") == ("database" if either.kfp_2_16 else None)
    assert answer["multi_user"] is False


def test_experiment_last_run(either: FakeKfpApi, package: str) -> None:
    """2.16.1 answers when an experiment's newest run was created (the epoch before one)."""
    pipeline = upload(either, package)
    status, experiment = raw(either, "POST", "/experiments", body={"display_name": "e"})
    eid = experiment["experiment_id"]
    services(client_for(either))["runs"].create_run(run_of(pipeline.pipeline_id, experiment_id=eid))
    (run,) = either.runs.values()
    _, read = raw(either, "GET", f"/experiments/{eid}")
    by_last_run = raw(either, "GET", "/experiments", {"sort_by": "last_run_created_at desc"})
    if not either.kfp_2_16:
        assert "last_run_created_at" not in experiment and "last_run_created_at" not in read
        assert by_last_run[0] == 400  # no such sort key at 2.0.5
        return
    assert datetime.fromisoformat(experiment["last_run_created_at"]).timestamp() == 0
    assert datetime.fromisoformat(read["last_run_created_at"]) == run.run.created_at
    assert either.experiments[eid].last_run_created_at == run.run.created_at
    assert by_last_run[0] == 200 and by_last_run[1]["experiments"][0]["experiment_id"] == eid


def test_recurring_run_differences(either: FakeKfpApi, package: str) -> None:
    """2.16.1 keeps a recurring run given a pipeline alone unpinned, and fixed a typo."""
    pipeline = upload(either, package)
    (version_id,) = either.versions
    api = services(client_for(either))["recurring_runs"]

    def body(pipeline_id: str, concurrency: str = "1") -> models.V2beta1RecurringRun:
        return models.V2beta1RecurringRun(
            display_name="nightly",
            pipeline_version_reference=models.V2beta1PipelineVersionReference(
                pipeline_id=pipeline_id
            ),
            runtime_config=models.V2beta1RuntimeConfig(parameters={"message": "hi"}),
            trigger=models.V2beta1Trigger(cron_schedule=models.V2beta1CronSchedule(cron="@daily")),
            max_concurrency=concurrency,
            mode="ENABLE",
        )

    created = api.create_recurring_run(body(pipeline.pipeline_id))
    pinned = created.pipeline_version_reference.pipeline_version_id
    assert pinned == (None if either.kfp_2_16 else version_id)
    with pytest.raises(kfp_server_api.ApiException) as missing:
        api.create_recurring_run(body("no-such-pipeline"))
    assert missing.value.status == (404 if either.kfp_2_16 else 500)
    with pytest.raises(kfp_server_api.ApiException) as unbounded:
        api.create_recurring_run(body(pipeline.pipeline_id, concurrency="0"))
    least = "at least 1" if either.kfp_2_16 else "at leas 1"
    assert f"must be {least} and at most 10" in error_of(unbounded)["message"]
    jid = created.recurring_run_id
    for policy, status in (("SIDEWAYS", 400), ("ORPHAN", 200)):
        answer = raw(either, "DELETE", f"/recurringruns/{jid}", {"propagation_policy": policy})
        # A 2.0.5 client never sends the parameter: a violation there, whatever its value.
        assert answer[0] == (status if either.kfp_2_16 else 400), policy
    assert (jid in either.recurring_runs) is not either.kfp_2_16


def test_run_differences(either: FakeKfpApi, package: str) -> None:
    """2.16.1 checks a run's recurring_run_id; its client may send experiment_id as a query."""
    pipeline = upload(either, package)
    runs = services(client_for(either))["runs"]
    body = run_of(pipeline.pipeline_id, recurring_run_id="no-such-job")
    if either.kfp_2_16:
        with pytest.raises(kfp_server_api.ApiException) as refused:
            runs.create_run(body)
        assert refused.value.status == 500
        assert "RecurringRunId doesn't exist: no-such-job" in error_of(refused)["message"]
    else:
        assert runs.create_run(body).recurring_run_id == "no-such-job"
    run_body = client_for(either).sanitize_for_serialization(run_of(pipeline.pipeline_id))
    status, _ = raw(either, "POST", "/runs", {"experiment_id": ""}, body=run_body)
    assert status == (200 if either.kfp_2_16 else 400)

"""The fake KFP API server answers kfp_server_api's generated client as KFP's API server does.

The client is the stack's own: kfp-server-api 2.0.5 (legacy) or 2.16.1 (current), each
through ``pipeline_ops.kubeflow.api.Service``, which calls an operation by its name in
the API whichever way the generated client spells it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import kfp_server_api
import pytest
import yaml
from fake_kfp_api import FakeKfpApi, kfp_api  # noqa: F401 - the fixture, used by name
from kfp_server_api import models

from kfp_local import backend_rules
from pipeline_ops.kubeflow.api import Service, services

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

    with pytest.raises(kfp_server_api.ApiException) as dup:
        uploads.upload_pipeline_version(package, name="v2", pipelineid=pipeline.pipeline_id)
    assert dup.value.status == 500
    assert "The name v2 already exist" in error_of(dup)["error_message"]
    with pytest.raises(kfp_server_api.ApiException) as dup_pipeline:
        upload(fake, package)
    assert dup_pipeline.value.status == 500

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
    assert set(error_of(err)) == {"error", "code", "message", "details"}
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

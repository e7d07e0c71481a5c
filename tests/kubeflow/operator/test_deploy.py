"""wide-deep-kubeflow against a KFP API server that checks every call against the spec.

The fake (tests/fake_kfp/) validates each request with the ``kfp_server_api``
models and answers as the API server of the release the installed client targets
does (KFP 2.0.5 on the legacy stack, 2.16.1 on the current one); these tests assert the calls made,
the console lines and the exit codes, and that a failed step leaves nothing
half-deployed.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from fake_kfp.server import FakeKfpApi

import kubeflow_runner
from kubeflow.operator.credentials import SA_TOKEN_ENV
from kubeflow.operator.versions import package_digest
from pipeline_def import node_ids
from pipeline_ops import commands

# Seconds a test: each test compiles the pipeline for Kubeflow.
pytestmark = pytest.mark.slow

PROJECT = Path(__file__).resolve().parents[3]
IMAGE = "registry.example.com/taxi-wide-deep:1.0"
ROOT = "s3://bucket/taxi/root"
PIPELINE = "taxi-wide-deep"
COMPILE = ["--image", IMAGE, "--pipeline-root", ROOT, "--data-root", "s3://bucket/taxi/data"]
QUICK = ["--poll-seconds", "0.01"]


@pytest.fixture(autouse=True)
def _no_pod_token(monkeypatch, tmp_path):
    """No test reads a real pod's token; one test mounts its own."""
    monkeypatch.setenv(SA_TOKEN_ENV, str(tmp_path / "no-pod-token"))
    for name in ("ENDPOINT", "NAMESPACE", "TOKEN", "TOKEN_FILE", "COOKIE", "SCHEDULE"):
        monkeypatch.delenv(f"WIDE_DEEP_KFP_{name}", raising=False)


@pytest.fixture
def deploy(tmp_path):
    """Run the command with the compile flags, an output in tmp_path and ``extra``."""

    def run(*extra: str) -> int:
        return kubeflow_runner.main([*COMPILE, "--output", str(tmp_path / "p.yaml"), *extra])

    return run


def _errors(err: str) -> list[str]:
    """The lines meant for people on stderr (pytest's capture also gets library logging)."""
    return [line for line in err.splitlines() if line.startswith(("error:", "Traceback"))]


def _commit_label() -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(PROJECT), *args], capture_output=True,
                              text=True, check=True).stdout.strip()  # fmt: skip

    return git("rev-parse", "HEAD")[:12] + ("-dirty" if git("status", "--porcelain") else "")


def test_a_package_becomes_a_version_named_after_its_commit_and_digest_once(
    deploy, kfp_api, tmp_path, capfd
):
    assert deploy("--endpoint", kfp_api.url) == commands.EXIT_OK
    digest = package_digest(tmp_path / "p.yaml")
    name = f"{_commit_label()}-{digest[:12]}"
    (create,) = kfp_api.calls_to("POST", r"/apis/v2beta1/pipelines$")
    assert create.body["display_name"] == PIPELINE
    (upload,) = kfp_api.calls_to("POST", "/pipelines/upload_version")
    assert upload.query["name"] == [name]
    assert f"package sha256 {digest}" in upload.query["description"][0]
    assert upload.body["uploadfile"]["content"] == (tmp_path / "p.yaml").read_bytes()
    assert f"version {name} of {PIPELINE}: uploaded" in capfd.readouterr().out

    assert deploy("--endpoint", kfp_api.url) == commands.EXIT_OK
    assert len(kfp_api.calls_to("POST", "/pipelines/upload_version")) == 1  # not twice
    assert f"version {name} of {PIPELINE}: already there" in capfd.readouterr().out
    assert not kfp_api.calls_to("POST", "/runs") and not kfp_api.calls_to("POST", "/recurringruns")
    assert kfp_api.violations == []


def _task_names(package: Path) -> list[str]:
    return list(yaml.safe_load(package.read_text())["root"]["dag"]["tasks"])


def test_run_and_wait_prints_each_tasks_state_and_exits_0(deploy, kfp_api, capfd, tmp_path):
    kfp_api.script_run(
        [
            ("RUNNING", {node_ids.EXAMPLE_GEN: "RUNNING"}),
            (
                "RUNNING",
                {
                    node_ids.EXAMPLE_GEN: "SUCCEEDED",
                    node_ids.TRAINER: "RUNNING",
                    "x-driver": "RUNNING",
                },
            ),
            ("SUCCEEDED", {node_ids.EXAMPLE_GEN: "SUCCEEDED", node_ids.TRAINER: "SUCCEEDED"}),
        ]
    )
    code = deploy(
        "--endpoint", kfp_api.url, "--run", "--wait", "--param", "train_steps=300", *QUICK
    )
    out = capfd.readouterr().out
    assert code == commands.EXIT_OK, out
    assert node_ids.EXAMPLE_GEN in _task_names(tmp_path / "p.yaml")
    states = [line.split()[1:] for line in out.splitlines() if line.startswith("  ")]
    assert states == [
        [node_ids.EXAMPLE_GEN, "RUNNING"],
        [node_ids.EXAMPLE_GEN, "SUCCEEDED"],
        [node_ids.TRAINER, "RUNNING"],
        [node_ids.TRAINER, "SUCCEEDED"],
    ]
    (run,) = kfp_api.calls_to("POST", r"/apis/v2beta1/runs$")
    assert run.body["runtime_config"] == {"parameters": {"train_steps": 300}, "pipeline_root": ROOT}
    (experiment,) = kfp_api.calls_to("POST", r"/apis/v2beta1/experiments$")
    assert experiment.body["display_name"] == PIPELINE
    assert out.splitlines()[-1].startswith(f"run {PIPELINE} ") and " SUCCEEDED: " in out
    assert kfp_api.violations == []


def test_a_failed_run_exits_1_naming_the_task(deploy, kfp_api, capfd):
    kfp_api.script_run(
        [("FAILED", {node_ids.EXAMPLE_GEN: "SUCCEEDED", node_ids.TRAINER: "FAILED"})]
    )
    assert deploy("--endpoint", kfp_api.url, "--run", "--wait", *QUICK) == commands.EXIT_FAILED
    err = capfd.readouterr().err
    assert f"FAILED (failed: {node_ids.TRAINER})" in err and "/#/runs/details/" in err


def test_a_blip_while_waiting_is_read_again_and_a_lost_run_keeps_going(deploy, kfp_api, capfd):
    kfp_api.script_run(
        [("RUNNING", {node_ids.TRAINER: "RUNNING"}), ("SUCCEEDED", {node_ids.TRAINER: "SUCCEEDED"})]
    )
    kfp_api.fail_next("GET", r"/apis/v2beta1/runs/[^/]+", 503, times=2)
    assert deploy("--endpoint", kfp_api.url, "--run", "--wait", *QUICK) == commands.EXIT_OK
    kfp_api.fail_next("GET", r"/apis/v2beta1/runs/[^/]+", 503, times=100)
    assert deploy("--endpoint", kfp_api.url, "--run", "--wait", *QUICK) == commands.EXIT_FAILED
    (err,) = _errors(capfd.readouterr().err)
    assert "lost track of run" in err and "HTTP 503" in err and "it keeps going: " in err


def test_a_token_file_gone_before_a_request_is_one_line(
    deploy, team_api, tmp_path, capfd, monkeypatch
):
    token = tmp_path / "token"
    token.write_text("secret")
    args = ("--endpoint", team_api.url, "--namespace", "team", "--token-file", str(token))
    assert deploy(*args) == commands.EXIT_OK
    checked = kubeflow_runner.cluster_target

    def vanishing(parsed: object) -> object:  # the file goes after the flags were checked
        target = checked(parsed)
        token.unlink()
        return target

    monkeypatch.setattr(kubeflow_runner, "cluster_target", vanishing)
    assert deploy(*args) == commands.EXIT_FAILED
    (err,) = _errors(capfd.readouterr().err)
    assert f"no token for Kubeflow Pipelines at {team_api.url}: token file {token}" in err


def test_a_schedule_is_replaced_by_name_and_runs_one_at_a_time(deploy, kfp_api, capfd):
    assert deploy("--endpoint", kfp_api.url, "--schedule", "0 6 * * MON") == commands.EXIT_OK
    (first,) = kfp_api.recurring_runs
    assert deploy("--endpoint", kfp_api.url, "--schedule", "@daily", "--catchup",
                  "--param", "span=3") == commands.EXIT_OK  # fmt: skip
    (second,) = kfp_api.recurring_runs
    assert second != first
    creates = [c.body for c in kfp_api.calls_to("POST", r"/apis/v2beta1/recurringruns$")]
    assert [(b["trigger"]["cron_schedule"]["cron"], b["no_catchup"]) for b in creates] == [
        ("0 0 6 * * MON", True),  # crontab given KFP's seconds
        ("@daily", False),
    ]
    assert {b["max_concurrency"] for b in creates} == {"1"}
    assert {b["display_name"] for b in creates} == {PIPELINE}
    assert creates[1]["runtime_config"] == {"parameters": {"span": "3"}, "pipeline_root": ROOT}
    # created before the old one is deleted: a failed creation leaves the old one
    calls = [(c.method, c.path) for c in kfp_api.calls]
    created_at = calls.index(("POST", "/apis/v2beta1/recurringruns"), calls.index(
        ("DELETE", f"/apis/v2beta1/recurringruns/{first}")) - 1)  # fmt: skip
    assert created_at < calls.index(("DELETE", f"/apis/v2beta1/recurringruns/{first}"))
    assert "replaced 1 older" in capfd.readouterr().out
    assert kfp_api.violations == []


def test_a_failed_schedule_creation_keeps_the_old_schedule(deploy, kfp_api, capfd):
    assert deploy("--endpoint", kfp_api.url, "--schedule", "0 6 * * *") == commands.EXIT_OK
    old = set(kfp_api.recurring_runs)
    kfp_api.fail_next("POST", "/apis/v2beta1/recurringruns", 500)
    assert deploy("--endpoint", kfp_api.url, "--schedule", "0 7 * * *") == commands.EXIT_FAILED
    assert set(kfp_api.recurring_runs) == old
    assert not kfp_api.calls_to("DELETE", "/recurringruns/")
    (err,) = _errors(capfd.readouterr().err)
    assert "could not create recurring run" in err


def test_a_failed_upload_schedules_nothing_and_keeps_the_package(deploy, kfp_api, tmp_path, capfd):
    kfp_api.fail_next("POST", "/pipelines/upload_version", 500, message="bucket unreachable")
    code = deploy("--endpoint", kfp_api.url, "--schedule", "0 6 * * *", "--run")
    assert code == commands.EXIT_FAILED
    assert not kfp_api.recurring_runs and not kfp_api.runs
    (err,) = _errors(capfd.readouterr().err)
    # The upload routes' own error body ({"error_message", ...}) names the reason.
    assert "could not upload version" in err and "HTTP 500 bucket unreachable" in err
    assert (tmp_path / "p.yaml").is_file()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--schedule", "0 25 * * *"], "hour 25 is outside 0-23"),
        (["--schedule", "* * *"], "has 3 fields"),
        (["--run", "--param", "epochs=3"], "epochs: not a run-time parameter of the pipeline; "
         "they are data_root, min_auc, span, train_steps"),
        (["--run", "--param", "train_steps=many"], "train_steps takes an integer"),
        (["--wait"], "--wait follows a run"),
        (["--unschedule", "--run"], "--unschedule acts alone"),
        (["--list-schedules", "--wait"], "--list-schedules acts alone"),
        (["--unschedule", "--list-schedules"], "give one of them"),
        (["--token", "t", "--cookie", "c"], "give one credential, not --token and --cookie"),
    ],
)  # fmt: skip
def test_bad_input_exits_2_before_any_call(deploy, kfp_api, extra, message, capfd):
    assert deploy("--endpoint", kfp_api.url, *extra) == commands.EXIT_BAD_INPUT
    (err,) = _errors(capfd.readouterr().err)
    assert message in err
    assert kfp_api.calls == []


def test_cluster_flags_need_an_endpoint(deploy, capfd):
    assert deploy("--schedule", "@daily") == commands.EXIT_BAD_INPUT
    assert "--schedule needs --endpoint (or WIDE_DEEP_KFP_ENDPOINT)" in capfd.readouterr().err


@pytest.fixture
def team_api():
    with FakeKfpApi(token="secret", namespaces={"team"}) as fake:
        yield fake


def test_multi_user_calls_carry_the_namespace_and_the_token(deploy, team_api):
    code = deploy("--endpoint", team_api.url, "--namespace", "team", "--token", "secret",
                  "--run", "--schedule", "@hourly")  # fmt: skip
    assert code == commands.EXIT_OK
    assert {c.headers.get("authorization") for c in team_api.calls} == {"Bearer secret"}
    (pipeline,) = team_api.calls_to("POST", r"/apis/v2beta1/pipelines$")
    (experiment,) = team_api.calls_to("POST", r"/apis/v2beta1/experiments$")
    assert pipeline.body["namespace"] == experiment.body["namespace"] == "team"
    lists = [c for c in team_api.calls if c.method == "GET" and "namespace" in c.query]
    assert lists and {c.query["namespace"][0] for c in lists} == {"team"}
    assert team_api.violations == []


def test_the_pods_token_is_used_and_a_cookie_can_stand_in(deploy, team_api, tmp_path, monkeypatch):
    token = tmp_path / "token"
    token.write_text("secret\n")
    monkeypatch.setenv(SA_TOKEN_ENV, str(token))
    assert deploy("--endpoint", team_api.url, "--namespace", "team") == commands.EXIT_OK
    assert {c.headers.get("authorization") for c in team_api.calls} == {"Bearer secret"}
    team_api.cookie = "authservice_session=abc"
    team_api.calls.clear()
    code = deploy("--endpoint", team_api.url, "--namespace", "team", "--cookie", team_api.cookie)
    assert code == commands.EXIT_OK
    assert {c.headers.get("cookie") for c in team_api.calls} == {"authservice_session=abc"}
    assert {c.headers.get("authorization") for c in team_api.calls} == {None}


@pytest.mark.parametrize(
    ("extra", "status", "credential"),
    [
        (["--namespace", "team", "--token", "wrong"], "HTTP 401", "with --token"),
        (["--namespace", "team"], "HTTP 401", "with no credential"),
        (["--namespace", "other", "--token", "secret"], "HTTP 403", "with --token"),
    ],
)
def test_a_refusal_is_one_line_naming_namespace_and_credential(
    deploy, team_api, extra, status, credential, capfd
):
    assert (
        deploy("--endpoint", team_api.url, *extra, "--schedule", "@daily") == commands.EXIT_FAILED
    )
    (err,) = _errors(capfd.readouterr().err)
    namespace = extra[1]
    assert f"refused to look up pipeline {PIPELINE} in namespace {namespace} {credential}" in err
    assert status in err and "Traceback" not in err
    assert not team_api.recurring_runs


def test_unschedule_and_list_schedules(kfp_api, deploy, capfd):
    assert deploy("--endpoint", kfp_api.url, "--schedule", "0 6 * * *") == commands.EXIT_OK
    capfd.readouterr()
    assert kubeflow_runner.main(["--endpoint", kfp_api.url, "--list-schedules"]) == 0
    (line,) = capfd.readouterr().out.splitlines()
    assert line.startswith(PIPELINE) and "0 0 6 * * *" in line and "at most 1 at a time" in line
    assert kubeflow_runner.main(["--endpoint", kfp_api.url, "--unschedule"]) == 0
    assert kfp_api.recurring_runs == {}
    assert f"removed 1 recurring run(s) named {PIPELINE}" in capfd.readouterr().out
    assert kfp_api.violations == []


@pytest.mark.slow  # a fresh interpreter importing TFX
def test_ctrl_c_while_waiting_exits_130_and_the_run_keeps_going(kfp_api, tmp_path):
    kfp_api.script_run([("RUNNING", {node_ids.EXAMPLE_GEN: "RUNNING"})])  # a run that never ends
    command = [sys.executable, str(PROJECT / "kubeflow_runner.py"), *COMPILE,
               "--output", str(tmp_path / "p.yaml"), "--endpoint", kfp_api.url,
               "--run", "--wait", "--poll-seconds", "0.2"]  # fmt: skip
    # As from a terminal: a shell starts a background job (a CI script's `make test &`,
    # say) with Ctrl-C ignored, and the child would inherit that and never stop.
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 240
        while len(kfp_api.calls_to("GET", r"/apis/v2beta1/runs/[^/]+")) < 2:  # one answer read
            assert process.poll() is None and time.monotonic() < deadline, process.communicate()
            time.sleep(0.1)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()  # a failed test leaves no run followed forever
        process.wait()
    assert process.returncode == commands.EXIT_INTERRUPTED, err
    (run_id,) = kfp_api.runs
    assert f"stopped waiting; the run keeps going: {kfp_api.url}/#/runs/details/{run_id}" in err
    assert f"{node_ids.EXAMPLE_GEN}" in out and "Traceback" not in err
    assert not kfp_api.calls_to("POST", r".*:terminate")  # nobody stopped the run


def test_the_scoring_pipeline_is_its_own_pipeline_scheduled_beside_training(deploy, kfp_api, capfd):
    scoring = f"{PIPELINE}-scoring"
    assert deploy("--endpoint", kfp_api.url, "--schedule", "0 6 * * *") == commands.EXIT_OK
    assert deploy("--scoring", "--endpoint", kfp_api.url, "--schedule", "0 7 * * *") == 0
    pipelines = kfp_api.calls_to("POST", r"/apis/v2beta1/pipelines$")
    assert [c.body["display_name"] for c in pipelines] == [PIPELINE, scoring]
    out = capfd.readouterr().out
    assert f"compiled {scoring} to " in out and f"of {scoring}: uploaded" in out
    # One schedule each: replacing the scoring pipeline's leaves training's.
    assert len(kfp_api.recurring_runs) == 2
    assert kubeflow_runner.main(["--endpoint", kfp_api.url, "--scoring", "--unschedule"]) == 0
    assert f"removed 1 recurring run(s) named {scoring}" in capfd.readouterr().out
    (left,) = kfp_api.recurring_runs.values()
    assert left.display_name == PIPELINE
    assert kfp_api.violations == []

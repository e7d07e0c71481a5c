"""The Kubeflow package, checked by Kubeflow's own libraries (no cluster needed)."""

from __future__ import annotations

import re
import socket
import tempfile
from pathlib import Path

import kfp.components
import pytest
import yaml
from google.protobuf import json_format
from kfp.pipeline_spec import pipeline_spec_pb2

import kubeflow_runner
from pipeline_def import node_ids as P
from pipeline_def.pipeline import create_pipeline

IMAGE = "registry.example.com/taxi-wide-deep:1.0"
PROJECT = Path(__file__).resolve().parent.parent
ROOTS = ["--pipeline-root", "gs://bucket/taxi/root", "--data-root", "gs://bucket/taxi/data"]
RESOLVER_TASKS = {
    f"{P.BASELINE_RESOLVER}-model-blessing-resolver",
    f"{P.BASELINE_RESOLVER}-model-resolver",
}


def _compile(folder: Path, *extra: str) -> Path:
    output = folder / "pipeline.yaml"
    code = kubeflow_runner.main(["--image", IMAGE, *ROOTS, "--output", str(output), *extra])
    assert code == kubeflow_runner.EXIT_OK
    return output


@pytest.fixture(scope="module")
def package(tmp_path_factory) -> Path:
    return _compile(tmp_path_factory.mktemp("kfp"))


@pytest.fixture(scope="module")
def spec(package) -> pipeline_spec_pb2.PipelineSpec:
    # ignore_unknown_fields=False: any field KFP does not know fails the parse.
    return json_format.ParseDict(
        yaml.safe_load(package.read_text()), pipeline_spec_pb2.PipelineSpec()
    )


def _local_edges(resolvers: bool) -> dict[str, set[str]]:
    args = kubeflow_runner.parse_args(
        ["--image", IMAGE, *ROOTS, *(["--resolvers"] if resolvers else [])]
    )
    built = create_pipeline(kubeflow_runner.build_config(args))
    return {c.id: {u.id for u in c.upstream_nodes} for c in built.components}


def test_package_is_a_pipeline_spec_kfp_loads(package, spec):
    assert spec.pipeline_info.name == "taxi-wide-deep"
    component = kfp.components.load_component_from_file(str(package))
    assert component.name == "taxi-wide-deep"


def test_one_task_per_local_node_with_the_same_edges(spec):
    tasks = spec.root.dag.tasks
    expected = _local_edges(resolvers=False)
    assert set(tasks) == set(expected)
    for name, task in tasks.items():
        assert set(task.dependent_tasks) == expected[name], name


def test_every_executor_runs_the_configured_image(spec):
    deployment = spec.deployment_spec
    executors = deployment["executors"]
    assert executors
    containers = {name: e for name, e in executors.items() if "container" in e}
    # Importer and resolver steps run in KFP's own driver, not in a container.
    assert set(executors) - set(containers) == {
        name for name, e in executors.items() if "importer" in e or "resolver" in e
    }
    assert len(containers) >= 8
    for name, executor in containers.items():
        assert executor["container"]["image"] == IMAGE, name


def test_no_path_from_the_compiling_machine(package):
    text = package.read_text()
    for path in {str(Path.home()), tempfile.gettempdir(), str(PROJECT), str(Path.cwd())}:
        # A local path starts a path; "taxi/root" inside a gs:// URI is not "/root".
        assert not re.search(rf"(?<![\w./:-]){re.escape(path)}(?![\w.-])", text), path
    assert "gs://bucket/taxi/root" in text


def test_baseline_resolver_compiles_to_resolver_steps(tmp_path):
    spec = json_format.ParseDict(
        yaml.safe_load(_compile(tmp_path, "--resolvers").read_text()),
        pipeline_spec_pb2.PipelineSpec(),
    )
    tasks = set(spec.root.dag.tasks)
    assert tasks >= RESOLVER_TASKS
    assert tasks - RESOLVER_TASKS == set(_local_edges(resolvers=True)) - {P.BASELINE_RESOLVER}
    executors = spec.deployment_spec["executors"]
    # These are what open-source KFP's backend cannot run ("resolver not implemented yet").
    assert all("resolver" in executors[f"{t}_executor"] for t in RESOLVER_TASKS)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (ROOTS, "--image is required"),
        (["--image", IMAGE, "--data-root", "gs://b/d"], "--pipeline-root is required"),
        (
            ["--image", IMAGE, "--pipeline-root", "relative/root", "--data-root", "gs://b/d"],
            "must be a URI",
        ),
        (["--image", IMAGE, *ROOTS, "--output", "pipeline.json"], "must end in .yaml"),
    ],
)
def test_bad_flags_exit_2_with_a_message(args, message, capsys, monkeypatch):
    for name in ("IMAGE", "PIPELINE_ROOT", "DATA_ROOT"):
        monkeypatch.delenv(f"TAXI_KFP_{name}", raising=False)
    assert kubeflow_runner.main(args) == kubeflow_runner.EXIT_BAD_INPUT
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def test_flags_come_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("TAXI_KFP_IMAGE", IMAGE)
    monkeypatch.setenv("TAXI_KFP_PIPELINE_ROOT", "s3://bucket/root")
    monkeypatch.setenv("TAXI_KFP_DATA_ROOT", "/mnt/data")
    config = kubeflow_runner.build_config(kubeflow_runner.parse_args([]))
    assert config.pipeline_root == "s3://bucket/root"
    assert config.serving_dir == "s3://bucket/root/serving"
    assert config.data_root == "/mnt/data"
    assert config.metadata is None


def test_unreachable_endpoint_is_one_clear_line(tmp_path, capfd):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    output = tmp_path / "pipeline.yaml"
    endpoint = f"http://127.0.0.1:{port}"
    code = kubeflow_runner.main(
        ["--image", IMAGE, *ROOTS, "--output", str(output), "--endpoint", endpoint]
    )
    assert code == kubeflow_runner.EXIT_FAILED
    err = capfd.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert f"could not reach Kubeflow Pipelines at {endpoint}" in err
    assert "Connection refused" in err
    assert output.is_file()  # the compiled package is kept

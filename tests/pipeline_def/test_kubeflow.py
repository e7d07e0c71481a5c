"""The Kubeflow package, checked as open-source KFP checks it (no cluster needed).

The rules are KFP's own, each with its source in ``kubeflow.harness.backend_rules``: what the
API server refuses on upload and on run creation, what its Argo compiler cannot run.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml
from kfp.client import client as kfp_client
from run_commands import console_command
from tfx import v1 as tfx

import kubeflow_runner
from data_layout import spans
from datasets.taxi import DATASET as TAXI
from kubeflow.harness import backend_rules
from kubeflow.operator.spec import KFP_COMMAND
from pipeline_def import node_ids
from pipeline_def.config import DEFAULT_RESOURCES, PipelineConfig
from pipeline_def.pipeline import create_pipeline
from pipeline_ops import commands

IMAGE = "registry.example.com/taxi-wide-deep:1.0"
PROJECT = Path(__file__).resolve().parents[2]
ROOT, DATA = "s3://bucket/taxi/root", "s3://bucket/taxi/data"
ROOTS = ["--pipeline-root", ROOT, "--data-root", DATA]
MINIO = [
    "--s3-endpoint",
    "http://minio-service.kubeflow:9000",
    "--s3-secret",
    "mlpipeline-minio-artifact",
]


def _compile(folder: Path, *extra: str) -> Path:
    output = folder / "pipeline.yaml"
    code = kubeflow_runner.main(["--image", IMAGE, *ROOTS, "--output", str(output), *extra])
    assert code == commands.EXIT_OK
    return output


@pytest.fixture(scope="module")
def package(tmp_path_factory) -> Path:
    return _compile(tmp_path_factory.mktemp("kfp"), *MINIO)


@pytest.fixture(scope="module")
def documents(package) -> list[dict]:
    return list(yaml.safe_load_all(package.read_text()))


@pytest.fixture(scope="module")
def spec(documents) -> dict:
    return documents[0]


def _executors(spec: dict) -> dict[str, dict]:
    """Each task's executor, by task name."""
    executors = spec["deploymentSpec"]["executors"]
    return {
        name: executors[spec["components"][task["componentRef"]["name"]]["executorLabel"]]
        for name, task in spec["root"]["dag"]["tasks"].items()
    }


def _local_edges(vertex: bool) -> dict[str, set[str]]:
    args = kubeflow_runner.parse_args(["--image", IMAGE, *ROOTS, *(["--vertex"] if vertex else [])])
    built = create_pipeline(kubeflow_runner.build_config(args))
    return {c.id: {u.id for u in c.upstream_nodes} for c in built.components}


def test_the_api_server_takes_the_package_and_a_run_without_arguments(package, spec):
    assert spec["schemaVersion"] == "2.1.0"
    assert backend_rules.upload_problems(spec) == []
    assert backend_rules.run_parameter_problems(spec, {}) == []
    # KFP's own client reads it as it uploads it: a PipelineSpec and a PlatformSpec.
    doc = kfp_client._extract_pipeline_yaml(str(package))
    assert doc.pipeline_spec.pipeline_info.name == "taxi-wide-deep"
    assert "kubernetes" in doc.platform_spec.platforms


def test_the_argo_compiler_can_run_every_task(spec):
    assert backend_rules.compile_problems(spec) == []
    assert all("container" in e for e in _executors(spec).values())


def test_the_rules_refuse_what_kfp_refuses(tmp_path):
    config = kubeflow_runner.build_config(kubeflow_runner.parse_args(["--image", IMAGE, *ROOTS]))
    # TFX's default: schema 2.0.0, its defaults in a runtimeConfig the YAML drops.
    runner = tfx.orchestration.experimental.KubeflowV2DagRunner(
        config=tfx.orchestration.experimental.KubeflowV2DagRunnerConfig(default_image=IMAGE)
    )
    tfx_default = runner.run(create_pipeline(config), write_out=False)["pipelineSpec"]
    upload = backend_rules.upload_problems(tfx_default)
    assert any("only supports schema version 2.1.0" in p for p in upload)
    assert "constantValue" in json.dumps(tfx_default)
    vertex = yaml.safe_load(_compile(tmp_path, "--vertex").read_text())
    assert any("resolver not implemented yet" in p for p in backend_rules.compile_problems(vertex))


def test_run_time_parameters_have_the_config_defaults_and_typed_values(spec):
    declared = spec["root"]["inputDefinitions"]["parameters"]
    assert {k: (v["parameterType"], v["defaultValue"]) for k, v in declared.items()} == {
        node_ids.DATA_ROOT: ("STRING", DATA),
        node_ids.SPAN: ("STRING", spans.LATEST_TEXT),
        node_ids.TRAIN_STEPS: ("NUMBER_INTEGER", PipelineConfig.train_steps),
        node_ids.MIN_AUC: ("NUMBER_DOUBLE", TAXI.min_auc),
    }
    assert (
        backend_rules.run_parameter_problems(
            spec, {node_ids.TRAIN_STEPS: 300, node_ids.MIN_AUC: 0.95}
        )
        == []
    )
    assert backend_rules.run_parameter_problems(spec, {node_ids.TRAIN_STEPS: "many"})
    tasks = spec["root"]["dag"]["tasks"]
    assert tasks[node_ids.TRAINER]["inputs"]["parameters"]["train_steps"] == {
        "componentInputParameter": node_ids.TRAIN_STEPS
    }


def test_constants_are_the_fields_kfp_reads(package, spec):
    # The 2.0.0 spec's constantValue is ignored by KFP's driver and importer launcher.
    assert "constantValue" not in package.read_text()
    for task in spec["root"]["dag"]["tasks"].values():
        for source in task.get("inputs", {}).get("parameters", {}).values():
            assert "constant" in source.get("runtimeValue", {"constant": None})


def test_one_task_per_local_node_with_the_same_edges(spec):
    tasks = spec["root"]["dag"]["tasks"]
    expected = _local_edges(vertex=False)
    assert set(tasks) == set(expected) == set(node_ids.NODE_IDS)
    for name, task in tasks.items():
        assert set(task.get("dependentTasks", [])) == expected[name], name


def test_every_step_runs_the_image_through_the_fixed_entry_point(spec):
    for name, executor in _executors(spec).items():
        container = executor["container"]
        assert container["image"] == IMAGE, name
        assert container["command"] == list(KFP_COMMAND), name
        # The inputs spec the entry point types KFP's untyped input artifacts from.
        assert "--json_serialized_inputs_spec_args" in container["args"], name


def test_example_gen_and_the_steps_reading_the_serving_folder_are_never_cached(spec):
    caching = {
        name: task["cachingOptions"].get("enableCache", False)
        for name, task in spec["root"]["dag"]["tasks"].items()
    }
    assert caching == {name: name not in node_ids.KUBEFLOW_UNCACHED for name in node_ids.NODE_IDS}
    uncached = {
        node_ids.SERVING_BASELINE,
        node_ids.SERVING_CHECK,
        node_ids.PUSHER,
        node_ids.EXAMPLE_GEN,
    }
    assert set(node_ids.KUBEFLOW_UNCACHED) == uncached
    # KFP would skip the hook where TFX fingerprints the input files for its cache.
    label = spec["components"][node_ids.EXAMPLE_GEN]["executorLabel"]
    assert "preCacheCheck" in spec["deploymentSpec"]["executors"][label]["container"]["lifecycle"]


def test_the_report_step_is_given_the_run_id_by_kfps_driver(spec):
    # A constant KFP's driver replaces with the run's id (components/evaluation_report.py).
    parameters = spec["root"]["dag"]["tasks"][node_ids.REPORT]["inputs"]["parameters"]
    assert parameters["run_id"] == {"runtimeValue": {"constant": "{{$.pipeline_job_uuid}}"}}


def test_heavy_steps_request_cpu_and_memory_from_the_config(spec):
    executors = _executors(spec)
    requested = {n: e["container"].get("resources") for n, e in executors.items()}
    assert {n: r for n, r in requested.items() if r} == {
        r.node: {"cpuRequest": r.cpu, "memoryRequest": r.memory_gb} for r in DEFAULT_RESOURCES
    }


def test_s3_endpoint_and_keys_reach_every_step(spec, documents):
    for name, executor in _executors(spec).items():
        env = {e["name"]: e["value"] for e in executor["container"]["env"]}
        assert env["AWS_ENDPOINT_URL"] == "http://minio-service.kubeflow:9000", name
    (platform,) = documents[1:]
    secrets = platform["platforms"]["kubernetes"]["deploymentSpec"]["executors"]
    assert set(secrets) == set(spec["deploymentSpec"]["executors"])
    for executor in secrets.values():
        (secret,) = executor["secretAsEnv"]
        assert secret["secretName"] == "mlpipeline-minio-artifact"
        assert {k["envVar"] for k in secret["keyToEnv"]} == {
            "AWS_ACCESS_KEY_ID",
            "AWS_SECRET_ACCESS_KEY",
        }


def test_no_path_from_the_compiling_machine(package):
    text = package.read_text()
    for path in {str(Path.home()), tempfile.gettempdir(), str(PROJECT), str(Path.cwd())}:
        # A local path starts a path; "taxi/root" inside an s3:// URI is not "/root".
        assert not re.search(rf"(?<![\w./:-]){re.escape(path)}(?![\w.-])", text), path
    assert ROOT in text


def test_the_vertex_variant_has_resolver_steps_instead_of_the_serving_baseline(tmp_path):
    vertex = yaml.safe_load(_compile(tmp_path, "--vertex").read_text())
    tasks = set(vertex["root"]["dag"]["tasks"])
    assert node_ids.SERVING_BASELINE not in tasks
    resolvers = {t for t in tasks if "resolver" in _executors(vertex)[t]}
    assert resolvers and all(
        t.startswith((node_ids.BASELINE_RESOLVER, node_ids.PREVIOUS_STATISTICS)) for t in resolvers
    )


def test_tuning_compiles_a_tuner_task_that_feeds_the_trainer(tmp_path):
    flags = ("--tune", "--tune-trials", "4", "--tune-minutes", "5")
    tuned = next(yaml.safe_load_all(_compile(tmp_path, *MINIO, *flags).read_text()))
    tasks = tuned["root"]["dag"]["tasks"]
    assert set(tasks) == set(node_ids.node_ids(tune=True))
    tuner = tasks[node_ids.TUNER]
    assert set(tuner["dependentTasks"]) == {node_ids.EXAMPLE_GEN, node_ids.TRANSFORM}
    artifacts = tuner["inputs"]["artifacts"]
    assert artifacts["examples"]["taskOutputArtifact"]["producerTask"] == node_ids.EXAMPLE_GEN
    assert artifacts["transform_graph"]["taskOutputArtifact"]["producerTask"] == node_ids.TRANSFORM
    custom_config = tuner["inputs"]["parameters"]["custom_config"]["runtimeValue"]["constant"]
    assert json.loads(custom_config)["tuning"] == {"max_trials": 4, "minutes": 5.0}
    trainer_input = tasks[node_ids.TRAINER]["inputs"]["artifacts"]["hyperparameters"]
    assert trainer_input["taskOutputArtifact"] == {
        "producerTask": node_ids.TUNER,
        "outputArtifactKey": "best_hyperparameters",
    }
    assert backend_rules.upload_problems(tuned) == backend_rules.compile_problems(tuned) == []
    # Off by default: no Tuner task, and the Trainer takes no hyperparameters.
    (tmp_path / "default").mkdir()
    default = next(yaml.safe_load_all(_compile(tmp_path / "default", *MINIO).read_text()))
    assert node_ids.TUNER not in default["root"]["dag"]["tasks"]
    assert "hyperparameters" not in default["root"]["dag"]["tasks"][node_ids.TRAINER]["inputs"].get(
        "artifacts", {}
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (ROOTS, "--image is required"),
        (["--image", IMAGE, "--data-root", DATA], "--pipeline-root is required"),
        (
            ["--image", IMAGE, "--pipeline-root", "relative/root", "--data-root", DATA],
            "gs:// or s3://",
        ),
        (
            ["--image", IMAGE, "--pipeline-root", "/mnt/volume/root", "--data-root", DATA],
            "gs:// or s3://",
        ),
        (
            ["--image", IMAGE, "--pipeline-root", "minio://mlpipeline/root", "--data-root", DATA],
            "gs:// or s3://",
        ),
        (["--image", IMAGE, "--pipeline-root", "gs://", "--data-root", DATA], "with a bucket"),
        (
            ["--image", IMAGE, "--pipeline-root", ROOT, "--data-root", "data/"],
            "--data-root 'data/'",
        ),
        (["--image", IMAGE, *ROOTS, "--output", "pipeline.json"], "must end in .yaml"),
    ],
)
def test_bad_flags_exit_2_with_one_line(args, message, capsys, monkeypatch, tmp_path):
    for name in ("IMAGE", "PIPELINE_ROOT", "DATA_ROOT"):
        monkeypatch.delenv(f"WIDE_DEEP_KFP_{name}", raising=False)
    monkeypatch.chdir(tmp_path)
    assert kubeflow_runner.main(args) == commands.EXIT_BAD_INPUT
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert not list(tmp_path.iterdir())  # nothing compiled


def test_flags_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("WIDE_DEEP_KFP_IMAGE", IMAGE)
    monkeypatch.setenv("WIDE_DEEP_KFP_PIPELINE_ROOT", "gs://bucket/root/")
    monkeypatch.setenv("WIDE_DEEP_KFP_DATA_ROOT", "gs://bucket/data")
    config = kubeflow_runner.build_config(kubeflow_runner.parse_args([]))
    assert config.pipeline_root == "gs://bucket/root"
    assert config.serving_dir == "gs://bucket/root/serving"
    assert config.data_root == "gs://bucket/data"
    assert config.metadata is None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_endpoint_is_one_clear_line(tmp_path, capfd):
    output = tmp_path / "pipeline.yaml"
    endpoint = f"http://127.0.0.1:{_free_port()}"  # nothing listens there
    code = kubeflow_runner.main(
        ["--image", IMAGE, *ROOTS, "--output", str(output), "--endpoint", endpoint]
    )
    assert code == commands.EXIT_FAILED
    err = capfd.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert f"could not reach Kubeflow Pipelines at {endpoint}" in err
    assert "Connection refused" in err
    assert output.is_file()  # the compiled package is kept


@pytest.mark.slow  # a fresh interpreter importing TFX
def test_the_python_support_warning_stays_off_the_console(tmp_path):
    output = str(tmp_path / "pipeline.yaml")
    result = console_command(
        commands.KUBEFLOW, "--verbose", "--image", IMAGE, *ROOTS, "--output", output
    )
    assert result.returncode == 0, result.stderr
    assert "tensorflow" in result.stderr  # --verbose: the libraries' log reaches the console
    assert "non-supported Python version" not in result.stderr


@pytest.mark.slow  # a fresh interpreter importing TFX
def test_the_console_gets_one_line_and_the_library_chatter_goes_to_the_log(tmp_path):
    output = tmp_path / "pipeline.yaml"
    result = subprocess.run(
        [sys.executable, str(PROJECT / "kubeflow_runner.py"), "--image", IMAGE, *ROOTS,
         "--output", str(output)],
        capture_output=True, text=True, cwd=tmp_path, timeout=300, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"compiled taxi-wide-deep to {output} (image {IMAGE})\n"
    assert result.stderr == ""
    assert "tensorflow" in (tmp_path / "pipeline.log").read_text()


def test_the_scoring_package_scores_a_span_with_the_serving_model(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # its default name, beside the training package's
    assert kubeflow_runner.main(["--image", IMAGE, *ROOTS, *MINIO, "--scoring"]) == 0
    spec, platform = yaml.safe_load_all((tmp_path / "scoring.yaml").read_text())
    assert spec["pipelineInfo"]["name"] == "taxi-wide-deep-scoring"
    assert backend_rules.upload_problems(spec) == []
    assert backend_rules.compile_problems(spec) == []
    assert backend_rules.run_parameter_problems(spec, {}) == []
    declared = spec["root"]["inputDefinitions"]["parameters"]
    assert {k: v["defaultValue"] for k, v in declared.items()} == {
        node_ids.DATA_ROOT: DATA,
        node_ids.SPAN: spans.LATEST_TEXT,
    }
    tasks = spec["root"]["dag"]["tasks"]
    assert set(tasks) == {node_ids.SERVING_BASELINE, node_ids.BATCH_SCORER}
    assert tasks[node_ids.BATCH_SCORER]["dependentTasks"] == [node_ids.SERVING_BASELINE]
    # Both read what is not among their inputs: the serving folder, the span's files.
    assert {t.get("cachingOptions", {}).get("enableCache", False) for t in tasks.values()} == {
        False
    }
    outputs = spec["components"][node_ids.BATCH_SCORER]["outputDefinitions"]["artifacts"]
    # Custom types go by the title of their instance schema: TFX's entry point imports it.
    titles = {n: yaml.safe_load(o["artifactType"]["instanceSchema"])["title"] for n, o in
              outputs.items()}  # fmt: skip
    assert titles == {"scores": "wide_deep.Scores", "skew_report": "wide_deep.ScoringSkew"}
    for name, executor in _executors(spec).items():
        assert executor["container"]["command"] == list(KFP_COMMAND), name
        assert {"name": "AWS_ENDPOINT_URL", "value": MINIO[1]} in executor["container"]["env"]
    assert set(platform["platforms"]["kubernetes"]["deploymentSpec"]["executors"]) == {
        spec["components"][t["componentRef"]["name"]]["executorLabel"] for t in tasks.values()
    }

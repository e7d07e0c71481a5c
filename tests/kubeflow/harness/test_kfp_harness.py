"""The Kubeflow harness's parts, each against what KFP's driver and launcher do."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from google.protobuf import json_format
from kfp.pipeline_spec import pipeline_spec_pb2 as pb
from ml_metadata.proto import metadata_store_pb2 as mlmd

import kubeflow_runner
from kubeflow.harness import __main__ as kfp_main
from kubeflow.harness import backend_rules, image_env, tasks
from kubeflow.harness.metadata import KfpMetadata, to_runtime_artifact
from kubeflow.step.entrypoint import localized, restore_uris, typed_executor_input
from pipeline_def.code_digest import STEP_PACKAGES

PROJECT = Path(__file__).resolve().parents[3]
ROOTS = ["--pipeline-root", "s3://b/root", "--data-root", "s3://b/data"]


@pytest.fixture(scope="module")
def spec(tmp_path_factory) -> dict:
    output = tmp_path_factory.mktemp("kfp") / "pipeline.yaml"
    assert kubeflow_runner.main(["--image", "img:1", *ROOTS, "--output", str(output)]) == 0
    return yaml.safe_load(output.read_text())


def test_tasks_run_after_their_dependencies(spec):
    order = tasks.order(spec)
    assert sorted(order) == sorted(spec["root"]["dag"]["tasks"])
    for name, task in spec["root"]["dag"]["tasks"].items():
        assert all(order.index(d) < order.index(name) for d in task.get("dependentTasks", []))
    assert tasks.unsupported(spec) == []


def test_until_a_task_runs_it_and_what_it_needs_and_nothing_after(spec, monkeypatch):
    dag = spec["root"]["dag"]["tasks"]
    needed = tasks.upstream(spec, "Transform")
    assert "Transform" in needed and "Trainer" not in needed and "EvaluationReport" not in needed
    assert all(set(dag[name].get("dependentTasks", [])) <= needed for name in needed)
    assert tasks.upstream(spec, "EvaluationReport") == set(dag)  # the last needs them all
    ran = []

    def run_task(run, name):
        ran.append(name)
        return tasks.TaskResult(tasks.RAN, 0.0)

    monkeypatch.setattr(tasks, "run_task", run_task)
    run = tasks.Run(spec, {}, "", {}, None, {}, {}, Path(), Path(), print, print)
    results, failed = kfp_main._execute(run, None, "Transform")
    assert ran == [name for name in tasks.order(spec) if name in needed] and failed is None
    assert set(results) == needed
    assert kfp_main.unknown_task(spec, "Trainr").startswith(
        "--until Trainr: the pipeline has no such task; it has CsvExampleGen, "
    )


def test_until_is_refused_with_the_scoring_run_alone(capsys):
    with pytest.raises(SystemExit) as refused:
        kfp_main.parse_args(["--only", "scoring", "--until", "Transform"])
    assert refused.value.code == 2
    assert "--until stops the training pipeline" in capsys.readouterr().err


def test_what_the_harness_cannot_run_is_named(spec):
    changed = json.loads(json.dumps(spec))
    label = changed["components"]["CuratedSchema"]["executorLabel"]
    changed["deploymentSpec"]["executors"][label] = {
        "importer": {"artifactUri": {"constant": "gs://b/x"}}
    }
    changed["root"]["dag"]["tasks"]["Trainer"]["triggerPolicy"] = {"condition": "x == 1"}
    assert tasks.unsupported(changed) == [
        "CuratedSchema: only container executors run here",
        "Trainer: conditions and loops",
    ]


def test_the_backend_rules_catch_an_unknown_field_a_bad_name_and_a_missing_default(spec):
    changed = json.loads(json.dumps(spec))
    changed["pipelineInfo"]["colour"] = "blue"
    assert backend_rules.upload_problems(changed)[0].startswith("invalid v2 pipeline spec")
    changed = json.loads(json.dumps(spec))
    changed["pipelineInfo"]["name"] = "Taxi_Wide_Deep"
    del changed["root"]["inputDefinitions"]["parameters"]["train_steps"]["defaultValue"]
    problems = backend_rules.upload_problems(changed)
    assert any("pipeline name 'Taxi_Wide_Deep'" in p for p in problems)
    assert any("parameter train_steps is not optional" in p for p in problems)


def _typed(title: str) -> pb.ArtifactTypeSchema:
    return pb.ArtifactTypeSchema(instance_schema=f"title: {title}\ntype: object\n")


def test_the_entry_point_types_what_kfp_hands_over_untyped():
    executor_input = pb.ExecutorInput()
    untyped = executor_input.inputs.artifacts["examples"].artifacts.add(name="7", uri="s3://b/e")
    untyped.type.instance_schema = ""  # what KFP's driver passes on
    executor_input.inputs.artifacts["schema"].artifacts.add(name="8", type=_typed("tfx.Schema"))
    inputs_spec = pb.ComponentInputsSpec()
    inputs_spec.artifacts["examples"].artifact_type.CopyFrom(_typed("tfx.Examples"))
    inputs_spec.artifacts["schema"].artifact_type.CopyFrom(_typed("tfx.Other"))
    fixed = json_format.Parse(
        typed_executor_input(
            json_format.MessageToJson(executor_input), json_format.MessageToJson(inputs_spec)
        ),
        pb.ExecutorInput(),
    )
    assert fixed.inputs.artifacts["examples"].artifacts[0].type == _typed("tfx.Examples")
    assert fixed.inputs.artifacts["schema"].artifacts[0].type == _typed("tfx.Schema")
    assert fixed.inputs.artifacts["examples"].artifacts[0].uri == "s3://b/e"


def test_the_step_reads_and_writes_the_launchers_local_copies_and_names_the_uris(tmp_path):
    executor_input = pb.ExecutorInput()
    executor_input.inputs.artifacts["examples"].artifacts.add(uri="s3://b/root/E/1/examples")
    executor_input.inputs.artifacts["model"].artifacts.add(uri="gs://g/model")
    executor_input.outputs.artifacts["schema"].artifacts.add(uri="s3://b/root/S/2/schema")
    executor_input.outputs.output_file = str(tmp_path / "output_metadata.json")
    invocation, remote = localized(json_format.MessageToJson(executor_input), str(tmp_path))
    local = json_format.Parse(invocation, pb.ExecutorInput())
    # launcher_v2.go LocalPathForURI, under the pod's root; gs:// TensorFlow reads itself.
    assert (
        local.inputs.artifacts["examples"].artifacts[0].uri == f"{tmp_path}/s3/b/root/E/1/examples"
    )
    assert local.inputs.artifacts["model"].artifacts[0].uri == "gs://g/model"
    schema = local.outputs.artifacts["schema"].artifacts[0].uri
    assert schema == f"{tmp_path}/s3/b/root/S/2/schema"
    # TFX's entry point writes the artifacts it was handed; the launcher records what
    # the ExecutorOutput names, so the URIs come back.
    written = {"artifacts": {"schema": {"artifacts": [{"uri": schema, "metadata": {"a": 1}}]}}}
    Path(local.outputs.output_file).write_text(json.dumps(written))
    restore_uris(local.outputs.output_file, remote)
    restored = json.loads(Path(local.outputs.output_file).read_text())
    assert restored["artifacts"]["schema"]["artifacts"] == [
        {"uri": "s3://b/root/S/2/schema", "metadata": {"a": 1}}
    ]


def test_metadata_comes_back_from_mlmd_as_kfp_passes_it_on(tmp_path):
    store = KfpMetadata(tmp_path / "mlmd.sqlite", "p", "run-1", "{}")
    produced = pb.RuntimeArtifact(
        name="blessing", uri="s3://b/blessing", type=_typed("tfx.ModelBlessing")
    )
    json_format.ParseDict(
        {"blessed": 1, "current_model": "s3://b/m", "flag": True, "splits": ["a"]},
        produced.metadata,
    )
    listed = pb.ArtifactList(artifacts=[produced])
    execution = store.record("Evaluator", mlmd.Execution.COMPLETE, "fp", {}, {"blessing": listed})
    (recorded,) = store.output_artifacts(execution).values()
    kinds = {k: v.WhichOneof("value") for k, v in recorded.custom_properties.items()}
    assert kinds["blessed"] == "double_value" and kinds["flag"] == "int_value"
    assert kinds["splits"] == "struct_value"
    assert recorded.custom_properties["display_name"].string_value == "blessing"
    passed_on = to_runtime_artifact(recorded)
    assert passed_on.name == str(recorded.id) and passed_on.uri == "s3://b/blessing"
    assert passed_on.type.WhichOneof("kind") == "instance_schema"
    assert passed_on.type.instance_schema == ""
    metadata = json_format.MessageToDict(passed_on.metadata)
    assert metadata["blessed"] == 1.0 and metadata["flag"] == 1.0
    assert store.cached_execution("fp") == execution
    assert store.cached_execution("other") is None


def _executor_input(artifact_id: str, steps: float, uri: str) -> pb.ExecutorInput:
    executor_input = pb.ExecutorInput()
    executor_input.inputs.artifacts["examples"].artifacts.add(name=artifact_id, uri="s3://b/e")
    executor_input.inputs.parameter_values["train_steps"].number_value = steps
    executor_input.outputs.artifacts["model"].artifacts.add(
        name="model", uri=uri, type=_typed("tfx.Model")
    )
    return executor_input


def test_the_cache_key_is_kfps_inputs_outputs_and_container():
    container = {"image": "img:1", "command": ["python"], "args": ["{{$}}"]}
    key = tasks.fingerprint(_executor_input("7", 200, "s3://b/root/T/1/model"), container)
    assert key == tasks.fingerprint(_executor_input("7", 200, "s3://b/root/T/2/model"), container)
    assert key != tasks.fingerprint(_executor_input("9", 200, "s3://b/root/T/1/model"), container)
    assert key != tasks.fingerprint(_executor_input("7", 300, "s3://b/root/T/1/model"), container)
    assert key != tasks.fingerprint(
        _executor_input("7", 200, "s3://b/root/T/1/model"), {**container, "image": "img:2"}
    )


def test_placeholders_are_substituted_as_the_launcher_does():
    executor_input = _executor_input("7", 200, "s3://b/root/T/1/model")
    command = tasks.compile_command(
        executor_input,
        ["run", "{{$}}", "--steps={{$.inputs.parameters['train_steps']}}",
         "{{$.outputs.artifacts['model'].uri}}"],
    )  # fmt: skip
    assert json_format.Parse(command[1], pb.ExecutorInput()) == executor_input
    assert command[2:] == ["--steps=200", "s3://b/root/T/1/model"]


def test_local_paths_follow_the_launcher_and_stay_in_the_pod(tmp_path):
    assert tasks.local_path(tmp_path, "s3://b/k/x") == tmp_path / "s3" / "b" / "k" / "x"
    assert tasks.local_path(tmp_path, "gs://b/k") == tmp_path / "gcs" / "b" / "k"
    with pytest.raises(tasks.UnsupportedError, match="unsupported storage scheme"):
        tasks.local_path(tmp_path, "/mnt/volume/k")


def test_the_image_context_is_what_the_dockerfile_copies(tmp_path):
    image_env.build_context(PROJECT / "Dockerfile", tmp_path)
    top = sorted(p.name for p in tmp_path.iterdir())
    folders = {package.split(".")[0] for package in STEP_PACKAGES}
    assert top == sorted(["README.md", *folders, "pyproject.toml", "requirements", "scripts"])
    assert sorted(p.name for p in (tmp_path / "requirements").iterdir()) == [
        "current.lock",
        "legacy.lock",
    ]
    # What steps import, and nothing of the operator side or the runners.
    assert not (tmp_path / "pipeline_ops").exists()
    assert sorted(p.name for p in (tmp_path / "kubeflow").iterdir()) == ["__init__.py", "step"]
    assert [p.name for p in (tmp_path / "scripts").iterdir()] == ["install_image.sh"]
    assert (tmp_path / "datasets" / "taxi" / "schema.pbtxt").is_file()


def test_the_build_contexts_digest_changes_with_any_file_of_it_and_only_then(tmp_path):
    # The harness reinstalls the image environment only when this digest changes.
    one, two = tmp_path / "one", tmp_path / "two"
    for context in (one, two):
        image_env.build_context(PROJECT / "Dockerfile", context)
    assert image_env.context_digest(one) == image_env.context_digest(two)
    for change in (
        lambda c: (c / "scripts" / "install_image.sh").write_text("#!/bin/sh\n"),
        lambda c: (c / "datasets" / "taxi" / "schema.pbtxt").unlink(),
        lambda c: (c / "modules" / "new_module.py").write_text(""),
    ):
        changed = tmp_path / f"changed-{len(list(tmp_path.iterdir()))}"
        shutil.copytree(one, changed)
        change(changed)
        assert image_env.context_digest(changed) != image_env.context_digest(one)


def test_the_image_is_a_beam_sdk_container_of_the_current_lock_on_debian_13():
    dockerfile = (PROJECT / "Dockerfile").read_text()
    lock = (PROJECT / "requirements" / "current.lock").read_text()
    locked = re.search(r"^apache-beam==([\d.]+)", lock, re.M)
    assert f"ARG BEAM_VERSION={locked.group(1)}" in dockerfile
    assert "FROM apache/beam_python3.13_sdk:${BEAM_VERSION} AS beam" in dockerfile
    # Debian 13's glibc runs ml-metadata 1.21; Beam's harness is copied in and stays
    # the entrypoint for Beam workers.
    assert "\nFROM python:3.13-slim-trixie\n" in dockerfile
    assert "COPY --from=beam /opt/apache/beam /opt/apache/beam" in dockerfile
    assert 'ENTRYPOINT ["/opt/apache/beam/boot"]' in dockerfile
    assert "graphviz" in dockerfile
    installs = [line for line in dockerfile.splitlines() if line.startswith("RUN scripts/")]
    assert installs == [
        "RUN scripts/install_image.sh python --deps-only",
        "RUN scripts/install_image.sh python",
    ]


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ([], {}),
        (["--span", "3", "--train-steps", "20"], {"span": "3", "train_steps": 20}),
        (["--span", "latest", "--min-auc", "0.5"], {"span": "latest", "min_auc": 0.5}),
    ],
)
def test_the_flags_set_run_parameters_of_the_types_the_spec_declares(spec, flags, expected):
    values = kfp_main.run_parameters(kfp_main.parse_args(flags))
    assert values == expected
    assert backend_rules.run_parameter_problems(spec, values) == []


@pytest.mark.parametrize(
    ("flags", "data_root", "output_dir"),
    [
        ([], PROJECT / "data" / "taxi", PROJECT / "outputs" / "kfp-local"),
        (
            ["--dataset", "credit_data"],
            PROJECT / "data" / "credit_data",
            PROJECT / "outputs" / "credit_data" / "kfp-local",
        ),
        (
            ["--dataset", "credit_data", "--output-dir", "o", "--data-root", "d"],
            Path("d"),
            Path("o"),
        ),
    ],
)
def test_a_dataset_runs_on_its_own_data_in_an_output_dir_of_its_own(flags, data_root, output_dir):
    args = kfp_main.parse_args(flags)
    assert (args.data_root, args.output_dir) == (data_root, output_dir)


def test_an_unknown_dataset_is_named_before_anything_is_installed(tmp_path, capsys):
    assert kfp_main.main(["--dataset", "nope", "--output-dir", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.startswith("error: no dataset 'nope' under ")
    assert not (tmp_path / "out").exists()

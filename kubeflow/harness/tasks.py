"""One task of the compiled spec, run as KFP's driver and launcher run it.

Followed from kubeflow/pipelines ``backend/src/v2``:

* driver (``driver/container.go``, ``driver/resolve.go``, ``driver/driver.go``
  provisionOutputs): parameters from the spec's constants and the run's parameters,
  input artifacts from the producers' outputs in MLMD, output URIs
  ``<root>/<task>/<uuid>/<output>``, the ``outputFile`` in the task root's local path,
  and the cache fingerprint (``cacheutils/cache.go`` GenerateCacheKey);
* launcher (``component/launcher_v2.go``): parameter defaults added, ``{{$}}`` and
  the other placeholders substituted, the input artifacts downloaded to their local
  paths, the outputs' local folders prepared, the container's command and args run as
  a process, the ExecutorOutput read back and merged into the outputs, files written
  to the outputs' local paths uploaded, and the execution published to MLMD.

Each task runs in a folder of its own (a pod's filesystem), outside the checkout;
the local paths KFP puts under ``/s3/<bucket>/...`` go under that folder, which the
step's environment names (``WIDE_DEEP_POD_ROOT``), since a process here has no pod's
``/`` of its own.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from google.protobuf import json_format, struct_pb2
from kfp.pipeline_spec import pipeline_spec_pb2 as pb
from ml_metadata.proto import metadata_store_pb2 as mlmd

from kubeflow.harness.metadata import KfpMetadata, to_runtime_artifact
from kubeflow.step.launcher_paths import POD_ROOT_ENV, UnsupportedSchemeError
from kubeflow.step.launcher_paths import local_path as launcher_path

RAN, CACHED, FAILED = "ran", "cached", "failed"


class UnsupportedError(ValueError):
    """A spec feature this harness does not execute (KFP does)."""


@dataclass
class Run:
    """One run of a compiled spec: what every task of it needs."""

    spec: dict[str, Any]
    platform: dict[str, Any]  # the package's kubernetes platform spec ({} when none)
    root: str  # the pipeline root, as given when the run is created
    parameters: dict[str, Any]  # the run's parameter values, defaults included
    metadata: KfpMetadata
    image_env: dict[str, str]  # the environment of the image (PATH to its Python)
    secrets: dict[str, dict[str, str]]  # Kubernetes secrets by name
    pods: Path  # each task's working directory is made here
    logs: Path
    upload: Callable[[Path, str], None]  # a local file or folder to an object-store URI
    download: Callable[[str, Path], None]  # an object-store URI (file or folder) to a path
    executions: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class TaskResult:
    """How a task ended."""

    state: str
    seconds: float
    log: Path | None = None
    exit_code: int = 0


def order(spec: dict[str, Any]) -> list[str]:
    """The root DAG's tasks in an order that runs each after its dependencies."""
    tasks = spec["root"]["dag"]["tasks"]
    done: list[str] = []
    while len(done) < len(tasks):
        ready = sorted(
            name
            for name, task in tasks.items()
            if name not in done and set(task.get("dependentTasks", [])) <= set(done)
        )
        if not ready:
            raise ValueError(f"the DAG has a cycle among {sorted(set(tasks) - set(done))}")
        done.append(ready[0])
    return done


def upstream(spec: dict[str, Any], name: str) -> set[str]:
    """Task ``name`` of the root DAG and every task it depends on, however far up."""
    dag = spec["root"]["dag"]["tasks"]
    found, todo = set(), [name]
    while todo:
        task = todo.pop()
        if task not in found:
            found.add(task)
            todo += dag[task].get("dependentTasks", [])
    return found


def unsupported(spec: dict[str, Any]) -> list[str]:
    """Spec features KFP runs that this harness does not, one line each."""
    found = []
    executors = spec.get("deploymentSpec", {}).get("executors", {})
    for name, task in sorted(spec["root"]["dag"]["tasks"].items()):
        component = spec["components"][task["componentRef"]["name"]]
        executor = executors.get(component.get("executorLabel", ""), {})
        if "container" not in executor:
            found.append(f"{name}: only container executors run here")
        if component.get("outputDefinitions", {}).get("parameters"):
            found.append(f"{name}: output parameters")
        for parameter, source in task.get("inputs", {}).get("parameters", {}).items():
            if not ({"runtimeValue", "componentInputParameter"} & set(source)):
                found.append(f"{name}: input parameter {parameter} from {sorted(source)}")
        if task.get("triggerPolicy") or task.get("iteratorPolicy") or "parameterIterator" in task:
            found.append(f"{name}: conditions and loops")
    return found


def _value(python: Any) -> struct_pb2.Value:
    return json_format.ParseDict(python, struct_pb2.Value())


def _constant(run: Run, constant: Any) -> Any:
    """resolve.go resolveInputParameter: a constant, the run's placeholders replaced.

    The driver replaces a constant that is exactly ``{{$.pipeline_job_uuid}}`` with
    the run's id (the EvaluationReport names its run so); other constants stay.
    """
    return run.metadata.run.name if constant == "{{$.pipeline_job_uuid}}" else constant


def _input_parameters(run: Run, task: dict[str, Any]) -> dict[str, struct_pb2.Value]:
    """resolve.go resolveInputParameter: a spec constant, or the run's parameter."""
    values = {}
    for name, source in task.get("inputs", {}).get("parameters", {}).items():
        if "runtimeValue" in source:
            values[name] = _value(_constant(run, source["runtimeValue"]["constant"]))
        else:
            values[name] = _value(run.parameters[source["componentInputParameter"]])
    return values


def _input_artifacts(run: Run, task: dict[str, Any]) -> dict[str, pb.ArtifactList]:
    """resolve.go resolveUpstreamArtifacts: the producer's output, read back from MLMD."""
    artifacts = {}
    for name, source in task.get("inputs", {}).get("artifacts", {}).items():
        output = source["taskOutputArtifact"]
        produced = run.metadata.output_artifacts(run.executions[output["producerTask"]])
        artifacts[name] = pb.ArtifactList(
            artifacts=[to_runtime_artifact(produced[output["outputArtifactKey"]])]
        )
    return artifacts


def local_path(pod: Path, uri: str) -> Path:
    """launcher_v2.go LocalPathForURI (s3://b/k -> /s3/b/k), rooted in the task's folder."""
    try:
        return Path(launcher_path(uri, str(pod)))
    except UnsupportedSchemeError as err:
        raise UnsupportedError(str(err)) from err


def _outputs(run: Run, name: str, component: dict[str, Any], pod: Path) -> pb.ExecutorInput.Outputs:
    """driver.go provisionOutputs: each output under ``<root>/<task>/<uuid>/``."""
    task_root = f"{run.root.rstrip('/')}/{name}/{uuid.uuid4()}"
    outputs = pb.ExecutorInput.Outputs(
        output_file=str(local_path(pod, task_root) / "output_metadata.json")
    )
    for key, declared in component.get("outputDefinitions", {}).get("artifacts", {}).items():
        artifact = pb.RuntimeArtifact(name=key, uri=f"{task_root}/{key}")
        json_format.ParseDict(declared["artifactType"], artifact.type)
        if "metadata" in declared:
            json_format.ParseDict(declared["metadata"], artifact.metadata)
        outputs.artifacts[key].artifacts.append(artifact)
    return outputs


def fingerprint(executor_input: pb.ExecutorInput, container: dict[str, Any]) -> str:
    """cache.go GenerateCacheKey, hashed: inputs, outputs without URIs, command, image."""
    inputs, outputs = executor_input.inputs, executor_input.outputs
    key = {
        "inputArtifactNames": {
            k: [a.name for a in v.artifacts] for k, v in inputs.artifacts.items()
        },
        "inputParameterValues": {
            k: json_format.MessageToDict(v) for k, v in inputs.parameter_values.items()
        },
        "outputArtifactsSpec": {
            k: json_format.MessageToDict(
                pb.RuntimeArtifact(
                    name=v.artifacts[0].name,
                    type=v.artifacts[0].type,
                    metadata=v.artifacts[0].metadata,
                )
            )
            for k, v in outputs.artifacts.items()
        },
        "containerSpec": {
            "image": container["image"],
            "cmdArgs": [*container.get("command", []), *container.get("args", [])],
        },
    }
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()


def placeholders(executor_input: pb.ExecutorInput) -> dict[str, str]:
    """launcher_v2.go getPlaceholders (``{{$}}`` aside), for this task's input."""
    found = {}
    for name, listed in executor_input.inputs.artifacts.items():
        found[f"{{{{$.inputs.artifacts['{name}'].uri}}}}"] = listed.artifacts[0].uri
    for name, listed in executor_input.outputs.artifacts.items():
        found[f"{{{{$.outputs.artifacts['{name}'].uri}}}}"] = listed.artifacts[0].uri
    for name, value in executor_input.inputs.parameter_values.items():
        kind = value.WhichOneof("kind")
        text = json.dumps(json_format.MessageToDict(value))
        if kind == "string_value":
            text = value.string_value
        elif kind == "number_value":  # Go's FormatFloat(v, 'f', -1, 64): no exponent
            text = np.format_float_positional(value.number_value, trim="-")
        elif kind == "bool_value":
            text = str(value.bool_value).lower()
        found[f"{{{{$.inputs.parameters['{name}']}}}}"] = text
    return found


def compile_command(executor_input: pb.ExecutorInput, command: list[str]) -> list[str]:
    """launcher_v2.go compileCmdAndArgs: ``{{$}}`` is the ExecutorInput as JSON."""
    whole = json_format.MessageToJson(executor_input, indent=None)
    found = placeholders(executor_input)
    compiled = []
    for part in command:
        part = part.replace("{{$}}", whole)
        for placeholder, value in found.items():
            part = part.replace(placeholder, value)
        compiled.append(part)
    return compiled


def with_defaults(executor_input: pb.ExecutorInput, component: dict[str, Any]) -> pb.ExecutorInput:
    """launcher_v2.go addDefaultParams: the component's defaults for parameters not given."""
    result = pb.ExecutorInput()
    result.CopyFrom(executor_input)
    for name, declared in component.get("inputDefinitions", {}).get("parameters", {}).items():
        if name not in result.inputs.parameter_values and "defaultValue" in declared:
            result.inputs.parameter_values[name].CopyFrom(_value(declared["defaultValue"]))
    return result


def _container_env(run: Run, label: str, container: dict[str, Any], pod: Path) -> dict[str, str]:
    """The pod's environment: the image's, the container's env, and secrets as env.

    driver.go initPodSpecPatch (container env) and k8s.go (secretAsEnv from the
    kubernetes platform spec, the package's second YAML document); and where the
    pod's ``/`` is here.
    """
    env = {**run.image_env, POD_ROOT_ENV: str(pod)}
    env.update({e["name"]: e["value"] for e in container.get("env", [])})
    executors = run.platform.get("deploymentSpec", {}).get("executors", {})
    for secret in executors.get(label, {}).get("secretAsEnv", []):
        values = run.secrets[secret["secretName"]]
        env.update({k["envVar"]: values[k["secretKey"]] for k in secret["keyToEnv"]})
    return env


def _merge_outputs(executor_input: pb.ExecutorInput, pod: Path, run: Run) -> None:
    """Merge the ExecutorOutput into the outputs, upload what was written locally.

    launcher_v2.go getExecutorOutputFile, mergeRuntimeArtifacts and
    uploadOutputArtifacts (a missing local path is allowed: TFX writes to the URIs).
    """
    outputs = executor_input.outputs
    written = pb.ExecutorOutput()
    if Path(outputs.output_file).is_file():
        json_format.Parse(Path(outputs.output_file).read_text(), written)
    for name, listed in outputs.artifacts.items():
        artifact = listed.artifacts[0]
        returned = written.artifacts[name].artifacts if name in written.artifacts else []
        if returned:
            artifact.uri = returned[0].uri or artifact.uri
            for key, value in returned[0].metadata.fields.items():
                artifact.metadata.fields[key].CopyFrom(value)
        local = local_path(pod, artifact.uri)
        if local.exists():
            run.upload(local, artifact.uri)


def _download_inputs(run: Run, executor_input: pb.ExecutorInput, pod: Path) -> None:
    """launcher_v2.go downloadArtifacts: every input artifact to its local path."""
    for listed in executor_input.inputs.artifacts.values():
        for artifact in listed.artifacts:
            run.download(artifact.uri, local_path(pod, artifact.uri))


def _prepare_output_folders(executor_input: pb.ExecutorInput, pod: Path) -> None:
    """launcher_v2.go prepareOutputFolders: the parent of each output's local path."""
    Path(executor_input.outputs.output_file).parent.mkdir(parents=True, exist_ok=True)
    for listed in executor_input.outputs.artifacts.values():
        for artifact in listed.artifacts:
            local_path(pod, artifact.uri).parent.mkdir(parents=True, exist_ok=True)


def _launch(
    run: Run, name: str, executor_input: pb.ExecutorInput, component: dict[str, Any], pod: Path
) -> tuple[int, Path]:
    """Run the container's command for ``executor_input`` in ``pod``; (exit code, log)."""
    label = component["executorLabel"]
    container = run.spec["deploymentSpec"]["executors"][label]["container"]
    _download_inputs(run, executor_input, pod)
    _prepare_output_folders(executor_input, pod)
    command = compile_command(
        with_defaults(executor_input, component),
        [*container["command"], *container.get("args", [])],
    )
    log = run.logs / f"{name}.log"
    with log.open("w") as out:
        code = subprocess.run(
            command,
            cwd=pod,
            env=_container_env(run, label, container, pod),
            stdout=out,
            stderr=out,
            check=False,
        ).returncode
    return code, log


def run_task(run: Run, name: str) -> TaskResult:
    """Drive and launch one container task; record it in MLMD like KFP."""
    started = time.monotonic()
    task = run.spec["root"]["dag"]["tasks"][name]
    component = run.spec["components"][task["componentRef"]["name"]]
    container = run.spec["deploymentSpec"]["executors"][component["executorLabel"]]["container"]
    executor_input = pb.ExecutorInput()
    for key, value in _input_parameters(run, task).items():
        executor_input.inputs.parameter_values[key].CopyFrom(value)
    for key, listed in _input_artifacts(run, task).items():
        executor_input.inputs.artifacts[key].CopyFrom(listed)
    input_ids = {
        k: [int(a.name) for a in v.artifacts] for k, v in executor_input.inputs.artifacts.items()
    }
    pod = run.pods / f"{name}-{uuid.uuid4().hex[:8]}"
    executor_input.outputs.CopyFrom(_outputs(run, name, component, pod))
    key = fingerprint(executor_input, container)
    cached = (
        run.metadata.cached_execution(key)
        if task.get("cachingOptions", {}).get("enableCache")
        else None
    )
    if cached is not None:
        outputs = run.metadata.output_artifacts(cached)
        run.executions[name] = run.metadata.record(
            name, mlmd.Execution.CACHED, key, input_ids, {k: [a] for k, a in outputs.items()}
        )
        return TaskResult(CACHED, time.monotonic() - started)
    code, log = _launch(run, name, executor_input, component, pod)
    if code != 0:
        run.executions[name] = run.metadata.record(name, mlmd.Execution.FAILED, key, input_ids, {})
        return TaskResult(FAILED, time.monotonic() - started, log, code)
    _merge_outputs(executor_input, pod, run)
    run.executions[name] = run.metadata.record(
        name, mlmd.Execution.COMPLETE, key, input_ids, dict(executor_input.outputs.artifacts)
    )
    return TaskResult(RAN, time.monotonic() - started, log)

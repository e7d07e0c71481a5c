"""What open-source KFP checks before it runs a package, each rule with its source.

The API server refuses a package on upload (kubeflow/pipelines,
``backend/src/apiserver/template/v2_template.go``, NewV2SpecTemplate and
validatePipelineJobInputs), and the Argo compiler refuses to turn it into a workflow
(``backend/src/v2/compiler/visitor.go`` and ``argocompiler/argo.go``). Each function
returns the problems found, one line each; an empty list means KFP would take it.
"""

from __future__ import annotations

import re
from typing import Any

from google.protobuf import json_format
from kfp.pipeline_spec import pipeline_spec_pb2

SCHEMA_VERSION = "2.1.0"
# v2_template.go: the pipeline name as a Kubernetes resource name (anchored here; the
# server's MatchString is not, which lets more through).
NAME_PATTERN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def upload_problems(spec: dict[str, Any]) -> list[str]:
    """Why KFP's API server would refuse ``spec`` on upload (v2_template.go)."""
    try:
        # protojson.Unmarshal there: a field KFP does not know fails the upload.
        json_format.ParseDict(spec, pipeline_spec_pb2.PipelineSpec())
    except json_format.ParseError as err:
        return [f"invalid v2 pipeline spec: {err}"]
    problems = []
    if spec.get("schemaVersion") != SCHEMA_VERSION:
        problems.append(
            f"KFP only supports schema version {SCHEMA_VERSION}, but the pipeline spec has "
            f"version {spec.get('schemaVersion')}"
        )
    name = spec.get("pipelineInfo", {}).get("name", "")
    if not NAME_PATTERN.fullmatch(name):
        problems.append(f"pipeline name {name!r} is not lower-case alphanumerics, '-' or '.'")
    if not spec.get("root"):
        problems.append("invalid v2 pipeline spec: root component is empty")
    return problems + run_parameter_problems(spec, {})


# The value kinds validatePipelineJobInputs accepts for each parameter type.
_VALUE_KINDS = {
    "STRING": (str,),
    "NUMBER_INTEGER": (int, float),
    "NUMBER_DOUBLE": (int, float),
    "BOOLEAN": (bool,),
    "LIST": (list,),
    "STRUCT": (dict,),
}


def run_parameter_problems(spec: dict[str, Any], values: dict[str, Any]) -> list[str]:
    """Why the server would refuse a run of ``spec`` with run-time ``values``.

    v2_template.go, validatePipelineJobInputs: a parameter without a value needs a
    default (or to be optional); a value must match its parameter's type.
    """
    problems = []
    declared = spec.get("root", {}).get("inputDefinitions", {}).get("parameters", {})
    for name, parameter in sorted(declared.items()):
        kind = parameter.get("parameterType", "PARAMETER_TYPE_ENUM_UNSPECIFIED")
        if name not in values:
            if not parameter.get("isOptional") and "defaultValue" not in parameter:
                problems.append(
                    f"parameter {name} is not optional, yet has neither default value nor "
                    "user provided value"
                )
        elif kind not in _VALUE_KINDS:
            problems.append(f"input parameter {name} has unspecified type")
        elif isinstance(values[name], bool) != (kind == "BOOLEAN") or not isinstance(
            values[name], _VALUE_KINDS[kind]
        ):
            problems.append(f"input parameter {name} requires type {kind}: {values[name]!r}")
    return problems


def compile_problems(spec: dict[str, Any]) -> list[str]:
    """Why KFP's Argo compiler would not compile ``spec`` into a workflow.

    visitor.go: every component's executor must be in the deployment config, and be
    a container or an importer ("non-container and non-importer executor not
    implemented"); argo.go answers a Resolver with "resolver not implemented yet".
    """
    executors = spec.get("deploymentSpec", {}).get("executors", {})
    problems = []
    for task_name, task in sorted(spec.get("root", {}).get("dag", {}).get("tasks", {}).items()):
        component = spec.get("components", {}).get(task.get("componentRef", {}).get("name", ""))
        if component is None:
            problems.append(f"{task_name}: cannot find component ref")
            continue
        label = component.get("executorLabel", "")
        executor = executors.get(label)
        if executor is None:
            problems.append(
                f"{task_name}: executor(label={label!r}) not found in deployment config"
            )
        elif "resolver" in executor:
            problems.append(f"{task_name}: resolver not implemented yet")
        elif "container" not in executor and "importer" not in executor:
            problems.append(f"{task_name}: non-container and non-importer executor not implemented")
    return problems

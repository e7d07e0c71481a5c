"""What a compiled package declares: its tasks, and run-time parameters given as ``NAME=VALUE``.

The names and types are the package's root input parameters (what KFP's UI shows on
"Create run"); a value is converted to its parameter's type here, so the API server's
own check (``validatePipelineJobInputs`` in kubeflow/pipelines
``backend/src/apiserver/template/v2_template.go``) never refuses it half-way through a
deploy.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

_BOOLEANS = {"true": True, "false": False}


def _convert(name: str, kind: str, text: str) -> Any:
    """``text`` as a value of the parameter type ``kind``; ValueError naming the parameter."""
    try:
        if kind == "NUMBER_INTEGER":
            return int(text)
        if kind == "NUMBER_DOUBLE":
            return float(text)
    except ValueError:
        noun = "an integer" if kind == "NUMBER_INTEGER" else "a number"
        raise ValueError(f"--param {name}={text}: {name} takes {noun}") from None
    if kind == "BOOLEAN":
        if text.lower() not in _BOOLEANS:
            raise ValueError(f"--param {name}={text}: {name} takes true or false")
        return _BOOLEANS[text.lower()]
    return text


def package_spec(package: Path) -> dict[str, Any]:
    """The PipelineSpec in a compiled package."""
    return yaml.safe_load(package.read_text())


def declared_parameters(spec: Mapping[str, Any]) -> Mapping[str, dict[str, Any]]:
    """The run-time parameters: name -> definition (parameterType, defaultValue)."""
    return spec.get("root", {}).get("inputDefinitions", {}).get("parameters", {})


def task_names(spec: Mapping[str, Any]) -> list[str]:
    """The names of the pipeline's tasks, as a run's task details show them."""
    return list(spec.get("root", {}).get("dag", {}).get("tasks", {}))


def parse_parameters(
    pairs: Iterable[str], declared: Mapping[str, dict[str, Any]]
) -> dict[str, Any]:
    """``NAME=VALUE`` pairs as typed values; ValueError naming a pair that is not one."""
    values: dict[str, Any] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"--param {pair!r} is not NAME=VALUE")
        if name not in declared:
            raise ValueError(
                f"--param {name}: not a run-time parameter of the pipeline; "
                f"they are {', '.join(sorted(declared))}"
            )
        values[name] = _convert(name, declared[name].get("parameterType", "STRING"), text)
    return values

"""What differs between two runs of the pipeline, as ML-Metadata recorded them.

Steps' parameters (a cached step's from the execution it reused), JSON configs
key by key with whole values, the input data and the overall metrics: the
``wide-deep-inspect diff`` command prints it, the review names what differs from
the serving model's run.
"""

from __future__ import annotations

import json
from typing import Any

from ml_metadata.metadata_store import metadata_store
from ml_metadata.proto import metadata_store_pb2 as mlmd_pb2

from data_layout.properties import value_of
from pipeline_def import node_ids
from pipeline_ops.metadata.runs import NodeExecution, PipelineRun, producer_of
from review.reading import overall_metrics


def properties(item: mlmd_pb2.Artifact | mlmd_pb2.Execution) -> dict[str, Any]:
    """An artifact's or execution's properties, custom and typed, as plain values."""
    found = {k: value_of(v) for k, v in item.properties.items()}
    found.update({k: value_of(v) for k, v in item.custom_properties.items()})
    return {k: v for k, v in found.items() if not k.startswith("__") and k != "tfx_version"}


def node_parameters(store: metadata_store.MetadataStore, node: NodeExecution) -> dict[str, Any]:
    """A node's execution properties; a cached step's completed from the execution it reused.

    A step served from TFX's cache records the properties it was given, not those
    its executor set when it ran (ExampleGen's input fingerprint and span): those are
    on the execution that made the artifact the cached step reused.
    """
    own = properties(node.execution)
    if node.state != "cached":
        return own
    reused = next((a for artifacts in node.outputs.values() for a in artifacts), None)
    producer = producer_of(store, reused.id) if reused is not None else None
    return own if producer is None else {**properties(producer), **own}


# A key that one side of a diff does not have (None is a value: JSON's null).
ABSENT = object()


def _structured(value: Any) -> Any:
    """``value`` parsed when it is a JSON object written as text (custom_config, eval_config)."""
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def _holds_objects(value: Any) -> bool:
    return isinstance(value, list) and any(isinstance(v, dict) for v in value)


def changed_leaves(a: Any, b: Any, path: str) -> list[tuple[str, Any, Any]]:
    """Where ``a`` and ``b`` differ, as (path, value in a, value in b), each value whole.

    JSON objects (text or parsed) are followed key by key, so a change deep in a
    long config is named by its path (``custom_config.hparams.dropout``); lists of
    objects of the same length item by item (``[0]``); anything else is compared whole.
    """
    a, b = _structured(a), _structured(b)
    if isinstance(a, dict) and isinstance(b, dict):
        keys = sorted(set(a) | set(b), key=str)
        return [
            leaf
            for k in keys
            for leaf in changed_leaves(a.get(k, ABSENT), b.get(k, ABSENT), f"{path}.{k}")
        ]
    if _holds_objects(a) and _holds_objects(b) and len(a) == len(b):
        pairs = enumerate(zip(a, b, strict=True))
        return [leaf for i, (x, y) in pairs for leaf in changed_leaves(x, y, f"{path}[{i}]")]
    return [] if a == b else [(path, a, b)]


def _changed_parameters(pa: dict[str, Any], pb: dict[str, Any]) -> dict[str, list[Any]]:
    """The parameters whose values differ (a JSON text written otherwise is not a change)."""
    return {
        k: [pa.get(k), pb.get(k)]
        for k in sorted(set(pa) | set(pb))
        if changed_leaves(pa.get(k, ABSENT), pb.get(k, ABSENT), k)
    }


def _examples_properties(run: PipelineRun) -> dict[str, Any]:
    """The ExampleGen output's properties (fingerprint, span), cached runs included."""
    examples = run.output(node_ids.EXAMPLE_GEN, "examples")
    return properties(examples) if examples is not None else {}


def _run_metrics(run: PipelineRun) -> dict[str, float]:
    evaluation = run.output(node_ids.EVALUATOR, "evaluation")
    if evaluation is None:
        return {}
    return overall_metrics(evaluation.uri)


def diff_runs(
    store: metadata_store.MetadataStore, a: PipelineRun, b: PipelineRun, metrics: bool = True
) -> dict[str, Any]:
    """What differs between two runs: component states, parameters (inputs included), metrics.

    ``metrics`` False leaves the metrics out (reading them loads TFMA). Parameters are
    compared for the steps both runs reached; a step only one of them
    reached shows as a state ("complete -> -"), not as every parameter gone.
    """
    parameters = {}
    for node in node_ids.node_ids(tune=True):
        if node in a.nodes and node in b.nodes:
            pa, pb = (node_parameters(store, run.nodes[node]) for run in (a, b))
            changed = _changed_parameters(pa, pb)
            if changed:
                parameters[node] = changed
    states = {
        node: [
            a.nodes[node].state if node in a.nodes else None,
            b.nodes[node].state if node in b.nodes else None,
        ]
        for node in node_ids.node_ids(tune=True)
        if node in a.nodes or node in b.nodes
    }
    ma, mb = (_run_metrics(a), _run_metrics(b)) if metrics else ({}, {})
    inputs_a, inputs_b = _examples_properties(a), _examples_properties(b)
    compared = {k: [ma.get(k), mb.get(k)] for k in sorted(set(ma) | set(mb))}
    return {
        "runs": [a.run_id, b.run_id],
        "inputs": {
            key: [inputs_a.get(key), inputs_b.get(key)] for key in ("input_fingerprint", "span")
        },
        "states": {k: v for k, v in states.items() if v[0] != v[1]},
        "parameters": parameters,
        "metrics": compared,
    }

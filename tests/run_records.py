"""Runs as ML-Metadata records them, made by hand: the records a reader is given.

For the logic that reads runs (history, the cron check) on runs no pipeline could be
made to leave in a second: a run stopped early, a serving folder rolled back.
"""

from __future__ import annotations

from ml_metadata.proto import metadata_store_pb2 as mlmd_pb2

from pipeline_ops.metadata.runs import NodeExecution

COMPLETE, FAILED = mlmd_pb2.Execution.COMPLETE, mlmd_pb2.Execution.FAILED


def _set(properties: object, values: dict[str, int | str]) -> None:
    for name, value in values.items():
        field = "int_value" if isinstance(value, int) else "string_value"
        setattr(properties[name], field, value)


def artifact(**properties: int | str) -> mlmd_pb2.Artifact:
    """An artifact with these custom properties."""
    made = mlmd_pb2.Artifact()
    _set(made.custom_properties, properties)
    return made


def node(
    node_id: str,
    state: int = COMPLETE,
    parameters: dict[str, int | str] | None = None,
    **outputs: mlmd_pb2.Artifact,
) -> NodeExecution:
    """A node's execution in ``state`` with these execution ``parameters`` and outputs."""
    execution = mlmd_pb2.Execution(last_known_state=state)
    _set(execution.custom_properties, parameters or {})
    return NodeExecution(node_id, execution, {key: [a] for key, a in outputs.items()})

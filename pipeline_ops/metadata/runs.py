"""Read pipeline runs back out of ML-Metadata: executions per node and their outputs.

TFX records every execution with three contexts: the pipeline, the pipeline run
(named by the run id) and the node (``<pipeline>.<node id>``). A run is the set of
executions that share a pipeline-run context with the pipeline's context.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from ml_metadata.metadata_store import metadata_store
from ml_metadata.proto import metadata_store_pb2 as mlmd_pb2

PIPELINE, PIPELINE_RUN, NODE = "pipeline", "pipeline_run", "node"

STATE_NAMES = {
    mlmd_pb2.Execution.UNKNOWN: "unknown",
    mlmd_pb2.Execution.NEW: "new",
    mlmd_pb2.Execution.RUNNING: "running",
    mlmd_pb2.Execution.COMPLETE: "complete",
    mlmd_pb2.Execution.FAILED: "failed",
    mlmd_pb2.Execution.CACHED: "cached",
    mlmd_pb2.Execution.CANCELED: "canceled",
}


@dataclass
class NodeExecution:
    """One node's execution in a run, with its input and output artifacts by key."""

    node_id: str
    execution: mlmd_pb2.Execution
    outputs: dict[str, list[mlmd_pb2.Artifact]] = field(default_factory=dict)
    # What the execution read: a failed step's inputs are all that MLMD keeps of it.
    inputs: dict[str, list[mlmd_pb2.Artifact]] = field(default_factory=dict)

    @property
    def state(self) -> str:
        """Complete / cached / failed / running / ..."""
        return STATE_NAMES.get(self.execution.last_known_state, "unknown")

    @property
    def seconds(self) -> float:
        """Time from the execution's creation to its last update in MLMD."""
        e = self.execution
        return max(0.0, (e.last_update_time_since_epoch - e.create_time_since_epoch) / 1000)


@dataclass
class PipelineRun:
    """A run of the pipeline as MLMD recorded it."""

    run_id: str
    started_ms: int
    nodes: dict[str, NodeExecution]
    # The run context's text properties (e.g. the stack it ran on, pipeline_def.stack).
    properties: dict[str, str] = field(default_factory=dict)

    def output(self, node_id: str, key: str) -> mlmd_pb2.Artifact | None:
        """The first artifact a node output under ``key`` in this run, or None."""
        node = self.nodes.get(node_id)
        found = node.outputs.get(key) if node is not None else None
        return found[0] if found else None


def _event_key(event: mlmd_pb2.Event) -> str:
    steps = [s.key for s in event.path.steps if s.HasField("key")]
    return steps[0] if steps else ""


_OUTPUTS = (mlmd_pb2.Event.OUTPUT, mlmd_pb2.Event.DECLARED_OUTPUT)
_INPUTS = (mlmd_pb2.Event.INPUT, mlmd_pb2.Event.DECLARED_INPUT)


def _node_execution(
    store: metadata_store.MetadataStore, node_id: str, execution: mlmd_pb2.Execution
) -> NodeExecution:
    node = NodeExecution(node_id, execution)
    events = [
        e for e in store.get_events_by_execution_ids([execution.id]) if e.type in _OUTPUTS + _INPUTS
    ]
    artifacts = {a.id: a for a in store.get_artifacts_by_id([e.artifact_id for e in events])}
    for event in events:
        side = node.outputs if event.type in _OUTPUTS else node.inputs
        side.setdefault(_event_key(event), []).append(artifacts[event.artifact_id])
    return node


def producer_of(store: metadata_store.MetadataStore, artifact_id: int) -> mlmd_pb2.Execution | None:
    """The execution that made the artifact, or None when none output it.

    A step served from TFX's cache outputs the artifact again, later; the first
    execution that output it is the one that ran.
    """
    events = store.get_events_by_artifact_ids([artifact_id])
    outputs = [e.execution_id for e in events if e.type == mlmd_pb2.Event.OUTPUT]
    return store.get_executions_by_id([min(outputs)])[0] if outputs else None


def runs_newest_first(
    store: metadata_store.MetadataStore, pipeline_name: str
) -> Iterator[PipelineRun]:
    """The pipeline's runs, newest first, each read from the store only when reached."""
    pipeline = store.get_context_by_type_and_name(PIPELINE, pipeline_name)
    if pipeline is None:
        return
    in_pipeline = {e.id for e in store.get_executions_by_context(pipeline.id)}
    node_of: dict[int, str] = {}
    prefix = f"{pipeline_name}."
    for ctx in store.get_contexts_by_type(NODE):
        if ctx.name.startswith(prefix):
            for execution in store.get_executions_by_context(ctx.id):
                node_of[execution.id] = ctx.name[len(prefix) :]
    run_contexts = sorted(
        store.get_contexts_by_type(PIPELINE_RUN),
        # Ids break ties: two runs registered in the same millisecond.
        key=lambda ctx: (ctx.create_time_since_epoch, ctx.id),
        reverse=True,
    )
    for ctx in run_contexts:
        executions = [e for e in store.get_executions_by_context(ctx.id) if e.id in in_pipeline]
        if not executions:
            continue
        nodes = {}
        for execution in sorted(executions, key=lambda e: e.id):
            node_id = node_of.get(execution.id, execution.type)
            nodes[node_id] = _node_execution(store, node_id, execution)
        properties = {k: v.string_value for k, v in ctx.custom_properties.items()}
        yield PipelineRun(ctx.name, ctx.create_time_since_epoch, nodes, properties)


def list_runs(store: metadata_store.MetadataStore, pipeline_name: str) -> list[PipelineRun]:
    """The pipeline's runs in the store, newest first (empty when it has none)."""
    return list(runs_newest_first(store, pipeline_name))


def latest_run(store: metadata_store.MetadataStore, pipeline_name: str) -> PipelineRun | None:
    """The newest run of the pipeline, or None when the store has none.

    Reads only that run's executions and artifacts, however many runs the store holds.
    """
    return next(runs_newest_first(store, pipeline_name), None)


def run_of_execution(
    store: metadata_store.MetadataStore, pipeline_name: str, execution_id: int
) -> PipelineRun | None:
    """The run an execution belongs to, or None when it is in no run of the pipeline.

    Run ids are start times, so they cannot tell apart two runs started together on
    one store; an execution the run registered can.
    """
    run_type = store.get_context_type(PIPELINE_RUN)
    contexts = store.get_contexts_by_execution(execution_id)
    run_ctx = next((c for c in contexts if c.type_id == run_type.id), None)
    return None if run_ctx is None else find_run(store, pipeline_name, run_ctx.name)


# How many runs an ambiguous id's message names.
_IDS_NAMED = 5


def find_run(
    store: metadata_store.MetadataStore, pipeline_name: str, run_id: str | None
) -> PipelineRun | None:
    """The run named ``run_id`` (the newest when None), or None when there is none.

    A run id may be given by its start (``2026-11-27T04:30``): the one run it begins.
    AmbiguousRunIdError when it begins several, naming them.
    """
    if run_id is None:
        return latest_run(store, pipeline_name)
    begun = []
    for run in runs_newest_first(store, pipeline_name):
        if run.run_id == run_id:
            return run
        if run.run_id.startswith(run_id):
            begun.append(run)
    if len(begun) > 1:
        ids = ", ".join(run.run_id for run in begun[:_IDS_NAMED])
        more = f" and {len(begun) - _IDS_NAMED} more" if len(begun) > _IDS_NAMED else ""
        raise AmbiguousRunIdError(f"run {run_id!r} could be any of {len(begun)}: {ids}{more}")
    return begun[0] if begun else None


class AmbiguousRunIdError(ValueError):
    """A run id's start that begins more than one run's id."""


def cancel_unfinished(
    store: metadata_store.MetadataStore, run: PipelineRun, interrupted_node: str | None
) -> list[str]:
    """Record the run's unfinished executions as canceled (after a Ctrl-C); their node ids.

    That is every new or running execution, and the interrupted node's, which TFX
    records as failed when the interrupt surfaced as an error. None of their
    outputs were published, so no later run consumes them; the state keeps
    ``inspect runs`` from showing a stopped run as running or broken.
    """
    unfinished = (mlmd_pb2.Execution.NEW, mlmd_pb2.Execution.RUNNING)
    stopped = []
    for node, execution in run.nodes.items():
        e = execution.execution
        if e.last_known_state in unfinished or (
            node == interrupted_node and e.last_known_state == mlmd_pb2.Execution.FAILED
        ):
            e.last_known_state = mlmd_pb2.Execution.CANCELED
            store.put_executions([e])
            stopped.append(node)
    return stopped


def record_on_run(store: metadata_store.MetadataStore, run_id: str, name: str, value: str) -> None:
    """Set the text property ``name`` of run ``run_id``'s context (nothing if it has none)."""
    context = store.get_context_by_type_and_name(PIPELINE_RUN, run_id)
    if context is not None:
        context.custom_properties[name].string_value = value
        store.put_contexts([context])

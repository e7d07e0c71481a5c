"""ML-Metadata as KFP's driver and launcher write and read it.

KFP keeps every task's execution and output artifacts in MLMD, and the driver of a
downstream task reads its input artifacts back from there. The conversions follow
kubeflow/pipelines ``backend/src/v2/metadata`` (client.go, converter.go) closely,
because they change what a step receives: an artifact's metadata becomes MLMD custom
properties (numbers as doubles, booleans as ints), and comes back with every number
as a JSON number and with an empty type (``Schema: ""`` in
GetOutputArtifactsByExecutionId).
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from google.protobuf import struct_pb2
from kfp.pipeline_spec import pipeline_spec_pb2
from ml_metadata.metadata_store import metadata_store
from ml_metadata.proto import metadata_store_pb2 as mlmd

from pipeline_def.stack import STACK_PROPERTY

PIPELINE_TYPE, RUN_TYPE = "system.Pipeline", "system.PipelineRun"
EXECUTION_TYPE = "system.ContainerExecution"
FINGERPRINT, TASK_NAME = "cache_fingerprint", "task_name"


def _metadata_value(value: struct_pb2.Value) -> mlmd.Value:
    """converter.go StructValueToMLMDValue: numbers are doubles, booleans ints."""
    kind = value.WhichOneof("kind")
    result = mlmd.Value()
    if kind == "string_value":
        result.string_value = value.string_value
    elif kind == "number_value":
        result.double_value = value.number_value
    elif kind == "bool_value":
        result.int_value = int(value.bool_value)
    elif kind == "list_value":
        result.struct_value.fields["list"].list_value.CopyFrom(value.list_value)
    elif kind == "struct_value":
        result.struct_value.fields["struct"].struct_value.CopyFrom(value.struct_value)
    else:
        raise ValueError(f"unknown/unsupported value type {kind}")
    return result


def _struct_value(value: mlmd.Value) -> struct_pb2.Value:
    """converter.go toRuntimeArtifact: every number comes back as a JSON number."""
    kind = value.WhichOneof("value")
    if kind == "string_value":
        return struct_pb2.Value(string_value=value.string_value)
    if kind in ("double_value", "int_value"):
        return struct_pb2.Value(number_value=float(getattr(value, kind)))
    if kind == "struct_value":
        return struct_pb2.Value(struct_value=value.struct_value)
    raise ValueError(f"unknown property type in MLMD artifact: {kind}")


def schema_title(artifact_type: pipeline_spec_pb2.ArtifactTypeSchema) -> str:
    """The MLMD type name of an artifact type (client.go SchemaToArtifactType)."""
    if artifact_type.WhichOneof("kind") == "schema_title":
        return artifact_type.schema_title
    return (yaml.safe_load(artifact_type.instance_schema) or {}).get("title", "")


def to_runtime_artifact(artifact: mlmd.Artifact) -> pipeline_spec_pb2.RuntimeArtifact:
    """An upstream output as the driver passes it on: no type, metadata from properties."""
    result = pipeline_spec_pb2.RuntimeArtifact(name=str(artifact.id), uri=artifact.uri)
    result.type.instance_schema = ""  # GetOutputArtifactsByExecutionId: "TODO ... schema"
    result.metadata.SetInParent()
    for properties in (artifact.properties, artifact.custom_properties):
        for key, value in properties.items():
            result.metadata.fields[key].CopyFrom(_struct_value(value))
    return result


class KfpMetadata:
    """The MLMD store of one pipeline, as KFP's backend writes it, for one run."""

    def __init__(self, path: Path, pipeline_name: str, run_id: str, session_info: str) -> None:
        config = mlmd.ConnectionConfig()
        config.sqlite.filename_uri = str(path)
        config.sqlite.connection_mode = mlmd.SqliteMetadataSourceConfig.READWRITE_OPENCREATE
        self.store = metadata_store.MetadataStore(config)
        self.session_info = session_info
        self.pipeline = self._context(PIPELINE_TYPE, pipeline_name)
        self.run = self._context(RUN_TYPE, run_id)
        self.execution_type = self._type(mlmd.ExecutionType, EXECUTION_TYPE)

    def _type(self, kind: type, name: str) -> int:
        put = {
            mlmd.ArtifactType: self.store.put_artifact_type,
            mlmd.ExecutionType: self.store.put_execution_type,
            mlmd.ContextType: self.store.put_context_type,
        }[kind]
        return put(kind(name=name))

    def _context(self, type_name: str, name: str) -> mlmd.Context:
        found = self.store.get_context_by_type_and_name(type_name, name)
        if found is not None:
            return found
        context = mlmd.Context(type_id=self._type(mlmd.ContextType, type_name), name=name)
        context.id = self.store.put_contexts([context])[0]
        return context

    def output_artifacts(self, execution_id: int) -> dict[str, mlmd.Artifact]:
        """The outputs an execution published, by output name."""
        events = [
            e
            for e in self.store.get_events_by_execution_ids([execution_id])
            if e.type == mlmd.Event.OUTPUT
        ]
        artifacts = {
            a.id: a for a in self.store.get_artifacts_by_id([e.artifact_id for e in events])
        }
        return {e.path.steps[0].key: artifacts[e.artifact_id] for e in events}

    def cached_execution(self, fingerprint: str) -> int | None:
        """The newest complete execution of this pipeline with ``fingerprint``, if any."""
        found = [
            e
            for e in self.store.get_executions_by_context(self.pipeline.id)
            if e.last_known_state == mlmd.Execution.COMPLETE
            and e.custom_properties[FINGERPRINT].string_value == fingerprint
        ]
        return max(found, key=lambda e: e.id).id if found else None

    def record_stack(self, versions: dict[str, str]) -> None:
        """Name on the run's context the stack its steps ran on (``pipeline_def.stack``)."""
        self.run.custom_properties[STACK_PROPERTY].string_value = json.dumps(versions)
        self.store.put_contexts([self.run])

    def record(
        self,
        task_name: str,
        state: int,
        fingerprint: str,
        inputs: dict[str, list[int]],
        outputs: dict[str, pipeline_spec_pb2.ArtifactList] | dict[str, list[mlmd.Artifact]],
    ) -> int:
        """Publish a task's execution with its inputs and outputs (launcher_v2.go publish).

        ``outputs`` are new RuntimeArtifacts to register (RecordArtifact), or, for a
        cached task, the artifacts the cached execution published.
        """
        execution = mlmd.Execution(type_id=self.execution_type, last_known_state=state)
        execution.name = f"{self.run.name}:{task_name}"
        execution.custom_properties[TASK_NAME].string_value = task_name
        execution.custom_properties[FINGERPRINT].string_value = fingerprint
        pairs = []
        for name, ids in inputs.items():
            for artifact in self.store.get_artifacts_by_id(ids):
                pairs.append((artifact, _event(mlmd.Event.INPUT, name)))
        for name, listed in outputs.items():
            for artifact in getattr(listed, "artifacts", listed):
                if isinstance(artifact, pipeline_spec_pb2.RuntimeArtifact):
                    artifact = self._new_artifact(name, artifact)
                pairs.append((artifact, _event(mlmd.Event.OUTPUT, name)))
        execution_id, _, _ = self.store.put_execution(
            execution, pairs, [self.pipeline, self.run], reuse_context_if_already_exist=True
        )
        return execution_id

    def _new_artifact(self, name: str, runtime: pipeline_spec_pb2.RuntimeArtifact) -> mlmd.Artifact:
        """client.go RecordArtifact: the metadata as custom properties, LIVE."""
        artifact = mlmd.Artifact(
            type_id=self._type(mlmd.ArtifactType, schema_title(runtime.type)),
            uri=runtime.uri,
            state=mlmd.Artifact.LIVE,
        )
        for key, value in runtime.metadata.fields.items():
            artifact.custom_properties[key].CopyFrom(_metadata_value(value))
        if "display_name" not in artifact.custom_properties:  # the launcher's default
            artifact.custom_properties["display_name"].string_value = name
        artifact.custom_properties["store_session_info"].string_value = self.session_info
        return artifact


def _event(kind: int, name: str) -> mlmd.Event:
    event = mlmd.Event(type=kind)
    event.path.steps.add().key = name
    return event


def session_info(endpoint: str) -> str:
    """The store session KFP records with each artifact (objectstore SessionInfo)."""
    return json.dumps(
        {"Provider": "s3", "Params": {"endpoint": endpoint, "fromEnv": "true"}}, sort_keys=True
    )

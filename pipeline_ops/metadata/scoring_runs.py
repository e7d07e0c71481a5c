"""Scoring runs in ML-Metadata: each an execution that read the pushed model it scored with.

``wide-deep-score`` records each run as an execution of ``SCORING_TYPE`` whose input is
the Pusher's PushedModel artifact for the serving version it used (found by its
``pushed_destination``), and whose output is a ``SKEW_TYPE`` artifact: the folder holding
the skew measured on the scored rows (``SKEW_FILE``) and their statistics. A model
no run pushed (a candidate's folder) is recorded without that input. The review reads
the newest runs that scored with a run's pushed model.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ml_metadata.proto import metadata_store_pb2 as mlmd

from scoring.names import SKEW_FILE, SKEW_TYPE

SCORING_TYPE = "wide_deep.Scoring"
_PUSHED_MODEL = "PushedModel"
_EXECUTION_PROPERTIES = {"input": mlmd.STRING, "output": mlmd.STRING, "model": mlmd.STRING}
_SKEW_PROPERTIES = {"scored_rows": mlmd.INT, "over": mlmd.STRING}


@dataclass(frozen=True)
class ScoringRun:
    """One recorded scoring run, as the review shows it."""

    when_ms: int
    input: str
    scored_rows: int
    over: tuple[str, ...]  # the features whose skew was over the schema's threshold
    folder: str  # where its skew.json is

    def skew(self) -> dict[str, Any] | None:
        """The skew report written there, if still there."""
        path = Path(self.folder) / SKEW_FILE
        return json.loads(path.read_text()) if path.is_file() else None


def _type_id(store: Any, kind: type, name: str, properties: dict[str, int]) -> int:
    message = kind(name=name)
    for key, value in properties.items():
        message.properties[key] = value
    put = store.put_execution_type if kind is mlmd.ExecutionType else store.put_artifact_type
    return put(message)


def pushed_model_of(store: Any, model_path: str) -> mlmd.Artifact | None:
    """The PushedModel artifact whose destination is ``model_path``, if a run pushed it."""
    wanted = os.path.realpath(model_path)
    for artifact in store.get_artifacts_by_type(_PUSHED_MODEL):
        destination = artifact.custom_properties.get("pushed_destination")
        if destination and os.path.realpath(destination.string_value) == wanted:
            return artifact
    return None


def record(
    store: Any, model_path: str, paths: tuple[str, str], report: dict[str, Any], folder: str
) -> int:
    """Record a scoring run of ``paths`` (input, output) with ``model_path``; its id."""
    execution = mlmd.Execution(
        type_id=_type_id(store, mlmd.ExecutionType, SCORING_TYPE, _EXECUTION_PROPERTIES),
        last_known_state=mlmd.Execution.COMPLETE,
    )
    for key, value in zip(("input", "output", "model"), (*paths, model_path), strict=True):
        execution.properties[key].string_value = value
    skew = mlmd.Artifact(
        type_id=_type_id(store, mlmd.ArtifactType, SKEW_TYPE, _SKEW_PROPERTIES),
        uri=folder,
        state=mlmd.Artifact.LIVE,
    )
    skew.properties["scored_rows"].int_value = report["scored_rows"]
    skew.properties["over"].string_value = ",".join(report["over"])
    links = [(skew, mlmd.Event(type=mlmd.Event.OUTPUT))]
    pushed = pushed_model_of(store, model_path)
    if pushed is not None:
        links.append((pushed, mlmd.Event(type=mlmd.Event.INPUT)))
    execution_id, _, _ = store.put_execution(execution, links, [])
    return execution_id


def scoring_runs(store: Any, pushed: mlmd.Artifact, newest: int = 3) -> list[ScoringRun]:
    """The newest runs that scored with the ``pushed`` model, newest first."""
    events = store.get_events_by_artifact_ids([pushed.id])
    ids = [e.execution_id for e in events if e.type == mlmd.Event.INPUT]
    scoring = next((t.id for t in store.get_execution_types() if t.name == SCORING_TYPE), None)
    executions = [e for e in store.get_executions_by_id(ids) if e.type_id == scoring]
    executions.sort(key=lambda e: (e.create_time_since_epoch, e.id), reverse=True)
    return [_scoring_run(store, execution) for execution in executions[:newest]]


def _scoring_run(store: Any, execution: mlmd.Execution) -> ScoringRun:
    """A recorded scoring execution and its skew artifact, as the review shows them."""
    events = store.get_events_by_execution_ids([execution.id])
    (skew,) = store.get_artifacts_by_id(
        [e.artifact_id for e in events if e.type == mlmd.Event.OUTPUT]
    )
    over = skew.properties["over"].string_value
    return ScoringRun(
        execution.create_time_since_epoch,
        execution.properties["input"].string_value,
        skew.properties["scored_rows"].int_value,
        tuple(over.split(",")) if over else (),
        skew.uri,
    )

"""What a run's ExampleValidator found: the drift it measured and what stopped the run.

The gating validator (components/gating_validator.py) compares distributions by the
curated schema's drift comparators: each held-out split with the train split, the
train split with the serving model's training data, and the run's span with the span
before it. It writes each comparison's Anomalies proto beside the split's schema
anomalies in its ExampleAnomalies artifact (``Split-<split>/DriftFrom*.pb``), and
stops the run when a distance is over its threshold or the data breaks the schema.

A validator that stopped the run leaves nothing to read: TFX removes a failed step's
outputs and records no error on its execution, so ML-Metadata keeps only what it
read. Its check is run again on those inputs, into a temporary folder.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from data_layout import files
from data_layout.properties import value_of
from data_layout.splits import NEWEST_SPAN, PREVIOUS_SPAN, TEST, TRAIN, VALIDATION
from pipeline_def import node_ids

if TYPE_CHECKING:
    from ml_metadata.proto import metadata_store_pb2 as mlmd_pb2

    from pipeline_ops.metadata.runs import NodeExecution, PipelineRun

# The validator's drift files (DRIFT_FILE, PREVIOUS_DRIFT_FILE, SPAN_DRIFT_FILE in
# components/gating_validator.py) and what each compares, in its own words. Named
# here so that reading them needs neither TFX nor TFDV, seconds to import.
DRIFT_FILES = {
    "DriftFromTrain.pb": "{split} vs train",
    "DriftFromPreviousRun.pb": "train vs the serving model's training data",
    "DriftFromPreviousSpan.pb": "span vs previous span",
}
# TFX's ExampleValidator's schema anomalies of a split (its DEFAULT_FILE_NAME).
SCHEMA_DIFF_FILE = "SchemaDiff.pb"
SPLIT_PREFIX = "Split-"
SPLIT_ORDER = (TRAIN, VALIDATION, TEST, NEWEST_SPAN, PREVIOUS_SPAN)
# How a run's findings are known: read from its artifact, or its check run again.
RECORDED, CHECKED_AGAIN = "recorded", "checked again"


@dataclass(frozen=True)
class DriftMeasure:
    """One feature's distance between two data sets, against its threshold."""

    against: str  # what was compared, e.g. "test vs train"
    feature: str
    measure: str  # the comparator: L_INFTY, JENSEN_SHANNON_DIVERGENCE, ...
    distance: float
    threshold: float

    @property
    def drifted(self) -> bool:
        """Over its threshold: the validator stops the run on it."""
        return self.distance > self.threshold


@dataclass(frozen=True)
class ValidatorFindings:
    """The drift a run's validator measured and the schema anomalies it found."""

    source: str  # RECORDED or CHECKED_AGAIN
    drift: list[DriftMeasure]
    # "split: feature: what is wrong", as the validator words them ([] when it passed).
    anomalies: list[str]


def _split_folders(folder: str) -> Iterator[tuple[str, str]]:
    """(split, its folder) for each split the validator wrote under ``folder``, in its order."""
    found = {
        os.path.basename(path.rstrip("/"))[len(SPLIT_PREFIX) :]: path
        for path in files.glob(os.path.join(folder, f"{SPLIT_PREFIX}*"))
    }
    # The order the validator reports in (train, validation, test, then the spans).
    known = [split for split in SPLIT_ORDER if split in found]
    for split in known + sorted(set(found) - set(known)):
        yield split, found[split]


def _read_anomalies(path: str) -> Any:
    from tensorflow_metadata.proto.v0 import anomalies_pb2

    return anomalies_pb2.Anomalies.FromString(files.read_bytes(path))


def _measures(anomalies: Any, against: str) -> list[DriftMeasure]:
    from tensorflow_metadata.proto.v0 import anomalies_pb2

    type_name = anomalies_pb2.DriftSkewInfo.Measurement.Type.Name
    return [
        DriftMeasure(against, ".".join(info.path.step), type_name(m.type), m.value, m.threshold)
        for info in anomalies.drift_skew_info
        for m in info.drift_measurements
    ]


def read_drift(folder: str) -> list[DriftMeasure]:
    """Every drift measurement the validator wrote in ``folder`` (its anomalies' URI)."""
    found = []
    for split, path in _split_folders(folder):
        for name, against in DRIFT_FILES.items():
            file = os.path.join(path, name)
            if files.exists(file):
                found += _measures(_read_anomalies(file), against.format(split=split))
    return found


def findings_of(run: PipelineRun) -> ValidatorFindings | None:
    """What the run's validator found; None when it did not run or left nothing to read.

    Read from the artifact it wrote (or, served from TFX's cache, the one it reused);
    a validator that stopped the run is checked again on what it read.
    """
    node = run.nodes.get(node_ids.EXAMPLE_VALIDATOR)
    if node is None:
        return None
    anomalies = run.output(node_ids.EXAMPLE_VALIDATOR, "anomalies")
    if anomalies is not None:
        return ValidatorFindings(RECORDED, read_drift(anomalies.uri), [])
    if node.state == "failed":
        return check_again(node)
    return None


def _tfx_inputs(node: NodeExecution) -> dict[str, list[Any]]:
    """The validator's inputs as TFX artifacts, each of the class its spec declares."""
    from components.gating_validator import GatingValidatorSpec

    inputs: dict[str, list[Any]] = {}
    for key, recorded in node.inputs.items():
        inputs[key] = []
        for artifact in recorded:
            made = GatingValidatorSpec.INPUTS[key].type()
            made.set_mlmd_artifact(artifact)
            inputs[key].append(made)
    return inputs


def _inputs_there(recorded: list[mlmd_pb2.Artifact]) -> bool:
    return bool(recorded) and all(files.exists(a.uri) for a in recorded)


def _schema_anomalies(folder: str) -> list[str]:
    """The schema anomalies the validator wrote in ``folder``, in its own words."""
    from components.gating_validator import describe

    found = []
    for split, path in _split_folders(folder):
        file = os.path.join(path, SCHEMA_DIFF_FILE)
        if files.exists(file):
            found += describe(_read_anomalies(file), split)
    return found


def check_again(node: NodeExecution) -> ValidatorFindings | None:
    """The validator's check run again on what it read; None when that is gone.

    Its own executor, with the execution's recorded properties, writes into a
    temporary folder what TFX removed when the step failed.
    """
    if not _inputs_there([a for artifacts in node.inputs.values() for a in artifacts]):
        return None
    from tfx.types import standard_artifacts

    from components import gating_validator

    properties = {k: value_of(v) for k, v in node.execution.custom_properties.items()}
    properties.update({k: value_of(v) for k, v in node.execution.properties.items()})
    with tempfile.TemporaryDirectory() as folder:
        anomalies = standard_artifacts.ExampleAnomalies()
        anomalies.uri = folder
        # It raises on what stopped the run, once its files are written: they say what.
        with contextlib.suppress(gating_validator.DataValidationError):
            gating_validator.GatingValidatorExecutor().Do(
                _tfx_inputs(node), {"anomalies": [anomalies]}, properties
            )
        return ValidatorFindings(CHECKED_AGAIN, read_drift(folder), _schema_anomalies(folder))

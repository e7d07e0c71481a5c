"""An ExampleValidator that stops the run on anomalies, and checks drift.

TFX's ExampleValidator writes its anomalies and succeeds, so Transform and Trainer
go on to learn from bad data. This one validates every split against the curated
schema and, through the schema's drift comparators, compares each held-out split
(validation, test) with the train split, this run's train split with the training
data of the model that serves (the optional ``previous_statistics`` input, from
ServingBaseline), and, when the data root holds spans, the run's span with the span
before it; it fails with every anomaly named (split, feature, what is wrong) when
there is any. The anomalies files are written first, for people.

A held-out split against train, and a span against the one before it, compare
samples, often small ones (a span's held-out rows are a few hundred), so a share's
difference carries sampling noise: each L-infinity threshold is raised by
``NOISE_SIGMAS`` standard errors of the difference of two shares measured on samples
of the two sizes, at its widest (a share of 0.5). On the taxi quarters (200 to 1,400
rows) the gradual drift measured between quarters, at most 0.09, stays under it; a
category's share moving by 0.3 in a quarter does not.
"""

from __future__ import annotations

import math
import os
from typing import Any

import tensorflow_data_validation as tfdv
from tensorflow_metadata.proto.v0 import anomalies_pb2, schema_pb2
from tfx import v1 as tfx

# The executor hooks are not in tfx.v1: a standard component's executor is
# customized by subclassing it.
from tfx.components.example_validator import executor as validator_executor
from tfx.components.statistics_gen import stats_artifact_utils
from tfx.components.util import value_utils
from tfx.dsl.components.base import base_component, executor_spec
from tfx.types import artifact_utils, standard_component_specs
from tfx.types.component_spec import ChannelParameter
from tfx.utils import io_utils, json_utils

from components.serving_baseline import serving_version
from components.spec_extension import extended
from data_layout.splits import NEWEST_SPAN, PREVIOUS_SPAN, TEST, TRAIN, VALIDATION

DRIFT_FILE = "DriftFromTrain.pb"
PREVIOUS_DRIFT_FILE = "DriftFromPreviousRun.pb"
SPAN_DRIFT_FILE = "DriftFromPreviousSpan.pb"
# Three standard errors: a gradual change passes with 99.7% of samples' noise.
NOISE_SIGMAS = 3.0
PREVIOUS_STATISTICS_KEY = "previous_statistics"


class DataValidationError(RuntimeError):
    """The data broke the curated schema; the message lists each anomaly."""


def describe(anomalies: anomalies_pb2.Anomalies, split: str) -> list[str]:
    """One line per anomaly: ``split: feature: description``."""
    lines = []
    for feature, info in sorted(anomalies.anomaly_info.items()):
        reasons = "; ".join(r.description or r.short_description for r in info.reason)
        lines.append(f"{split}: {feature}: {reasons or info.description}")
    if anomalies.HasField("dataset_anomaly_info"):
        reasons = "; ".join(r.description for r in anomalies.dataset_anomaly_info.reason)
        lines.append(f"{split}: whole split: {reasons}")
    return lines


def span_noise(rows: int, previous_rows: int) -> float:
    """``NOISE_SIGMAS`` standard errors of a share's difference between two samples, at p=0.5."""
    if rows < 1 or previous_rows < 1:
        return 1.0
    return NOISE_SIGMAS * math.sqrt(0.25 * (1 / rows + 1 / previous_rows))


def widened(schema: schema_pb2.Schema, noise: float) -> schema_pb2.Schema:
    """``schema`` with every drift comparator's L-infinity threshold raised by ``noise``."""
    wide = schema_pb2.Schema()
    wide.CopyFrom(schema)
    for feature in wide.feature:
        if feature.drift_comparator.HasField("infinity_norm"):
            feature.drift_comparator.infinity_norm.threshold += noise
    return wide


def _rows(statistics: Any) -> int:
    return statistics.datasets[0].num_examples if statistics.datasets else 0


def drift_problems(
    current: Any, previous: Any, schema: Any, label: str
) -> tuple[anomalies_pb2.Anomalies, list[str]]:
    """Drift of ``current`` statistics from ``previous``, by the schema's comparators."""
    anomalies = tfdv.validate_statistics(current, schema, previous_statistics=previous)
    lines = []
    for info in anomalies.drift_skew_info:
        feature = ".".join(info.path.step)
        for m in info.drift_measurements:
            if m.value > m.threshold:
                lines.append(
                    f"{label}: {feature}: distribution drift "
                    f"{anomalies_pb2.DriftSkewInfo.Measurement.Type.Name(m.type)} "
                    f"{m.value:.3f} > {m.threshold:.3f}"
                )
    return anomalies, lines


class GatingValidatorExecutor(validator_executor.Executor):
    """ExampleValidator's executor, failing the run on any anomaly or drift."""

    def _Validate(  # noqa: N802 - TFX's executor interface
        self, inputs: dict[str, Any], outputs: dict[str, Any]
    ) -> anomalies_pb2.Anomalies:
        anomalies = super()._Validate(inputs, outputs)
        # Kept for the drift checks, which need the same statistics and schema.
        self._schema = value_utils.GetSoleValue(inputs, standard_component_specs.SCHEMA_KEY)
        statistics = value_utils.GetSoleValue(inputs, standard_component_specs.STATISTICS_KEY)
        self._validated.append((statistics, anomalies))
        return anomalies

    def _drift(
        self,
        current: Any,
        previous: Any,
        label: str,
        split_uri: str,
        file_name: str,
        schema: schema_pb2.Schema | None = None,
    ) -> list[str]:
        """Drift of ``current`` from ``previous``, written beside the anomalies; the problems.

        Judged by ``schema``'s comparators, the curated schema's when None.
        """
        drift, lines = drift_problems(current, previous, schema or self._schema, label)
        io_utils.write_bytes_file(os.path.join(split_uri, file_name), drift.SerializeToString())
        return lines

    def Do(  # noqa: N802 - TFX's executor interface
        self,
        input_dict: dict[str, list[tfx.dsl.Artifact]],
        output_dict: dict[str, list[tfx.dsl.Artifact]],
        exec_properties: dict[str, Any],
    ) -> Any:
        """Validate like ExampleValidator, add the drift checks, raise on any problem."""
        self._validated: list[tuple[Any, anomalies_pb2.Anomalies]] = []
        result = super().Do(input_dict, output_dict, exec_properties)
        statistics = artifact_utils.get_single_instance(
            input_dict[standard_component_specs.STATISTICS_KEY]
        )
        splits = artifact_utils.decode_split_names(statistics.split_names)
        by_split = dict(zip(splits, self._validated, strict=True))
        anomalies_out = output_dict[standard_component_specs.ANOMALIES_KEY]
        problems = [
            line
            for split, (_, anomalies) in by_split.items()
            for line in describe(anomalies, split)
        ]
        problems += self._held_out_drift(by_split, anomalies_out)
        previous = input_dict.get(PREVIOUS_STATISTICS_KEY) or []
        problems += self._serving_drift(by_split, anomalies_out, previous, statistics)
        problems += self._span_drift(by_split, anomalies_out)
        if problems:
            raise DataValidationError(
                f"{len(problems)} data anomal{'y' if len(problems) == 1 else 'ies'} "
                f"against the curated schema: {' | '.join(problems)}"
            )
        return result

    def _held_out_drift(
        self,
        by_split: dict[str, tuple[Any, anomalies_pb2.Anomalies]],
        anomalies_out: list[tfx.dsl.Artifact],
    ) -> list[str]:
        """Each held-out split's drift from the train split, beyond the samples' noise."""
        if TRAIN not in by_split:
            return []
        problems = []
        for split in (s for s in (VALIDATION, TEST) if s in by_split):
            # Two samples of the same rows: what they differ by beyond noise is drift.
            current, train = by_split[split][0], by_split[TRAIN][0]
            problems += self._drift(
                current,
                train,
                f"{split} vs {TRAIN}",
                artifact_utils.get_split_uri(anomalies_out, split),
                DRIFT_FILE,
                widened(self._schema, span_noise(_rows(current), _rows(train))),
            )
        return problems

    def _serving_drift(
        self,
        by_split: dict[str, tuple[Any, anomalies_pb2.Anomalies]],
        anomalies_out: list[tfx.dsl.Artifact],
        previous: list[Any],
        statistics: Any,
    ) -> list[str]:
        """The train split's drift from the serving model's training data, when it has some."""
        if TRAIN not in by_split or not _holds_other_train_split(previous, statistics):
            return []
        return self._drift(
            by_split[TRAIN][0],
            stats_artifact_utils.load_statistics(previous[0], TRAIN).proto(),
            "train vs the serving model's training data",
            artifact_utils.get_split_uri(anomalies_out, TRAIN),
            PREVIOUS_DRIFT_FILE,
        )

    def _span_drift(
        self,
        by_split: dict[str, tuple[Any, anomalies_pb2.Anomalies]],
        anomalies_out: list[tfx.dsl.Artifact],
    ) -> list[str]:
        """The run's span's drift from the span before it, beyond the samples' noise."""
        if NEWEST_SPAN not in by_split or PREVIOUS_SPAN not in by_split:
            return []
        newest, previous_span = by_split[NEWEST_SPAN][0], by_split[PREVIOUS_SPAN][0]
        noise = span_noise(_rows(newest), _rows(previous_span))
        return self._drift(
            newest,
            previous_span,
            "span vs previous span",
            artifact_utils.get_split_uri(anomalies_out, NEWEST_SPAN),
            SPAN_DRIFT_FILE,
            widened(self._schema, noise),
        )


def _holds_other_train_split(previous: list[Any], statistics: Any) -> bool:
    """Whether ``previous`` holds a train split to compare with, not this run's own.

    ServingBaseline's output is empty while nothing serves, or when the serving model
    was pushed without its statistics; a Resolver (Vertex) may find this run's own.
    """
    if not previous or previous[0].id == statistics.id:
        return False
    if serving_version(previous[0]) == "":
        return False
    return TRAIN in artifact_utils.decode_split_names(previous[0].split_names)


class GatingValidatorSpec(
    extended(
        standard_component_specs.ExampleValidatorSpec,
        inputs={
            PREVIOUS_STATISTICS_KEY: ChannelParameter(
                type=tfx.types.standard_artifacts.ExampleStatistics, optional=True
            )
        },
    )
):
    """ExampleValidator's spec, plus the statistics to check drift against (optional)."""


class GatingExampleValidator(base_component.BaseComponent):
    """ExampleValidator with ``GatingValidatorExecutor`` and the previous-run input."""

    SPEC_CLASS = GatingValidatorSpec
    EXECUTOR_SPEC = executor_spec.ExecutorClassSpec(GatingValidatorExecutor)

    def __init__(
        self,
        statistics: tfx.types.BaseChannel,
        schema: tfx.types.BaseChannel,
        previous_statistics: tfx.types.BaseChannel | None = None,
    ) -> None:
        """Validate ``statistics`` by ``schema``; drift from ``previous_statistics`` if given."""
        super().__init__(
            spec=GatingValidatorSpec(
                statistics=statistics,
                schema=schema,
                previous_statistics=previous_statistics,
                exclude_splits=json_utils.dumps([]),
                anomalies=tfx.dsl.Channel(type=tfx.types.standard_artifacts.ExampleAnomalies),
            )
        )

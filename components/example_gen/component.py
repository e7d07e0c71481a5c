"""ExampleGen's component: TFX's CsvExampleGen with the executor and driver of this package."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tfx import v1 as tfx

# The driver, executor and component bases are not in tfx.v1: a standard component gets
# another executor or driver by subclassing them, as AtomicPusher does.
from tfx.dsl.components.base import base_component, executor_spec
from tfx.proto import example_gen_pb2
from tfx.types import component_spec, standard_component_specs

from components.example_gen.driver import SpanDriver
from components.example_gen.executor import ArrowCsvExecutor
from components.example_gen.keys import (
    ENTITY_HISTORY_KEY,
    INT_COLUMNS_KEY,
    SPAN_CACHE_KEY,
    SPAN_KEY,
    TEST_PERIOD_KEY,
    WINDOW_KEY,
)
from components.spec_extension import extended
from data_layout import spans
from modules.features import HistoryColumns


class ArrowCsvExampleGenSpec(
    extended(
        standard_component_specs.FileBasedExampleGenSpec,
        parameters={
            INT_COLUMNS_KEY: component_spec.ExecutionParameter(type=str),
            SPAN_KEY: component_spec.ExecutionParameter(type=str),
            WINDOW_KEY: component_spec.ExecutionParameter(type=int),
            SPAN_CACHE_KEY: component_spec.ExecutionParameter(type=str),
            TEST_PERIOD_KEY: component_spec.ExecutionParameter(type=str, optional=True),
            ENTITY_HISTORY_KEY: component_spec.ExecutionParameter(type=str, optional=True),
        },
    )
):
    """FileBasedExampleGen's spec, plus the INT columns (a JSON list), spans and test period."""


class ArrowCsvExampleGen(tfx.components.CsvExampleGen):
    """tfx.components.CsvExampleGen with ``ArrowCsvExecutor``, the INT columns and spans.

    Still a CsvExampleGen (so a FileBasedExampleGen, which TFX's Kubeflow compiler
    gives its file-fingerprinting driver); its spec is built here, with parameters
    more, instead of by FileBasedExampleGen. The span is resolved from the data root's
    listing by ``SpanDriver`` where a driver runs, and by the executor where none does
    (open-source KFP never runs one).
    """

    SPEC_CLASS = ArrowCsvExampleGenSpec
    EXECUTOR_SPEC = executor_spec.BeamExecutorSpec(ArrowCsvExecutor)
    DRIVER_CLASS = SpanDriver

    def __init__(
        self,
        input_base: str | tfx.dsl.experimental.RuntimeParameter,
        input_config: tfx.proto.Input,
        output_config: tfx.proto.Output,
        int_columns: Sequence[str] = (),
        span: str | tfx.dsl.experimental.RuntimeParameter = spans.LATEST_TEXT,
        window: int = 1,
        span_cache: str = "",
        custom_config: dict[str, Any] | None = None,
        test_period: str = "",
        entity_history: HistoryColumns | None = None,
    ) -> None:
        """Read ``span``'s window of ``window`` spans (or a flat root) under ``input_base``.

        ``span`` is a span number or "latest", as text (a run-time parameter whose
        default is 0 counts as unset in TFX).

        ``span_cache`` is where encoded spans are kept for later runs; a root with span
        folders needs it. ``test_period`` names the column whose newest value's rows
        form the test split ("": the test split is hashed like the others);
        ``entity_history`` the entity's history columns to add to each row (None: none).
        ``custom_config`` is only recorded (and so in the cache key): the pipeline puts
        the digest of the code the step runs there.
        """
        base_component.BaseComponent.__init__(
            self,
            spec=ArrowCsvExampleGenSpec(
                input_base=input_base,
                input_config=input_config,
                output_config=output_config,
                int_columns=json.dumps(sorted(int_columns)),
                requested_span=span,
                window=window,
                span_cache=span_cache,
                test_period=test_period,
                # None, not "": TFX's compiler leaves it out, so a spec without one is as before
                entity_history=entity_history.to_json() if entity_history else None,
                custom_config=json.dumps(custom_config or {}, sort_keys=True),
                output_data_format=example_gen_pb2.FORMAT_TF_EXAMPLE,
                output_file_format=example_gen_pb2.FORMAT_TFRECORDS_GZIP,
                examples=tfx.dsl.Channel(type=tfx.types.standard_artifacts.Examples),
            ),
        )

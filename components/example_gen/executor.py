"""ExampleGen's executor: Arrow reading, C++ encoding and per-file writes, span by span."""

from __future__ import annotations

import json
import os
from typing import Any

from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import PipelineOptions
from tfx import v1 as tfx

# The driver, executor and component bases are not in tfx.v1: a standard component gets
# another executor or driver by subclassing them, as AtomicPusher does.
from tfx.components.example_gen import utils as example_gen_utils
from tfx.components.util import examples_utils
from tfx.dsl.components.base import base_beam_executor
from tfx.dsl.io import fileio
from tfx.proto import example_gen_pb2
from tfx.types import artifact_utils, standard_component_specs
from tfx.utils import proto_utils

from components.example_gen.keys import (
    ENTITY_HISTORY_KEY,
    INT_COLUMNS_KEY,
    SPAN_CACHE_KEY,
    TEST_PERIOD_KEY,
)
from components.example_gen.periods import record_splits
from components.example_gen.reading import Reading, driver_digests, resolve_window
from components.example_gen.windows import WindowedSpans
from components.example_gen.writing import routes, write_split
from data_layout import spans
from data_layout.properties import (
    INPUT_DIGEST_PROPERTY,
    PREVIOUS_SPAN_PROPERTY,
    REUSED_PROPERTY,
    TRAIN_PARTS_PROPERTY,
    WINDOW_NOTE_PROPERTY,
    WINDOW_PROPERTY,
)
from modules.features import HistoryColumns


class ArrowCsvExecutor(base_beam_executor.BaseBeamExecutor):
    """CsvExampleGen's executor with Arrow reading, C++ encoding and per-file writes."""

    def Do(  # noqa: N802 (TFX's name)
        self,
        input_dict: dict[str, list[Any]],
        output_dict: dict[str, list[Any]],
        exec_properties: dict[str, Any],
    ) -> None:
        """Write the CSV files under ``input_base`` (its window of spans) as tf.Example splits."""
        self._log_startup(input_dict, output_dict, exec_properties)
        input_config = proto_utils.json_to_proto(
            exec_properties[standard_component_specs.INPUT_CONFIG_KEY], tfx.proto.Input()
        )
        output_config = proto_utils.json_to_proto(
            exec_properties[standard_component_specs.OUTPUT_CONFIG_KEY], tfx.proto.Output()
        )
        examples = artifact_utils.get_single_instance(
            output_dict[standard_component_specs.EXAMPLES_KEY]
        )
        input_base = exec_properties[standard_component_specs.INPUT_BASE_KEY]
        # The spans' files are read before any Beam pipeline exists, and only a pipeline
        # hands FileSystems its options (an s3:// root needs the endpoint).
        FileSystems.set_options(PipelineOptions(self._beam_pipeline_args))
        pattern = input_config.splits[0].pattern
        read = Reading(input_base, resolve_window(input_base, pattern, exec_properties), pattern)
        # Locally the driver read the files first, and TFX's cache key holds what it read.
        read.check_unchanged(driver_digests(exec_properties))
        windowed = None
        period = exec_properties.get(TEST_PERIOD_KEY) or ""
        if not read.window.flat:
            windowed = WindowedSpans(
                input_base,
                read.window,
                read.files,
                routes(input_config, output_config, period)[0][1],
                exec_properties[SPAN_CACHE_KEY],
                history_columns(exec_properties),
            )
        try:
            self._write(examples, read, windowed, input_config, output_config, exec_properties)
        except Exception:
            # A file rewritten or taken away mid-read first fails in the CSV reader or
            # in Beam: name the span that changed rather than the symptom.
            _refuse_if_changed(read, windowed)
            raise
        _refuse_if_changed(read, windowed)
        examples.set_string_custom_property(INPUT_DIGEST_PROPERTY, read.window_digest)
        examples.span = read.window.span
        examples_utils.set_payload_format(examples, example_gen_pb2.FORMAT_TF_EXAMPLE)
        examples_utils.set_file_format(examples, "tfrecords_gzip")

    def _write(
        self,
        examples: Any,
        read: Reading,
        windowed: WindowedSpans | None,
        input_config: Any,
        output_config: Any,
        exec_properties: dict[str, Any],
    ) -> None:
        """Write the examples of the files ``read`` lists into ``examples``' splits."""
        int_columns = json.loads(exec_properties.get(INT_COLUMNS_KEY) or "[]")
        period = exec_properties.get(TEST_PERIOD_KEY) or ""
        if windowed is None:  # a flat root
            split_names = example_gen_utils.generate_output_split_names(input_config, output_config)
            _make_splits(examples, split_names)
            with self._make_beam_pipeline() as pipeline:
                for route_pattern, router in routes(input_config, output_config, period):
                    used = write_split(
                        pipeline, read.root, route_pattern, router, examples.uri, int_columns,
                        history_columns(exec_properties),
                    )  # fmt: skip
            record_splits(examples, used, used.previous)
            return
        rows, reused = windowed.encode(self._make_beam_pipeline, int_columns, read.digests)
        windowed.check_period_splits()
        record_splits(examples, windowed.newest_router(), windowed.validation_period())
        _make_splits(examples, windowed.split_names)
        windowed.assemble(examples.uri)
        _record_window(examples, read.window, rows, reused)
        examples.set_string_custom_property(
            TRAIN_PARTS_PROPERTY, json.dumps(windowed.train_parts())
        )


def history_columns(exec_properties: dict[str, Any]) -> HistoryColumns | None:
    """The entity history the component was given to add (None: none)."""
    given = exec_properties.get(ENTITY_HISTORY_KEY) or ""
    return HistoryColumns.from_json(given) if given else None


def _record_window(
    examples: Any, window: spans.Window, rows: dict[int, int], reused: list[int]
) -> None:
    """The window on the Examples: spans and rows, the reference span, what was reused."""
    examples.set_string_custom_property(
        WINDOW_PROPERTY, json.dumps([{"span": s, "rows": rows[s]} for s in window.spans])
    )
    previous = -1 if window.previous is None else window.previous
    examples.set_int_custom_property(PREVIOUS_SPAN_PROPERTY, previous)
    examples.set_string_custom_property(REUSED_PROPERTY, json.dumps(reused))
    examples.set_string_custom_property(WINDOW_NOTE_PROPERTY, window.note)


def _refuse_if_changed(read: Reading, windowed: WindowedSpans | None) -> None:
    """SpanNotReady naming a span whose files changed while read; its new encoding dropped.

    What was encoded from bytes that changed under the read is no encoding of any
    files: it must not be found under the digest taken before.
    """
    span = read.changed_now()
    if span is not None:
        if windowed is not None:
            windowed.forget(span)
        raise read.not_ready(span, "while this run read it")


def _make_splits(examples: Any, split_names: list[str]) -> None:
    """Declare the Examples' splits and make their folders."""
    examples.split_names = artifact_utils.encode_split_names(split_names)
    for split in split_names:
        fileio.makedirs(os.path.join(examples.uri, f"Split-{split}"))

"""ExampleGen's driver: the span resolved and its files read, as the executor reads them."""

from __future__ import annotations

import json
import uuid
from typing import Any

from tfx import v1 as tfx

# The driver, executor and component bases are not in tfx.v1: a standard component gets
# another executor or driver by subclassing them, as AtomicPusher does.
from tfx.components.example_gen import driver as example_gen_driver
from tfx.components.example_gen import utils as example_gen_utils
from tfx.types import standard_component_specs
from tfx.utils import proto_utils

from components.example_gen.keys import RESOLVED_WINDOW_KEY, SPAN_DIGESTS_KEY
from components.example_gen.reading import GONE, Reading, resolve_window
from data_layout import spans
from data_layout.csv_files import CsvFormatError


class SpanDriver(example_gen_driver.FileBasedDriver):
    """TFX's ExampleGen driver, resolving the span and reading its files as the executor does.

    The driver runs before TFX looks for a cached execution, and what it sets among
    the execution properties is part of the cache key: the span it resolved and the
    digest of every file of the window (names and bytes). TFX's own driver
    fingerprints the files matching the input pattern at the data root by size and
    mtime: none in a root of span folders, so a run on a new span was served the
    first span's examples. The executor reads the window resolved here, and stops if
    its files changed since. Open-source Kubeflow Pipelines runs no driver; there
    ExampleGen is not cached (``pipeline_def.node_ids.KUBEFLOW_UNCACHED``).
    """

    def resolve_exec_properties(
        self, exec_properties: dict[str, Any], pipeline_info: Any, component_info: Any
    ) -> dict[str, Any]:
        """The execution properties with the span, its window's digest and each span's."""
        del pipeline_info, component_info  # TFX's driver interface: the listing is enough
        input_config = proto_utils.json_to_proto(
            exec_properties[standard_component_specs.INPUT_CONFIG_KEY], tfx.proto.Input()
        )
        input_base = exec_properties[standard_component_specs.INPUT_BASE_KEY]
        exec_properties[example_gen_utils.VERSION_PROPERTY_NAME] = None
        try:
            pattern = input_config.splits[0].pattern
            read = Reading(
                input_base, resolve_window(input_base, pattern, exec_properties), pattern
            )
        except (spans.SpanError, spans.SpanNotReady, CsvFormatError, *GONE) as err:
            # The executor meets the same and fails with it, recorded as a failed
            # execution; a driver that raised would leave its execution unfinished. The
            # key is one no execution can have had, so no cached one is served.
            exec_properties[example_gen_utils.SPAN_PROPERTY_NAME] = spans.LATEST
            exec_properties[example_gen_utils.FINGERPRINT_PROPERTY_NAME] = (
                f"unread {uuid.uuid4()}: {err}"
            )
            return exec_properties
        exec_properties[example_gen_utils.SPAN_PROPERTY_NAME] = read.window.span
        exec_properties[example_gen_utils.FINGERPRINT_PROPERTY_NAME] = read.window_digest
        exec_properties[RESOLVED_WINDOW_KEY] = spans.window_json(read.window)
        exec_properties[SPAN_DIGESTS_KEY] = json.dumps({str(s): d for s, d in read.digests.items()})
        return exec_properties

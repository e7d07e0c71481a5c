"""TFX's Transform, reusing the analysis of the spans an earlier run analyzed.

With span folders, the train split's parts (span and encoded split, recorded by
ExampleGen) are analyzed as datasets of their own, keyed by their encoding, with the
analyzer cache read from and published to a stable folder under the pipeline root
(``data_layout.analyzer_cache``). The outputs are TFX's Transform's, the same in
meaning: the graph is analyzed over the same rows, so Trainer and Evaluator are
unchanged. A flat data root is one span analyzed once, and an empty cache folder turns
the cache off: there it is TFX's Transform, without a cache.

The TransformGraph records which parts were read from the cache and which analyzed
(``ANALYZER_CACHE_PROPERTY``).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Sequence
from typing import Any

from absl import logging
from tensorflow_transform.beam import analyzer_cache as tft_cache
from tfx import v1 as tfx

# The executor hooks are not in tfx.v1: a standard component gets another executor by
# subclassing it, as AtomicPusher does.
from tfx.components.transform import executor as transform_executor
from tfx.components.transform import labels
from tfx.dsl.components.base import base_component, executor_spec
from tfx.dsl.io import fileio
from tfx.types import artifact_utils, component_spec, standard_component_specs
from tfx.utils import json_utils

from components.spec_extension import extended
from data_layout import analyzer_cache
from data_layout.analyzer_cache import Part
from data_layout.properties import ANALYZER_CACHE_PROPERTY, TRAIN_PARTS_PROPERTY
from data_layout.splits import TRAIN

# The execution property naming the stable folder of the analyzer cache.
ANALYZER_CACHE_DIR_KEY = "analyzer_cache_dir"
# Inside Transform's temporary folder, removed after the run: what the run wrote, and
# (from an object store) the copy of the cache it read.
_STAGING = "analyzer-cache"
_READ = "analyzer-cache-read"


class _PartsProcessor(transform_executor.TransformProcessor):
    """TFX's Transform processing, analyzing the train split's parts with the cache."""

    def __init__(self, parts: Sequence[Part], train_dir: str, cache_dir: str) -> None:
        super().__init__()
        self.parts = list(parts)
        self.cache_dir = cache_dir
        self._keys = {p.pattern(train_dir): tft_cache.DatasetKey(p.dataset_key) for p in parts}
        self.read: list[Part] = []

    def Transform(  # noqa: N802 - TFX's name
        self, inputs: dict[str, Any], outputs: dict[str, Any], status_file: str | None = None
    ) -> None:
        """TFX's Transform over the parts, then the new cache entries published."""
        formats = inputs[labels.ANALYZE_PATHS_FILE_FORMATS_LABEL]
        keys = [k.key for k in self._keys.values()]
        temporary = outputs[labels.TEMP_OUTPUT_LABEL]
        read_from = os.path.join(temporary, _READ)
        inputs = {
            **inputs,
            labels.ANALYZE_DATA_PATHS_LABEL: list(self._keys),
            labels.ANALYZE_PATHS_FILE_FORMATS_LABEL: [formats[0]] * len(self._keys),
            labels.CACHE_INPUT_PATH_LABEL: analyzer_cache.readable(self.cache_dir, keys, read_from),
        }
        staging = os.path.join(temporary, _STAGING)
        outputs = {**outputs, labels.CACHE_OUTPUT_PATH_LABEL: staging}
        super().Transform(inputs, outputs, status_file)
        analyzer_cache.publish(staging, self.cache_dir, keys)
        evicted = analyzer_cache.evict(self.cache_dir, self.parts)
        logging.info("Analyzer cache: evicted %s", evicted or "nothing")

    def _MakeDatasetList(self, file_patterns: Sequence[str], *args: Any, **kwargs: Any) -> list:  # noqa: N802
        """TFX's datasets, a part's keyed by its encoding instead of its path."""
        datasets = super()._MakeDatasetList(file_patterns, *args, **kwargs)
        for dataset in datasets:
            if dataset.file_pattern in self._keys:
                dataset.dataset_key = self._keys[dataset.file_pattern]
        # TFX indexes datasets in the order of their keys, and names Beam stages by it.
        datasets.sort(key=lambda d: d.dataset_key)
        for index, dataset in enumerate(datasets):
            dataset.index = index
        return datasets

    def _JoinUncachedDatasets(self, analyze_data_list: list, optimized: dict, *args: Any) -> Any:  # noqa: N802
        """Note the parts the cache serves (TFT's None: not read), then TFX's step."""
        served = {key.key for key, dataset in optimized.items() if dataset is None}
        self.read = [p for p in self.parts if p.dataset_key in served]
        return super()._JoinUncachedDatasets(analyze_data_list, optimized, *args)


@contextlib.contextmanager
def _processing_with(processor: transform_executor.TransformProcessor) -> Iterator[None]:
    """Have TFX's Transform executor use ``processor`` while the block runs.

    The executor builds its processor by name inside ``Do``, with no hook to pass
    another; ``Do`` is 200 lines of input handling not worth copying.
    """
    standard = transform_executor.TransformProcessor
    transform_executor.TransformProcessor = lambda: processor
    try:
        yield
    finally:
        transform_executor.TransformProcessor = standard


def _parts(examples: tfx.dsl.Artifact, train_dir: str) -> list[Part] | None:
    """The train split's parts, or None to analyze it whole (flat root, or not covered)."""
    recorded = examples.get_string_custom_property(TRAIN_PARTS_PROPERTY)
    if not recorded:
        return None
    parts = analyzer_cache.parts_of(json.loads(recorded))
    if not analyzer_cache.covers(parts, train_dir, fileio.listdir(train_dir)):
        logging.warning("The train split's files are not its recorded parts: no analyzer cache")
        return None
    return parts


class CachedTransformExecutor(transform_executor.Executor):
    """TFX's Transform executor, analyzing a window's span splits with a stable cache."""

    def Do(  # noqa: N802 - TFX's executor interface
        self,
        input_dict: dict[str, list[tfx.dsl.Artifact]],
        output_dict: dict[str, list[tfx.dsl.Artifact]],
        exec_properties: dict[str, Any],
    ) -> None:
        """Transform like TFX; with spans, per part, reading and adding to the cache."""
        examples = artifact_utils.get_single_instance(
            input_dict[standard_component_specs.EXAMPLES_KEY]
        )
        train_dir = artifact_utils.get_split_uri([examples], TRAIN)
        parts = _parts(examples, train_dir)
        if parts is None or not exec_properties.get(ANALYZER_CACHE_DIR_KEY):
            super().Do(input_dict, output_dict, exec_properties)
            return
        processor = _PartsProcessor(parts, train_dir, exec_properties[ANALYZER_CACHE_DIR_KEY])
        with _processing_with(processor):
            super().Do(input_dict, output_dict, exec_properties)
        read = {p.label for p in processor.read}
        record = {
            "read": [p.label for p in parts if p.label in read],
            "analyzed": [p.label for p in parts if p.label not in read],
        }
        logging.info("Analyzer cache: %s", record)
        graph = artifact_utils.get_single_instance(
            output_dict[standard_component_specs.TRANSFORM_GRAPH_KEY]
        )
        graph.set_string_custom_property(ANALYZER_CACHE_PROPERTY, json.dumps(record))


class CachedTransformSpec(
    extended(
        standard_component_specs.TransformSpec,
        parameters={ANALYZER_CACHE_DIR_KEY: component_spec.ExecutionParameter(type=str)},
    )
):
    """TransformSpec, plus the analyzer cache's stable folder."""


def _statistics_outputs(disable_statistics: bool) -> dict[str, tfx.dsl.Channel]:
    """The statistics channels TFX's Transform declares when it computes them."""
    if disable_statistics:
        return {}
    types = tfx.types.standard_artifacts
    return {
        standard_component_specs.PRE_TRANSFORM_SCHEMA_KEY: tfx.dsl.Channel(type=types.Schema),
        standard_component_specs.PRE_TRANSFORM_STATS_KEY: tfx.dsl.Channel(
            type=types.ExampleStatistics
        ),
        standard_component_specs.POST_TRANSFORM_SCHEMA_KEY: tfx.dsl.Channel(type=types.Schema),
        standard_component_specs.POST_TRANSFORM_STATS_KEY: tfx.dsl.Channel(
            type=types.ExampleStatistics
        ),
        standard_component_specs.POST_TRANSFORM_ANOMALIES_KEY: tfx.dsl.Channel(
            type=types.ExampleAnomalies
        ),
    }


class CachedTransform(tfx.components.Transform):
    """tfx.components.Transform (analysis only) with ``CachedTransformExecutor``.

    Still a Transform, so orchestrators and readers treat it as one; its spec is built
    here, with the cache folder more, instead of by Transform. It never materializes
    (the Trainer applies the graph in tf.data) and has no analyzer cache channels:
    the cache is a folder, found by path, as the encoded spans are (no Resolver, which
    open-source KFP cannot run).
    """

    SPEC_CLASS = CachedTransformSpec
    EXECUTOR_SPEC = executor_spec.BeamExecutorSpec(CachedTransformExecutor)

    def __init__(
        self,
        examples: tfx.dsl.Channel,
        schema: tfx.dsl.Channel,
        preprocessing_fn: str,
        analyzer_cache_dir: str,
        disable_statistics: bool = True,
        custom_config: dict[str, Any] | None = None,
    ) -> None:
        """Analyze ``examples`` with ``preprocessing_fn``, caching under ``analyzer_cache_dir``.

        An empty ``analyzer_cache_dir``: no cache, the whole train split one dataset.
        """
        base_component.BaseComponent.__init__(
            self,
            spec=CachedTransformSpec(
                examples=examples,
                schema=schema,
                preprocessing_fn=preprocessing_fn,
                force_tf_compat_v1=0,
                custom_config=json_utils.dumps(custom_config),
                disable_statistics=int(disable_statistics),
                analyzer_cache_dir=analyzer_cache_dir,
                transform_graph=tfx.dsl.Channel(type=tfx.types.standard_artifacts.TransformGraph),
                **_statistics_outputs(disable_statistics),
            ),
        )

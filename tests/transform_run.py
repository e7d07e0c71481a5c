"""Rows through a real tf.Transform analysis in process, written as TFX's Transform writes it."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import tensorflow_transform as tft
import tensorflow_transform.beam as tft_beam
from tensorflow_transform.tf_metadata import metadata_io, schema_utils


def analyze_and_write(
    fn: Callable[[dict], dict],
    instances: list[dict],
    spec: dict,
    factory: pytest.TempPathFactory,
) -> tuple[list[dict], dict, tft.TFTransformOutput]:
    """The transformed rows, their feature spec, and the written transform graph's output."""
    metadata = tft.DatasetMetadata.from_feature_spec(spec)
    out_dir = str(factory.mktemp("transform_fn"))
    with tft_beam.Context(temp_dir=str(factory.mktemp("tft_tmp"))):
        (rows, transformed), transform_fn = (
            instances,
            metadata,
        ) | tft_beam.AnalyzeAndTransformDataset(fn)
        _ = transform_fn | tft_beam.WriteTransformFn(out_dir)
    # The raw schema too, as TFX's Transform writes it: serving signatures parse with it.
    metadata_io.write_metadata(metadata, f"{out_dir}/{tft.TFTransformOutput.RAW_METADATA_DIR}")
    feature_spec = schema_utils.schema_as_feature_spec(transformed.schema).feature_spec
    return rows, feature_spec, tft.TFTransformOutput(out_dir)

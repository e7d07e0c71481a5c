"""One tf.Transform analysis with the analyzer cache, as CachedTransform runs it, alone.

    python analysis_run.py RUN_JSON

RUN_JSON names the cache folder, a local path or an s3:// URI (the S3 endpoint and keys
in the environment, as KFP's steps get them, and ``kubeflow.step.s3_fileio`` serving
them, as the step's entry point registers it), and the parts (span, encoding key,
split, the values of one feature ``x``). The run reads the cache (a local copy of its
datasets when it is on S3, as CachedTransform reads it), analyzes the parts it does
not serve into a local staging folder, publishes the new entries and evicts what its
window leaves (``data_layout.analyzer_cache``), then prints one JSON line: the parts
read and analyzed, the mean of ``x`` its graph holds, and the folders evicted. With
``cut_after`` N, the publish is cut off after N entry copies instead (exit 3), as a
killed step would leave it. It ends with ``os._exit``, as the step's entry point does.
"""

from __future__ import annotations

from startup import process

process.prepare()  # Keras 2 before TensorFlow loads (startup/process.py)

# ruff: noqa: E402 - the imports below follow that choice

import json
import os
import sys
import tempfile
from typing import Any

import apache_beam as beam
import tensorflow as tf
import tensorflow_transform as tft
import tensorflow_transform.beam as tft_beam
from tensorflow_transform.beam import analysis_graph_builder
from tensorflow_transform.beam import analyzer_cache as tft_cache
from tensorflow_transform.tf_metadata import dataset_metadata, schema_utils

from data_layout import analyzer_cache
from data_layout.analyzer_cache import Part
from kubeflow.step import s3_fileio

FEATURES = {"x": tf.io.FixedLenFeature([], tf.float32)}
CUT_OFF = 3


def preprocessing_fn(inputs: dict[str, tf.Tensor]) -> dict[str, tf.Tensor]:
    """x less its mean, and over its max: two cacheable analyzers, two entries a part."""
    x = inputs["x"]
    return {"centered": x - tft.mean(x), "scaled": x / tft.max(x)}


def _analyze(run: dict[str, Any], parts: dict[Part, list[float]]) -> tuple[list[Part], float]:
    """Analyze the parts with the cache; the parts it served, and the graph's mean."""
    keys = {tft_cache.DatasetKey(p.dataset_key): p for p in parts}
    metadata = dataset_metadata.DatasetMetadata(schema_utils.schema_from_feature_spec(FEATURES))
    specs = schema_utils.schema_as_feature_spec(metadata.schema).feature_spec
    output = os.path.join(run["temp"], "transform_fn")
    with beam.Pipeline() as pipeline, tft_beam.Context(temp_dir=run["temp"]):
        readable = analyzer_cache.readable(
            run["cache"], [k.key for k in keys], os.path.join(run["temp"], "read")
        )
        cache = pipeline | tft_cache.ReadAnalysisCacheFromFS(readable, sorted(keys))
        needed = analysis_graph_builder.get_analysis_dataset_keys(
            preprocessing_fn,
            {k: tf.TensorSpec([None], tf.float32) for k in specs},
            list(keys),
            cache,
            False,
        )
        data = {
            key: pipeline | f"Create{part.label}" >> beam.Create([{"x": v} for v in parts[part]])
            if key in needed
            else None
            for key, part in keys.items()
        }
        transform_fn, new_cache = (data, cache, metadata) | tft_beam.AnalyzeDatasetWithCache(
            preprocessing_fn
        )
        _ = transform_fn | tft_beam.WriteTransformFn(output)
        _ = new_cache | tft_cache.WriteAnalysisCacheToFS(pipeline, _staging(run), sorted(keys))
    centered = tft.TFTransformOutput(output).transform_raw_features({"x": tf.constant([0.0])})
    return [p for k, p in keys.items() if k not in needed], -float(centered["centered"][0])


def _staging(run: dict[str, Any]) -> str:
    """The local folder the run's new entries are written to before publishing."""
    return os.path.join(run["temp"], "staging")


def _cut_off_after(copies: int) -> None:
    """Make the publish stop the process after ``copies`` entry copies."""
    copy = analyzer_cache._copy_entry
    done = []

    def copy_then_die(staged: str, index: int, cache: str) -> int:
        if len(done) == copies:
            os._exit(CUT_OFF)
        done.append(index)
        return copy(staged, index, cache)

    analyzer_cache._copy_entry = copy_then_die


def main(run: dict[str, Any]) -> dict[str, Any]:
    """Analyze, publish and evict; what the run read, analyzed, computed and evicted."""
    parts = {Part(p["span"], p["split"], p["key"]): p["values"] for p in run["parts"]}
    read, mean = _analyze(run, parts)
    if run.get("cut_after") is not None:
        _cut_off_after(run["cut_after"])
    analyzer_cache.publish(_staging(run), run["cache"], [p.dataset_key for p in parts])
    return {
        "read": sorted(p.label for p in read),
        "analyzed": sorted(p.label for p in parts if p not in read),
        "mean": mean,
        "evicted": analyzer_cache.evict(run["cache"], list(parts)),
    }


if __name__ == "__main__":
    s3_fileio.register()
    with tempfile.TemporaryDirectory() as temp:
        result = main({"temp": temp, **json.loads(sys.argv[1])})
    print(json.dumps(result), flush=True)
    os._exit(0)

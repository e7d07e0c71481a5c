"""One run's ExampleGen and CachedTransform executors on a span, alone, as steps run them.

    python cached_transform_run.py PIPELINE_ROOT DATA_ROOT SPAN WINDOW

The roots may be s3:// URIs (the S3 endpoint and keys in the environment, as KFP's
steps get them, served by ``kubeflow.step.s3_fileio`` as the step's entry point
registers it). The artifacts are local folders, as KFP's launcher hands them to a
step. ExampleGen's executor writes the span's window (encoding each span once under
the pipeline root), then ``CachedTransformExecutor`` analyzes it with the analyzer
cache under the pipeline root; prints one JSON line: the parts read from the cache and
analyzed, and the cache's dataset folders. The executors are driven as
``benchmarks/bench_transform_cache.py`` drives them. Ends with ``os._exit``, as the
step's entry point does.
"""

from __future__ import annotations

from startup import process

process.prepare()  # Keras 2 before TensorFlow loads (startup/process.py)

# ruff: noqa: E402 - the imports below follow that choice

import importlib.util
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType

from tfx import v1 as tfx
from tfx.dsl.io import fileio

from components.cached_transform import CachedTransformExecutor
from components.curated_schema import PACKAGES_ROOT, SCHEMA_FILE
from data_layout.properties import ANALYZER_CACHE_PROPERTY
from kubeflow.step import s3_fileio
from pipeline_def.config import PipelineConfig

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_transform_cache.py"


def _bench() -> ModuleType:
    """The bench script, loaded by path (scripts are files, not a package)."""
    spec = importlib.util.spec_from_file_location("bench_transform_cache", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(pipeline_root: str, data_root: str, span: int, window: int) -> dict:
    """ExampleGen and CachedTransform on ``span``; what the cache served and holds."""
    bench = _bench()
    config = PipelineConfig.resolve(
        pipeline_root=pipeline_root, data_root=data_root, serving_dir=""
    )
    with tempfile.TemporaryDirectory() as folder:
        schema = tfx.types.standard_artifacts.Schema()
        schema.uri = f"{folder}/schema"
        Path(schema.uri).mkdir()
        shutil.copy(PACKAGES_ROOT / config.curated_schema, Path(schema.uri) / SCHEMA_FILE)
        examples = bench.example_gen(config, span, window, f"{folder}/run-{span}")
        _, graph = bench.transform(
            CachedTransformExecutor(), config, examples, schema, f"{folder}/graph-{span}"
        )
    cache = config.analyzer_cache
    cached = fileio.listdir(cache) if fileio.isdir(cache) else []
    return {
        **json.loads(graph.get_string_custom_property(ANALYZER_CACHE_PROPERTY)),
        "cached": sorted(n.rstrip("/") for n in cached),
    }


if __name__ == "__main__":
    s3_fileio.register()
    root, data, span_arg, window_arg = sys.argv[1:]
    print(json.dumps(main(root, data, int(span_arg), int(window_arg))), flush=True)
    os._exit(0)

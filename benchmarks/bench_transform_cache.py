"""Transform's seconds on a sequence of span runs, with the analyzer cache and without.

    python benchmarks/bench_transform_cache.py [--data-root data/taxi-spans] [--spans 0-7]
                                            [--window 4] [--out DIR]

For each span in turn, ExampleGen's executor writes the run's Examples (its window of
spans, the encoded spans reused as in a pipeline run), then Transform runs twice on
them: TFX's Transform executor as the pipeline had it (the window's train split one
dataset, no cache), and ``CachedTransformExecutor`` (one dataset per span split, the
cache under ``<out>/pipeline/analyzer-cache`` growing span by span). The two alternate
which goes first, so that neither always meets a warm process. Prints each span's rows
and both seconds, the parts read from the cache, and the totals without the first span
(where the process warms up and the cache is empty). The two graphs transform the
window's train rows, and a feature on which they disagree is named.
"""

from __future__ import annotations

from startup import process

process.prepare()  # Keras 2 before TensorFlow loads (startup/process.py)

# ruff: noqa: E402 - the imports below follow that choice

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import tensorflow as tf
import tensorflow_transform as tft
from tfx import v1 as tfx
from tfx.components.transform import executor as transform_executor
from tfx.types import standard_component_specs as keys
from tfx.utils import proto_utils

from components.cached_transform import ANALYZER_CACHE_DIR_KEY, CachedTransformExecutor
from components.curated_schema import PACKAGES_ROOT, SCHEMA_FILE
from components.example_gen.executor import ArrowCsvExecutor
from components.example_gen.keys import INT_COLUMNS_KEY, SPAN_CACHE_KEY, SPAN_KEY, WINDOW_KEY
from data_layout import csv_files
from data_layout.csv_examples import integer_columns
from data_layout.properties import ANALYZER_CACHE_PROPERTY, WINDOW_PROPERTY
from modules.preprocessing import DATASET_KEY
from pipeline_def.config import PipelineConfig

PROJECT = Path(__file__).resolve().parent.parent
_types = tfx.types.standard_artifacts


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-root", type=Path, default=PROJECT / "data" / "taxi-spans")
    parser.add_argument("--spans", default="0-7", help="first-last, run in order")
    parser.add_argument("--window", type=int, default=4)
    parser.add_argument("--out", type=Path, default=None, help="default: a temporary folder")
    return parser.parse_args(argv)


def example_gen(config: PipelineConfig, span: int, window: int, out: Path | str) -> Any:
    """Run ExampleGen's executor for ``span`` and its window; the Examples artifact.

    ``out`` is a folder or an object store URI (a Path would fold s3:// into s3:/).
    """
    examples = _types.Examples()
    examples.uri = f"{out}/examples-{span}"
    splits = [tfx.proto.SplitConfig.Split(name=n, hash_buckets=b) for n, b in config.split_buckets]
    output = tfx.proto.Output(split_config=tfx.proto.SplitConfig(splits=splits))
    input_config = tfx.proto.Input(
        splits=[tfx.proto.Input.Split(name="single_split", pattern=csv_files.PATTERN)]
    )
    properties = {
        keys.INPUT_BASE_KEY: config.data_root,
        keys.INPUT_CONFIG_KEY: proto_utils.proto_to_json(input_config),
        keys.OUTPUT_CONFIG_KEY: proto_utils.proto_to_json(output),
        INT_COLUMNS_KEY: json.dumps(integer_columns(PACKAGES_ROOT / config.curated_schema)),
        SPAN_KEY: str(span),
        WINDOW_KEY: window,
        SPAN_CACHE_KEY: config.span_cache,
    }
    ArrowCsvExecutor().Do({}, {keys.EXAMPLES_KEY: [examples]}, properties)
    return examples


def transform(
    executor: Any, config: PipelineConfig, examples: Any, schema: Any, out: Path | str
) -> tuple[float, Any]:
    """Run a Transform executor on ``examples``; its seconds and TransformGraph."""
    graph = _types.TransformGraph()
    graph.uri = str(out)
    properties = {
        keys.PREPROCESSING_FN_KEY: config.preprocessing_fn,
        keys.CUSTOM_CONFIG_KEY: json.dumps({DATASET_KEY: config.dataset}),
        keys.DISABLE_STATISTICS_KEY: 1,
        keys.FORCE_TF_COMPAT_V1_KEY: 0,
        ANALYZER_CACHE_DIR_KEY: config.analyzer_cache,
    }
    started = time.monotonic()
    executor.Do(
        {keys.EXAMPLES_KEY: [examples], keys.SCHEMA_KEY: [schema]},
        {keys.TRANSFORM_GRAPH_KEY: [graph]},
        properties,
    )
    return time.monotonic() - started, graph


def _differences(one: str, other: str, examples: Any) -> list[str]:
    """The transformed features on which two graphs disagree, over the train split's rows.

    Means and variances merged in another order round differently in float32: a
    latitude's z-score moved by up to 1.4e-4 on the quarterly spans. Beyond 1e-3 is a
    difference.
    """
    first, second = tft.TFTransformOutput(one), tft.TFTransformOutput(other)
    files = tf.io.gfile.glob(f"{examples.uri}/Split-train/*")
    records = tf.data.TFRecordDataset(files, compression_type="GZIP").batch(100_000)
    raw = tf.io.parse_example(next(iter(records)), first.raw_feature_spec())
    a, b = first.transform_raw_features(raw), second.transform_raw_features(raw)
    return sorted(
        name for name in a if not np.allclose(a[name].numpy(), b[name].numpy(), rtol=0, atol=1e-3)
    )


def run(args: argparse.Namespace, out: Path) -> list[dict[str, Any]]:
    """Each span's rows, both Transforms' seconds, and what the cache served."""
    first, last = (int(s) for s in args.spans.split("-"))
    config = PipelineConfig.resolve(
        pipeline_root=str(out / "pipeline"), data_root=str(args.data_root), serving_dir=""
    )
    schema = _types.Schema()
    schema.uri = str(out / "schema")
    Path(schema.uri).mkdir(parents=True)
    shutil.copy(PACKAGES_ROOT / config.curated_schema, Path(schema.uri) / SCHEMA_FILE)
    rows = []
    for span in range(first, last + 1):
        examples = example_gen(config, span, args.window, out)
        executors = {"stock": transform_executor.Executor(), "cached": CachedTransformExecutor()}
        order = list(executors) if span % 2 else list(reversed(executors))
        seconds, graphs = {}, {}
        for name in order:
            target = out / f"transform-{span}-{name}"
            seconds[name], graphs[name] = transform(
                executors[name], config, examples, schema, target
            )
        window = json.loads(examples.get_string_custom_property(WINDOW_PROPERTY))
        cache = json.loads(graphs["cached"].get_string_custom_property(ANALYZER_CACHE_PROPERTY))
        row = {
            "span": span,
            "window": [w["span"] for w in window],
            "rows": sum(w["rows"] for w in window),
            **{f"{name}_seconds": round(s, 1) for name, s in seconds.items()},
            "read": cache["read"],
            "analyzed": cache["analyzed"],
            "differences": _differences(graphs["stock"].uri, graphs["cached"].uri, examples),
        }
        print(
            f"span {span:>2} window {','.join(map(str, row['window'])):<12} rows {row['rows']:>6}"
            f"  stock {row['stock_seconds']:>5.1f} s  cached {row['cached_seconds']:>5.1f} s"
            f"  read {len(row['read'])} parts, analyzed {len(row['analyzed'])}"
            + (f"  DIFFER: {row['differences']}" if row["differences"] else ""),
            flush=True,
        )
        rows.append(row)
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """Run the sequence; print a line per span and the totals."""
    args = parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-transform-cache-"))
    rows = run(args, out)
    later = rows[1:]
    stock = sum(r["stock_seconds"] for r in later)
    cached = sum(r["cached_seconds"] for r in later)
    print(
        f"spans {later[0]['span']}-{later[-1]['span']} (after the first): stock {stock:.1f} s, "
        f"cached {cached:.1f} s ({cached / stock:.2f} of stock)"
    )
    (out / "bench_transform_cache.json").write_text(json.dumps(rows, indent=1))
    print(f"figures: {out / 'bench_transform_cache.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""ExampleGen's executor on a window of spans kept on S3, as a Kubeflow step runs it.

    python encode_run.py RUN_JSON

RUN_JSON names the data root and the span cache (``s3://`` URIs: the S3 endpoint and
keys are in the environment, as KFP's steps get them, and ``kubeflow.step.s3_fileio``
serves TFX's fileio, as the step's entry point registers it), the Examples folder, the
Beam arguments, and ``worker``: the command Beam's DirectRunner starts each worker
process with in multi-process mode, in place of this Python. No driver runs before
the executor, as on Kubeflow. Prints one JSON line: the spans the run reused, and each
split's examples (hex, sorted) and this process's id.
"""

from __future__ import annotations

from startup import process

process.prepare()  # Keras 2 before TensorFlow loads (startup/process.py)

# ruff: noqa: E402 - the imports below follow that choice

import json
import os
import sys
from pathlib import Path

import tensorflow as tf
from tfx import v1 as tfx
from tfx.dsl.components.base import base_beam_executor
from tfx.types import standard_component_specs as keys
from tfx.utils import proto_utils

from components.example_gen.executor import ArrowCsvExecutor
from components.example_gen.keys import SPAN_CACHE_KEY, SPAN_KEY, WINDOW_KEY
from data_layout import spans
from data_layout.properties import REUSED_PROPERTY
from kubeflow.step import s3_fileio

SPLITS = (("train", 3), ("validation", 1), ("test", 1))


def _properties(run: dict) -> dict[str, object]:
    output = tfx.proto.Output(
        split_config=tfx.proto.SplitConfig(
            splits=[tfx.proto.SplitConfig.Split(name=n, hash_buckets=b) for n, b in SPLITS]
        )
    )
    given = tfx.proto.Input(splits=[tfx.proto.Input.Split(name="single_split", pattern="*.csv")])
    return {
        keys.INPUT_BASE_KEY: run["root"],
        keys.INPUT_CONFIG_KEY: proto_utils.proto_to_json(given),
        keys.OUTPUT_CONFIG_KEY: proto_utils.proto_to_json(output),
        SPAN_KEY: spans.LATEST_TEXT,
        WINDOW_KEY: 2,
        SPAN_CACHE_KEY: run["cache"],
    }


def _examples(folder: Path) -> list[str]:
    records = tf.data.TFRecordDataset([str(p) for p in folder.iterdir()], compression_type="GZIP")
    return sorted(r.numpy().hex() for r in records)


def main(run: dict) -> None:
    """Run the executor once and print what it reused and wrote."""
    s3_fileio.register()
    examples = tfx.types.standard_artifacts.Examples()
    examples.uri = run["examples"]
    context = base_beam_executor.BaseBeamExecutor.Context(beam_pipeline_args=run["beam"])
    executor = ArrowCsvExecutor(context)  # which runs setup.py with this Python
    # Beam starts its multi-process workers with ``sys.executable -m ...``.
    sys.executable = run["worker"]
    executor.Do({}, {keys.EXAMPLES_KEY: [examples]}, _properties(run))
    splits = {name: _examples(Path(run["examples"]) / f"Split-{name}") for name, _ in SPLITS}
    reused = json.loads(examples.get_string_custom_property(REUSED_PROPERTY))
    print(json.dumps({"reused": reused, "splits": splits, "driver": os.getpid()}))


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))

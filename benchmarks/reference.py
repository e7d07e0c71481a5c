"""TFX's own Chicago taxi example, run here on the same data: the reference the targets name.

    python benchmarks/reference.py --data-root DIR [--out FILE]

The speed targets are fractions of this example's time, and the machines are shared:
their speed drifts by tens of percent within a day, and the example's more than this
project's. Run next to this project's pipeline (``bench_run.py --reference``), it
gives a ratio measured under the same conditions. The example runs as the installed
tfx wheel ships it (``tfx/examples/chicago_taxi_pipeline/taxi_pipeline_native_keras.py``
and its module file: Beam in multi-processing mode, 1000 train steps), under
LocalDagRunner in a fresh directory, with ``TF_USE_LEGACY_KERAS=1``: under Keras 3 its
Trainer fails (``docs/explanation/stack.md``). Per-component seconds come
from its ML-Metadata.
"""

from __future__ import annotations

from startup import process

process.prepare()  # Keras 2 before TensorFlow loads (startup/process.py)

# ruff: noqa: E402 - the imports below follow that choice

import argparse
import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path

from memory import measured_run  # benchmarks/, beside this file

from pipeline_def.metadata_stores import SqliteMetadata
from pipeline_ops.metadata.runs import latest_run
from pipeline_ops.metadata.store import open_store

PIPELINE_NAME = "chicago_taxi_reference"


def example_dir() -> Path:
    """The example's folder inside the installed tfx package (tfx is not imported)."""
    spec = importlib.util.find_spec("tfx")
    if spec is None or spec.origin is None:
        sys.exit("tfx is not installed in this interpreter: run `make run` first")
    return Path(spec.origin).parent / "examples" / "chicago_taxi_pipeline"


def _run_example(data_root: str, out: str) -> None:
    """Build the example's pipeline with its own function and run it (in the child)."""
    from tfx import v1 as tfx

    folder = example_dir()
    spec = importlib.util.spec_from_file_location(
        "taxi_reference", folder / "taxi_pipeline_native_keras.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    pipeline = module._create_pipeline(
        pipeline_name=PIPELINE_NAME,
        pipeline_root=f"{out}/pipeline",
        data_root=data_root,
        module_file=str(folder / "taxi_utils_native_keras.py"),
        serving_model_dir=f"{out}/serving",
        metadata_path=f"{out}/metadata.db",
        beam_pipeline_args=module._beam_pipeline_args,
    )
    tfx.orchestration.LocalDagRunner().run(pipeline)


def component_seconds(metadata_path: Path) -> dict[str, float]:
    """Seconds per node of the example's run, from its ML-Metadata."""
    run = latest_run(open_store(SqliteMetadata(str(metadata_path))), PIPELINE_NAME)
    if run is None:
        sys.exit(f"the reference example recorded no run in {metadata_path}")
    return {node_id: node.seconds for node_id, node in run.nodes.items()}


def run_reference(data_root: Path) -> dict:
    """One fresh run of the example on the CSV files of ``data_root``; its figures."""
    with tempfile.TemporaryDirectory(prefix="reference-") as out:
        # The example reads every file of its data root: give it the CSV files only.
        data = Path(out) / "data"
        data.mkdir()
        for path in sorted(data_root.glob("*.csv")):
            (data / path.name).symlink_to(path.resolve())
        wall, peak = measured_run(
            [sys.executable, __file__, "--child", str(data), out],
            "the reference example",
            env={**os.environ, **process.ENVIRONMENT},
        )
        return {
            "wall_seconds": wall,
            "peak_memory_mib": peak,
            "components": component_seconds(Path(out) / "metadata.db"),
        }


def main() -> None:
    """Run the example once and print its figures."""
    if sys.argv[1:2] == ["--child"]:
        _run_example(*sys.argv[2:4])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-root", type=Path, default=Path(__file__).parents[1] / "data")
    parser.add_argument("--out", type=Path, help="also write the figures here as JSON")
    args = parser.parse_args()
    figures = run_reference(args.data_root)
    print(f"reference example: {figures['wall_seconds']:.1f} s end to end")
    for name, seconds in figures["components"].items():
        print(f"  {name:<30} {seconds:6.1f} s")
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()

"""Run the Trainer's run_fn outside TFX, on the artifacts of a finished pipeline run.

    python tests/modules/trainer_process.py PIPELINE_ROOT OUT_DIR [--steps N] [--logical-cpus N]
                                    [--distribution auto|single|mirrored|multi_worker]
                                    [--members N]

The tests start it as a real process: once per MultiWorkerMirroredStrategy worker
(with TF_CONFIG set), or with several logical CPUs for MirroredStrategy. It writes
the model to OUT_DIR/model and the logs to OUT_DIR/run, as the Trainer would.
"""

from __future__ import annotations

from startup import process

process.prepare()  # Keras 2 before TensorFlow loads (startup/process.py)

# ruff: noqa: E402 - the imports below follow that choice

import argparse
import logging
from pathlib import Path


def _latest(folder: Path) -> Path:
    return max(folder.iterdir(), key=lambda p: int(p.name))


def main() -> None:
    """Parse the arguments, configure devices, and call run_fn."""
    parser = argparse.ArgumentParser()
    parser.add_argument("pipeline_root", type=Path)
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--logical-cpus", type=int, default=0)
    parser.add_argument("--distribution", default="auto")
    parser.add_argument("--members", type=int, default=1)
    args = parser.parse_args()
    # run_fn's own log lines (replicas, epochs) go to stderr for the test to read.
    logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")

    import tensorflow as tf

    if args.logical_cpus:
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration()] * args.logical_cpus
        )

    from tfx.components.util import tfxio_utils
    from tfx.v1.components import DataAccessor, FnArgs
    from tfx.v1.types.standard_artifacts import Examples

    from modules.hparams import HParams
    from modules.training import run_fn

    examples = Examples()
    examples.uri = str(_latest(args.pipeline_root / "CsvExampleGen" / "examples"))
    examples.split_names = '["train", "validation", "test"]'
    accessor = DataAccessor(
        tf_dataset_factory=tfxio_utils.get_tf_dataset_factory_from_artifact([examples], []),
        record_batch_factory=None,
        data_view_decode_fn=None,
    )
    hparams = HParams(
        distribution=args.distribution,
        steps_per_epoch=50,
        profile_steps=(0, 0),
        ensemble_members=args.members,
    )
    run_fn(
        FnArgs(
            train_files=[f"{examples.uri}/Split-train/*"],
            eval_files=[f"{examples.uri}/Split-validation/*"],
            transform_output=str(_latest(args.pipeline_root / "Transform" / "transform_graph")),
            serving_model_dir=str(args.out_dir / "model"),
            model_run_dir=str(args.out_dir / "run"),
            train_steps=args.steps,
            eval_steps=10,
            custom_config=hparams.to_custom_config(),
            data_accessor=accessor,
        )
    )


if __name__ == "__main__":
    main()

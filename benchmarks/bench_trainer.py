"""The Trainer's input pipeline against its ceiling: the same model fed from memory.

    python benchmarks/bench_trainer.py [--output-dir outputs] [--epochs 8] [--rounds 3]
                                    [--parse-batches 2000]

Uses the newest run in the output dir (its Transform graph and ExampleGen train
split). Trains the pipeline's model with the pipeline's tf.data input (raw
examples through Transform's layer, cached), then with the same transformed
batches held as in-memory tensors, and prints training examples/s for each (epochs
after the first, validation excluded, as the Trainer logs it) and their ratio.

Then reads and parses the first ``--parse-batches`` batches of raw training examples
(no training) with tfx_bsl's ``TensorFlowDataset``, which parses one batch at a time,
and with ``input_pipeline.raw_batches``, which the Trainer uses, and prints examples/s for
each: what the Trainer's input can reach once the data is too large to cache.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline_ops.cli.quiet import quiet_libraries
from startup import process

process.prepare()  # Keras 2 before TensorFlow loads (startup/process.py)
quiet_libraries()  # before TFX and TF are imported: they chatter on import

from pipeline_def import node_ids  # noqa: E402
from pipeline_def.project_paths import DEFAULT_OUTPUT_DIR  # noqa: E402
from pipeline_ops.metadata.runs import latest_run  # noqa: E402
from pipeline_ops.metadata.store import metadata_for, open_store  # noqa: E402

if TYPE_CHECKING:
    import tensorflow as tf
    import tensorflow_transform as tft

    from modules.features import DatasetDeclaration
    from modules.hparams import HParams


def _rate(model, data, steps: int, epochs: int, batch: int) -> float:  # noqa: ANN001
    """Training examples/s over the epochs after the first, timed as the Trainer does."""
    from modules.training import EpochLog

    timer = EpochLog(steps * batch)
    model.fit(data, steps_per_epoch=steps, epochs=epochs, callbacks=[timer], verbose=0)
    return steps * batch * (epochs - 1) / sum(timer.seconds[1:])


def _parse_rate(batches, count: int) -> float:  # noqa: ANN001
    """Raw examples read and parsed per second over ``count`` batches (the first one untimed)."""
    import time

    examples, started = 0, None
    for batch in batches.take(count):
        if started is None:
            started = time.monotonic()
            continue
        examples += int(next(iter(batch.values())).dense_shape[0])
    return examples / (time.monotonic() - started)


def _parse_args() -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output-dir", type=Path, default=DEFAULT_OUTPUT_DIR)
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--parse-batches", type=int, default=2000)
    return parser.parse_args()


def main() -> None:
    """Measure both inputs and print the figures as JSON."""
    args = _parse_args()
    import tensorflow_transform as tft

    import datasets
    from modules import input_pipeline
    from modules.hparams import HParams

    pipeline_name = datasets.load(datasets.DEFAULT).pipeline_name
    run = latest_run(open_store(metadata_for(args.output_dir, None)), pipeline_name)
    if run is None or node_ids.TRANSFORM not in run.nodes:
        raise SystemExit(f"no finished run in {args.output_dir}: run the pipeline first")
    graph = tft.TFTransformOutput(run.output(node_ids.TRANSFORM, "transform_graph").uri)
    examples = run.output(node_ids.EXAMPLE_GEN, "examples").uri
    files = [str(p) for p in sorted(Path(examples, "Split-train").glob("*"))]
    hp = HParams()
    taxi = datasets.load(datasets.DEFAULT)
    piped = input_pipeline.make_dataset(
        files, graph, hp.batch_size, label=taxi.label_key, training=True, cache=True,
        shuffle_buffer=hp.shuffle_buffer, seed=hp.seed,
    )  # fmt: skip
    inputs = {"pipeline": piped, "in_memory": _in_memory(piped, hp.steps_per_epoch * 4)}
    rates = _training_rates(taxi, graph, hp, inputs, args.rounds, args.epochs)
    pipeline_rate, ceiling = (statistics.median(rates[k]) for k in ("pipeline", "in_memory"))
    parsing = _parsing_rates(files, graph, hp, args.rounds, args.parse_batches)
    print(json.dumps({
        "pipeline_input_examples_per_s": round(pipeline_rate),
        "in_memory_examples_per_s": round(ceiling),
        "ratio": round(pipeline_rate / ceiling, 3),
        "read_parse_examples_per_s": {k: round(statistics.median(v)) for k, v in parsing.items()},
        "parse_batches": args.parse_batches,
        "batch_size": hp.batch_size,
        "steps_per_epoch": hp.steps_per_epoch,
        "epochs_measured": args.epochs - 1,
        "rounds": args.rounds,
    }))  # fmt: skip


def _in_memory(piped: tf.data.Dataset, batches: int) -> tf.data.Dataset:
    """The ceiling: ``piped``'s first batches as tensors in memory, replayed forever."""
    import tensorflow as tf

    # Materialized once, then replayed with no reading, parsing, transforming or shuffling.
    taken = list(piped.take(batches))
    return tf.data.Dataset.from_tensor_slices(
        (
            {k: tf.stack([b[0][k] for b in taken]) for k in taken[0][0]},
            tf.stack([b[1] for b in taken]),
        )
    ).repeat()


def _training_rates(
    dataset: DatasetDeclaration,
    graph: tft.TFTransformOutput,
    hp: HParams,
    inputs: dict[str, tf.data.Dataset],
    rounds: int,
    epochs: int,
) -> dict[str, list[float]]:
    """Each input's training examples/s, a fresh model a round."""
    from modules.model import build_model
    from modules.training import cardinalities

    rates: dict[str, list[float]] = {name: [] for name in inputs}
    for _ in range(rounds):  # alternate, so that machine noise hits both alike
        for name, data in inputs.items():
            model = build_model(dataset, cardinalities(dataset, graph), hp)
            rates[name].append(_rate(model, data, hp.steps_per_epoch, epochs, hp.batch_size))
    return rates


def _parsing_rates(
    files: list[str], graph: tft.TFTransformOutput, hp: HParams, rounds: int, count: int
) -> dict[str, list[float]]:
    """Raw examples read and parsed per second by tfx_bsl's reader and by the Trainer's."""
    from tfx_bsl.public import tfxio

    from modules import input_pipeline

    options = tfxio.TensorFlowDatasetOptions(batch_size=hp.batch_size, num_epochs=1, shuffle=False)
    readers = {
        "tfx_bsl": lambda: tfxio.TFExampleRecord(
            file_pattern=files, schema=graph.raw_metadata.schema
        ).TensorFlowDataset(options),
        "parallel": lambda: input_pipeline.raw_batches(
            files, graph.raw_feature_spec(), hp.batch_size, shuffle_buffer=0, seed=0,
            drop_remainder=False,
        ),
    }  # fmt: skip
    parsing: dict[str, list[float]] = {name: [] for name in readers}
    for _ in range(rounds):
        for name, reader in readers.items():
            parsing[name].append(_parse_rate(reader(), count))
    return parsing


if __name__ == "__main__":
    main()

"""Warm start against cold on the demo's spans: epochs and seconds to the cold model's AUC.

    python benchmarks/bench_warm_start.py [--demo-dir outputs/spans-demo] [--spans 4 8 12 15]
                                       [--data-root data/taxi-spans] [--train-steps N]

For each span given, takes the demo's newest run of it (``make spans-demo``: warm-started
from the model of the spans before it, when one served) and trains the same span and
window again from scratch (``wide-deep-run --cold-start``) into
``<demo-dir>/cold/span-N``; ``--train-steps`` must be the demo's (default: the runner's).
From each Trainer's validation logs (Keras' ``epoch_auc``, one value per epoch): the
cold model's best validation AUC, and the epochs and seconds from the start of fit each
model took to reach it (``null``: never); with both models' test AUC. Prints a line per
span and then the figures as JSON.
"""

from __future__ import annotations

from startup import process

process.prepare()  # Keras 2 before TensorFlow loads (startup/process.py)

# ruff: noqa: E402 - the imports below follow that choice

import argparse
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import tensorflow as tf

from data_layout.properties import span_record, warm_start_of
from pipeline_def import node_ids
from pipeline_def.metadata_stores import SqliteMetadata
from pipeline_ops.commands import RUN
from pipeline_ops.metadata.runs import PipelineRun, latest_run, list_runs
from pipeline_ops.metadata.store import open_store
from review.reading import overall_metrics

PROJECT = Path(__file__).resolve().parent.parent
PIPELINE = "taxi-wide-deep"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--demo-dir", type=Path, default=PROJECT / "outputs" / "spans-demo")
    parser.add_argument("--data-root", type=Path, default=PROJECT / "data" / "taxi-spans")
    parser.add_argument("--spans", type=int, nargs="+", default=[4, 8, 12, 15])
    parser.add_argument("--train-steps", type=int, default=None)
    return parser.parse_args(argv)


def _events(folder: str, tag: str | None) -> list[tuple[int, float, float]]:
    """(step, wall time, value) of ``tag`` in a TensorBoard folder; every event if no tag."""
    found = []
    for path in sorted(tf.io.gfile.glob(f"{folder}/events.out.tfevents.*")):
        for event in tf.compat.v1.train.summary_iterator(path):
            if tag is None:
                found.append((event.step, event.wall_time, 0.0))
            for value in event.summary.value:
                if value.tag == tag:
                    found.append(
                        (event.step, event.wall_time, float(tf.make_ndarray(value.tensor)))
                    )
    return found


def curve(model_run: str) -> tuple[float, list[tuple[int, float, float]]]:
    """When fit started, and (epoch, wall time, validation AUC) per epoch."""
    started = min(wall for _, wall, _ in _events(f"{model_run}/train", None))
    return started, sorted(_events(f"{model_run}/validation", "epoch_auc"))


def reached(
    started: float, epochs: list[tuple[int, float, float]], target: float
) -> tuple[int | None, float | None]:
    """Epochs (1-based) and seconds from ``started`` to the first validation AUC >= target."""
    for step, wall, auc in epochs:
        if auc >= target - 1e-6:
            return step + 1, round(wall - started, 1)
    return None, None


def run_of_span(runs: list[PipelineRun], span: int) -> PipelineRun:
    """The first of ``runs`` on ``span`` that trained a model; exits naming the span if none."""
    for run in runs:
        if span_record(run.output(node_ids.EXAMPLE_GEN, "examples")).span == span and run.output(
            node_ids.TRAINER, "model_run"
        ):
            return run
    raise SystemExit(f"error: the demo has no trained run of span {span} (make spans-demo)")


def cold_run(args: argparse.Namespace, span: int, window: int) -> PipelineRun:
    """Train ``span`` with ``window`` from scratch in a folder of its own; its run."""
    out = args.demo_dir / "cold" / f"span-{span}"
    steps = ["--train-steps", str(args.train_steps)] if args.train_steps else []
    subprocess.run(
        [str(Path(sys.executable).parent / RUN), "--data-root", str(args.data_root),
         "--output-dir", str(out), "--span", str(span), "--window", str(window),
         "--cold-start", *steps],
        check=True, capture_output=True,
    )  # fmt: skip
    return latest_run(open_store(SqliteMetadata(str(out / "metadata.sqlite"))), PIPELINE)


def compare_span(args: argparse.Namespace, warm: PipelineRun, span: int) -> dict:
    """The figures of one span: the demo's run against a cold one on the same window."""
    window = len(span_record(warm.output(node_ids.EXAMPLE_GEN, "examples")).window)
    cold = cold_run(args, span, window)
    figures = {"span": span, "window": window}
    cold_start, cold_epochs = curve(cold.output(node_ids.TRAINER, "model_run").uri)
    target = max(auc for _, _, auc in cold_epochs)
    figures["cold_best_validation_auc"] = round(target, 4)
    for name, run in (("cold", cold), ("warm", warm)):
        started, epochs = curve(run.output(node_ids.TRAINER, "model_run").uri)
        test = overall_metrics(run.output(node_ids.EVALUATOR, "evaluation").uri)
        epochs_to, seconds_to = reached(started, epochs, target)
        figures[name] = {
            "warm_started_from": warm_start_of(run.output(node_ids.TRAINER, "model"))[0],
            "epochs_to_target": epochs_to,
            "seconds_to_target": seconds_to,
            "epochs_run": len(epochs),
            "best_validation_auc": round(max(auc for _, _, auc in epochs), 4),
            "test_auc": round(test["auc"], 4),
        }
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    """Compare each span, print a line each and the JSON."""
    args = parse_args(argv)
    runs = list_runs(open_store(SqliteMetadata(str(args.demo_dir / "metadata.sqlite"))), PIPELINE)
    results = []
    for span in args.spans:
        f = compare_span(args, run_of_span(runs, span), span)
        results.append(f)
        w, c = f["warm"], f["cold"]
        print(
            f"span {span:>2} (window {f['window']}): cold best validation AUC "
            f"{f['cold_best_validation_auc']:.4f} after {c['epochs_to_target']} epochs, "
            f"{c['seconds_to_target']} s; warm (from {w['warm_started_from'] or '-'}) "
            f"reached it after {w['epochs_to_target']} epochs, {w['seconds_to_target']} s; "
            f"test AUC cold {c['test_auc']:.4f}, warm {w['test_auc']:.4f}",
            file=sys.stderr,
        )
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

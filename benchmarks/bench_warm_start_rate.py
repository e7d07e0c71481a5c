"""Warm start at a lower fine-tuning learning rate, against the default rate and cold.

    python benchmarks/bench_warm_start_rate.py [--demo-dir outputs/spans-demo]
                                            [--data-root data/taxi-spans] [--spans 8 15]
                                            [--factor 0.25] [--out DIR]

For each span, the model that served when the demo ran it (``make spans-demo``; the
version its run warm-started from) is copied, alone, into the serving dir of three
fresh output dirs, and the span is trained on the demo's window three ways: warm at
the default learning rates, warm at both learning rates times ``--factor``, and cold
(``--cold-start``, default rates). The order rotates from span to span, so that no
way always meets the same load. Figures per run (``bench_warm_start``): epochs and
seconds from the start of fit to the cold model's best validation AUC (``null``:
never), epochs run, best validation AUC and test AUC. Prints a line per run and the
figures as JSON (also ``<out>/bench_warm_start_rate.json``).
"""

from __future__ import annotations

from startup import process

process.prepare()  # Keras 2 before TensorFlow loads (startup/process.py)

# ruff: noqa: E402 - the imports below follow that choice

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench_warm_start import PIPELINE, curve, reached, run_of_span  # benchmarks/, beside this file

from data_layout.properties import span_record, warm_start_of
from modules.hparams import HParams
from pipeline_def import node_ids as ids
from pipeline_def.metadata_stores import SqliteMetadata
from pipeline_ops.commands import RUN
from pipeline_ops.metadata.runs import PipelineRun, latest_run, list_runs
from pipeline_ops.metadata.store import open_store
from review.reading import overall_metrics

PROJECT = Path(__file__).resolve().parent.parent


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--demo-dir", type=Path, default=PROJECT / "outputs" / "spans-demo")
    parser.add_argument("--data-root", type=Path, default=PROJECT / "data" / "taxi-spans")
    parser.add_argument("--spans", type=int, nargs="+", default=[8, 15])
    parser.add_argument("--factor", type=float, default=0.25)
    parser.add_argument("--out", type=Path, default=None, help="default: a temporary folder")
    return parser.parse_args(argv)


def ways(factor: float) -> dict[str, list[str]]:
    """Each way's flags for the runner."""
    rates = HParams()
    lower = [
        "--hparam", f"wide_learning_rate={rates.wide_learning_rate * factor}",
        "--hparam", f"deep_learning_rate={rates.deep_learning_rate * factor}",
    ]  # fmt: skip
    return {"warm": [], f"warm_rate_x{factor}": lower, "cold": ["--cold-start"]}


def train(
    args: argparse.Namespace, out: Path, span: int, window: int, flags: list[str]
) -> PipelineRun:
    """Run ``span`` with ``window`` into ``out`` (its serving dir filled already); its run."""
    subprocess.run(
        [str(Path(sys.executable).parent / RUN), "--data-root", str(args.data_root),
         "--output-dir", str(out), "--span", str(span), "--window", str(window), *flags],
        check=True, capture_output=True,
    )  # fmt: skip
    return latest_run(open_store(SqliteMetadata(str(out / "metadata.sqlite"))), PIPELINE)


def figures(run: PipelineRun, target: float) -> dict[str, Any]:
    """One run's figures against the cold model's best validation AUC."""
    started, epochs = curve(run.output(ids.TRAINER, "model_run").uri)
    epochs_to, seconds_to = reached(started, epochs, target)
    return {
        "warm_started_from": warm_start_of(run.output(ids.TRAINER, "model"))[0],
        "epochs_to_target": epochs_to,
        "seconds_to_target": seconds_to,
        "epochs_run": len(epochs),
        "best_validation_auc": round(max(auc for _, _, auc in epochs), 4),
        "test_auc": round(overall_metrics(run.output(ids.EVALUATOR, "evaluation").uri)["auc"], 4),
    }


def compare_span(
    args: argparse.Namespace, demo: PipelineRun, span: int, turn: int, out: Path
) -> dict:
    """The three ways on one span, from the model the demo's run of it started from."""
    window = len(span_record(demo.output(ids.EXAMPLE_GEN, "examples")).window)
    version = warm_start_of(demo.output(ids.TRAINER, "model"))[0]
    if version is None:
        raise SystemExit(f"error: the demo's run of span {span} did not warm-start")
    named = list(ways(args.factor).items())
    runs = {}
    for name, flags in named[turn % 3 :] + named[: turn % 3]:
        folder = out / f"span-{span}" / name
        shutil.copytree(args.demo_dir / "serving" / version, folder / "serving" / version)
        runs[name] = train(args, folder, span, window, flags)
    _, cold_epochs = curve(runs["cold"].output(ids.TRAINER, "model_run").uri)
    target = max(auc for _, _, auc in cold_epochs)
    result = {"span": span, "window": window, "cold_best_validation_auc": round(target, 4)}
    result.update({name: figures(run, target) for name, run in runs.items()})
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """Compare each span; print each span's figures and write them all."""
    args = parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-warm-start-rate-"))
    runs = list_runs(open_store(SqliteMetadata(str(args.demo_dir / "metadata.sqlite"))), PIPELINE)
    results = []
    for turn, span in enumerate(args.spans):
        results.append(compare_span(args, run_of_span(runs, span), span, turn, out))
        print(json.dumps(results[-1]), flush=True)
    (out / "bench_warm_start_rate.json").write_text(json.dumps(results, indent=1))
    print(f"figures: {out / 'bench_warm_start_rate.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

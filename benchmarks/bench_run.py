"""Benchmark `make run`: the median of N end-to-end runs, each in a fresh output dir.

    python benchmarks/bench_run.py [--runs 3] [--data-root DIR] [--out FILE] [--reference]
                                   [--table docs/benchmarks/speed.md] [--profile DIR]

Wall time is measured around the whole `python local_runner.py` process, the way a
user experiences it (imports included); per-component seconds come from each
run's run_summary.json. With ``--reference``, TFX's own taxi example runs after each
run on the same data (benchmarks/reference.py), and the ratio of the medians is
reported: the machine's speed drifts over a day, and runs made side by side share
it. The peak resident memory of each run's processes together is sampled. Prints a
table and writes the figures as JSON; ``--table FILE`` also appends them to FILE as a
markdown section with the machine, the date and the commit (``speed_table.py``).
``--profile DIR`` adds one more run, not timed, with each step's profile written to DIR
(``wide-deep-run --profile``): where each step's seconds go.
"""

from __future__ import annotations

from startup import process

process.prepare()  # Keras 2 before TensorFlow loads (startup/process.py)

# ruff: noqa: E402 - the imports below follow that choice

import argparse
import json
import shlex
import statistics
import sys
import tempfile
from pathlib import Path

import speed_table  # benchmarks/, beside this file
from memory import measured_run
from reference import run_reference

import datasets
from pipeline_def.project_paths import data_root_of

PROJECT = Path(__file__).resolve().parent.parent


def one_run(data_root: Path, *flags: str) -> dict:
    """Run the pipeline once in a fresh output dir; its wall time and summary."""
    with tempfile.TemporaryDirectory(prefix="bench-") as out:
        runner = [sys.executable, str(PROJECT / "local_runner.py")]
        command = [*runner, "--data-root", str(data_root), "--output-dir", out, *flags]
        wall, peak = measured_run(command, "the run")
        summary = json.loads((Path(out) / "run_summary.json").read_text())
    return {"wall_seconds": wall, "peak_memory_mib": peak, "summary": summary}


def _parse_args() -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    # The default dataset's folder, as wide-deep-run takes it when given none.
    parser.add_argument("--data-root", type=Path, default=data_root_of(datasets.DEFAULT))
    parser.add_argument("--out", type=Path, default=PROJECT / "outputs" / "bench_run.json")
    parser.add_argument(
        "--reference", action="store_true", help="run TFX's taxi example after each run"
    )
    parser.add_argument("--table", type=Path, help="append the figures to this markdown file")
    parser.add_argument(
        "--profile", type=Path, metavar="DIR", help="one more run, profiled step by step into DIR"
    )
    args = parser.parse_args()
    if args.runs < 1:
        parser.error(f"--runs {args.runs}: at least one timed run is needed for the figures")
    return args


def main() -> None:
    """Run the benchmark and print the medians."""
    args = _parse_args()
    at = speed_table.commit()
    runs, references = [], []
    for i in range(args.runs):
        runs.append(one_run(args.data_root))
        line = f"run {i + 1}/{args.runs}: {runs[-1]['wall_seconds']:.1f} s"
        if args.reference:
            references.append(run_reference(args.data_root))
            line += f", reference example {references[-1]['wall_seconds']:.1f} s"
        print(line, flush=True)
    figures = _figures(runs, references)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(figures, indent=2) + "\n")
    _print_figures(figures, args.out)
    if args.table:
        rows = sum(_rows(path) for path in sorted(args.data_root.glob("*.csv")))
        with args.table.open("a") as table:
            table.write("\n" + speed_table.section(figures, rows, shlex.join(sys.argv), at))
        print(f"figures appended to {args.table}")
    if args.profile:
        one_run(args.data_root, "--profile", str(args.profile.resolve()))
        print(f"each step's profile (one more run, not timed): {args.profile}")


def _rows(path: Path) -> int:
    """The data rows of a CSV file: its lines but the header (no quoted line breaks here).

    The benchmarks' data roots hold plain ``.csv`` files, each ending in a newline.
    """
    with path.open("rb") as f:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b"")) - 1


def _figures(runs: list[dict], references: list[dict]) -> dict:
    """The medians and each run's figures; with references, theirs and the ratio."""
    components = list(runs[0]["summary"]["components"])
    figures = {
        "runs": len(runs),
        "wall_seconds_median": statistics.median(r["wall_seconds"] for r in runs),
        "wall_seconds": [round(r["wall_seconds"], 2) for r in runs],
        "peak_memory_mib_median": statistics.median(r["peak_memory_mib"] for r in runs),
        "component_seconds_median": {
            c: statistics.median(r["summary"]["components"][c]["seconds"] for r in runs)
            for c in components
        },
        "auc": [r["summary"]["metrics"].get("auc") for r in runs],
        "binary_accuracy": [r["summary"]["metrics"].get("binary_accuracy") for r in runs],
    }
    if references:
        figures["reference"] = {
            "wall_seconds_median": statistics.median(r["wall_seconds"] for r in references),
            "wall_seconds": [round(r["wall_seconds"], 2) for r in references],
            "peak_memory_mib_median": statistics.median(r["peak_memory_mib"] for r in references),
            "component_seconds_median": {
                c: statistics.median(r["components"][c] for r in references)
                for c in references[0]["components"]
            },
        }
        figures["ratio_to_reference"] = (
            figures["wall_seconds_median"] / figures["reference"]["wall_seconds_median"]
        )
    return figures


def _print_figures(figures: dict, written: Path) -> None:
    """The medians for people: the wall time, each component's, the metrics, the reference."""
    print(f"\nmedian wall time {figures['wall_seconds_median']:.1f} s over {figures['runs']} runs")
    for c, s in figures["component_seconds_median"].items():
        print(f"  {c:<28} {s:6.1f} s")
    print(f"AUC {figures['auc']}\nbinary accuracy {figures['binary_accuracy']}")
    if "reference" in figures:
        print(
            f"reference example: median {figures['reference']['wall_seconds_median']:.1f} s; "
            f"this pipeline takes {figures['ratio_to_reference']:.2f} of its time"
        )
    print(f"figures written to {written}")


if __name__ == "__main__":
    main()

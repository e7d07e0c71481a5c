"""The quarterly spans, run in order as a cron line would run them, then the history.

    python scripts/spans_demo.py [--data-root data/taxi-spans] [--output-dir outputs/spans-demo]
                                 [--window 4] [--train-steps N]

Each span folder of the data root (``make spans`` writes them) is run in turn with
``wide-deep-run --span N --window K`` into one output dir, and prints a line: the span,
the exit code and the seconds, the seconds of the steps a window changes (ExampleGen,
StatisticsGen, Transform, Trainer), and the run's closing lines on blessing, push and
warm start. A run the validator stops (drift) exits 1 and the next span runs anyway, as the
next period's cron line would. Ends with ``wide-deep-inspect history`` of the output
dir. Exits 1 if any span's run did not exit 0 (a drift stop included), 0 otherwise.
"""

from __future__ import annotations

from startup import process

process.prepare()  # Keras 2 before TensorFlow loads (startup/process.py)

# ruff: noqa: E402 - the imports below follow that choice

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from data_layout.spans import span_folders
from pipeline_def import node_ids
from pipeline_ops.commands import EXIT_FAILED, EXIT_OK, INSPECT, RUN
from pipeline_ops.session.summary import SUMMARY_FILE

PROJECT = Path(__file__).resolve().parent.parent
# The closing lines worth a demo's line: what was trained, blessed and pushed.
SHOWN = ("span ", "warm-started", "trained from scratch", "model ", "pushed:", "candidate - ")
# The steps whose seconds a window changes: reading the spans, analyzing them, training.
TIMED = (node_ids.EXAMPLE_GEN, node_ids.STATISTICS_GEN, node_ids.TRANSFORM, node_ids.TRAINER)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-root", type=Path, default=PROJECT / "data" / "taxi-spans")
    parser.add_argument("--output-dir", type=Path, default=PROJECT / "outputs" / "spans-demo")
    parser.add_argument("--window", type=int, default=4)
    parser.add_argument("--train-steps", type=int, default=None)
    return parser.parse_args(argv)


def _command(name: str) -> str:
    return str(Path(sys.executable).parent / name)


def run_span(args: argparse.Namespace, span: int) -> int:
    """Run one span; print its line and the closing lines that matter; its exit code."""
    started, began = time.monotonic(), time.time()
    flags = ["--train-steps", str(args.train_steps)] if args.train_steps else []
    result = subprocess.run(
        [_command(RUN), "--data-root", str(args.data_root), "--output-dir", str(args.output_dir),
         "--span", str(span), "--window", str(args.window), *flags],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    print(f"span {span:>2}: exit {result.returncode} in {time.monotonic() - started:.0f} s")
    summary = args.output_dir / SUMMARY_FILE
    if summary.exists() and summary.stat().st_mtime >= began:  # this run's, not an older one
        steps = json.loads(summary.read_text())["components"]
        print("    " + ", ".join(f"{n} {steps[n]['seconds']:.1f} s" for n in TIMED if n in steps))
    for line in result.stdout.splitlines():
        if line.strip().startswith(SHOWN):
            print(f"    {line.strip()}")
    for line in result.stderr.splitlines():
        print(f"    {line.strip()}")
    return result.returncode


def main(argv: Sequence[str] | None = None) -> int:
    """Run every span in order, then print the history."""
    args = parse_args(argv)
    if not args.data_root.is_dir():
        print(f"error: {args.data_root} is not a folder (make spans writes it)", file=sys.stderr)
        return EXIT_FAILED
    spans = sorted(span_folders(p.name for p in args.data_root.iterdir()))
    codes = [run_span(args, span) for span in spans]
    subprocess.run(
        [_command(INSPECT), "--output-dir", str(args.output_dir), "history"], check=False
    )
    return EXIT_FAILED if any(code not in (EXIT_OK,) for code in codes) else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())

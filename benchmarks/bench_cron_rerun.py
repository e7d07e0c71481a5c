"""The cron line's seconds when nothing new has landed, beside a run that trains.

    python benchmarks/bench_cron_rerun.py [--spans 2] [--rows 3000] [--generated]
                                          [--reruns 5] [--out DIR]

Lands ``--spans`` span folders of the taxi sample's rows (``--rows`` each, a
``_SUCCESS`` marker last; with ``--generated``, rows of ``benchmarks/generate_data.py``,
so a span can hold 1.5M) in a data root, one at a time, running the tutorial's cron
line after each (``wide-deep-run --data-root DIR --span latest --window 2``, the
console script with its defaults, into one output dir); then runs the same line
``--reruns`` times with nothing new. Prints each run's seconds and what it printed
last, then the figures as JSON (also ``<out>/bench_cron_rerun.json``).
"""

from __future__ import annotations

from startup import process

process.prepare()  # Keras 2 before TensorFlow loads (startup/process.py)

# ruff: noqa: E402 - the imports below follow that choice

import argparse
import csv
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import generate_data  # benchmarks/, beside this file

from data_layout.spans import SUCCESS_MARKER
from pipeline_def.project_paths import sample_csv
from pipeline_ops.commands import RUN


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spans", type=int, default=2)
    parser.add_argument("--rows", type=int, default=3000, help="rows per span")
    parser.add_argument(
        "--generated", action="store_true", help="generated rows, not the sample's (any --rows)"
    )
    parser.add_argument("--reruns", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None, help="default: a temporary folder")
    return parser.parse_args(argv)


def land(root: Path, span: int, header: list[str], rows: list[list[str]]) -> None:
    """Write span folder ``span-<span>/`` with its marker last."""
    folder = root / f"span-{span}"
    folder.mkdir(parents=True)
    with (folder / "part-00000.csv").open("w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    (folder / SUCCESS_MARKER).touch()


def land_generated(root: Path, span: int, rows: int) -> None:
    """Write span folder ``span-<span>/`` of ``rows`` generated rows, its marker last."""
    folder = root / f"span-{span}"
    generate_data.generate(rows, folder, shards=max(1, rows // 200_000), seed=span)
    (folder / SUCCESS_MARKER).touch()


def cron_line(root: Path, out: Path) -> dict[str, object]:
    """Run the cron line once: its seconds, exit code and last line."""
    command = [str(Path(sys.executable).parent / RUN), "--data-root", str(root),
               "--span", "latest", "--window", "2", "--output-dir", str(out)]  # fmt: skip
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = round(time.monotonic() - started, 2)
    last = (done.stdout.strip().splitlines() or [""])[-1]
    return {"seconds": seconds, "exit": done.returncode, "last": last}


def run(args: argparse.Namespace, out: Path) -> dict[str, object]:
    """Land the spans with a run after each, then rerun; the figures."""
    with sample_csv("taxi").open(newline="") as f:
        reader = csv.reader(f)
        header, rows = next(reader), list(reader)
    if not args.generated and args.spans * args.rows > len(rows):
        raise SystemExit(f"the sample has {len(rows)} rows: fewer spans, or --generated")
    root, output = out / "data", out / "output"
    landed = []
    for span in range(1, args.spans + 1):
        if args.generated:
            land_generated(root, span, args.rows)
        else:
            land(root, span, header, rows[(span - 1) * args.rows : span * args.rows])
        landed.append(result := cron_line(root, output))
        print(f"span {span} landed: {result['seconds']} s, exit {result['exit']}", flush=True)
    reruns = []
    for _ in range(args.reruns):
        reruns.append(result := cron_line(root, output))
        print(f"nothing new: {result['seconds']} s, exit {result['exit']}: {result['last']}")
    seconds = [r["seconds"] for r in reruns]
    figures = {
        "landed": landed,
        "reruns": reruns,
        "rerun_median_seconds": statistics.median(seconds),
    }
    print(f"rerun with nothing new: median {figures['rerun_median_seconds']} s over {len(seconds)}")
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-cron-") as scratch:
        out = args.out or Path(scratch)
        figures = run(args, out)
        (out / "bench_cron_rerun.json").write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

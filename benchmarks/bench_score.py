"""wide-deep-score against a plain loop over the same rows, side by side, with peak memory.

    python benchmarks/bench_score.py [--rows 1500000] [--rounds 2] [--output-dir outputs]

The rows are the benchmarks' generated taxi data (benchmarks/generate_data.py, kept in
``outputs/bench_scale/data`` as ``make bench-scale`` keeps it), scored by the serving model
of ``--output-dir`` (after ``make run``). The plain loop is the floor of the issue: pandas
reads each file, the raw-column signature scores batches of 8,192 rows, nothing is
written. ``wide-deep-score`` reads the same files with ExampleGen's reader, encodes the
examples, scores them through ``serving_default`` and writes a CSV. Each runs in a fresh
process, alternating, ``--rounds`` times; the peak RSS of each is sampled every 0.2 s.
"""

from __future__ import annotations

from startup import process

process.prepare()  # Keras 2 before TensorFlow loads (startup/process.py)

# ruff: noqa: E402 - the imports below follow that choice

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bench_scale  # benchmarks/, beside this file
from memory import PeakMemory  # benchmarks/, beside this file

PROJECT = Path(__file__).resolve().parent.parent
SCORE = Path(sys.executable).parent / "wide-deep-score"
# The floor: the raw signature on pandas columns, nothing parsed twice, nothing written.
PLAIN_LOOP = """
import sys
from pathlib import Path
import numpy as np, pandas as pd, tensorflow as tf
from data_layout import serving_layout
from datasets.taxi import DATASET
from modules.features import serving_argument

model_dir = serving_layout.versions(str(Path(sys.argv[2]) / "serving"))[-1].path
raw = tf.saved_model.load(model_dir).signatures["serving_raw"]
specs = raw.structured_input_signature[1]
columns = {serving_argument(c): c for c in DATASET.raw_feature_columns()}
rows = 0
for path in sorted(Path(sys.argv[1]).glob("*.csv")):
    table = pd.read_csv(path)
    for start in range(0, len(table), 8192):
        part = table.iloc[start : start + 8192]
        feed = {}
        for arg, spec in specs.items():
            values = part[columns[arg]]
            if spec.dtype == tf.string:
                feed[arg] = tf.constant(values.fillna("").astype(str).to_numpy())
            elif spec.dtype.is_integer:
                feed[arg] = tf.constant(values.fillna(0).to_numpy().astype(np.int64))
            else:
                feed[arg] = tf.constant(values.to_numpy().astype(np.float32))
        raw(**feed)
        rows += len(part)
print(rows)
"""


def timed(command: list[str]) -> tuple[float, float, float]:
    """Seconds and peak RSS (MiB: the largest process, the whole tree) of ``command``."""
    started = time.monotonic()
    process = subprocess.Popen(command, cwd=PROJECT, stdout=subprocess.DEVNULL)
    memory = PeakMemory(process.pid)
    memory.start()
    if process.wait() != 0:
        raise SystemExit(f"{command[0]} failed (exit {process.returncode})")
    memory.stopped.set()
    return time.monotonic() - started, memory.peak_mib, memory.peak_total_mib


def main() -> None:
    """Alternate the two, print each run and the medians' ratio."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_500_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--output-dir", type=Path, default=PROJECT / "outputs")
    args = parser.parse_args()
    data = bench_scale.data_for(args.rows, PROJECT / "outputs" / "bench_scale" / "data")
    figures: dict[str, list[tuple[float, float, float]]] = {
        "plain loop": [],
        "wide-deep-score": [],
    }
    with tempfile.TemporaryDirectory() as scratch:
        commands = {
            "plain loop": [sys.executable, "-c", PLAIN_LOOP, str(data), str(args.output_dir)],
            "wide-deep-score": [
                str(SCORE), str(data), str(Path(scratch) / "scores.csv"),
                "--output-dir", str(args.output_dir),
            ],
        }  # fmt: skip
        for round_ in range(1, args.rounds + 1):
            for name, command in commands.items():
                seconds, peak, total = timed(command)
                figures[name].append((seconds, peak, total))
                print(
                    f"round {round_}: {name:<16} {seconds:7.1f} s, peak RSS {peak:,.0f} MiB "
                    f"(all its processes {total:,.0f} MiB)"
                )
    plain, ours = (statistics.median(f[0] for f in figures[n]) for n in figures)
    peak = max(f[1] for f in figures["wide-deep-score"])
    total = max(f[2] for f in figures["wide-deep-score"])
    print(
        f"{args.rows:,} rows: wide-deep-score {ours:.1f} s, the plain loop {plain:.1f} s "
        f"(ratio {ours / plain:.2f}); wide-deep-score's peak RSS {peak:,.0f} MiB, "
        f"{total:,.0f} MiB over all its processes"
    )


if __name__ == "__main__":
    main()

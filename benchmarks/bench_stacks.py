"""The two stacks side by side: the default run and a large run, stacks alternating.

    python3 benchmarks/bench_stacks.py [--rounds 2] [--rows 1500000] [--out DIR]

Each round runs, for each stack in turn, ``make bench`` (one fresh default run) and
``make bench-scale`` at ``--rows`` rows, with ``STACK=`` set; the order of the stacks
alternates between rounds, so that both share the machine's drift. The generated data
is made once and shared. Prints, per stack, the median of the rounds: wall time and
AUC of the default run, wall time, per-component seconds and peak resident memory of
the large run; and the ratio of the current stack's to the legacy one's. Writes the
figures as JSON. Standard library only: it drives make, which builds each stack.
"""

from __future__ import annotations

from startup import process

process.prepare()  # Keras 2 before TensorFlow loads (startup/process.py)

# ruff: noqa: E402 - the imports below follow that choice

import argparse
import json
import statistics
import subprocess
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
STACKS = ("legacy", "current")


def _make(target: str, stack: str, args: list[str]) -> None:
    """``make TARGET STACK=stack ARGS=...``; stops the benchmark when it fails."""
    quoted = " ".join(args)
    subprocess.run(
        ["make", "-s", target, f"STACK={stack}", f"ARGS={quoted}"], cwd=PROJECT, check=True
    )


def one_round(stack: str, round_dir: Path, rows: int, data: Path) -> dict:
    """One default run and one run at ``rows`` rows on ``stack``; their figures."""
    round_dir.mkdir(parents=True, exist_ok=True)
    default = round_dir / "bench_run.json"
    _make("bench", stack, ["--runs", "1", "--out", str(default)])
    scale = round_dir / "scale"
    scale.mkdir(exist_ok=True)
    if not (scale / "data").exists():
        (scale / "data").symlink_to(data)
    _make("bench-scale", stack, ["--rows", str(rows), "--out", str(scale)])
    run = json.loads(default.read_text())
    (large,) = json.loads((scale / "scale.json").read_text())
    return {
        "default_wall_seconds": run["wall_seconds_median"],
        "default_auc": run["auc"][0],
        "large_wall_seconds": large["wall_seconds"],
        "large_peak_rss_mib": large["peak_rss_mib_largest_process"],
        "large_components": {k: v["seconds"] for k, v in large["components"].items()},
        "large_auc": large["auc"],
    }


def medians(rounds: list[dict]) -> dict:
    """The median of each figure over the rounds."""
    keys = [k for k in rounds[0] if k != "large_components"]
    figures = {k: statistics.median(r[k] for r in rounds) for k in keys}
    components = rounds[0]["large_components"]
    figures["large_components"] = {
        c: statistics.median(r["large_components"][c] for r in rounds) for c in components
    }
    return figures


def table(figures: dict[str, dict], rows: int) -> str:
    """The comparison for people: one line per figure, both stacks and their ratio."""
    legacy, current = figures["legacy"], figures["current"]
    lines = [f"{'':<34} {'legacy':>10} {'current':>10} {'ratio':>7}"]

    def line(name: str, old: float, new: float, fmt: str = "{:10.1f}") -> None:
        ratio = new / old if old else float("nan")
        lines.append(f"{name:<34} {fmt.format(old)} {fmt.format(new)} {ratio:7.2f}")

    line("default run, wall s", legacy["default_wall_seconds"], current["default_wall_seconds"])
    line("default run, test AUC", legacy["default_auc"], current["default_auc"], "{:10.4f}")
    line(f"{rows:,} rows, wall s", legacy["large_wall_seconds"], current["large_wall_seconds"])
    line(
        f"{rows:,} rows, peak RSS MiB", legacy["large_peak_rss_mib"], current["large_peak_rss_mib"]
    )
    for name, seconds in legacy["large_components"].items():
        line(f"  {name} s", seconds, current["large_components"].get(name, float("nan")))
    return "\n".join(lines)


def main() -> None:
    """Alternate the stacks over the rounds, print the table, write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--rows", type=int, default=1_500_000)
    parser.add_argument("--out", type=Path, default=PROJECT / "outputs" / "bench_stacks")
    args = parser.parse_args()
    data = (args.out / "data").resolve()
    data.mkdir(parents=True, exist_ok=True)
    results: dict[str, list[dict]] = {stack: [] for stack in STACKS}
    for index in range(args.rounds):
        order = STACKS if index % 2 == 0 else STACKS[::-1]
        for stack in order:
            print(f"round {index + 1}/{args.rounds}: {stack}", flush=True)
            round_dir = args.out / f"{stack}-{index + 1}"
            results[stack].append(one_round(stack, round_dir, args.rows, data))
    figures = {stack: medians(rounds) for stack, rounds in results.items()}
    (args.out / "stacks.json").write_text(json.dumps({"rounds": results, **figures}, indent=2))
    print(f"\nmedians of {args.rounds} rounds, stacks alternating\n{table(figures, args.rows)}")
    print(f"figures written to {args.out / 'stacks.json'}")


if __name__ == "__main__":
    main()

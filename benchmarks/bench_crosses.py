"""The draft's crosses on generated tables: the threshold's evidence, and the time taken.

What tables without interactions reach, what a planted interaction gains, and how
long the measure takes.

    python benchmarks/bench_crosses.py [--rows 1000 3000 10000 30000] [--seeds 10]
                                    [--strengths 4 8] [--time-rows 100000]

Each table has 7 numeric columns (n6 a noisy copy of n0) and 4 categorical ones
(3 to 9 values); the label's log-odds are main effects of n0, n1, n2, c0 and c2, plus,
in a planted table, ``strength`` * (n3 - 0.5)(n4 - 0.5), an interaction without
main effects. For each size and seed, prints as JSON lines: the strongest pair of the
table without the interaction (the threshold must stay above it), and for each
strength the planted pair's gain and whether the draft crosses it. Then times
``choose_crosses`` on a table of ``--time-rows`` rows and 20 columns (best of 2).
"""

from __future__ import annotations

from startup import process

process.prepare()  # Keras 2 before TensorFlow loads (startup/process.py)

# ruff: noqa: E402 - the imports below follow that choice

import argparse
import json
import time
from collections.abc import Sequence

import numpy as np

from drafting import crosses, rules

PLANTED = ("n3_bucket", "n4_bucket")


def table(
    rows: int,
    seed: int,
    strength: float,
    numerics: int = 7,
    categories: Sequence[int] = (3, 5, 7, 9),
) -> tuple[dict[str, list[str]], list[int]]:
    """A generated table's columns (as text) and its 0/1 labels."""
    rng = np.random.default_rng(seed)
    num = rng.uniform(size=(numerics, rows))
    num[6] = num[0] + 0.3 * rng.normal(size=rows)
    cat = [rng.integers(0, k, rows) for k in categories]
    logits = (
        2 * np.sin(3 * num[0]) + 6 * (num[1] - 0.5) ** 2 - num[2] + (cat[0] - 1.0)
        + 0.3 * (cat[2] % 3) - 1 + strength * (num[3] - 0.5) * (num[4] - 0.5)
    )  # fmt: skip
    labels = (rng.uniform(size=rows) < 1 / (1 + np.exp(-logits))).astype(int).tolist()
    columns = {f"n{i}": [f"{v:.5f}" for v in values] for i, values in enumerate(num)}
    columns |= {f"c{i}": [f"v{v}" for v in values] for i, values in enumerate(cat)}
    return columns, labels


def choices(columns: dict[str, list[str]], labels: list[int]) -> list[rules.Choice]:
    """Each column's draft, the n columns read as FLOAT, the c columns as STRING."""
    return [
        rules.choose(name, values, labels, "FLOAT" if name[0] == "n" else "STRING")
        for name, values in columns.items()
    ]


def measured(columns: dict[str, list[str]], labels: list[int]) -> list[crosses.Interaction]:
    """Every pair's interaction, as the draft measures it, the strongest first."""
    return crosses.measure_pairs(columns, labels, choices(columns, labels))


def one_table(rows: int, seed: int, strengths: Sequence[float]) -> dict:
    """The strongest pair without the interaction, and the planted pair at each strength."""
    null = measured(*table(rows, seed, 0.0))[0]
    found = {"rows": rows, "seed": seed, "null_strongest": _figures(null)}
    for strength in strengths:
        planted = next(
            m for m in measured(*table(rows, seed, strength)) if set(m.features) == set(PLANTED)
        )
        found[f"planted_{strength:g}"] = _figures(planted)
    return found


def _figures(m: crosses.Interaction) -> dict:
    return {
        "pair": " x ".join(m.features), "gain": round(m.gain, 1),
        "auc_gain": round(m.auc_gain, 4), "crossable": not m.shortfall(),
    }  # fmt: skip


def timed(rows: int) -> float:
    """Seconds choose_crosses takes on a table of ``rows`` rows, 12 numerics, 8 categoricals."""
    columns, labels = table(rows, 0, 8.0, numerics=12, categories=(2, 3, 4, 5, 7, 10, 20, 30))
    drafted = choices(columns, labels)
    best = float("inf")
    for _ in range(2):
        start = time.perf_counter()
        crosses.choose_crosses(columns, labels, drafted)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    """Print each table's figures, then the time, as JSON lines."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1000, 3000, 10000, 30000])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--strengths", type=float, nargs="+", default=[4.0, 8.0])
    parser.add_argument("--time-rows", type=int, default=100_000)
    args = parser.parse_args()
    for rows in args.rows:
        for seed in range(args.seeds):
            print(json.dumps(one_table(rows, seed, args.strengths)), flush=True)
    if args.time_rows:
        seconds = round(timed(args.time_rows), 2)
        print(json.dumps({"time_rows": args.time_rows, "choose_crosses_s": seconds}))


if __name__ == "__main__":
    main()

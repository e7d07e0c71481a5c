"""Write N taxi-like rows as sharded CSV, resampled from the shipped sample.

    python scripts/generate_data.py --rows 1500000 --out DIR [--shards 8] [--seed 0]

Each row is a sample row with small noise, so the label signal is kept: fare and
tips scale by the same factor (tips > 20% of fare is unchanged), miles and seconds
get their own few percent, locations move a few metres, and the timestamp moves by
whole weeks (hour and weekday stay true; the month follows the new date). Empty
cells stay empty. Writes ``part-00000-of-0000K.csv`` files and ``MANIFEST.json``.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import random
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
SAMPLE = PROJECT / "data" / "taxi.csv"
# Chicago is UTC-6 in winter, UTC-5 in summer; a month boundary is all that moves.
CHICAGO_OFFSET = datetime.timedelta(hours=-6)
WEEK_SECONDS = 7 * 24 * 3600


def _scaled(value: str, factor: float, digits: int) -> str:
    return value if value == "" else f"{float(value) * factor:.{digits}f}"


def _jitter(value: str, rng: random.Random, sd: float) -> str:
    return value if value == "" else f"{float(value) + rng.gauss(0.0, sd):.6f}"


def noisy(row: dict[str, str], rng: random.Random) -> dict[str, str]:
    """A copy of ``row`` with the noise described in the module docstring."""
    out = dict(row)
    money = rng.uniform(0.95, 1.05)
    out["fare"] = _scaled(row["fare"], money, 2)
    out["tips"] = _scaled(row["tips"], money, 2)
    out["trip_miles"] = _scaled(row["trip_miles"], rng.uniform(0.95, 1.05), 2)
    if row["trip_seconds"]:
        out["trip_seconds"] = str(round(int(row["trip_seconds"]) * rng.uniform(0.95, 1.05)))
    for column in ("pickup_latitude", "pickup_longitude", "dropoff_latitude", "dropoff_longitude"):
        out[column] = _jitter(row[column], rng, 0.0005)
    stamp = int(row["trip_start_timestamp"]) + rng.randint(-8, 8) * WEEK_SECONDS
    out["trip_start_timestamp"] = str(stamp)
    local = datetime.datetime.fromtimestamp(stamp, datetime.timezone.utc) + CHICAGO_OFFSET
    out["trip_start_month"] = str(local.month)
    return out


def generate(rows: int, out: Path, shards: int, seed: int) -> dict:
    """Write the shards; a manifest of what was written."""
    with SAMPLE.open(newline="") as f:
        reader = csv.DictReader(f)
        columns = list(reader.fieldnames or [])
        sample = list(reader)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    started = time.monotonic()
    per_shard = [rows // shards + (1 if i < rows % shards else 0) for i in range(shards)]
    for i, count in enumerate(per_shard):
        path = out / f"part-{i:05d}-of-{shards:05d}.csv"
        with path.open("w", newline="") as f:
            writer = csv.DictWriter(f, columns, lineterminator="\n")
            writer.writeheader()
            writer.writerows(noisy(rng.choice(sample), rng) for _ in range(count))
    manifest = {
        "rows": rows,
        "shards": shards,
        "seed": seed,
        "source": str(SAMPLE.relative_to(PROJECT)),
        "bytes": sum(p.stat().st_size for p in out.glob("part-*.csv")),
        "seconds": round(time.monotonic() - started, 1),
    }
    (out / "MANIFEST.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def main() -> None:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--shards", type=int, default=0, help="default: one per 200k rows")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.rows < 1:
        parser.error("--rows must be positive")
    shards = args.shards or max(1, -(-args.rows // 200_000))
    manifest = generate(args.rows, args.out, shards, args.seed)
    print(json.dumps(manifest))


if __name__ == "__main__":
    main()

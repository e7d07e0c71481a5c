"""Write N taxi-like rows as sharded CSV, resampled from the shipped sample.

    python benchmarks/generate_data.py --rows 1500000 --out DIR [--shards 8] [--seed 0]

Each row is a copy of a sample row with small noise, so the label signal is kept:
fare and tips scale by the same factor (tips > 20% of fare is unchanged), miles and
seconds get their own few percent, locations move about 50 m, and the timestamp
moves by whole weeks (hour and weekday stay true; the month follows the new date).
Empty cells stay empty.

Every copy lands in the split of the row it copies. The pipeline's default hash
split puts each sample row in train, validation or test; the pipeline splits the
generated data by hash too, with the buckets it picks for that data's size (smaller
held-out shares for more rows), and a copy is kept only when those buckets put it in
its source row's split. So generated validation and test rows are copies of the
sample's validation and test rows only, never near-duplicates of training rows: early
stopping and the Tuner choose on rows the model did not learn, the test AUC that
blesses is judged on rows nothing chose by, and both compare with the sample's own.
Writes ``part-00000-of-0000K.csv`` files and ``MANIFEST.json``. The shards are written
at once, one process per core, each from its own random stream (seed and shard): a
kept copy costs about three candidates, each made and encoded in Python, and 15M
rows took most of an hour on one core.
"""

from __future__ import annotations

from startup import process

process.prepare()  # Keras 2 before TensorFlow loads (startup/process.py)

# ruff: noqa: E402 - the imports below follow that choice

import argparse
import csv
import datetime
import itertools
import json
import multiprocessing
import os
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from pipeline_ops.cli.quiet import quiet_libraries

if __name__ == "__main__":
    quiet_libraries()  # before TFX and TF are imported: they chatter on import

from data_layout.csv_examples import ColumnKind, encode, encode_blocks, file_kinds, merge_kinds
from data_layout.split_router import SplitRouter  # noqa: E402
from pipeline_def.config import DEFAULT_SPLIT  # noqa: E402
from pipeline_ops.session.local_run_settings import CSV_BYTES_PER_ROW, split_buckets_for  # noqa: E402

PROJECT = Path(__file__).resolve().parent.parent
SAMPLE = PROJECT / "data" / "taxi" / "taxi.csv"
# Names how copies are assigned to splits, so that a cache made another way is redone.
LAYOUT = (
    "copies stay in their source row's split, as the pipeline splits data of their size; "
    "a random stream per shard"
)
# Chicago is UTC-6 in winter, UTC-5 in summer; a month boundary is all that moves.
CHICAGO_OFFSET = datetime.timedelta(hours=-6)
WEEK_SECONDS = 7 * 24 * 3600
# Relative noise on money, distance and duration.
NOISE = 0.05
# Candidate copies are encoded and routed this many at a time (C++ encoder per batch).
CHUNK_ROWS = 20_000


def _scaled(value: str, factor: float, digits: int) -> str:
    return value if value == "" else f"{float(value) * factor:.{digits}f}"


def _jitter(value: str, rng: random.Random, sd: float) -> str:
    return value if value == "" else f"{float(value) + rng.gauss(0.0, sd):.6f}"


def noisy(row: dict[str, str], rng: random.Random) -> dict[str, str]:
    """A copy of ``row`` with the noise described in the module docstring."""
    out = dict(row)
    money = rng.uniform(1 - NOISE, 1 + NOISE)
    out["fare"] = _scaled(row["fare"], money, 2)
    out["tips"] = _scaled(row["tips"], money, 2)
    out["trip_miles"] = _scaled(row["trip_miles"], rng.uniform(1 - NOISE, 1 + NOISE), 2)
    if row["trip_seconds"]:
        seconds = int(row["trip_seconds"]) * rng.uniform(1 - NOISE, 1 + NOISE)
        out["trip_seconds"] = str(round(seconds))
    for column in ("pickup_latitude", "pickup_longitude", "dropoff_latitude", "dropoff_longitude"):
        out[column] = _jitter(row[column], rng, 0.0005)
    stamp = int(row["trip_start_timestamp"]) + rng.randint(-8, 8) * WEEK_SECONDS
    out["trip_start_timestamp"] = str(stamp)
    local = datetime.datetime.fromtimestamp(stamp, datetime.timezone.utc) + CHICAGO_OFFSET
    out["trip_start_month"] = str(local.month)
    return out


def router_for(buckets: tuple[tuple[str, int], ...]) -> SplitRouter:
    """How the pipeline splits data hashed into these (name, buckets)."""
    return SplitRouter.of(buckets)


class Sample:
    """The shipped sample: its columns, their kinds, and its rows by default split."""

    def __init__(self) -> None:
        with SAMPLE.open(newline="") as f:
            reader = csv.DictReader(f)
            self.columns = list(reader.fieldnames or [])
            rows = list(reader)
        self.kinds = file_kinds(str(SAMPLE), self.columns)
        self.router = router_for(DEFAULT_SPLIT)
        examples = [e for b in encode_blocks(str(SAMPLE), self.columns, self.kinds) for e in b]
        self.rows: list[list[dict[str, str]]] = [[] for _ in self.router.names]
        self.examples: list[list[bytes]] = [[] for _ in self.router.names]
        for row, example in zip(rows, examples, strict=True):
            split = self.router(example)
            self.rows[split].append(row)
            self.examples[split].append(example)

    def split(self, name: str) -> tuple[list[dict[str, str]], list[bytes]]:
        """The rows the pipeline's default split puts in ``name``, and their tf.Examples."""
        index = self.router.names.index(name)
        return self.rows[index], self.examples[index]

    def routes(self, rows: list[dict[str, str]], router: SplitRouter) -> list[int]:
        """The split ``router`` gives each row, were it in a file with the sample's kinds."""
        batch = pa.RecordBatch.from_arrays(
            [pa.array([r[c] or None for r in rows], pa.string()) for c in self.columns],
            self.columns,
        )
        return [router(e) for e in encode(batch, self.kinds)]

    def covering(self) -> list[tuple[int, dict[str, str]]]:
        """For each column with a value anywhere, a (split, row) with a value in it.

        Copies of these come first, so every column of the generated data has a value
        somewhere and so the kind the sample has: a kind (or none) decides how a
        row is serialized, hence the split its hash gives it.
        """
        chosen: list[tuple[int, dict[str, str]]] = []
        for column in self.columns:
            if any(row[column] for _, row in chosen):
                continue
            found = (
                (split, row) for split, rows in enumerate(self.rows) for row in rows if row[column]
            )
            chosen += list(itertools.islice(found, 1))
        return chosen


def _kept(
    sample: Sample, router: SplitRouter, wanted: list[int], candidates: list[dict[str, str]]
) -> list[dict[str, str]]:
    """The candidates that ``router`` puts in the split ``wanted`` says."""
    routes = sample.routes(candidates, router)
    return [c for c, s, r in zip(candidates, wanted, routes, strict=True) if r == s]


def copies(
    sample: Sample, router: SplitRouter, rng: random.Random, cover: bool = True
) -> Iterator[dict[str, str]]:
    """Noisy copies without end, each one in the split (by ``router``) of the row it copies.

    With ``cover``, the first are copies of ``sample.covering()``, one each.
    """
    for split, row in sample.covering() if cover else ():
        kept: list[dict[str, str]] = []
        while not kept:
            kept = _kept(sample, router, [split] * 16, [noisy(row, rng) for _ in range(16)])
        yield kept[0]
    # A split's copies are kept at the rate of its share of the router's buckets,
    # so drawing every split equally often gives each split that share of the rows.
    splits = range(len(sample.rows))
    while True:
        wanted = [rng.choice(splits) for _ in range(CHUNK_ROWS)]
        candidates = [noisy(rng.choice(sample.rows[s]), rng) for s in wanted]
        yield from _kept(sample, router, wanted, candidates)


@dataclass(frozen=True)
class Shard:
    """One file to write: its path, index, rows, the split buckets and the seed."""

    path: Path
    index: int
    rows: int
    buckets: tuple[tuple[str, int], ...]
    seed: int


# The sample, in each process of the pool that writes the shards (set as it starts).
_pool_sample: Sample | None = None


def _start_writer(sample: Sample) -> None:
    global _pool_sample  # noqa: PLW0603 - one per pool process, set once as it starts
    _pool_sample = sample


def _write_shard(shard: Shard) -> tuple[int, tuple[ColumnKind, ...]]:
    """Write ``shard`` in a pool's process, from its own random stream; its bytes and kinds.

    Shard 0 starts with the covering copies, so every column has a value somewhere.
    """
    sample = _pool_sample
    rng = random.Random(f"{shard.seed}/{shard.index}")
    rows = copies(sample, router_for(shard.buckets), rng, cover=shard.index == 0)
    with shard.path.open("w", newline="") as f:
        writer = csv.DictWriter(f, sample.columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(next(rows) for _ in range(shard.rows))
    return shard.path.stat().st_size, file_kinds(str(shard.path), sample.columns)


def _write(shards: list[Shard], sample: Sample) -> tuple[int, tuple[ColumnKind, ...]]:
    """Write the shards, as many at once as there are cores; the bytes and column kinds.

    The pool forks: its processes find the sample (and this module) in place, which
    also serves a caller that loaded this file by path.
    """
    workers = min(len(shards), os.cpu_count() or 1)
    context = multiprocessing.get_context("fork")
    with context.Pool(workers, initializer=_start_writer, initargs=(sample,)) as pool:
        written = list(pool.imap_unordered(_write_shard, shards))
    return sum(size for size, _ in written), merge_kinds(kinds for _, kinds in written)


def generate(rows: int, out: Path, shards: int, seed: int) -> dict:
    """Write the shards; a manifest of what was written."""
    sample = Sample()
    at_least = len(sample.covering())
    if rows // shards < at_least:  # the first shard starts with the covering copies
        raise ValueError(f"--rows must be at least {at_least} per shard")
    out.mkdir(parents=True, exist_ok=True)
    # Shards of an earlier generation would be read with these: start empty.
    for old in [*out.glob("part-*.csv"), out / "MANIFEST.json"]:
        old.unlink(missing_ok=True)
    started = time.monotonic()
    per_shard = [rows // shards + (1 if i < rows % shards else 0) for i in range(shards)]
    paths = [out / f"part-{i:05d}-of-{shards:05d}.csv" for i in range(shards)]
    # The pipeline picks its split buckets from the bytes it is given; the first guess
    # from the row count is rarely off, and then a second pass uses the real ones.
    buckets = split_buckets_for(rows * CSV_BYTES_PER_ROW)
    for _ in range(3):
        shards_now = [
            Shard(path, i, count, buckets, seed)
            for i, (path, count) in enumerate(zip(paths, per_shard, strict=True))
        ]
        size, kinds = _write(shards_now, sample)
        if split_buckets_for(size) == buckets:
            break
        buckets = split_buckets_for(size)
    else:
        raise RuntimeError(f"the split buckets for {rows} rows do not settle: {buckets}")
    if kinds != sample.kinds:
        raise RuntimeError(
            f"generated column kinds {[ColumnKind(k).name for k in kinds]} differ from the "
            f"sample's {[k.name for k in sample.kinds]}: rows would not hash into their splits"
        )
    manifest = {
        "rows": rows,
        "shards": shards,
        "seed": seed,
        "source": str(SAMPLE.relative_to(PROJECT)),
        "layout": LAYOUT,
        "split_buckets": dict(buckets),
        "noise": NOISE,
        "bytes": size,
        "seconds": round(time.monotonic() - started, 1),
    }
    (out / "MANIFEST.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def is_current(manifest: dict) -> bool:
    """Whether data with this manifest is what ``generate`` would write now.

    Its split buckets must be the ones the pipeline picks for its size today, or
    copies of one sample row would fall on both sides of the split.
    """
    return (
        manifest.get("layout") == LAYOUT
        and manifest.get("noise") == NOISE
        and manifest.get("split_buckets") == dict(split_buckets_for(manifest.get("bytes", 0)))
    )


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
    try:
        manifest = generate(args.rows, args.out, shards, args.seed)
    except ValueError as error:
        parser.error(str(error))
    print(json.dumps(manifest))


if __name__ == "__main__":
    main()

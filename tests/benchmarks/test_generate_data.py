"""The benchmark's data generator: the sample's columns and label share, noisy values."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

import pytest

from data_layout.csv_examples import encode_blocks, file_kinds, merge_kinds
from pipeline_def.config import PipelineConfig
from pipeline_def.project_paths import sample_csv
from pipeline_ops.session.data_check import check_data_root

# Seconds a test: each test generates and splits shards with Beam.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def generator(load_script):
    return load_script("generate_data")


@pytest.fixture(scope="module")
def sample(generator):
    """The shipped sample, read, encoded and split once for the module."""
    return generator.Sample()


def _rows(folder: Path, pattern: str = "*.csv") -> list[dict[str, str]]:
    rows = []
    for path in sorted(folder.glob(pattern)):
        with path.open(newline="") as f:
            rows += list(csv.DictReader(f))
    return rows


def _big_tip_share(rows: list[dict[str, str]]) -> float:
    return sum(float(r["tips"]) > 0.2 * float(r["fare"]) for r in rows) / len(rows)


def test_generated_shards_look_like_the_sample(generator, tmp_path):
    generator.generate(3000, tmp_path, shards=4, seed=1)
    manifest = generator.generate(6000, tmp_path, shards=3, seed=1)  # again, other shards
    assert manifest["rows"] == 6000 and len(list(tmp_path.glob("part-*.csv"))) == 3
    assert json.loads((tmp_path / "MANIFEST.json").read_text())["seed"] == 1
    check_data_root(tmp_path, PipelineConfig.input_pattern)  # same header in every shard
    rows, sample = _rows(tmp_path), _rows(sample_csv("taxi").parent, "taxi.csv")
    assert len(rows) == 6000 and list(rows[0]) == list(sample[0])
    assert abs(_big_tip_share(rows) - _big_tip_share(sample)) < 0.02
    for row in rows:
        assert 1 <= int(row["trip_start_month"]) <= 12
        assert float(row["fare"]) >= 0


# Cells the noise leaves alone: which sample row a copy comes from, give or take.
_KEPT = ("trip_start_hour", "trip_start_day", "payment_type", "company",
         "pickup_community_area", "dropoff_community_area", "dropoff_census_tract")  # fmt: skip


def _source_keys(sample) -> list[set[tuple[str, ...]]]:
    """Per split of the sample, the kept cells of each of its rows."""
    return [{tuple(row[c] for c in _KEPT) for row in split} for split in sample.rows]


def _routed(sample, folder: Path) -> list[tuple[int, dict[str, str]]]:
    """Each generated row with the split the pipeline's ExampleGen gives it."""
    paths = sorted(str(p) for p in folder.glob("*.csv"))
    kinds = merge_kinds(file_kinds(p, sample.columns) for p in paths)
    examples = [e for p in paths for b in encode_blocks(p, sample.columns, kinds) for e in b]
    return [(sample.router(e), row) for e, row in zip(examples, _rows(folder), strict=True)]


def test_copies_land_in_the_split_of_the_row_they_copy(generator, sample, tmp_path):
    """Generated held-out rows copy only the sample's rows of their split: no train row leaks."""
    manifest = generator.generate(6000, tmp_path, shards=2, seed=2)
    # The default, at this size.
    assert manifest["split_buckets"] == {"train": 3, "validation": 1, "test": 1}
    assert generator.is_current(manifest)
    # Data split for another size (or by an older rule) is made again, not reused.
    assert not generator.is_current({**manifest, "split_buckets": {"train": 2, "eval": 1}})
    keys = _source_keys(sample)
    routed = _routed(sample, tmp_path)
    for split, row in routed:
        assert tuple(row[c] for c in _KEPT) in keys[split], (split, row)
    for name in ("validation", "test"):
        share = sum(split == sample.router.names.index(name) for split, _ in routed) / 6000
        assert abs(share - 1 / 5) < 0.03, name
    # The one sample row with a pickup census tract is copied, so its column keeps a type.
    assert any(row["pickup_census_tract"] for _, row in routed)


def test_copies_follow_the_split_the_pipeline_picks_for_more_data(generator, sample):
    """Large data gets smaller held-out shares; copies are routed by those buckets."""
    buckets = (("train", 80), ("validation", 10), ("test", 10))
    router = generator.router_for(buckets)
    stream = generator.copies(sample, router, random.Random(3))
    rows = [next(stream) for _ in range(3000)]
    keys = _source_keys(sample)
    routes = sample.routes(rows, router)
    for split, row in zip(routes, rows, strict=True):
        assert tuple(row[c] for c in _KEPT) in keys[split], (split, row)
    assert abs(routes.count(1) / len(rows) - 0.10) < 0.02
    assert abs(routes.count(2) / len(rows) - 0.10) < 0.02


def test_the_sample_splits_as_the_pipeline_splits_it(sample):
    train, _ = sample.split("train")
    validation, _ = sample.split("validation")
    test, examples = sample.split("test")
    # The pipeline's default split of the sample: 3,000 test rows (its example_count).
    assert len(test) == len(examples) == 3000
    assert len(validation) == 3045
    assert len(train) + len(validation) + len(test) == len(
        _rows(sample_csv("taxi").parent, "taxi.csv")
    )


def test_values_are_noisy_copies_not_duplicates(generator):
    row = _rows(sample_csv("taxi").parent, "taxi.csv")[0]
    copies = [generator.noisy(row, random.Random(i)) for i in range(20)]
    assert len({c["fare"] for c in copies}) > 10
    for copy in copies:
        assert copy["trip_start_hour"] == row["trip_start_hour"]
        assert copy["trip_start_day"] == row["trip_start_day"]
        # Money scales together: whether the tip is big does not change.
        big = float(copy["tips"]) > 0.2 * float(copy["fare"])
        assert big == (float(row["tips"]) > 0.2 * float(row["fare"]))


def test_each_shard_must_hold_the_copies_that_give_every_column_a_value(generator, tmp_path):
    with pytest.raises(ValueError, match=r"^--rows must be at least \d+ per shard$"):
        generator.generate(4, tmp_path, shards=2, seed=0)
    assert not list(tmp_path.glob("part-*.csv"))

"""The benchmark's data generator: the sample's columns and label share, noisy values."""

from __future__ import annotations

import csv
import importlib.util
import json
from pathlib import Path

import pytest

from pipeline_def.config import DEFAULT_DATA_ROOT, PipelineConfig
from pipeline_def.data_check import check_data_root

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "generate_data.py"


@pytest.fixture(scope="module")
def generator():
    spec = importlib.util.spec_from_file_location("generate_data", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rows(folder: Path) -> list[dict[str, str]]:
    rows = []
    for path in sorted(folder.glob("*.csv")):
        with path.open(newline="") as f:
            rows += list(csv.DictReader(f))
    return rows


def _big_tip_share(rows: list[dict[str, str]]) -> float:
    return sum(float(r["tips"]) > 0.2 * float(r["fare"]) for r in rows) / len(rows)


def test_generated_shards_look_like_the_sample(generator, tmp_path):
    manifest = generator.generate(6000, tmp_path, shards=3, seed=1)
    assert manifest["rows"] == 6000 and len(list(tmp_path.glob("part-*.csv"))) == 3
    assert json.loads((tmp_path / "MANIFEST.json").read_text())["seed"] == 1
    check_data_root(tmp_path, PipelineConfig.input_pattern)  # same header in every shard
    rows, sample = _rows(tmp_path), _rows(DEFAULT_DATA_ROOT)
    assert len(rows) == 6000 and list(rows[0]) == list(sample[0])
    assert abs(_big_tip_share(rows) - _big_tip_share(sample)) < 0.02
    for row in rows:
        assert 1 <= int(row["trip_start_month"]) <= 12
        assert float(row["fare"]) >= 0


def test_draws_only_from_the_samples_train_split(generator):
    """The sample's eval rows stay unseen, to score models trained on generated data."""
    _, train, _ = generator.sample_split("train")
    _, held_out, examples = generator.sample_split("eval")
    # The pipeline's default split of the sample: 4,966 eval rows (its example_count).
    assert len(held_out) == len(examples) == 4966
    assert len(train) + len(held_out) == len(_rows(DEFAULT_DATA_ROOT))
    assert generator.SOURCE_SPLIT == "train"


def test_values_are_noisy_copies_not_duplicates(generator):
    import random

    row = _rows(DEFAULT_DATA_ROOT)[0]
    copies = [generator.noisy(row, random.Random(i)) for i in range(20)]
    assert len({c["fare"] for c in copies}) > 10
    for copy in copies:
        assert copy["trip_start_hour"] == row["trip_start_hour"]
        assert copy["trip_start_day"] == row["trip_start_day"]
        # Money scales together: whether the tip is big does not change.
        big = float(copy["tips"]) > 0.2 * float(copy["fare"])
        assert big == (float(row["tips"]) > 0.2 * float(row["fare"]))

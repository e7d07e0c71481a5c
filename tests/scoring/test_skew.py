"""The scored rows' sample and the decile divergence the skew of numbers is measured by."""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest

from scoring.skew import (
    JENSEN_SHANNON,
    RowSample,
    SkewMeasure,
    SkewReport,
    decile_divergence,
    lines,
)


def _batch(start: int, rows: int) -> pa.RecordBatch:
    return pa.RecordBatch.from_arrays([pa.array(np.arange(start, start + rows))], ["row"])


def test_the_sample_stays_bounded_and_keeps_every_part_of_the_input_alike():
    sample = RowSample(limit=2_000, seed=1)
    for start in range(0, 100_000, 500):
        sample.add(_batch(start, 500))
    kept = sample.batch().column("row").to_numpy()
    assert sample.seen == 100_000
    assert 1_000 <= len(kept) <= 2_000
    assert len(set(kept.tolist())) == len(kept)
    # A uniform sample: each tenth of the input holds about a tenth of it.
    tenths = np.bincount(kept // 10_000, minlength=10) / len(kept)
    assert np.all(np.abs(tenths - 0.1) < 0.03), tenths


def test_a_small_input_is_kept_whole_and_in_order():
    sample = RowSample(limit=2_000)
    sample.add(_batch(0, 700))
    sample.add(_batch(700, 300))
    assert sample.batch().column("row").to_pylist() == list(range(1_000))


def test_merged_samples_of_two_inputs_keep_every_row_of_both_alike(tmp_path):
    first, second = RowSample(limit=2_000, seed=1), RowSample(limit=2_000, seed=2)
    for start in range(0, 60_000, 500):
        first.add(_batch(start, 500))
    for start in range(60_000, 70_000, 500):  # a sixth as many rows, so kept at 6 times the rate
        second.add(_batch(start, 500))
    assert second.rate > first.rate
    second.save(tmp_path / "second.arrow")  # as a Beam worker leaves it for the driver
    first.merge(RowSample.load(tmp_path / "second.arrow", limit=2_000))
    kept = first.batch().column("row").to_numpy()
    assert first.seen == 70_000 and 1_000 <= len(kept) <= 2_000
    assert len(set(kept.tolist())) == len(kept)
    # Each seventh of all rows, from either input, holds about a seventh of the sample.
    sevenths = np.bincount(kept // 10_000, minlength=7) / len(kept)
    assert np.all(np.abs(sevenths - 1 / 7) < 0.03), sevenths


def test_a_sample_of_no_rows_merges_as_nothing(tmp_path):
    sample, empty = RowSample(), RowSample()
    sample.add(_batch(0, 10))
    empty.save(tmp_path / "empty.arrow")
    sample.merge(RowSample.load(tmp_path / "empty.arrow"))
    assert sample.seen == 10 and sample.batch().column("row").to_pylist() == list(range(10))


# Deciles of 0..99 as TFDV's quantile histogram gives them: (low, high, count).
DECILES = [(10.0 * i, 10.0 * (i + 1), 10.0) for i in range(10)]


def test_values_drawn_like_the_training_data_diverge_by_nothing():
    assert decile_divergence(DECILES, np.arange(100.0)) == pytest.approx(0.0, abs=1e-12)


def test_values_beyond_the_training_range_count_in_the_end_bucket():
    # Every value above the highest edge: all in the last decile, against a tenth.
    p, q = np.full(10, 0.1), np.eye(10)[9]
    m = (p + q) / 2
    expected = 0.5 * np.sum(p * np.log2(p / m)) + 0.5 * math.log2(1 / m[9])
    assert decile_divergence(DECILES, np.full(50, 1e6)) == pytest.approx(expected)


def test_an_outlier_moves_one_bucket_by_one_row():
    # TFDV's equal-width histograms would stretch to 1e6 and put every value in one bucket.
    with_outlier = np.append(np.arange(99.0), 1e6)
    assert decile_divergence(DECILES, with_outlier) < 1e-3


def test_a_point_mass_counts_in_its_own_bucket_on_both_sides():
    # Training: 30% of rows at exactly 5; the deciles repeat that edge.
    buckets = [(0.0, 5.0, 10.0), (5.0, 5.0, 10.0), (5.0, 5.0, 10.0), (5.0, 9.0, 70.0)]
    training_like = np.concatenate([np.full(10, 2.0), np.full(20, 5.0), np.full(70, 7.0)])
    assert decile_divergence(buckets, training_like) == pytest.approx(0.0, abs=1e-12)
    assert decile_divergence(buckets, np.full(100, 2.0)) > 0.5


def test_the_lines_name_each_feature_over_its_threshold_or_say_none_is():
    over = SkewMeasure("fare", JENSEN_SHANNON, 0.42, 0.1)
    under = SkewMeasure("trip_miles", JENSEN_SHANNON, 0.01, 0.1)
    assert lines(SkewReport(100, 1_000, (over, under))) == [
        "Skew against the model's training data, on 100 of the 1,000 rows scored:",
        "  skewed: fare: Jensen-Shannon 0.420 > 0.1",
    ]
    assert lines(SkewReport(100, 100, (under,)))[-1].endswith(
        "no feature over its threshold (1 compared)."
    )
    assert lines(SkewReport(5, 5, (), "schema.pbtxt sets no skew comparator")) == [
        "Skew not measured: schema.pbtxt sets no skew comparator."
    ]

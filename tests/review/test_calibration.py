"""Calibration bins of enough rows, their intervals, and the expected calibration error."""

from __future__ import annotations

import pytest

from review.calibration import MAX_BINS, MIN_BIN_ROWS, bins, calibration_of
from review.curves import Bucket


def _bucket(low: float, rows: int, positives: int) -> Bucket:
    """A 0.001-wide bucket whose rows all predict ``low``."""
    return Bucket(low, low + 0.001, rows, low, positives / rows)


def test_a_confident_models_buckets_merge_into_bins_of_enough_rows():
    # Most rows in the first bucket, a few rows in many others: TFMA's 1,000 buckets.
    buckets = [_bucket(0.0, 2000, 2)] + [_bucket(i / 1000, 3, i % 2) for i in range(1, 1000, 3)]
    total = sum(b.count for b in buckets)
    found = bins(buckets)
    assert sum(b.rows for b in found) == total
    assert len(found) <= MAX_BINS
    assert all(b.rows >= max(total / MAX_BINS, MIN_BIN_ROWS) for b in found)
    # Bins are in order of prediction and cover the range without gaps.
    assert all(a.high <= b.low + 1e-9 for a, b in zip(found, found[1:], strict=False))
    for b in found:
        assert b.interval[0] <= b.observed <= b.interval[1]


def test_the_expected_calibration_error_weighs_each_bins_gap_by_its_rows():
    buckets = [Bucket(0.0, 0.5, 100, 0.2, 0.3), Bucket(0.5, 1.0, 300, 0.8, 0.7)]
    found = calibration_of(buckets, brier=0.12)
    assert [b.rows for b in found.bins] == [100, 300]
    assert found.ece == pytest.approx((100 * 0.1 + 300 * 0.1) / 400)
    assert found.brier == 0.12
    assert calibration_of([], None).ece is None

"""preprocessing_fn under a real tf.Transform analysis (Beam, in process)."""

from __future__ import annotations

import re

import numpy as np
import tensorflow as tf
import tensorflow_transform as tft
import tensorflow_transform.beam as tft_beam

from modules import features as F
from modules.datasets import taxi
from modules.datasets.taxi import DATASET as TAXI
from modules.preprocessing import _numerics, piecewise_linear


def _column(rows: list[dict], name: str) -> np.ndarray:
    return np.array([r[F.transformed_name(name)] for r in rows])


def test_outputs_every_declared_feature_and_the_label(transformed):
    rows = transformed.rows
    expected = set(TAXI.dense_features() + TAXI.categorical_features() + TAXI.cross_features())
    expected.add(TAXI.label_key)
    assert set(rows[0]) == expected


def test_label_is_tip_over_a_fifth_of_fare_and_zero_without_fare(transformed):
    raw, rows = transformed.raw, transformed.rows
    expected = [
        int(
            i != transformed.nan_row
            and r["fare"] != ""
            and float(r["tips"]) > 0.2 * float(r["fare"])
        )
        for i, r in enumerate(raw)
    ]
    assert _column(rows, TAXI.label.name).tolist() == expected
    assert 0 < sum(expected) < len(expected)


def test_heavy_tailed_numerics_are_log_z_scored_over_present_values(transformed):
    raw, rows = transformed.raw, transformed.rows
    fares = np.array([float(r["fare"]) for r in raw[1:]])
    logs = np.log1p(fares)
    expected = (logs - logs.mean()) / logs.std()
    np.testing.assert_allclose(_column(rows, "fare")[1:], expected, rtol=1e-3, atol=1e-3)
    assert _column(rows, "fare")[transformed.nan_row] == 0.0  # NaN counts as missing: the mean


def test_missing_indicators_mark_absent_values(transformed):
    raw, rows = transformed.raw, transformed.rows
    missing = [float(r["dropoff_latitude"] == "") for r in raw]
    assert _column(rows, F.missing_name("dropoff_latitude")).tolist() == missing
    company_missing = [float(r["company"].strip() == "") for r in raw]
    assert _column(rows, F.missing_name("company")).tolist() == company_missing
    assert 0 < sum(company_missing) < len(raw)


def test_quantile_buckets_keep_a_bucket_for_missing(transformed):
    raw, rows = transformed.raw, transformed.rows
    buckets = _column(rows, F.bucket_name("dropoff_latitude"))
    absent = np.array([r["dropoff_latitude"] == "" for r in raw])
    assert (buckets[absent] == 10).all()
    assert set(buckets[~absent]) <= set(range(10))
    assert len(set(buckets[~absent])) > 5  # quantiles spread the present values


def test_vocabulary_ids_are_consistent_and_in_range(transformed):
    raw, rows, vocab_sizes = transformed.raw, transformed.rows, transformed.vocab_sizes
    ids = _column(rows, "payment_type")
    by_value: dict[str, set[int]] = {}
    for r, i in zip(raw, ids, strict=True):
        by_value.setdefault(r["payment_type"], set()).add(int(i))
    assert all(len(s) == 1 for s in by_value.values())
    assert len({next(iter(s)) for s in by_value.values()}) == len(by_value)
    assert ids.max() < vocab_sizes["payment_type"] + 1


def test_integer_ranges_and_crosses_stay_in_their_id_space(transformed):
    raw, rows = transformed.raw, transformed.rows
    assert _column(rows, "trip_start_hour").tolist() == [int(r["trip_start_hour"]) for r in raw]
    sizes = TAXI.fixed_cardinalities()
    for name in TAXI.cross_features():
        values = np.array([r[name] for r in rows])
        assert values.min() >= 0 and values.max() < sizes[name]


def test_time_features_put_the_hour_on_a_circle(transformed):
    rows = transformed.rows
    sin, cos = _column(rows, taxi.HOUR_SIN), _column(rows, taxi.HOUR_COS)
    np.testing.assert_allclose(sin**2 + cos**2, 1.0, atol=1e-5)


def test_every_dense_feature_is_finite(transformed):
    rows = transformed.rows
    for name in TAXI.dense_features():
        values = np.array([r[name] for r in rows], dtype=np.float64)
        assert np.isfinite(values).all(), name


def test_piecewise_linear_parts_are_the_fraction_of_each_interval_passed():
    # Boundaries 1, 2, 2, 4: intervals [1, 2], a step at 2, and [2, 4].
    x = np.array([0.0, 1.5, 2.0, 3.0, 5.0, np.nan], np.float32)
    parts = piecewise_linear(x, np.array([[1.0, 2.0, 2.0, 4.0]], np.float32)).numpy()
    expected = [
        [0.0, 0.0, 0.0],  # below the first boundary
        [0.5, 0.0, 0.0],
        [1.0, 1.0, 0.0],  # at the repeated boundary: the step is taken
        [1.0, 1.0, 0.5],
        [1.0, 1.0, 1.0],  # above the last
        [0.0, 0.0, 0.0],  # missing
    ]
    np.testing.assert_allclose(parts, expected)


def test_piecewise_parts_are_cut_at_their_own_quantiles_not_the_buckets(tmp_path):
    spec = F.Numeric("x", F.Scaling.Z, bucket_count=2, piecewise_bins=5)
    values = [float(v) for v in range(1, 101)]

    def numerics(inputs: dict) -> dict:
        out: dict = {}
        _numerics((spec,), inputs, out)
        return out

    feature_spec = {"x": tf.io.VarLenFeature(tf.float32)}
    with tft_beam.Context(temp_dir=str(tmp_path)):
        (rows, _), _ = (
            [{"x": [v]} for v in values],
            tft.DatasetMetadata.from_feature_spec(feature_spec),
        ) | tft_beam.AnalyzeAndTransformDataset(numerics)
    parts = np.array([[r[F.transformed_name(p)] for p in spec.piecewise_names()] for r in rows])
    # Quintile boundaries near 20, 40, 60 and 80: x = 30 is half through the first
    # interval and has not reached the others, though the two buckets split at 50.
    np.testing.assert_allclose(parts[values.index(30.0)], [0.5, 0.0, 0.0], atol=0.06)
    np.testing.assert_allclose(parts[values.index(90.0)], [1.0, 1.0, 1.0])
    assert sorted({r[F.transformed_name(F.bucket_name("x"))] for r in rows}) == [0, 1]


def _quantile_analyzers(spec: F.Numeric) -> int:
    """How many tft.quantiles analyzers ``_numerics`` builds for ``spec`` (each a name scope)."""
    graph = tf.Graph()
    with graph.as_default():
        values = tf.compat.v1.sparse_placeholder(tf.float32, shape=(None, None), name="x")
        _numerics((spec,), {"x": values}, {})
    scopes = {op.name.split("/")[0] for op in graph.get_operations()}
    return sum(bool(re.fullmatch(r"quantiles(_\d+)?", scope)) for scope in scopes)


def test_buckets_and_parts_of_one_count_share_one_quantiles_analyzer():
    assert _quantile_analyzers(F.Numeric("x", F.Scaling.Z, bucket_count=5, piecewise_bins=5)) == 1
    assert _quantile_analyzers(F.Numeric("x", F.Scaling.Z, bucket_count=5, piecewise_bins=8)) == 2
    assert _quantile_analyzers(F.Numeric("x", F.Scaling.Z, piecewise_bins=8)) == 1

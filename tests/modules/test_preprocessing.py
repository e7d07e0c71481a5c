"""preprocessing_fn under a real tf.Transform analysis (Beam, in process)."""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf
import tensorflow_transform as tft
import tensorflow_transform.beam as tft_beam
from tensorflow_transform.tf_metadata import schema_utils

from datasets import taxi
from datasets.taxi import DATASET as TAXI
from modules import features
from modules.hparams import HParams
from modules.model import build_model
from modules.preprocessing import (
    _boundaries,
    _numerics,
    _timestamp,
    number_from_text,
    piecewise_linear,
    time_from_text,
)
from modules.tensors import present


def _column(rows: list[dict], name: str) -> np.ndarray:
    return np.array([r[features.transformed_name(name)] for r in rows])


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
    assert _column(rows, features.missing_name("dropoff_latitude")).tolist() == missing
    company_missing = [float(r["company"].strip() == "") for r in raw]
    assert _column(rows, features.missing_name("company")).tolist() == company_missing
    assert 0 < sum(company_missing) < len(raw)


def test_quantile_buckets_keep_a_bucket_for_missing(transformed):
    raw, rows = transformed.raw, transformed.rows
    buckets = _column(rows, features.bucket_name("dropoff_latitude"))
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


@pytest.mark.slow  # runs a real Transform
def test_piecewise_parts_are_cut_at_their_own_quantiles_not_the_buckets(tmp_path):
    spec = features.Numeric("x", features.Scaling.Z, bucket_count=2, piecewise_bins=5)
    values = [float(v) for v in range(1, 101)]

    def numerics(inputs: dict) -> dict:
        out: dict = {}
        _numerics((spec,), inputs, out)
        return out

    rows = _analyzed(numerics, [{"x": [v]} for v in values], {"x": tf.float32}, tmp_path)
    parts = _column(rows, spec.piecewise_name())
    # Quintile boundaries near 20, 40, 60 and 80: x = 30 is half through the first
    # interval and has not reached the others, though the two buckets split at 50.
    np.testing.assert_allclose(parts[values.index(30.0)], [0.5, 0.0, 0.0], atol=0.06)
    np.testing.assert_allclose(parts[values.index(90.0)], [1.0, 1.0, 1.0])
    assert sorted({r[features.transformed_name(features.bucket_name("x"))] for r in rows}) == [0, 1]


def _analyzed(fn, instances: list[dict], dtypes: dict, tmp_path) -> list[dict]:  # noqa: ANN001
    """``instances`` through a real tf.Transform analysis of ``fn``, every column optional."""
    return _analyzed_with_spec(fn, instances, dtypes, tmp_path)[0]


def _analyzed_with_spec(
    fn: Callable[[dict], dict], instances: list[dict], dtypes: dict, tmp_path: Path
) -> tuple[list[dict], dict]:
    """``_analyzed``'s rows, and the feature spec of Transform's output schema."""
    feature_spec = {name: tf.io.VarLenFeature(dtype) for name, dtype in dtypes.items()}
    with tft_beam.Context(temp_dir=str(tmp_path)):
        (rows, metadata), _ = (
            instances,
            tft.DatasetMetadata.from_feature_spec(feature_spec),
        ) | tft_beam.AnalyzeAndTransformDataset(fn)
    return rows, schema_utils.schema_as_feature_spec(metadata.schema).feature_spec


@pytest.mark.slow  # runs a real Transform
def test_piecewise_parts_are_one_float_vector_feature_the_model_takes_whole(tmp_path):
    spec = features.Numeric("x", features.Scaling.Z, bucket_count=2, piecewise_bins=6)
    dataset = features.DatasetDeclaration("t", features.Label("y", ("y",), "1"), numeric=(spec,))
    name = features.transformed_name(spec.piecewise_name())
    values = [float(v) for v in range(1, 101)] + [NAN]

    def numerics(inputs: dict) -> dict:
        out: dict = {}
        _numerics((spec,), inputs, out)
        # The boundaries Transform cut (the same analyzer again), to compute the parts apart.
        cuts = _boundaries(present(inputs["x"]), spec.piecewise_bins)
        out["cuts"] = tf.tile(cuts, [tf.shape(out[name])[0], 1])
        return out

    rows, feature_spec = _analyzed_with_spec(
        numerics, [{"x": [v]} for v in values], {"x": tf.float32}, tmp_path
    )
    assert feature_spec[name] == tf.io.FixedLenFeature([spec.piecewise_width], tf.float32)
    assert not [n for n in feature_spec if n.startswith("x_piecewise_") and n != name]
    parts = _column(rows, spec.piecewise_name())
    assert parts.shape == (len(values), spec.piecewise_width)
    expected = piecewise_linear(np.array(values, np.float32), rows[0]["cuts"][None, :])
    np.testing.assert_allclose(parts, expected.numpy())
    # The model takes the vector as one input of its width, and predicts from Transform's rows.
    model = build_model(dataset, dataset.fixed_cardinalities(), HParams(hidden_units=(4,)))
    assert model.dnn_model.input[name].shape.as_list() == [None, spec.piecewise_width]
    batch = {n: np.stack([r[n] for r in rows]) for n in dataset.dense_widths()}
    bucket = features.transformed_name(features.bucket_name("x"))
    batch[bucket] = np.array([[r[bucket]] for r in rows])
    assert model.predict(batch, verbose=0).shape == (len(values), 1)


def _quantile_analyzers(spec: features.Numeric) -> int:
    """How many tft.quantiles analyzers ``_numerics`` builds for ``spec`` (each a name scope)."""
    graph = tf.Graph()
    with graph.as_default():
        values = tf.compat.v1.sparse_placeholder(tf.float32, shape=(None, None), name="x")
        _numerics((spec,), {"x": values}, {})
    scopes = {op.name.split("/")[0] for op in graph.get_operations()}
    return sum(bool(re.fullmatch(r"quantiles(_\d+)?", scope)) for scope in scopes)


def test_buckets_and_parts_of_one_count_share_one_quantiles_analyzer():
    assert (
        _quantile_analyzers(
            features.Numeric("x", features.Scaling.Z, bucket_count=5, piecewise_bins=5)
        )
        == 1
    )
    assert (
        _quantile_analyzers(
            features.Numeric("x", features.Scaling.Z, bucket_count=5, piecewise_bins=8)
        )
        == 2
    )
    assert _quantile_analyzers(features.Numeric("x", features.Scaling.Z, piecewise_bins=8)) == 1


NAN = float("nan")
NUMBERS_AS_TEXT = {
    features.NumberText.DECIMAL_POINT: {
        "12,345.67": 12345.67, "$12,345.67": 12345.67, "(1,234.00)": -1234.0,
        "USD 1,234": 1234.0, "12.5%": 12.5, "1 234": 1234.0, "1\u00a0234.5": 1234.5,
        "1'234.50": 1234.5, "-€3": -3.0, "1,234,567": 1234567.0, "0.5": 0.5, ".5": 0.5,
        # Not numbers: a separator that groups no thousands, text, a range, nothing.
        "1,5": NAN, "abc": NAN, "12-34": NAN, "": NAN,
    },
    features.NumberText.DECIMAL_COMMA: {
        "12.345,67": 12345.67, "1.234,56 €": 1234.56, "1\u202f234,5": 1234.5, "1,5": 1.5,
        "(3,25)": -3.25, "EUR 1.234": 1234.0,
        "12,345.67": NAN, "1.5": NAN,
    },
}  # fmt: skip


@pytest.mark.parametrize("written", list(NUMBERS_AS_TEXT))
def test_numbers_written_as_text_read_as_their_numbers(written):
    cells = NUMBERS_AS_TEXT[written]
    read = tf.function(lambda text: number_from_text(text, written))
    got = read(tf.constant(list(cells))).numpy()
    np.testing.assert_array_equal(got, np.array(list(cells.values()), np.float32))


def _days(date: str) -> int:
    return (datetime.date.fromisoformat(date) - datetime.date(1970, 1, 1)).days


DATES = {
    features.TimeFormat.YMD: {
        "2024-01-31": ("2024-01-31", None), "2024-01-31 13:45": ("2024-01-31", 49500),
        "2024-01-31T13:45:07Z": ("2024-01-31", 49507),
        "2024/02/29 23:59:59.5+01:00": ("2024-02-29", 86399),
        "2024-02-30": None, "2023-13-01": None, "2024-01-31 24:00": None, "01/31/2024": None,
    },
    features.TimeFormat.MDY: {
        "01/31/2024": ("2024-01-31", None), "1/31/2024 1:45 PM": ("2024-01-31", 49500),
        "12/01/2024 12:05 AM": ("2024-12-01", 300), "31/01/2024": None,
    },
    features.TimeFormat.DMY: {
        "31.01.2024": ("2024-01-31", None), "31/01/2024 13:45:07": ("2024-01-31", 49507),
        "01.31.2024": None, "2024-01-31": None,
    },
}  # fmt: skip


@pytest.mark.parametrize("written", list(DATES))
def test_dates_written_as_text_read_as_days_and_seconds(written):
    cells = DATES[written]
    read = tf.function(lambda text: time_from_text(text, written))
    days, seconds, has_time, readable = (t.numpy().tolist() for t in read(tf.constant(list(cells))))
    assert readable == [v is not None for v in cells.values()]
    expected = [v for v in cells.values() if v is not None]
    got = [(d, s, t) for d, s, t, r in zip(days, seconds, has_time, readable, strict=True) if r]
    assert got == [(_days(date), clock or 0, clock is not None) for date, clock in expected]


@pytest.mark.slow  # runs a real Transform
def test_text_numbers_and_timestamps_become_features_in_a_real_transform(tmp_path):
    amount = features.Numeric(
        "amount", features.Scaling.Z, missing_indicator=True, text=features.NumberText.DECIMAL_POINT
    )
    ordered = features.Timestamp("ordered", features.TimeFormat.YMD, missing_indicator=True)
    created = features.Timestamp("created", features.TimeFormat.UNIX_SECONDS, time_of_day=False)

    def fn(inputs: dict) -> dict:
        out: dict = {}
        _numerics((amount,), inputs, out)
        _timestamp(ordered, inputs["ordered"], out)
        _timestamp(created, inputs["created"], out)
        return out

    # A Wednesday at 13:45, a Saturday without a time (its clock at the centre), a bad
    # cell and an empty one; unix seconds of the first (2024-01-31 13:45:07 UTC) and of
    # a Sunday midnight.
    cells = [
        ("$12,345.67", "2024-01-31 13:45", 1706708707), ("(1,000)", "2024-02-03", 1706400000),
        ("n/a", "2024-02-30", None), ("", "", None),
    ]  # fmt: skip
    instances = [
        {
            "amount": [a.encode()] if a else [],
            "ordered": [o.encode()] if o else [],
            "created": [c] if c else [],
        }
        for a, o, c in cells
    ]
    dtypes = {"amount": tf.string, "ordered": tf.string, "created": tf.int64}
    rows = _analyzed(fn, instances, dtypes, tmp_path)

    def column(name: str) -> list:
        return [r[features.transformed_name(name)] for r in rows]

    # The numbers read, z-scored over the two present: +-1; the others at the mean.
    assert column("amount") == pytest.approx([1.0, -1.0, 0.0, 0.0])
    assert column(features.missing_name("amount")) == [0.0, 0.0, 1.0, 1.0]
    assert column(ordered.weekday_name) == [2, 5, 7, 7]  # Monday is 0; 7: missing
    assert column(created.weekday_name) == [2, 6, 7, 7]
    assert column(features.missing_name("ordered")) == [0.0, 0.0, 1.0, 1.0]
    turn = 2 * math.pi * (13 * 3600 + 45 * 60) / 86400
    assert column(ordered.part_name("time_sin")) == pytest.approx(
        [math.sin(turn), 0, 0, 0], abs=1e-6
    )
    assert column(ordered.part_name("time_cos")) == pytest.approx(
        [math.cos(turn), 0, 0, 0], abs=1e-6
    )
    years = [
        (_days(d) + s / 86400) / 365.2425 for d, s in (("2024-01-31", 49500), ("2024-02-03", 0))
    ]
    year_turns = [2 * math.pi * (y - math.floor(y)) for y in years]
    assert column(ordered.part_name("year_sin")) == pytest.approx(
        [*(math.sin(t) for t in year_turns), 0, 0], abs=1e-5
    )
    # The earlier of two dates is one standard deviation below their mean age.
    assert column(ordered.part_name("years")) == pytest.approx([-1.0, 1.0, 0.0, 0.0], abs=1e-3)
    assert features.transformed_name(created.part_name("time_sin")) not in rows[0]
    assert set(rows[0]) == {
        features.transformed_name(n)
        for n in ("amount", features.missing_name("amount"))
        + ordered.dense_names() + (ordered.weekday_name,)
        + created.dense_names() + (created.weekday_name,)
    }  # fmt: skip

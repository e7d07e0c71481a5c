"""The Transform ``preprocessing_fn``: raw columns to model-ready features.

Every output is named by ``features.transformed_name`` and holds one value per
example, but a piecewise-linear encoding, which holds its n parts ([batch, n], n from
``DatasetDeclaration.dense_widths``); which features exist and how they are encoded
is declared by the dataset the Transform's ``custom_config`` names
(``datasets``).

Analyzers see only the values that are present: numeric columns are analyzed as
SparseTensors, so a missing value never drags a mean or a quantile. All analyzers
run in one phase, and vocabularies use TFT's single-combiner approximate
vocabulary (exact while a column's distinct values fit in its ``top_k``): each
extra phase or multi-stage analyzer costs Beam stages and seconds.
"""

from __future__ import annotations

import importlib
import math
import re
from collections.abc import Mapping
from typing import Any

import tensorflow as tf
import tensorflow_transform as tft

import datasets
from modules import features
from modules.tensors import Tensor, dense, missing, present
from modules.tree_leaves import tree_leaves

# The key of the Transform's and the Trainer's custom_config naming the dataset.
DATASET_KEY = "dataset"


def dataset_of(custom_config: Mapping[str, Any] | None) -> features.DatasetDeclaration:
    """The dataset ``custom_config`` names (absent: the default one)."""
    return datasets.load((custom_config or {}).get(DATASET_KEY) or datasets.DEFAULT)


# Spaces a number may be padded or grouped with: ASCII, no-break and narrow no-break
# (spreadsheets in French and other locales group thousands with the latter two).
_SPACE = r"[\s\x{00A0}\x{202F}]"
# Thousands separators besides the decimal mark's other: apostrophes (Swiss) and spaces.
_GROUPING = ("'", r"\x{2019}", _SPACE)


def _number_syntax(written: features.NumberText) -> tuple[str, str]:
    """The RE2 pattern of a number written ``written`` (signs, currency gone), and its separators.

    A separator stands between groups of three digits only, so that ``1,5`` is no
    number where ``,`` groups thousands.
    """
    decimal = re.escape(written.value)
    other = re.escape("," if written is features.NumberText.DECIMAL_POINT else ".")
    grouped = "|".join(rf"\d{{1,3}}(?:{sep}\d{{3}})+" for sep in (other, *_GROUPING))
    pattern = rf"[+-]?(?:(?:{grouped}|\d+)(?:{decimal}\d*)?|{decimal}\d+)"
    return pattern, "|".join((other, *_GROUPING))


def _trimmed(text: tf.Tensor) -> tf.Tensor:
    return tf.strings.regex_replace(text, f"^{_SPACE}+|{_SPACE}+$", "")


def number_from_text(text: tf.Tensor, written: features.NumberText) -> tf.Tensor:
    """The float32 numbers the strings ``text`` write as ``written`` says; NaN where none is."""
    negative = tf.strings.regex_full_match(text, r".*\(.*\).*")
    core = _trimmed(tf.strings.regex_replace(text, r"[\p{Sc}%()]", ""))
    # ISO currency codes before or after the number (USD 12.50, 12,50 EUR).
    core = _trimmed(tf.strings.regex_replace(core, r"^[A-Z]{3}|[A-Z]{3}$", ""))
    core = tf.strings.regex_replace(core, r"\x{2212}", "-")  # the typographic minus
    pattern, separators = _number_syntax(written)
    plain = tf.strings.regex_replace(core, separators, "")
    if written is features.NumberText.DECIMAL_COMMA:
        plain = tf.strings.regex_replace(plain, ",", ".")
    readable = tf.strings.regex_full_match(core, pattern)
    number = tf.strings.to_number(tf.where(readable, plain, "nan"), tf.float32)
    return tf.where(negative, -number, number)


def _number_values(spec: features.Numeric, x: Tensor) -> tf.SparseTensor:
    """The column's present values as float32, text read as its ``text`` says."""
    values = present(x)
    if spec.text is None or values.dtype != tf.string:
        return tf.sparse.map_values(tf.cast, values, tf.float32)
    numbers = tf.sparse.map_values(number_from_text, values, spec.text)
    return tf.sparse.retain(numbers, tf.math.is_finite(numbers.values))


def _scaled(spec: features.Numeric, values: tf.SparseTensor) -> tf.SparseTensor:
    if spec.scaling is features.Scaling.LOG_Z:
        return tf.sparse.map_values(lambda v: tf.math.log1p(tf.maximum(v, 0.0)), values)
    return values


def _numerics(
    specs: tuple[features.Numeric, ...], inputs: dict[str, Tensor], out: dict[str, tf.Tensor]
) -> dict[str, tf.SparseTensor]:
    """z-scores, missing indicators and quantile buckets of every numeric column.

    Returns each column's present values as read (float32), by name, for the trees.

    The columns are stacked side by side so that one elementwise analyzer computes
    every column's mean and variance (bucketize takes no sparse elementwise input).
    Buckets are cut on the raw values: quantiles do not change under log scaling,
    and a computed value (log1p) can differ in its last bit between Beam's batches
    and a serving request, which flips a value sitting on a boundary (a fare of
    5.85, say) into the next bucket.
    """
    if not specs:
        return {}
    raw = {s.name: _number_values(s, inputs[s.name]) for s in specs}
    stacked = tf.sparse.concat(1, [_scaled(s, raw[s.name]) for s in specs])
    # Missing values land at 0, the mean of the present ones, after z-scoring; the
    # indicator (when declared) and the extra bucket carry the absence.
    scaled = tf.sparse.to_dense(tft.scale_to_z_score(stacked, elementwise=True))
    for i, spec in enumerate(specs):
        out[features.transformed_name(spec.name)] = scaled[:, i]
        if spec.missing_indicator:
            out[features.transformed_name(features.missing_name(spec.name))] = missing(
                raw[spec.name]
            )
        # One analyzer per distinct count: buckets and parts cut alike share theirs.
        cuts = {
            n: _boundaries(raw[spec.name], n)
            for n in sorted({spec.bucket_count, spec.piecewise_bins} - {0})
        }
        if spec.bucket_count:
            buckets = tft.apply_buckets(raw[spec.name], cuts[spec.bucket_count])
            out[features.transformed_name(features.bucket_name(spec.name))] = dense(
                buckets, spec.bucket_count
            )
        if spec.piecewise_bins:
            # A missing value has every part at 0; its indicator (or bucket) says so.
            parts = piecewise_linear(dense(raw[spec.name], float("nan")), cuts[spec.piecewise_bins])
            out[features.transformed_name(spec.piecewise_name())] = parts
    return raw


def _boundaries(values: tf.SparseTensor, intervals: int) -> tf.Tensor:
    """The quantile boundaries cutting ``values`` into ``intervals``, as tft.bucketize cuts."""
    return tft.quantiles(values.values, intervals, epsilon=min(1.0 / intervals, 0.01))


def piecewise_linear(x: tf.Tensor, boundaries: tf.Tensor) -> tf.Tensor:
    """The piecewise-linear encoding of ``x`` [batch] over sorted ``boundaries`` [1, n].

    The result is [batch, n - 1]: part i is clip((x - b_i) / (b_{i+1} - b_i), 0, 1), how
    far x has gone through the interval between two boundaries, so that a layer over
    the parts can bend at each boundary, as a tree splits there. Two equal boundaries
    (a value that fills more than a bucket) make their part a step at that value. NaN
    gives 0 in every part.
    """
    b = tf.reshape(tf.cast(boundaries, tf.float32), [-1])
    low, high = b[:-1], b[1:]
    width = high - low
    x = tf.reshape(x, [-1, 1])
    ramp = tf.clip_by_value((x - low) / tf.where(width > 0, width, 1.0), 0.0, 1.0)
    step = tf.cast(x >= high, tf.float32)
    parts = tf.where(width > 0, ramp, step)
    return tf.where(tf.math.is_nan(parts), 0.0, parts)


def _integer_range(spec: features.IntegerRange, raw: Tensor) -> tf.Tensor:
    values = tf.cast(dense(present(raw), spec.low - 1), tf.int64)
    in_range = (values >= spec.low) & (values <= spec.high)
    # Out-of-range and missing values share the last id.
    return tf.where(in_range, values - spec.low, spec.size - 1)


def _text(values: tf.SparseTensor) -> tf.SparseTensor:
    """The values as strings; floats holding whole numbers read as the integers."""
    if values.dtype == tf.string:
        return values
    if values.dtype.is_floating:
        values = tf.sparse.map_values(tf.cast, values, tf.int64)
    return tf.sparse.map_values(tf.strings.as_string, values)


def _tokens(values: tf.SparseTensor) -> tf.Tensor:
    """One string token per example.

    A missing value is a token of its own, so the model learns what absence means.
    """
    return dense(_text(values), features.MISSING_TOKEN)


def _vocabulary(spec: features.Vocabulary, raw: Tensor, out: dict[str, tf.Tensor]) -> None:
    values = present(raw)
    tokens = _tokens(values)
    vocabulary = tft.experimental.approximate_vocabulary(
        tokens, top_k=spec.top_k, vocab_filename=features.vocabulary_file(spec.name)
    )
    out[features.transformed_name(spec.name)] = tft.apply_vocabulary(
        tokens, vocabulary, num_oov_buckets=spec.num_oov_buckets
    )
    if spec.missing_indicator:
        out[features.transformed_name(features.missing_name(spec.name))] = missing(values)


def _hashed(spec: features.Hashed, raw: Tensor, out: dict[str, tf.Tensor]) -> None:
    values = present(raw)
    out[features.transformed_name(spec.name)] = tf.strings.to_hash_bucket_fast(
        _tokens(values), spec.hash_buckets
    )
    if spec.missing_indicator:
        out[features.transformed_name(features.missing_name(spec.name))] = missing(values)


_SECONDS_PER_DAY = 86400
# The Gregorian calendar's mean year in days: the day of the year on a circle is the
# days since 1970 over it, which puts 1 January within a day of the same angle each year.
_DAYS_PER_YEAR = 365.2425
# After the date, a time (hours, minutes, seconds and fractions, AM/PM) and a zone.
_CLOCK = (
    r"(?:(?:T|\s+)(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?\s*(?:([AaPp])\.?[Mm]\.?)?)?"
    r"\s*(?:Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?"
)
# Each format's date, and its fields rewritten as year|month|day.
_DATES = {
    features.TimeFormat.YMD: (r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})", r"\1|\2|\3"),
    features.TimeFormat.MDY: (r"(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})", r"\3|\1|\2"),
    features.TimeFormat.DMY: (r"(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})", r"\3|\2|\1"),
}


def days_from_civil(year: tf.Tensor, month: tf.Tensor, day: tf.Tensor) -> tf.Tensor:
    """Days since 1970-01-01 of the Gregorian dates (int64), by integer arithmetic.

    Howard Hinnant's days_from_civil: the year counted from March, so that the leap
    day ends it, in 400-year eras of 146,097 days.
    """
    year = year - tf.cast(month <= 2, tf.int64)
    era = tf.math.floordiv(year, 400)
    year_of_era = year - era * 400
    day_of_year = (153 * tf.math.floormod(month + 9, 12) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468


def _days_in_month(year: tf.Tensor, month: tf.Tensor) -> tf.Tensor:
    one = tf.ones_like(month)
    following = days_from_civil(year + month // 12, tf.math.floormod(month, 12) + 1, one)
    return following - days_from_civil(year, month, one)


def time_from_text(text: tf.Tensor, written: features.TimeFormat) -> tuple[tf.Tensor, ...]:
    """The dates and times the strings ``text`` write, as ``written`` says.

    Four [n] tensors: days since 1970-01-01 (int64), seconds of the day (int64), whether
    the cell holds a time, and whether it reads at all (the others mean nothing where not).
    """
    date, fields = _DATES[written]
    pattern = rf"^\s*{date}{_CLOCK}\s*$"
    readable = tf.strings.regex_full_match(text, pattern)
    # Every readable cell as year|month|day|0hour|0minute|0second|xA or xP: the 0 and
    # x stand for an absent time or meridiem.
    canonical = tf.strings.regex_replace(text, pattern, fields + r"|0\4|0\5|0\6|x\7")
    cells = tf.strings.split(tf.where(readable, canonical, "1970|1|1|0|0|0|x"), "|")
    parts = cells.to_tensor(shape=[None, 7])
    year, month, day, hour, minute, second = tf.unstack(
        tf.strings.to_number(parts[:, :6], tf.int64), axis=1
    )
    meridiem = tf.strings.upper(parts[:, 6])
    twelve_hour = meridiem != "X"
    valid_hour = tf.where(twelve_hour, (hour >= 1) & (hour <= 12), hour <= 23)
    hour = tf.where(twelve_hour, hour % 12 + 12 * tf.cast(meridiem == "XP", tf.int64), hour)
    month_ok = (month >= 1) & (month <= 12)
    month = tf.where(month_ok, month, tf.ones_like(month))
    day_ok = (day >= 1) & (day <= _days_in_month(year, month))
    readable &= month_ok & day_ok & valid_hour & (minute <= 59) & (second <= 59)
    seconds = hour * 3600 + minute * 60 + second
    has_time = tf.strings.length(parts[:, 3]) > 1
    return days_from_civil(year, month, day), seconds, has_time, readable


def _time_parts(spec: features.Timestamp, values: tf.SparseTensor) -> tuple[tf.Tensor, ...]:
    """Per example: days since 1970, seconds of the day, has a time, readable."""
    filled = missing(values) == 0.0
    if spec.written is features.TimeFormat.UNIX_SECONDS:
        seconds = tf.cast(tf.math.floor(tf.cast(dense(values, 0), tf.float64)), tf.int64)
        days = tf.math.floordiv(seconds, _SECONDS_PER_DAY)
        return days, seconds - days * _SECONDS_PER_DAY, filled, filled
    days, seconds, has_time, readable = time_from_text(dense(values, ""), spec.written)
    return days, seconds, has_time, readable & filled


def _circle(fraction: tf.Tensor, where: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    """The sine and cosine of a fraction of a turn, as float32; (0, 0) where not ``where``."""
    angle = tf.cast(2.0 * math.pi * fraction, tf.float32)
    return tf.where(where, tf.sin(angle), 0.0), tf.where(where, tf.cos(angle), 0.0)


def _where_sparse(values: tf.Tensor, keep: tf.Tensor) -> tf.SparseTensor:
    """The [batch] ``values`` where ``keep`` as a [batch, 1] SparseTensor."""
    rows = tf.where(keep)
    return tf.SparseTensor(
        tf.concat([rows, tf.zeros_like(rows)], 1),
        tf.boolean_mask(values, keep),
        tf.stack([tf.size(keep, out_type=tf.int64), 1]),
    )


def _timestamp(spec: features.Timestamp, raw: Tensor, out: dict[str, tf.Tensor]) -> None:
    """The time features of one date or timestamp column (``features.Timestamp``)."""
    days, seconds, has_time, readable = _time_parts(spec, present(raw))

    def put(part: str, value: tf.Tensor) -> None:
        out[features.transformed_name(spec.part_name(part))] = value

    if spec.time_of_day:
        day_fraction = tf.cast(seconds, tf.float64) / _SECONDS_PER_DAY
        sin, cos = _circle(day_fraction, readable & has_time)
        put("time_sin", sin)
        put("time_cos", cos)
    years = (tf.cast(days, tf.float64) + tf.cast(seconds, tf.float64) / _SECONDS_PER_DAY) / (
        _DAYS_PER_YEAR
    )
    sin, cos = _circle(years - tf.math.floor(years), readable)
    put("year_sin", sin)
    put("year_cos", cos)
    # The age z-scored over the readable cells only; the others land at the mean.
    ages = _where_sparse(tf.cast(years, tf.float32), readable)
    put("years", dense(tft.scale_to_z_score(ages), 0.0))
    if spec.missing_indicator:
        out[features.transformed_name(features.missing_name(spec.name))] = 1.0 - tf.cast(
            readable, tf.float32
        )
    weekday = tf.math.floormod(days + 3, 7)  # 1970-01-01 was a Thursday; Monday is 0
    put("weekday", tf.where(readable, weekday, spec.WEEKDAY_IDS - 1))


def _cross(spec: features.Cross, out: dict[str, tf.Tensor]) -> tf.Tensor:
    parts = [tf.strings.as_string(out[features.transformed_name(s)]) for s in spec.sources]
    return tf.strings.to_hash_bucket_fast(tf.strings.join(parts, "|"), spec.hash_buckets)


def equals_label(label: features.Label, inputs: dict[str, Tensor]) -> tf.Tensor:
    """1 where the label's column, read as text, equals its ``positive`` value; else 0."""
    values = _text(present(inputs[label.columns[0]]))
    return tf.cast(tf.equal(dense(values, ""), label.positive), tf.int64)


def preprocessing_fn(
    inputs: dict[str, Tensor], custom_config: Mapping[str, Any] | None = None
) -> dict[str, tf.Tensor]:
    """tf.Transform entry point: raw columns to the features the dataset declares.

    At serving time the label's columns are absent; TFT prunes the label output then.
    """
    return transformed_features(dataset_of(custom_config), inputs)


def transformed_features(
    dataset: features.DatasetDeclaration, inputs: dict[str, Tensor]
) -> dict[str, tf.Tensor]:
    """The features ``dataset`` declares, and its label, from the raw columns ``inputs``."""
    hooks = importlib.import_module(dataset.transform_hooks) if dataset.transform_hooks else None
    out: dict[str, tf.Tensor] = {}
    numbers = _numerics(dataset.numeric, inputs, out)
    for spec in dataset.integer_ranges:
        out[features.transformed_name(spec.name)] = _integer_range(spec, inputs[spec.name])
    for spec in dataset.vocabularies:
        _vocabulary(spec, inputs[spec.name], out)
    for spec in dataset.hashed:
        _hashed(spec, inputs[spec.name], out)
    for spec in dataset.timestamps:
        _timestamp(spec, inputs[spec.name], out)
    if dataset.extra_dense_features:
        out.update(hooks.extra_features(inputs))
    for spec in dataset.crosses:
        out[features.transformed_name(spec.name)] = _cross(spec, out)
    label = equals_label(dataset.label, inputs) if dataset.label.positive is not None else None
    out[dataset.label_key] = hooks.label(inputs) if label is None else label
    if dataset.tree_leaves:
        trees = _tree_columns(dataset, inputs, numbers, out)
        leaves = tree_leaves(dataset.tree_leaves, trees, out[dataset.label_key])
        out[features.transformed_name(features.TreeLeaves.NAME)] = leaves
    return out


# Vocabulary tokens reach the trees as hashes below 2^24, which float32 holds exactly.
_TOKEN_HASHES = 2**24


def _tree_columns(
    dataset: features.DatasetDeclaration,
    inputs: dict[str, Tensor],
    numbers: dict[str, tf.SparseTensor],
    out: dict[str, tf.Tensor],
) -> tuple[tf.Tensor, ...]:
    """The columns the trees split on (``tree_columns``), each [batch], from no analyzer.

    ``numbers`` are the numeric columns' values as ``_numerics`` read them.

    An analyzer fed by another's output costs Transform a second pass over the data
    (4 to 10 s of a 5,000-row table's run): so numbers as read, not z-scored (a tree's
    splits do not change), and tokens as hashes, not vocabulary ids (both orders are
    arbitrary). A missing number is NaN here; the trees put it below every other.
    """
    read = [dense(numbers[s.name], float("nan")) for s in dataset.numeric]
    codes = [out[features.transformed_name(s.name)] for s in dataset.integer_ranges]
    tokens = [
        tf.strings.to_hash_bucket_fast(_tokens(present(inputs[s.name])), _TOKEN_HASHES)
        for s in dataset.vocabularies
    ]
    times = [
        out[features.transformed_name(name)]
        for t in dataset.timestamps
        for name in (*t.circle_names(), t.weekday_name)
    ]
    return (*read, *codes, *tokens, *times)

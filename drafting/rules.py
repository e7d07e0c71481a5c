"""The drafting rules: each column's kind from its values, and the dataset-wide choices.

A column becomes a vocabulary (text, or a few integer codes), an integer range
(small non-negative codes), a scaled numeric with quantile buckets and a
piecewise-linear encoding (log-scaled when heavy-tailed; numbers written as text too:
``reading.py``), time features (dates, timestamps, unix seconds), hashed ids, or is left
out (empty, constant, a row number, an id); missing cells get an indicator. The
strongest categorical columns give the slices (crosses.py chooses the crosses), the
best single column the AUC bound, and the table's size its training settings (trees.py
chooses the boosted trees' leaves).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from data_layout.splits import TRAIN
from drafting.reading import Times, read_numbers, read_times
from modules import features
from pipeline_def.config import DEFAULT_SPLIT

# Strings with more distinct values than this are hashed, not given a vocabulary.
MAX_VOCABULARY = 100
# Non-negative integers spanning at most this many values are codes (hours, days...).
MAX_RANGE_SPAN = 32
# Integers with at most this many distinct values, over a wider span, are codes too.
MAX_CODE_VALUES = 12
# Numbers with a skewness above this (and no negative value) are log-scaled.
HEAVY_TAIL_SKEW = 1.0
NUMERIC_BUCKETS = 10
# A bucketed numeric's piecewise-linear encoding is cut finer than its buckets, as
# chosen on credit_data's validation split (docs/decisions/drafting-rules.md).
PIECEWISE_BINS = 20
# Slices: categorical columns with at most this many values, the strongest first.
MAX_SLICE_VALUES = 10
MAX_SLICES = 3
# The slice bound a draft declares: no slice of features.SLICE_MIN_ROWS (100) test rows
# or more may lose more than this AUC against the serving model beyond its rows'
# noise. The taxi dataset's bound, for the same reasons: a slice of a few hundred rows
# moves its AUC by a few hundredths with the draw of rows alone, and a drafted table
# has up to MAX_SLICES x MAX_SLICE_VALUES slices judged at once; a smaller bound holds
# good candidates on chance. A drafted table's test split is a fifth of a small table,
# so fewer of its slices reach 100 rows: the bound falls on the ones that can be judged.
SLICE_MAX_AUC_DROP = 0.05
# Training settings of small tables. HParams' defaults were chosen on the taxi sample,
# where an epoch is about a pass over the train split; on a table of a few thousand
# rows it is several, and the model overfits between two of early stopping's looks.
# Below SMALL_TABLE_ROWS the draft trains in SMALL_TABLE_BATCH-row batches, in epochs of
# about one pass over the train split, with SMALL_TABLE_DROPOUT; these settings and
# those below were chosen on credit_data's validation split
# (docs/decisions/drafting-rules.md).
SMALL_TABLE_ROWS = 10_000
SMALL_TABLE_BATCH = 32
SMALL_TABLE_DROPOUT = 0.4
# And averages SMALL_TABLE_MEMBERS models trained apart (their own seeds and early
# stopping): less spread between seeds, for the seconds a small table trains in.
SMALL_TABLE_MEMBERS = 5
# And a faster wide part than HParams' default: chosen on the benchmark suite's mean
# cross-validated gap to the trees, not on one table (docs/decisions/drafting-rules.md).
SMALL_TABLE_WIDE_LEARNING_RATE = 0.1


def rank_auc(scores: Sequence[float], labels: Sequence[int]) -> float:
    """ROC AUC of ``scores`` for ``labels`` (ties count half), at least 0.5 either way."""
    order = sorted(range(len(scores)), key=scores.__getitem__)
    ranks = [0.0] * len(scores)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    positives = sum(labels)
    negatives = len(labels) - positives
    pos_ranks = sum(r for r, y in zip(ranks, labels, strict=True) if y)
    auc = (pos_ranks - positives * (positives + 1) / 2) / (positives * negatives)
    return max(auc, 1.0 - auc)


def _category_auc(values: Sequence[str], labels: Sequence[int]) -> float:
    """AUC of each value's share of positives: how much the column alone separates."""
    totals: Counter[str] = Counter(values)
    hits: Counter[str] = Counter(v for v, y in zip(values, labels, strict=True) if y)
    return rank_auc([hits[v] / totals[v] for v in values], labels)


def _skew(numbers: Sequence[float]) -> float:
    n = len(numbers)
    mean = sum(numbers) / n
    var = sum((x - mean) ** 2 for x in numbers) / n
    if var == 0:
        return 0.0
    return sum((x - mean) ** 3 for x in numbers) / n / var**1.5


@dataclass(frozen=True)
class Choice:
    """One column's draft: its declaration (Python source), kind and why."""

    column: str
    kind: str
    why: str
    source: str = ""  # the declaration's expression; empty for an unused column
    group: str = ""  # the DatasetDeclaration field it goes in
    # What the column alone achieves on the label (AUC), and its categories if it
    # is categorical (for slices and crosses), else 0.
    auc: float = 0.5
    categories: int = 0
    feature: str = ""  # the categorical feature's name in crosses
    # Names the declaration uses from modules.features besides its group's kinds.
    imports: tuple[str, ...] = ()
    # A numeric column written as text: each row's number as Transform reads it (None:
    # missing), for what the draft measures on it (the crosses' buckets); else empty.
    numbers: tuple[float | None, ...] = ()


def _missing_note(missing: int, rows: int) -> str:
    return f"; {missing} of {rows} cells missing: missing indicator" if missing else ""


@dataclass(frozen=True)
class _Column:
    """One column's cells and labels, with what every rule reads off them."""

    name: str
    values: list[str]
    labels: list[int]
    present: list[str]  # the non-empty cells

    @classmethod
    def of(cls, name: str, values: list[str], labels: list[int]) -> _Column:
        return cls(name, values, labels, [v for v in values if v])

    @property
    def missing(self) -> int:
        return len(self.values) - len(self.present)

    @property
    def distinct(self) -> int:
        return len(set(self.present))

    @property
    def note(self) -> str:
        """What the why says of missing cells ("" without any)."""
        return _missing_note(self.missing, len(self.values))

    @property
    def flag(self) -> str:
        """The declaration's missing-indicator argument ("" without missing cells)."""
        return ", missing_indicator=True" if self.missing else ""

    def category_auc(self) -> float:
        """The column's AUC as a categorical, missing cells a category of their own."""
        return _category_auc([v or features.MISSING_TOKEN for v in self.values], self.labels)


def choose(name: str, values: list[str], labels: list[int], tfdv_type: str) -> Choice:
    """The kind of one column, by the drafting rules, and why."""
    column = _Column.of(name, values, labels)
    if not column.present:
        return Choice(name, "unused", "empty in every row")
    if column.distinct == 1:
        return Choice(name, "unused", f"the same value ({column.present[0]!r}) in every row")
    times = read_times(name, values, tfdv_type)
    if times:
        return _timestamp(name, times)
    if tfdv_type in ("STRING", "BYTES"):
        return _text(column)
    codes = _integer_codes(column) if tfdv_type == "INT" else None
    if codes:
        return codes
    return _numeric(name, [float(v) if v else None for v in values], labels, tfdv_type.lower())


def _text(column: _Column) -> Choice:
    """A text column: numbers written as text, an id, hashed, or a vocabulary."""
    numbers = read_numbers(column.values)
    if numbers:
        return _numeric(column.name, numbers.numbers, column.labels, numbers.why, numbers.written)
    described = f"text with {column.distinct} distinct values"
    if column.distinct <= MAX_VOCABULARY:
        return _vocabulary(column, described)
    if column.distinct == len(column.present):
        return Choice(column.name, "unused", "a different value in every row: an id")
    return _hashed(column, described)


def _integer_codes(column: _Column) -> Choice | None:
    """An integer column that is a row number, codes or ids; None: a plain number."""
    numbers = [float(v) for v in column.present]
    low, high = min(numbers), max(numbers)
    span = high - low + 1
    if column.distinct == len(column.present) == span > MAX_VOCABULARY:
        return Choice(column.name, "unused", "consecutive integers, one per row: a row number")
    if low >= 0 and span <= MAX_RANGE_SPAN and not column.missing:
        return _integer_range(column, int(low), int(high))
    if column.distinct <= MAX_CODE_VALUES:
        # A few values over a wide span (loan terms in months: 12, 24, 36, ...): codes
        # the wide part one-hots and the deep part embeds, as well as a numeric
        # (docs/decisions/drafting-rules.md).
        span_text = f"({int(low)}..{int(high)})"
        return _vocabulary(
            column, f"integers with {column.distinct} distinct values {span_text}: codes"
        )
    if low >= 1e9:
        return _hashed(column, f"integer ids up to {int(high)} ({column.distinct} distinct)")
    return None


def _vocabulary(column: _Column, described: str) -> Choice:
    """A categorical column with a vocabulary of its values."""
    top_k = max(10, column.distinct)
    return Choice(
        column.name,
        "vocabulary",
        why=described + column.note,
        source=f"Vocabulary({literal(column.name)}, top_k={top_k}{column.flag})",
        group="vocabularies",
        auc=column.category_auc(),
        categories=column.distinct + 1 + bool(column.missing),
        feature=column.name,
    )


def _integer_range(column: _Column, low: int, high: int) -> Choice:
    """Small non-negative integer codes, one id each (no missing cell)."""
    return Choice(
        column.name,
        "integer range",
        why=f"small integer codes {low}..{high}",
        source=f"IntegerRange({literal(column.name)}, {low}, {high})",
        group="integer_ranges",
        auc=column.category_auc(),
        categories=high - low + 2,
        feature=column.name,
    )


def id_feature(name: str, values: list[str], labels: list[int]) -> Choice:
    """An entity's id as a feature: hashed, whatever its values look like."""
    column = _Column.of(name, values, labels)
    return _hashed(column, f"the entity's ids as a feature ({column.distinct} distinct)")


def history_feature(name: str, values: list[str], labels: list[int]) -> Choice:
    """A column of an entity's history: a number, whatever values the sample happens to hold.

    Its counts grow with every period (a range of codes would not hold next year's), and
    its rates are absent for an entity's first period.
    """
    numbers = [float(v) if v else None for v in values]
    return _numeric(name, numbers, labels, "the entity's earlier periods (ExampleGen adds it)")


def _hashed(column: _Column, described: str) -> Choice:
    """Too many distinct values for a vocabulary: hash buckets, a power of two."""
    buckets = min(4096, 1 << math.ceil(math.log2(column.distinct)))
    return Choice(
        column.name,
        "hashed",
        why=f"{described}: {buckets} hash buckets" + column.note,
        source=f"Hashed({literal(column.name)}, {buckets}{column.flag})",
        group="hashed",
    )


def _scaling(numbers: Sequence[float]) -> tuple[str, str]:
    """A numeric's Scaling member and why: log1p before the z-score when heavy-tailed."""
    skew = _skew(numbers)
    if min(numbers) >= 0 and skew > HEAVY_TAIL_SKEW:
        return "LOG_Z", f"non-negative, skew {skew:.1f}: log1p, z-score"
    return "Z", f"skew {skew:.1f}: z-score"


def _numeric(
    name: str,
    values: list[float | None],
    labels: list[int],
    written: str,
    text: features.NumberText | None = None,
) -> Choice:
    """A numeric column's draft: scaled (log1p when heavy-tailed), bucketed when varied.

    ``values`` are its rows' numbers (None: missing); ``written`` says how they are
    written, ``text`` how they are read when they are text.
    """
    numbers = [v for v in values if v is not None]
    missing = len(values) - len(numbers)
    scaling, shape = _scaling(numbers)
    distinct = len(set(numbers))
    buckets = NUMERIC_BUCKETS if distinct > NUMERIC_BUCKETS else 0
    bucket_arg = f", bucket_count={buckets}, piecewise_bins={PIECEWISE_BINS}" if buckets else ""
    bucket_note = (
        f", {buckets} quantile buckets, piecewise-linear over {PIECEWISE_BINS}" if buckets else ""
    )
    median = sorted(numbers)[len(numbers) // 2]
    text_arg = f", text=NumberText.{text.name}" if text else ""
    flag = ", missing_indicator=True" if missing else ""
    return Choice(
        name,
        "numeric",
        why=f"{written}{'; ' if text else ', '}{shape}{bucket_note}"
        + _missing_note(missing, len(values)),
        source=f"Numeric({literal(name)}, Scaling.{scaling}{text_arg}{flag}{bucket_arg})",
        group="numeric",
        auc=rank_auc([median if v is None else v for v in values], labels),
        categories=buckets + 1 if buckets else 0,
        feature=features.bucket_name(name) if buckets else "",
        imports=("NumberText",) if text else (),
        numbers=tuple(values) if text else (),
    )


def _timestamp(name: str, times: Times) -> Choice:
    """A date or timestamp column's draft: its time features."""
    missing = len(times.readable) - sum(times.readable)
    clock = "" if times.time_of_day else ", time_of_day=False"
    flag = ", missing_indicator=True" if missing else ""
    return Choice(
        name,
        "time",
        why=times.why + _missing_note(missing, len(times.readable)),
        source=f"Timestamp({literal(name)}, TimeFormat.{times.written.name}{clock}{flag})",
        group="timestamps",
    )


def min_auc_of(choices: Sequence[Choice]) -> float:
    """The AUC bound: the best single column's AUC, rounded down to 0.05.

    A model that does no better than one column alone is not worth pushing. Columns
    with many categories are left out: their in-sample share of positives overfits.
    """
    strong = [c.auc for c in choices if c.group == "numeric" or 0 < c.categories <= 20]
    return max(0.5, math.floor(max(strong, default=0.5) * 20) / 20)


def slices_of(choices: Sequence[Choice]) -> list[str]:
    """The strongest low-cardinality categorical columns: the Evaluator's slices."""
    small = [
        c
        for c in choices
        if c.group in ("vocabularies", "integer_ranges") and c.categories - 1 <= MAX_SLICE_VALUES
    ]
    return [c.column for c in sorted(small, key=lambda c: -c.auc)[:MAX_SLICES]]


def training_settings(rows: int) -> dict[str, int | float]:
    """The draft's hyperparameters (modules/hparams.py) for a table of ``rows`` rows.

    None at SMALL_TABLE_ROWS and above: HParams' defaults hold. Below, small batches,
    an epoch of about one pass over the train split (the split's share of ``rows``),
    stronger dropout, an ensemble of SMALL_TABLE_MEMBERS members and a faster wide part.
    """
    if rows >= SMALL_TABLE_ROWS:
        return {}
    train_share = dict(DEFAULT_SPLIT)[TRAIN] / sum(n for _, n in DEFAULT_SPLIT)
    train_rows = rows * train_share
    return {
        "batch_size": SMALL_TABLE_BATCH,
        "steps_per_epoch": max(1, round(train_rows / SMALL_TABLE_BATCH)),
        "dropout": SMALL_TABLE_DROPOUT,
        "ensemble_members": SMALL_TABLE_MEMBERS,
        "wide_learning_rate": SMALL_TABLE_WIDE_LEARNING_RATE,
    }


def label_name(label: str, positive: str) -> str:
    """The label feature's name, e.g. ``Status_is_bad``, made safe as feature names are."""
    return features.safe_name(f"{label}_is_{positive}")


def literal(text: str) -> str:
    """A Python string literal in double quotes (as ruff formats them)."""
    return json.dumps(text)

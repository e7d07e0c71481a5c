"""The declaration types every dataset is described with, and the names derived from them.

A dataset (``datasets/<name>``) declares its typed features, label, slices
and thresholds as a ``DatasetDeclaration``; the Transform ``preprocessing_fn``, the model, the
serving signatures, the Evaluator config and the tests derive feature names, kinds
and sizes from that declaration. Nothing else types a feature name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any

from modules.hparams import HParams

# The smallest slice the slice bound judges, unless a dataset says otherwise: below it
# one or two rows move a slice's interval (docs/decisions/evaluation-cost.md).
SLICE_MIN_ROWS = 100
# The token a missing text or code value becomes (Transform, and the drafting rules): a
# category of its own, so the model learns what absence means.
MISSING_TOKEN = "__missing__"


class Scaling(Enum):
    """How a dense numeric column is scaled before it reaches the model."""

    # Heavy-tailed money, distance and duration columns: log1p, then z-score.
    LOG_Z = "log_z"
    Z = "z"


class NumberText(Enum):
    """How a numeric column written as text marks its decimals: its cells are read as numbers.

    A cell may carry a currency sign or code (``$``, ``€``, ``USD``), a percent sign
    (dropped: ``12.5%`` is 12.5), a sign or parentheses for a negative (``(1,234.00)``
    is -1234), and a thousands separator other than the decimal mark (``,``, ``.``,
    a space or ``'``) between groups of three digits. A cell that reads otherwise is
    missing.
    """

    DECIMAL_POINT = "."  # 12,345.67  12 345.67  12'345.67  $1,234
    DECIMAL_COMMA = ","  # 12.345,67  12 345,67  1.234 €


@dataclass(frozen=True)
class Numeric:
    """A numeric raw column fed to the deep part as one scaled float.

    ``missing_indicator`` adds a 0/1 feature saying the value was absent (or not a
    finite number), for columns whose missingness carries signal.
    """

    name: str
    scaling: Scaling
    missing_indicator: bool = False
    bucket_count: int = 0  # > 0: also quantile buckets for the wide part and crosses.
    # > 0: also a piecewise-linear encoding over this many quantile intervals, for the
    # deep part (see ``piecewise_name``); at least 3 (two boundaries). Its boundaries
    # are its own, finer than the buckets': a part is one float to the deep part, where
    # a bucket is a one-hot column of the wide part and of every cross it is in.
    piecewise_bins: int = 0
    # Set: the column's cells are numbers written as text, read this way (Transform).
    text: NumberText | None = None

    def __post_init__(self) -> None:
        if self.piecewise_bins and self.piecewise_bins < 3:
            raise ValueError(
                f"numeric {self.name}: piecewise_bins must be 0 or at least 3, "
                f"got {self.piecewise_bins}"
            )

    def piecewise_name(self) -> str:
        """The name of its piecewise-linear encoding: one feature of ``piecewise_width`` floats.

        ``piecewise_bins`` quantile intervals have ``piecewise_bins - 1`` boundaries b_i;
        part i is clip((x - b_i) / (b_{i+1} - b_i), 0, 1), the fraction of the interval
        between two boundaries that x has passed (Gorishniy et al. 2022, "On Embeddings
        for Numerical Features in Tabular Deep Learning"). Below the first boundary and
        above the last, the z-scored value carries the trend. The parts are one
        feature, not one each: every feature costs Transform, the model's inputs, the
        export and the Evaluator a tensor of its own.
        """
        return f"{self.name}_piecewise"

    @property
    def piecewise_width(self) -> int:
        """How many parts its piecewise-linear encoding has: one per pair of adjacent boundaries."""
        return max(0, self.piecewise_bins - 2)


@dataclass(frozen=True)
class IntegerRange:
    """An integer raw column with a known range [low, high], used as a category."""

    name: str
    low: int
    high: int

    @property
    def size(self) -> int:
        """Number of ids: one per value in the range, plus one for out of range."""
        return self.high - self.low + 2


@dataclass(frozen=True)
class Vocabulary:
    """A string or integer raw column mapped to ids by a vocabulary over the train data.

    Ids are ``[0, vocabulary size)`` for the ``top_k`` most frequent values and
    ``num_oov_buckets`` further ids for values the vocabulary has not seen.
    """

    name: str
    top_k: int
    num_oov_buckets: int = 1
    missing_indicator: bool = False


@dataclass(frozen=True)
class Hashed:
    """A high-cardinality id column hashed into ``hash_buckets`` ids.

    Needs no analyzer over the data; a missing value hashes as a token of its own.
    """

    name: str
    hash_buckets: int
    missing_indicator: bool = False


class TimeFormat(Enum):
    """How a date or timestamp column is written.

    The dates' fields in their order, with a 4-digit year and any of ``-``, ``/``,
    ``.`` between them; a time may follow (``13:45``, ``13:45:07``, ``1:45 PM``, after
    a space or ``T``, with an ignored ``Z`` or offset: the clock time as written is
    what people live by). Or whole seconds since 1970-01-01 UTC, an integer column.
    """

    YMD = "ymd"  # 2024-01-31, 2024-01-31 13:45:07, 2024-01-31T13:45:07Z
    MDY = "mdy"  # 01/31/2024, 1/31/2024 1:45 PM
    DMY = "dmy"  # 31.01.2024, 31/01/2024 13:45
    UNIX_SECONDS = "unix_seconds"  # 1706708707


@dataclass(frozen=True)
class Timestamp:
    """A date or timestamp column, fed to the model as time features.

    The time of day on a circle (``time_of_day``: the column holds times), the day of
    the year on a circle, the years since 1970 z-scored (the data's age: the same
    after z-scoring as the years since the data's start) and the day of the week as a
    category. A missing or unreadable cell has every circle at its centre (0, 0), the
    mean age and a weekday id of its own; ``missing_indicator`` adds a 0/1 feature.
    """

    name: str
    written: TimeFormat
    time_of_day: bool = True
    missing_indicator: bool = False

    # Monday to Sunday, and one id for a missing date.
    WEEKDAY_IDS = 8

    def part_name(self, part: str) -> str:
        """The name of one of its features: ``time_sin``, ``year_cos``, ``years``, ``weekday``..."""
        return f"{self.name}_{part}"

    def circle_names(self) -> tuple[str, ...]:
        """The names of its features on circles: the time of day's, the day of the year's."""
        circles = ("time_sin", "time_cos") if self.time_of_day else ()
        return tuple(self.part_name(p) for p in (*circles, "year_sin", "year_cos"))

    def dense_names(self) -> tuple[str, ...]:
        """The names of its float features (the weekday is categorical: ``weekday_name``)."""
        names = [*self.circle_names(), self.part_name("years")]
        if self.missing_indicator:
            names.append(missing_name(self.name))
        return tuple(names)

    @property
    def weekday_name(self) -> str:
        """The name of its day-of-week feature: ids 0 (Monday) to 6, 7 when missing."""
        return self.part_name("weekday")


@dataclass(frozen=True)
class Cross:
    """A hashed cross of categorical features, for the wide part."""

    sources: tuple[str, ...]
    hash_buckets: int

    @property
    def name(self) -> str:
        """The cross's feature name, e.g. ``trip_start_hour_x_trip_start_day``."""
        return "_x_".join(self.sources)


@dataclass(frozen=True)
class TreeLeaves:
    """Boosted trees fit by Transform on the train split, whose leaves join the wide part.

    The leaf an example reaches in each tree is a category of the wide part (He et al.
    2014, "Practical Lessons from Predicting Clicks on Ads at Facebook"). The trees read
    the raw columns (``DatasetDeclaration.tree_columns``): numbers as read (a missing one
    below all), codes, each vocabulary token's hash and a timestamp's circles and
    weekday. So the wide part can weigh a rule such as "day minutes above 250 and no
    voice-mail plan", which on the benchmark suite's mlc_churn (5,000 rows) neither the
    crosses of buckets nor the ReLU network had found. The leaves are one feature of
    ``trees`` ids, tree t's leaf l as id ``t * leaves + l``.
    """

    trees: int = 30
    depth: int = 3
    # The rows the trees are fit on, at most: beyond, those of the train split whose
    # content hashes lowest (modules/tree_leaves.py), the same rows however they are read.
    max_rows: int = 50_000

    NAME = "tree_leaves"

    def __post_init__(self) -> None:
        if self.trees < 1 or not 1 <= self.depth <= 8 or self.max_rows < 2:
            raise ValueError(
                f"tree leaves: trees must be positive, depth in 1..8 and max_rows at least 2, "
                f"got {self.trees}, {self.depth} and {self.max_rows}"
            )

    @property
    def leaves(self) -> int:
        """Leaves per tree: each tree is padded to a complete one of ``depth`` levels."""
        return 2**self.depth

    @property
    def cardinality(self) -> int:
        """The ids of all trees' leaves."""
        return self.trees * self.leaves


@dataclass(frozen=True)
class HistoryColumns:
    """An entity's history: the columns it is read from, and the three it adds to each row.

    ExampleGen computes them (``data_layout.entity_history``) from the rows of the
    entity's strictly earlier periods: its labelled rows, their positive rate and its
    latest period's, never the row's own label nor a later period.
    """

    entity: str
    period: str
    label: str
    positive: str

    def to_json(self) -> str:
        """As ExampleGen's execution property holds it (and its span encodings' key)."""
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> HistoryColumns:
        """The columns ``to_json`` wrote."""
        return cls(**json.loads(text))

    def names(self) -> tuple[str, str, str]:
        """The added columns: rows before, positive rate before, the latest period's rate."""
        return (
            f"{self.entity}_rows_before",
            f"{self.entity}_rate_before",
            f"{self.entity}_last",
        )


@dataclass(frozen=True)
class Label:
    """The binary label ``name``, computed from the raw ``columns`` (absent when serving).

    With ``positive`` the label is 1 where ``columns[0]`` equals it (compared as
    text, spaces stripped); without, the dataset's ``transform_hooks`` module
    computes it in its ``label(inputs)``.
    """

    name: str
    columns: tuple[str, ...]
    positive: str | None = None


def safe_name(name: str) -> str:
    """``name`` with every character a TensorFlow op or Keras layer name cannot hold as ``_``.

    So raw column names need not be Python identifiers. A name would then start with
    ``_``, which no TensorFlow scope may: it gets ``column`` before it (``_id`` ->
    ``column_id``, ``(x)`` -> ``column_x_``).
    """
    safe = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return f"column{safe}" if safe.startswith("_") else safe


def serving_argument(column: str) -> str:
    """The ``serving_raw`` signature's argument for raw ``column``: its safe name.

    But ``column_self`` for ``self``, the name of the first argument of TensorFlow's
    own wrapper of a signature, which another argument cannot take.
    """
    name = safe_name(column)
    return "column_self" if name == "self" else name


def transformed_name(name: str) -> str:
    """The name a feature has after Transform (``fare`` -> ``fare_xf``), made safe."""
    return safe_name(name) + "_xf"


def missing_name(name: str) -> str:
    """The name of a column's 0/1 missing-value indicator feature."""
    return f"{name}_missing"


def bucket_name(name: str) -> str:
    """The name of a numeric column's quantile-bucket feature."""
    return f"{name}_bucket"


def vocabulary_file(name: str) -> str:
    """The Transform vocabulary file name of a vocabulary feature."""
    return "vocab_" + safe_name(name)


@dataclass(frozen=True)
class DatasetDeclaration:
    """One table's declarations: what the pipeline reads, computes and judges.

    ``transform_hooks`` names a module of the dataset's own TensorFlow code (kept out
    of the declaration so that reading it imports no TensorFlow): ``label(inputs)``
    when the label has no ``positive`` value, and ``extra_features(inputs)``, which
    returns the ``extra_dense_features`` from the ``extra_raw_columns``.
    """

    name: str
    label: Label
    numeric: tuple[Numeric, ...] = ()
    integer_ranges: tuple[IntegerRange, ...] = ()
    vocabularies: tuple[Vocabulary, ...] = ()
    hashed: tuple[Hashed, ...] = ()
    timestamps: tuple[Timestamp, ...] = ()
    crosses: tuple[Cross, ...] = ()
    # Columns the Evaluator slices by (each one costs TFMA time: keep the list short).
    slices: tuple[str, ...] = ()
    # The slice bound: while a model serves, no slice (a value of a ``slices`` column)
    # of at least ``slice_min_rows`` test rows may lose more than ``slice_max_auc_drop``
    # AUC against it beyond the noise of its rows (the paired bootstrap's 95% interval
    # wholly below the drop). None: slices are reported, not gated. Smaller slices are
    # never gated: on fewer rows a slice's interval rests on a handful of one class.
    slice_max_auc_drop: float | None = None
    slice_min_rows: int = SLICE_MIN_ROWS
    # The decision thresholds at which the review shows each slice's false positive and
    # false negative rates, with their counts and intervals (a score above one predicts
    # positive): those a deployment would pick.
    review_thresholds: tuple[float, ...] = (0.25, 0.5)
    # The error-rate bound: while a model serves, no slice of at least ``slice_min_rows``
    # test rows may have a false positive or false negative rate, at a review threshold,
    # above the serving model's by more than this beyond noise (Newcombe's 95% interval
    # of the gap wholly above it). None: the rates are reported, not gated.
    max_error_rate_rise: float | None = None
    # The column naming the entity each row is of (a customer, a patient, a machine):
    # without a test period ExampleGen keys its splits by it (TFX's
    # partition_feature_name), so all of an entity's rows land in one split and the test
    # split asks about unseen entities. "": rows are split one by one.
    entity: str = ""
    # A panel's period column (a year, a month as an ISO date): ExampleGen puts the rows of
    # its newest value into the test split, of the value before it into validation and
    # older ones into train, every entity in each: the test split asks how a model does
    # on the next period. "": the test split is hashed like the others.
    test_period: str = ""
    # With an entity and a test period: ExampleGen adds to each row what the entity's
    # earlier periods say (``HistoryColumns.names``: its labelled rows, their positive
    # rate, its latest period's rate), which the dataset may declare as features.
    entity_history: bool = False
    # Raw columns present in the data but not fed to the model, and why.
    unused_columns: Mapping[str, str] = field(default_factory=dict)
    # The candidate's AUC on the blessing split must reach this to be pushed.
    min_auc: float = 0.5
    # The serving signatures' output name.
    prediction_key: str = "probability"
    # KFP allows [a-z0-9-] only; empty: the dataset's name, hyphenated, + "-wide-deep".
    pipeline_name: str = ""
    transform_hooks: str = ""
    extra_raw_columns: tuple[str, ...] = ()
    extra_dense_features: tuple[str, ...] = ()
    # Set: boosted trees' leaves are a feature of the wide part (``TreeLeaves``).
    tree_leaves: TreeLeaves | None = None
    # Training settings of this table (modules/hparams.py names), in place of HParams'
    # defaults; a runner's --hparam still wins. The drafter sets them from the table's size.
    hparams: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        try:
            HParams().overridden(self.hparams)
        except ValueError as err:
            raise ValueError(f"dataset {self.name}: {err}") from None
        self._check_slice_bound()
        if not self.pipeline_name:
            name = self.name.lower().replace("_", "-")
            object.__setattr__(self, "pipeline_name", f"{name}-wide-deep")
        names = [
            *self.dense_features(),
            *self.categorical_features(),
            *self.cross_features(),
            *self.leaf_features(),
            self.label_key,
        ]
        clashes = sorted({n for n in names if names.count(n) > 1})
        if clashes:
            raise ValueError(f"dataset {self.name}: feature names {clashes} are declared twice")
        arguments = [serving_argument(c) for c in self.raw_feature_columns()]
        clashes = sorted({a for a in arguments if arguments.count(a) > 1})
        if clashes:
            raise ValueError(
                f"dataset {self.name}: raw columns become the same serving argument {clashes}; "
                "rename one of them"
            )
        if self.tree_leaves and not self.tree_columns():
            raise ValueError(f"dataset {self.name}: tree leaves need a column the trees can read")
        if self.entity_history and not (
            self.entity and self.test_period and self.label.positive is not None
        ):
            raise ValueError(
                f"dataset {self.name}: entity_history needs an entity, a test_period and a "
                "label with a positive value"
            )

    def history_columns(self) -> HistoryColumns | None:
        """What ExampleGen reads and adds for the entity's history (None: not declared)."""
        if not self.entity_history:
            return None
        assert self.label.positive is not None  # checked on construction
        return HistoryColumns(
            self.entity, self.test_period, self.label.columns[0], self.label.positive
        )

    def _check_slice_bound(self) -> None:
        if self.slice_min_rows < 1:
            raise ValueError(
                f"dataset {self.name}: slice_min_rows must be positive, got {self.slice_min_rows}"
            )
        outside = [t for t in self.review_thresholds if not 0.0 < t < 1.0]
        if outside or not self.review_thresholds:
            raise ValueError(
                f"dataset {self.name}: review_thresholds must be one or more numbers "
                f"between 0 and 1, got {self.review_thresholds}"
            )
        rise = self.max_error_rate_rise
        if rise is not None and not 0.0 <= rise <= 1.0:
            raise ValueError(
                f"dataset {self.name}: max_error_rate_rise must be in [0, 1], got {rise}"
            )
        if self.slice_max_auc_drop is None:
            return
        if not 0.0 <= self.slice_max_auc_drop <= 1.0:
            raise ValueError(
                f"dataset {self.name}: slice_max_auc_drop must be in [0, 1], "
                f"got {self.slice_max_auc_drop}"
            )
        if not self.slices:
            raise ValueError(f"dataset {self.name}: a slice bound needs slices to bound")

    @property
    def label_key(self) -> str:
        """The transformed label's name, as the Trainer and the Evaluator read it."""
        return transformed_name(self.label.name)

    def raw_feature_columns(self) -> tuple[str, ...]:
        """The raw columns the model reads, in a fixed order (no label)."""
        names = [f.name for f in self.numeric]
        names += [f.name for f in self.integer_ranges]
        names += [f.name for f in self.vocabularies]
        names += [f.name for f in self.hashed]
        names += [f.name for f in self.timestamps]
        names += self.extra_raw_columns
        return tuple(dict.fromkeys(names))

    def label_source_columns(self) -> tuple[str, ...]:
        """The raw columns the label needs that the model does not read."""
        features = set(self.raw_feature_columns())
        return tuple(c for c in self.label.columns if c not in features)

    def dense_features(self) -> tuple[str, ...]:
        """Transformed names of the float features the deep part reads directly.

        Each is one float per example, except a piecewise-linear encoding: ``dense_widths``.
        """
        names = [f.name for f in self.numeric]
        names += [f.piecewise_name() for f in self.numeric if f.piecewise_bins]
        names += [missing_name(f.name) for f in self.numeric if f.missing_indicator]
        names += [missing_name(f.name) for f in self.vocabularies if f.missing_indicator]
        names += [missing_name(f.name) for f in self.hashed if f.missing_indicator]
        names += [n for f in self.timestamps for n in f.dense_names()]
        names += self.extra_dense_features
        return tuple(transformed_name(n) for n in names)

    def dense_widths(self) -> dict[str, int]:
        """How many floats each of ``dense_features`` holds per example, by transformed name."""
        widths = dict.fromkeys(self.dense_features(), 1)
        widths.update(
            {
                transformed_name(f.piecewise_name()): f.piecewise_width
                for f in self.numeric
                if f.piecewise_bins
            }
        )
        return widths

    def categorical_features(self) -> tuple[str, ...]:
        """Transformed names of the integer-id features (one-hot in wide, embedded in deep)."""
        names = [f.name for f in self.integer_ranges]
        names += [f.name for f in self.vocabularies]
        names += [f.name for f in self.hashed]
        names += [bucket_name(f.name) for f in self.numeric if f.bucket_count]
        names += [f.weekday_name for f in self.timestamps]
        return tuple(transformed_name(n) for n in names)

    def cross_features(self) -> tuple[str, ...]:
        """Transformed names of the hashed crosses (wide part only)."""
        return tuple(transformed_name(c.name) for c in self.crosses)

    def leaf_features(self) -> tuple[str, ...]:
        """The transformed name of the trees' leaves, when declared: ``tree_leaves.trees`` ids."""
        return (transformed_name(TreeLeaves.NAME),) if self.tree_leaves else ()

    def tree_columns(self) -> tuple[str, ...]:
        """The raw columns the trees of ``tree_leaves`` split on, kind by kind.

        Numerics, integer ranges, vocabularies and timestamps, in the order
        ``preprocessing._tree_columns`` reads them (a timestamp gives several: its
        circles and weekday); not hashed ids (their order is the hash's) nor the hooks'
        extras.
        """
        kinds = (self.numeric, self.integer_ranges, self.vocabularies, self.timestamps)
        return tuple(f.name for kind in kinds for f in kind)

    def fixed_cardinalities(self) -> dict[str, int]:
        """Id-space sizes known before any data is seen, by transformed name.

        Vocabulary sizes depend on the data; the trainer reads them from Transform's
        output (see ``vocabulary_file``).
        """
        sizes = {transformed_name(f.name): f.size for f in self.integer_ranges}
        # Quantile buckets, plus one for a missing value.
        sizes.update(
            {
                transformed_name(bucket_name(f.name)): f.bucket_count + 1
                for f in self.numeric
                if f.bucket_count
            }
        )
        sizes.update({transformed_name(h.name): h.hash_buckets for h in self.hashed})
        sizes.update({transformed_name(t.weekday_name): t.WEEKDAY_IDS for t in self.timestamps})
        sizes.update({transformed_name(c.name): c.hash_buckets for c in self.crosses})
        return sizes

"""The single source of truth for the taxi data's features and label.

Every other part of the project (the Transform ``preprocessing_fn``, the model, the
serving signatures, the Evaluator config and the tests) derives feature names, kinds
and sizes from the declarations here. Nothing else types a feature name.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Scaling(Enum):
    """How a dense numeric column is scaled before it reaches the model."""

    # Heavy-tailed money, distance and duration columns: log1p, then z-score.
    LOG_Z = "log_z"
    Z = "z"


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
    """A high-cardinality id column (census tracts) hashed into ``hash_buckets`` ids.

    Needs no analyzer over the data; a missing value hashes as a token of its own.
    """

    name: str
    hash_buckets: int
    missing_indicator: bool = False


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
class Label:
    """The binary label: the tip was more than ``tip_fraction`` of the fare."""

    name: str
    tips_column: str
    fare_column: str
    tip_fraction: float


NUMERIC: tuple[Numeric, ...] = (
    Numeric("fare", Scaling.LOG_Z, bucket_count=20),
    Numeric("trip_miles", Scaling.LOG_Z),
    Numeric("trip_seconds", Scaling.LOG_Z),
    Numeric("pickup_latitude", Scaling.Z, bucket_count=10),
    Numeric("pickup_longitude", Scaling.Z, bucket_count=10),
    # About 3% of trips have no dropoff location: often the ones that were never
    # settled by card, so the absence is itself informative.
    Numeric("dropoff_latitude", Scaling.Z, missing_indicator=True, bucket_count=10),
    Numeric("dropoff_longitude", Scaling.Z, bucket_count=10),
)

INTEGER_RANGES: tuple[IntegerRange, ...] = (
    IntegerRange("trip_start_hour", 0, 23),
    IntegerRange("trip_start_day", 1, 7),
    IntegerRange("trip_start_month", 1, 12),
    IntegerRange("pickup_community_area", 1, 77),
    IntegerRange("dropoff_community_area", 1, 77),
)

VOCABULARIES: tuple[Vocabulary, ...] = (
    Vocabulary("payment_type", top_k=10),
    Vocabulary("company", top_k=60, missing_indicator=True),
)

HASHED: tuple[Hashed, ...] = (Hashed("dropoff_census_tract", 256, missing_indicator=True),)

TIMESTAMP = "trip_start_timestamp"
# Time features derived from TIMESTAMP: the hour of the day on a circle, and the
# trip's age (tipping habits drift over the years the data covers).
HOUR_SIN = "hour_sin"
HOUR_COS = "hour_cos"
YEARS_SINCE_START = "years_since_start"
TIME_FEATURES: tuple[str, ...] = (HOUR_SIN, HOUR_COS, YEARS_SINCE_START)

# Raw columns present in the data but not fed to the model, and why.
UNUSED_COLUMNS: dict[str, str] = {
    "pickup_census_tract": "empty in every row of the shipped sample",
}

LABEL = Label(name="big_tip", tips_column="tips", fare_column="fare", tip_fraction=0.2)


def bucket_name(name: str) -> str:
    """The name of a numeric column's quantile-bucket feature."""
    return f"{name}_bucket"


CROSSES: tuple[Cross, ...] = (
    Cross((bucket_name("pickup_latitude"), bucket_name("pickup_longitude")), 400),
    Cross((bucket_name("dropoff_latitude"), bucket_name("dropoff_longitude")), 400),
    Cross(("trip_start_hour", "trip_start_day"), 200),
    Cross(("payment_type", "company"), 500),
    Cross(("payment_type", bucket_name("fare")), 200),
    Cross(("payment_type", "pickup_community_area"), 300),
    Cross(("payment_type", "dropoff_community_area"), 300),
)


def transformed_name(name: str) -> str:
    """The name a feature has after Transform (``fare`` -> ``fare_xf``)."""
    return f"{name}_xf"


def missing_name(name: str) -> str:
    """The name of a column's 0/1 missing-value indicator feature."""
    return f"{name}_missing"


def raw_feature_columns() -> tuple[str, ...]:
    """The raw columns the model reads, in a fixed order (no label)."""
    names = [f.name for f in NUMERIC]
    names += [f.name for f in INTEGER_RANGES]
    names += [f.name for f in VOCABULARIES]
    names += [f.name for f in HASHED]
    names.append(TIMESTAMP)
    return tuple(names)


def dense_features() -> tuple[str, ...]:
    """Transformed names of the float features the deep part reads directly."""
    names = [f.name for f in NUMERIC]
    names += [missing_name(f.name) for f in NUMERIC if f.missing_indicator]
    names += [missing_name(f.name) for f in VOCABULARIES if f.missing_indicator]
    names += [missing_name(f.name) for f in HASHED if f.missing_indicator]
    names += TIME_FEATURES
    return tuple(transformed_name(n) for n in names)


def categorical_features() -> tuple[str, ...]:
    """Transformed names of the integer-id features (one-hot in wide, embedded in deep)."""
    names = [f.name for f in INTEGER_RANGES]
    names += [f.name for f in VOCABULARIES]
    names += [f.name for f in HASHED]
    names += [bucket_name(f.name) for f in NUMERIC if f.bucket_count]
    return tuple(transformed_name(n) for n in names)


def cross_features() -> tuple[str, ...]:
    """Transformed names of the hashed crosses (wide part only)."""
    return tuple(transformed_name(c.name) for c in CROSSES)


def fixed_cardinalities() -> dict[str, int]:
    """Id-space sizes known before any data is seen, by transformed name.

    Vocabulary sizes depend on the data; the trainer reads them from Transform's
    output (see ``vocabulary_file``).
    """
    sizes = {transformed_name(f.name): f.size for f in INTEGER_RANGES}
    # Quantile buckets, plus one for a missing value.
    sizes.update(
        {
            transformed_name(bucket_name(f.name)): f.bucket_count + 1
            for f in NUMERIC
            if f.bucket_count
        }
    )
    sizes.update({transformed_name(h.name): h.hash_buckets for h in HASHED})
    sizes.update({transformed_name(c.name): c.hash_buckets for c in CROSSES})
    return sizes


def vocabulary_file(name: str) -> str:
    """The Transform vocabulary file name of a vocabulary feature."""
    return f"vocab_{name}"

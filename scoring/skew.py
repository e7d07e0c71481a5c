"""Skew on what the model scores: the scored rows against the data the model learned from.

A scoring run keeps a uniform sample of the rows it scored (``RowSample``, at most
``SAMPLE_ROWS``, so memory stays bounded at any input size), computes TFDV statistics of
it, and compares each feature with the serving model's training statistics (kept beside
the model by the Pusher) by the skew comparator the curated schema gives it:

* a categorical feature (``infinity_norm``): TFDV's L-infinity distance between the two
  value shares, as ``tfdv.validate_statistics`` computes it;
* a numeric feature (``jensen_shannon_divergence``): the Jensen-Shannon divergence
  (base 2) of the two samples' shares of the training data's deciles. TFDV's own
  divergence rebins two equal-width histograms as if values were uniform within a
  bucket, so one outlier that widens a range moves it: on rows of the very data the
  model learned from, a $700 fare made the taxi's fare 0.33 and its trip seconds 0.45.
  Deciles of the training data are what each side's share is measured on here, so an
  outlier moves one bucket's share by one row.

A feature over its threshold is named in the run's last lines; ``--fail-on-skew`` makes
the command exit 3 for schedulers. Each run's report and the sample's statistics are
kept in a folder of their own (``keep``): ``wide-deep-score`` records it in ML-Metadata
(``pipeline_ops.metadata.scoring_runs``), the Kubeflow scoring step as its output.
"""

from __future__ import annotations

import json
import math
import os
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from scoring.names import SKEW_FILE, STATISTICS_FILE

# The scored rows' sample: enough for a share's noise under 0.01 at three standard errors.
SAMPLE_ROWS = 100_000
# Fewer rows are not judged: a share's noise at three standard errors stays under 0.05.
MIN_ROWS = 1_000
L_INFINITY, JENSEN_SHANNON = "L-infinity", "Jensen-Shannon"


class RowSample:
    """A uniform sample of the rows seen, at most ``limit``, in bounded memory.

    Each row is kept with the current rate; when more than ``limit`` are kept, each is
    kept again with probability one half and the rate halves, so every row seen is in
    the sample with the same probability.
    """

    def __init__(self, limit: int = SAMPLE_ROWS, seed: int = 0) -> None:
        self.limit = limit
        self.rate = 1.0
        self.seen = 0
        self._kept: list[pa.RecordBatch] = []
        self._rows = 0
        self._random = np.random.default_rng(seed)

    def add(self, batch: pa.RecordBatch) -> None:
        """Offer ``batch``'s rows to the sample."""
        self.seen += batch.num_rows
        self._keep(batch, self.rate)

    def merge(self, other: RowSample) -> None:
        """Take in ``other``, a sample of other rows: a sample of both, rows kept alike.

        Both are thinned to the lower of the two rates first, so every row either saw
        is kept with one probability (a folder's files, sampled each by a Beam worker).
        """
        rate = min(self.rate, other.rate)
        if self._rows and rate < self.rate:
            whole, self._kept, self._rows = self.batch(), [], 0
            self._keep(whole, rate / self.rate)
        self.rate = rate
        self.seen += other.seen
        if other._rows:
            self._keep(other.batch(), rate / other.rate)

    def _keep(self, batch: pa.RecordBatch, probability: float) -> None:
        """Keep each row of ``batch`` with ``probability``; halve the rate while over limit."""
        if probability < 1.0:
            batch = batch.filter(pa.array(self._random.random(batch.num_rows) < probability))
        self._kept.append(batch)
        self._rows += batch.num_rows
        while self._rows > self.limit:
            whole = self.batch()
            self._kept = [whole.filter(pa.array(self._random.random(whole.num_rows) < 0.5))]
            self._rows = self._kept[0].num_rows
            self.rate /= 2

    def save(self, path: Path) -> None:
        """Write the sample, its rate and the rows seen to ``path`` (Arrow's IPC file).

        Written aside and renamed: a reader of the folder never finds half a sample.
        """
        metadata = {b"rate": repr(self.rate).encode(), b"seen": str(self.seen).encode()}
        table = pa.Table.from_batches(self._kept) if self._kept else pa.table({})
        table = table.replace_schema_metadata(metadata)
        # Unique: a runner may run two attempts at one file side by side.
        partial = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.partial")
        with pa.OSFile(str(partial), "wb") as sink, pa.ipc.new_file(sink, table.schema) as out:
            out.write_table(table)
        os.replace(partial, path)

    @staticmethod
    def seen_in(path: Path) -> int:
        """The rows seen by the sample ``save`` wrote to ``path``, its rows left unread."""
        with pa.memory_map(str(path)) as source:
            return int(pa.ipc.open_file(source).schema.metadata[b"seen"])

    @classmethod
    def load(cls, path: Path, limit: int = SAMPLE_ROWS) -> RowSample:
        """The sample ``save`` wrote to ``path``."""
        with pa.memory_map(str(path)) as source:
            table = pa.ipc.open_file(source).read_all()
        sample = cls(limit)
        sample.rate = float(table.schema.metadata[b"rate"])
        sample.seen = int(table.schema.metadata[b"seen"])
        sample._kept = table.to_batches()
        sample._rows = table.num_rows
        return sample

    def batch(self) -> pa.RecordBatch:
        """The sample as one record batch."""
        return pa.Table.from_batches(self._kept).combine_chunks().to_batches()[0]


@dataclass(frozen=True)
class SkewMeasure:
    """One feature's distance between the scored rows and the model's training data."""

    feature: str
    measure: str  # L_INFINITY or JENSEN_SHANNON
    distance: float
    threshold: float

    @property
    def over(self) -> bool:
        """Whether the distance is over the schema's threshold."""
        return self.distance > self.threshold

    def line(self) -> str:
        """The measure in words."""
        sign = ">" if self.over else "<="
        return f"{self.feature}: {self.measure} {self.distance:.3f} {sign} {self.threshold:g}"


def decile_divergence(
    quantile_buckets: list[tuple[float, float, float]], values: np.ndarray
) -> float:
    """The Jensen-Shannon divergence (base 2) of ``values`` and the training data's shares.

    ``quantile_buckets``: the training statistics' quantile histogram as (low, high,
    count). A bucket of one value (low == high) is a point mass; edges shared by buckets
    are cut once, and values below the lowest or above the highest edge count in the
    first or last bucket.
    """
    edges = np.unique([b[0] for b in quantile_buckets[1:]] + [b[1] for b in quantile_buckets[:-1]])
    expected = np.zeros(len(edges) + 1)
    for low, _, count in quantile_buckets:
        expected[np.searchsorted(edges, low, side="right")] += count
    observed = np.bincount(np.searchsorted(edges, values, side="right"), minlength=len(expected))
    p, q = expected / expected.sum(), observed / max(observed.sum(), 1)
    middle = (p + q) / 2
    return float((_kl(p, middle) + _kl(q, middle)) / 2)


def _kl(p: np.ndarray, q: np.ndarray) -> float:
    shared = p > 0
    return float(np.sum(p[shared] * np.log2(p[shared] / q[shared])))


def _feature_stats(statistics: Any) -> dict[str, Any]:
    return {".".join(f.path.step) or f.name: f for f in statistics.datasets[0].features}


def _quantile_buckets(feature: Any) -> list[tuple[float, float, float]] | None:
    from tensorflow_metadata.proto.v0 import statistics_pb2

    for histogram in feature.num_stats.histograms:
        if histogram.type == statistics_pb2.Histogram.QUANTILES and histogram.buckets:
            return [(b.low_value, b.high_value, b.sample_count) for b in histogram.buckets]
    return None


def numeric_skew(schema: Any, training: Any, sample: pa.RecordBatch) -> list[SkewMeasure]:
    """Each numeric feature with a Jensen-Shannon comparator: its decile divergence."""
    trained = _feature_stats(training)
    found = []
    for feature in schema.feature:
        comparator = feature.skew_comparator
        if not comparator.HasField("jensen_shannon_divergence"):
            continue
        buckets = _quantile_buckets(trained[feature.name]) if feature.name in trained else None
        if buckets is None or feature.name not in sample.schema.names:
            continue
        values = sample.column(feature.name).flatten().to_numpy(zero_copy_only=False)
        values = values[~np.isnan(values.astype(float))]
        distance = decile_divergence(buckets, values) if len(values) else math.inf
        threshold = comparator.jensen_shannon_divergence.threshold
        found.append(SkewMeasure(feature.name, JENSEN_SHANNON, distance, threshold))
    return found


def categorical_skew(schema: Any, training: Any, scored: Any) -> list[SkewMeasure]:
    """Each feature with an L-infinity comparator: TFDV's distance between the value shares."""
    import tensorflow_data_validation as tfdv
    from tensorflow_metadata.proto.v0 import anomalies_pb2, schema_pb2

    only = schema_pb2.Schema()
    only.CopyFrom(schema)
    for feature in only.feature:
        if not feature.skew_comparator.HasField("infinity_norm"):
            feature.ClearField("skew_comparator")
    anomalies = tfdv.validate_statistics(
        training, only, environment="SERVING", serving_statistics=scored
    )
    l_infinity = anomalies_pb2.DriftSkewInfo.Measurement.Type.Value("L_INFTY")
    return [
        SkewMeasure(".".join(info.path.step), L_INFINITY, m.value, m.threshold)
        for info in anomalies.drift_skew_info
        for m in info.skew_measurements
        if m.type == l_infinity
    ]


@dataclass(frozen=True)
class SkewReport:
    """What a scoring run measured against the model's training data."""

    sample_rows: int
    scored_rows: int
    measures: tuple[SkewMeasure, ...]
    note: str = ""  # why nothing could be measured, if so

    @property
    def over(self) -> tuple[SkewMeasure, ...]:
        """The measures over their thresholds."""
        return tuple(m for m in self.measures if m.over)

    def as_dict(self) -> dict[str, Any]:
        """The report as JSON-ready values."""
        return {**asdict(self), "over": [m.feature for m in self.over]}

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> SkewReport:
        """The report ``as_dict`` gave (read back from ``SKEW_FILE``)."""
        measures = tuple(SkewMeasure(**m) for m in values["measures"])
        return cls(values["sample_rows"], values["scored_rows"], measures, values["note"])


def measure(
    schema_file: Path, training_statistics: Path, sample: RowSample
) -> tuple[SkewReport, Any]:
    """Every skew comparator of the schema on ``sample``; the report and the sample's statistics."""
    import tensorflow_data_validation as tfdv
    from tensorflow_data_validation.statistics import stats_impl

    batch = sample.batch()
    scored = stats_impl.generate_statistics_in_memory(batch, tfdv.StatsOptions())
    schema = tfdv.load_schema_text(str(schema_file))
    if sample.seen < MIN_ROWS:
        note = f"{sample.seen:,} rows are too few to judge (at least {MIN_ROWS:,})"
        return SkewReport(batch.num_rows, sample.seen, (), note), scored
    if not any(f.HasField("skew_comparator") for f in schema.feature):
        return SkewReport(
            batch.num_rows, sample.seen, (), f"{schema_file} sets no skew comparator"
        ), scored
    if not training_statistics.is_file():
        note = f"the model keeps no training statistics ({training_statistics} is absent)"
        return SkewReport(batch.num_rows, sample.seen, (), note), scored
    training = tfdv.load_stats_binary(str(training_statistics))
    measures = categorical_skew(schema, training, scored) + numeric_skew(schema, training, batch)
    ordered = tuple(sorted(measures, key=lambda m: m.feature))
    return SkewReport(batch.num_rows, sample.seen, ordered), scored


def training_statistics(model_path: str) -> Path:
    """Where a pushed model keeps its training data's statistics (TFX's FeatureStats.pb)."""
    from data_layout.serving_layout import TRAIN_SPLIT_DIR, TRAINING_STATISTICS

    return Path(model_path) / TRAINING_STATISTICS / TRAIN_SPLIT_DIR / "FeatureStats.pb"


def keep(folder: Path, report: SkewReport, statistics: Any) -> None:
    """Write ``report`` (``SKEW_FILE``) and the scored rows' statistics into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / STATISTICS_FILE).write_bytes(statistics.SerializeToString())
    (folder / SKEW_FILE).write_text(json.dumps(report.as_dict(), indent=1))


def lines(report: SkewReport) -> list[str]:
    """The report for people: a line per feature over its threshold, or why none is."""
    if report.note:
        return [f"Skew not measured: {report.note}."]
    head = (
        f"Skew against the model's training data, on {report.sample_rows:,} of the "
        f"{report.scored_rows:,} rows scored:"
    )
    if not report.over:
        return [f"{head} no feature over its threshold ({len(report.measures)} compared)."]
    return [head, *(f"  skewed: {m.line()}" for m in report.over)]

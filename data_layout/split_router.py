"""Which split an example goes to: TFX's hash split, keyed by an entity, or a newest period.

TFX's ExampleGen hashes each example's deterministic serialization (or, with
``partition_feature_name``, the serialization of one feature) into the splits'
buckets. This does the same on serialized examples without parsing them, so the
Arrow ExampleGen writes TFX's splits; and, for a panel's test period (which TFX's
SplitConfig cannot say), puts the rows of the period's newest value into ``test``, those
of the value before it into ``validation`` and the older ones into ``train``.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
from collections.abc import Sequence

import tensorflow as tf

from data_layout.csv_files import CsvFormatError
from data_layout.splits import TEST, TRAIN, VALIDATION


def _read_varint(data: bytes, start: int) -> tuple[int, int]:
    """The varint at ``start`` in ``data``, and the position after it."""
    value, shift = 0, 0
    while True:
        byte = data[start]
        value |= (byte & 0x7F) << shift
        start += 1
        if not byte & 0x80:
            return value, start
        shift += 7


def partition_key(example: bytes, name: bytes, role: str = "partition") -> bytes:
    """The serialized Feature ``name`` of a serialized Example, as TFX partitions by it.

    TFX's ``_GeneratePartitionKey`` (base_example_gen_executor.py): the feature's
    deterministic serialization; ValueError where the example lacks the feature, its
    feature holds no value, or its values are floats (naming the column's ``role``).
    """
    _, position = _read_varint(example, 1)  # the Features field of the Example
    while position < len(example):
        length, start = _read_varint(example, position + 1)  # a map entry
        end = start + length
        key_length, key_start = _read_varint(example, start + 1)
        if example[key_start : key_start + key_length] == name:
            feature_length, feature_start = _read_varint(example, key_start + key_length + 1)
            feature = example[feature_start : feature_start + feature_length]
            if not feature:
                raise ValueError(f"the {role} column {name.decode()!r} has no value")
            if feature[0] not in (0x0A, 0x1A):  # bytes_list (1), int64_list (3)
                raise ValueError(
                    f"the {role} column {name.decode()!r} holds floats: only text and "
                    "integer columns can key a split"
                )
            return feature
        position = end
    raise ValueError(f"no column {name.decode()!r}, the {role} column the splits follow")


def period_value(example: bytes, column: str) -> int | str:
    """The value of the period ``column`` in a serialized Example (ValueError: none)."""
    feature = tf.train.Feature.FromString(partition_key(example, column.encode(), "period"))
    values = feature.int64_list.value or [v.decode() for v in feature.bytes_list.value]
    if not values:  # an empty cell: which period the row is of is unknown
        raise ValueError(f"the period column {column!r} has no value in a row")
    return values[0]


class SplitRouter:
    """Which output split a serialized example belongs to, as CsvExampleGen decides it.

    With output splits, the example's bytes are hashed into the splits' buckets
    (SHA-256 of the deterministic serialization, as TFX hashes them), or those of its
    ``partition`` column's feature, so that all rows of one value share a split;
    without, every example of an input split goes to the split of the same name.
    With a ``period`` column the period decides alone (``with_newest`` sets its values):
    an example of its ``newest`` value goes to ``test``, of the ``previous`` one to
    ``validation`` (the model is chosen on how it does a period ahead, where knowing an
    entity pays), of an older one to ``train``.
    """

    def __init__(
        self,
        names: list[str],
        buckets: list[int] | None,
        partition: str = "",
        period: str = "",
        newest: int | str | None = None,
        previous: int | str | None = None,
    ) -> None:
        self.names = names
        self.buckets = list(buckets or [])
        self.partition, self.period = partition, period
        self.newest, self.previous = newest, previous
        if period and not {TRAIN, VALIDATION, TEST} <= set(names):
            raise ValueError(
                f"a test period needs {TRAIN}, {VALIDATION} and {TEST} splits, not {names}"
            )
        self._bounds = list(itertools.accumulate(self.buckets)) if buckets else None

    @classmethod
    def of(cls, buckets: Sequence[tuple[str, int]], partition: str = "") -> SplitRouter:
        """The router of (split, hash buckets) pairs, as a pipeline config holds them."""
        return cls([name for name, _ in buckets], [size for _, size in buckets], partition)

    def check_columns(self, path: str, names: list[str]) -> None:
        """CsvFormatError naming ``path`` where its header lacks a column the splits follow."""
        roles = (
            (self.partition, "the entity the splits are keyed by (the dataset's entity=)"),
            (self.period, "the period whose newest value is the test split (test_period=)"),
        )
        for column, role in roles:
            if column and column not in names:
                raise CsvFormatError(f"{path}: no column {column!r}, {role}")

    def with_newest(self, newest: int | str, previous: int | str | None) -> SplitRouter:
        """The router with its period's newest value and the one before it (None: none)."""
        return SplitRouter(self.names, self.buckets, self.partition, self.period, newest, previous)

    def __call__(self, example: bytes) -> int:
        """The index in ``names`` of the example's split."""
        if self._bounds is None:
            return 0
        if self.period:
            if self.newest is None:
                raise ValueError("the test period's newest value was never set (with_newest)")
            value = period_value(example, self.period)
            split = (
                TEST if value == self.newest else VALIDATION if value == self.previous else TRAIN
            )
            return self.names.index(split)
        key = partition_key(example, self.partition.encode()) if self.partition else example
        bucket = int(hashlib.sha256(key).hexdigest(), 16) % self._bounds[-1]
        return bisect.bisect(self._bounds, bucket)

"""The tf.data input pipeline: raw examples through Transform's graph, for training and eval."""

from __future__ import annotations

from collections.abc import Callable

import tensorflow as tf
import tensorflow_transform as tft

AUTOTUNE = tf.data.AUTOTUNE


def make_dataset(
    file_pattern: list[str],
    tf_transform_output: tft.TFTransformOutput,
    batch_size: int,
    *,
    label: str,
    training: bool,
    cache: bool,
    shuffle_buffer: int,
    seed: int,
) -> tf.data.Dataset:
    """(transformed features, ``label``'s values) batches of ``batch_size`` that repeat forever.

    Reads the raw examples with parallel reads and parsing and applies Transform's
    graph to each batch, through the same Keras layer the serving signatures use.
    With ``cache`` the transformed batches are kept in memory after the first pass,
    so later epochs cost no I/O, parsing or transformation; training data is then
    re-shuffled every epoch.
    """
    dataset = raw_batches(
        file_pattern,
        tf_transform_output.raw_feature_spec(),
        batch_size,
        shuffle_buffer=shuffle_buffer if training and not cache else 0,
        seed=seed,
        drop_remainder=training,
    )
    dataset = _sharded_by_element(_transformed(dataset, tf_transform_output, label))
    if cache:
        dataset = dataset.cache()
        if training:
            dataset = _reshuffled(dataset, batch_size, shuffle_buffer=shuffle_buffer, seed=seed)
    return dataset.repeat().prefetch(AUTOTUNE)


def _transformed(
    dataset: tf.data.Dataset, tf_transform_output: tft.TFTransformOutput, label: str
) -> tf.data.Dataset:
    """Raw batches through Transform's layer: (transformed features, ``label``'s values)."""
    transform = tf_transform_output.transform_features_layer()

    def apply_transform(raw: dict) -> tuple[dict, tf.Tensor]:
        features = transform(raw)
        return features, features.pop(label)

    return dataset.map(apply_transform, num_parallel_calls=AUTOTUNE)


def _sharded_by_element(dataset: tf.data.Dataset) -> tf.data.Dataset:
    """``dataset`` sharded by element among distributed workers, not by file."""
    # Several workers may read the same single file: shard by element, not by file.
    dist = tf.data.Options()
    dist.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    return dataset.with_options(dist)


def _reshuffled(
    dataset: tf.data.Dataset, batch_size: int, *, shuffle_buffer: int, seed: int
) -> tf.data.Dataset:
    """The cached batches of ``dataset`` dealt into fresh, shuffled batches every epoch."""
    # The cache holds batches in file order; unbatching before the shuffle
    # gives every epoch fresh batches, not the same ones reordered. Each
    # example is packed into one tensor per dtype first: tf.data's per-element
    # cost grows with the number of tensors (one per feature, unpacked).
    pack, unpack = packing(dataset.element_spec[0])
    return (
        dataset.map(pack, num_parallel_calls=AUTOTUNE)
        .unbatch()
        .shuffle(shuffle_buffer, seed=seed)
        .batch(batch_size, drop_remainder=True)
        .map(unpack, num_parallel_calls=AUTOTUNE)
    )


def raw_batches(
    file_pattern: list[str],
    feature_spec: dict[str, tf.io.VarLenFeature | tf.io.FixedLenFeature],
    batch_size: int,
    *,
    shuffle_buffer: int,
    seed: int,
    drop_remainder: bool,
) -> tf.data.Dataset:
    """Batches of raw examples parsed by ``feature_spec``, read and parsed on many threads.

    tfx_bsl's ``TFExampleRecord.TensorFlowDataset`` ignores ``parser_num_threads``
    and parses every batch on one thread (``parse_example_dataset`` with its default
    of one call at a time), which bounds the Trainer's input once the data no longer
    fits the cache. The records are ExampleGen's gzipped TFRecords, as tfx_bsl reads
    them (compression from the ``.gz`` suffix); files are read in a fixed order.
    """
    files = sorted(f for pattern in file_pattern for f in tf.io.gfile.glob(pattern))
    if not files:
        raise ValueError(f"no example files match {file_pattern}")
    compression = "GZIP" if all(f.endswith(".gz") for f in files) else ""
    records = tf.data.TFRecordDataset(
        files, compression_type=compression, num_parallel_reads=min(len(files), 8)
    )
    if shuffle_buffer:
        records = records.shuffle(shuffle_buffer, seed=seed)
    return records.batch(batch_size, drop_remainder=drop_remainder).map(
        lambda serialized: tf.io.parse_example(serialized, feature_spec),
        num_parallel_calls=AUTOTUNE,
    )


def packing(spec: dict[str, tf.TensorSpec]) -> tuple[Callable, Callable]:
    """Functions packing a batch's features into one [batch, n] tensor per dtype, and back."""
    groups: dict[tf.dtypes.DType, list[tuple[str, tf.TensorShape, int]]] = {}
    for name in sorted(spec):
        inner = spec[name].shape[1:]
        width = int(inner.num_elements()) if inner.rank else 1
        groups.setdefault(spec[name].dtype, []).append((name, inner, width))

    def pack(features: dict, label: tf.Tensor) -> tuple[tuple[tf.Tensor, ...], tf.Tensor]:
        packed = tuple(
            tf.concat([tf.reshape(features[n], [-1, w]) for n, _, w in members], axis=1)
            for members in groups.values()
        )
        return packed, label

    def unpack(packed: tuple[tf.Tensor, ...], label: tf.Tensor) -> tuple[dict, tf.Tensor]:
        features = {}
        for tensor, members in zip(packed, groups.values(), strict=True):
            parts = tf.split(tensor, [w for _, _, w in members], axis=1)
            for (name, inner, _), part in zip(members, parts, strict=True):
                features[name] = tf.reshape(part, [-1, *inner])
        return features, label

    return pack, unpack

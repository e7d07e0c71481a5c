"""The tf.data input pipeline: raw examples through Transform's graph, for training and eval."""

from __future__ import annotations

import tensorflow as tf
import tensorflow_transform as tft
from tfx.v1.components import DataAccessor
from tfx_bsl.public import tfxio

from modules import features as F

AUTOTUNE = tf.data.AUTOTUNE


def make_dataset(
    file_pattern: list[str],
    data_accessor: DataAccessor,
    tf_transform_output: tft.TFTransformOutput,
    batch_size: int,
    *,
    training: bool,
    cache: bool,
    shuffle_buffer: int,
    seed: int,
) -> tf.data.Dataset:
    """(transformed features, label) batches of ``batch_size`` that repeat forever.

    Reads the raw examples with parallel reads and parsing and applies Transform's
    graph to each batch, through the same Keras layer the serving signatures use.
    With ``cache`` the transformed batches are kept in memory after the first pass,
    so later epochs cost no I/O, parsing or transformation; training data is then
    re-shuffled every epoch.
    """
    options = tfxio.TensorFlowDatasetOptions(
        batch_size=batch_size,
        num_epochs=1,
        shuffle=training and not cache,
        shuffle_buffer_size=shuffle_buffer,
        shuffle_seed=seed,
        reader_num_threads=AUTOTUNE,
        parser_num_threads=AUTOTUNE,
        prefetch_buffer_size=AUTOTUNE,
        drop_final_batch=training,
    )
    dataset = data_accessor.tf_dataset_factory(
        file_pattern, options, tf_transform_output.raw_metadata.schema
    )
    transform = tf_transform_output.transform_features_layer()
    label = F.transformed_name(F.LABEL.name)

    def apply_transform(raw: dict) -> tuple[dict, tf.Tensor]:
        features = transform(raw)
        return features, features.pop(label)

    dataset = dataset.map(apply_transform, num_parallel_calls=AUTOTUNE)
    # Several workers may read the same single file: shard by element, not by file.
    dist = tf.data.Options()
    dist.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    dataset = dataset.with_options(dist)
    if cache:
        dataset = dataset.cache()
        if training:
            # The cache holds batches in file order; unbatching before the shuffle
            # gives every epoch fresh batches, not the same ones reordered.
            dataset = (
                dataset.unbatch()
                .shuffle(shuffle_buffer, seed=seed)
                .batch(batch_size, drop_remainder=True)
            )
    return dataset.repeat().prefetch(AUTOTUNE)

"""The training input: raw examples parsed as tfx_bsl parses them, and the packing.

Features survive the round trip through one tensor per dtype.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf
from tfx_bsl.public import tfxio

from modules.input_pipeline import packing, raw_batches


def test_pack_then_unpack_gives_the_features_back():
    features = {
        "fare_xf": tf.constant([[0.5], [1.5], [2.5]]),
        "hour_sin": tf.constant([0.1, 0.2, 0.3]),
        "company_xf": tf.constant([[3], [4], [5]], dtype=tf.int64),
        "cross": tf.constant([[1, 2], [3, 4], [5, 6]], dtype=tf.int64),
    }
    label = tf.constant([[1.0], [0.0], [1.0]])
    spec = {k: tf.TensorSpec([None, *v.shape[1:]], v.dtype) for k, v in features.items()}
    pack, unpack = packing(spec)
    packed, packed_label = pack(features, label)
    assert len(packed) == 2  # one tensor per dtype
    assert sorted(t.shape[1] for t in packed) == [2, 3]
    restored, restored_label = unpack(packed, packed_label)
    assert set(restored) == set(features)
    for name, value in features.items():
        assert restored[name].dtype == value.dtype
        np.testing.assert_array_equal(restored[name].numpy(), value.numpy())
    np.testing.assert_array_equal(restored_label.numpy(), label.numpy())


def test_examples_stay_whole_through_unbatch_and_shuffle():
    rows = np.arange(40, dtype=np.float32)
    features = {"a": rows.reshape(-1, 1), "b": (rows * 10).astype(np.int64), "c": rows * 100}
    data = tf.data.Dataset.from_tensor_slices((features, rows.reshape(-1, 1))).batch(8)
    pack, unpack = packing(data.element_spec[0])
    shuffled = data.map(pack).unbatch().shuffle(40, seed=1).batch(8).map(unpack)
    for batch, label in shuffled:
        np.testing.assert_array_equal(batch["a"].numpy(), label.numpy())
        np.testing.assert_array_equal(batch["b"].numpy(), label.numpy()[:, 0] * 10)
        np.testing.assert_allclose(batch["c"].numpy(), label.numpy()[:, 0] * 100)


def _write_examples(
    instances: list[dict[str, list]], spec: dict, folder: Path, shards: int
) -> list[str]:
    """The rows as gzipped tf.Example TFRecords, as ExampleGen writes them."""
    folder.mkdir()
    paths = [str(folder / f"data_tfrecord-{i:05d}-of-{shards:05d}.gz") for i in range(shards)]
    writers = [tf.io.TFRecordWriter(p, options="GZIP") for p in paths]
    for i, row in enumerate(instances):
        feature = {}
        for name, values in row.items():
            if spec[name].dtype == tf.string:
                feature[name] = tf.train.Feature(
                    bytes_list=tf.train.BytesList(value=[v.encode() for v in values])
                )
            elif spec[name].dtype == tf.float32:
                feature[name] = tf.train.Feature(float_list=tf.train.FloatList(value=values))
            else:
                feature[name] = tf.train.Feature(int64_list=tf.train.Int64List(value=values))
        example = tf.train.Example(features=tf.train.Features(feature=feature))
        writers[i % shards].write(example.SerializeToString())
    for writer in writers:
        writer.close()
    return paths


def _rows(batches: tf.data.Dataset) -> list[str]:
    """Every example of every batch as one sortable line: each feature's values, in order."""
    rows = []
    for batch in batches:
        columns = {k: tf.RaggedTensor.from_sparse(v).to_list() for k, v in batch.items()}
        rows += [repr(sorted((k, c[i]) for k, c in columns.items()))
                 for i in range(len(next(iter(columns.values()))))]  # fmt: skip
    return sorted(rows)


def test_parallel_parsing_gives_what_tfx_bsl_parses(transformed, tmp_path):
    spec = transformed.output.raw_feature_spec()
    files = _write_examples(transformed.instances, spec, tmp_path / "examples", shards=3)
    ours = raw_batches(
        [str(tmp_path / "examples" / "*")], spec, 64, shuffle_buffer=0, seed=0,
        drop_remainder=False,
    )  # fmt: skip
    options = tfxio.TensorFlowDatasetOptions(batch_size=64, num_epochs=1, shuffle=False)
    schema = transformed.output.raw_metadata.schema
    theirs = tfxio.TFExampleRecord(file_pattern=files, schema=schema).TensorFlowDataset(options)
    assert ours.element_spec == theirs.element_spec
    expected = _rows(theirs)
    assert len(expected) == len(transformed.instances) == 400
    assert _rows(ours) == expected


def test_no_example_files_is_one_clear_error(tmp_path):
    with pytest.raises(ValueError, match=r"no example files match \['.*/none/\*'\]"):
        raw_batches([str(tmp_path / "none" / "*")], {}, 8, shuffle_buffer=0, seed=0,
                    drop_remainder=False)  # fmt: skip

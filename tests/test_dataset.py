"""The training input's packing: features survive the round trip through one tensor per dtype."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from modules.dataset import packing


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

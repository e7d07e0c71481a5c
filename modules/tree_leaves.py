"""Boosted trees fit in Transform's analysis, and the leaves each example reaches.

Transform's analysis samples the train split's rows of the trees' columns and label
(``features.DatasetDeclaration.tree_columns``) by a hash of their content, fits
scikit-learn's gradient-boosted trees on the sample once, and hands each tree back as
two constant arrays in heap order: a complete tree of ``depth`` levels, whose node i
splits on ``feature[i]`` at ``threshold[i]`` and has children 2i + 1 (value at most
the threshold) and 2i + 2. A branch the fitted tree ended early is padded with splits
everyone passes to the left.
The leaves are then found in the TensorFlow graph, by ``depth`` gathers, so that
training, evaluation and serving compute them alike, with no scikit-learn at serving.
"""

from __future__ import annotations

from collections.abc import Iterable

import apache_beam as beam
import numpy as np
import tensorflow as tf
import tensorflow_transform as tft

from modules.features import TreeLeaves

# The fitting's settings other than size: shrinkage as scikit-learn's default, and a
# fixed seed with the rows sorted first, so that the same rows give the same trees.
LEARNING_RATE = 0.1
SEED = 0
# Where a missing number goes: the lowest float32, below every value a column holds.
MISSING = float(np.finfo(np.float32).min)


def heap_arrays(tree, depth: int) -> tuple[np.ndarray, np.ndarray]:  # noqa: ANN001 - sklearn Tree
    """A fitted scikit-learn ``tree_`` as a complete tree's (feature, threshold) in heap order.

    The thresholds are float32, rounded down: a float32 value is at most one exactly
    when it is at most the float64 threshold scikit-learn compares it with.
    """
    nodes = 2**depth - 1
    feature = np.zeros(nodes, np.int32)
    threshold = np.full(nodes, np.inf, np.float32)

    def place(node: int, at: int) -> None:
        if at >= nodes:
            return
        left, right = tree.children_left[node], tree.children_right[node]
        if left < 0:  # a leaf above the last level: its rows all go left (the right is unused)
            place(node, 2 * at + 1)
            return
        exact = tree.threshold[node]
        rounded = np.float32(exact)
        if rounded > exact:
            rounded = np.nextafter(rounded, np.float32(-np.inf))
        feature[at], threshold[at] = tree.feature[node], rounded
        place(left, 2 * at + 1)
        place(right, 2 * at + 2)

    place(0, 0)
    return feature, threshold


def fit(x: np.ndarray, y: np.ndarray, spec: TreeLeaves) -> tuple[np.ndarray, np.ndarray]:
    """Trees fit on rows ``x`` [n, inputs] and labels ``y``: features, thresholds [trees, nodes].

    Rows are sorted first (Beam hands them over in no fixed order). No rows, or a label
    of one class, give trees with no split.
    """
    from sklearn.ensemble import GradientBoostingClassifier  # only where Transform analyzes

    nodes = 2**spec.depth - 1
    features = np.zeros((spec.trees, nodes), np.int32)
    thresholds = np.full((spec.trees, nodes), np.inf, np.float32)
    if len(np.unique(y)) < 2:
        return features, thresholds
    order = np.lexsort(np.column_stack([x, y]).T)
    boosted = GradientBoostingClassifier(
        n_estimators=spec.trees,
        max_depth=spec.depth,
        learning_rate=LEARNING_RATE,
        random_state=SEED,
    ).fit(x[order], y[order])
    for t, (regressor,) in enumerate(boosted.estimators_):
        features[t], thresholds[t] = heap_arrays(regressor.tree_, spec.depth)
    return features, thresholds


# FNV-1a's 64-bit offset and prime, then splitmix64's finaliser, on each row's words.
_FNV_OFFSET, _FNV_PRIME = np.uint64(0xCBF29CE484222325), np.uint64(0x100000001B3)
_MIX = (np.uint64(0xFF51AFD7ED558CCD), np.uint64(0xC4CEB9FE1A85EC53))


def row_keys(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row's content (its float32 bits and its label).

    The rows of smallest key are the sample the trees are fit on: a row has the same
    key however Beam batches and orders the rows, so the same data gives the same sample.
    """
    words = np.column_stack([np.ascontiguousarray(x, np.float32).view(np.uint32), y])
    key = np.full(len(words), _FNV_OFFSET)
    for column in words.astype(np.uint64).T:
        key = (key ^ column) * _FNV_PRIME
    for multiplier in _MIX:
        key = (key ^ (key >> np.uint64(33))) * multiplier
    return key ^ (key >> np.uint64(33))


class _Sample(beam.CombineFn):
    """Batches of (inputs, label) to the ``max_rows`` rows of smallest ``row_keys``.

    Each accumulator holds at most twice that many rows, so the train split is never
    gathered in one place (1.5M rows of 30 columns would be 190 MB there, before copies).
    """

    def __init__(self, max_rows: int) -> None:
        super().__init__()
        self._max_rows = max_rows

    def create_accumulator(self) -> list:
        """Parts of (keys, inputs, labels)."""
        return []

    def add_input(self, parts: list, batch: tuple[np.ndarray, np.ndarray]) -> list:
        """``batch``'s rows added, the parts cut down once they hold twice the sample."""
        x = np.asarray(batch[0], np.float32)
        y = np.asarray(batch[1]).reshape(-1).astype(np.int64)
        parts.append((row_keys(x, y), x, y))
        return self._cut(parts) if sum(len(p[0]) for p in parts) > 2 * self._max_rows else parts

    def merge_accumulators(self, accumulators: Iterable[list]) -> list:
        """All accumulators' rows, cut down to the sample."""
        return self._cut([part for parts in accumulators for part in parts])

    def extract_output(self, parts: list) -> tuple[np.ndarray, np.ndarray]:
        """The sample's inputs [rows, columns] and labels [rows] (no rows: both empty)."""
        if not parts:
            return np.empty((0, 0), np.float32), np.empty(0, np.int64)
        _, x, y = self._cut(parts)[0]
        return x, y

    def _cut(self, parts: list) -> list:
        if not parts:
            return parts
        keys, x, y = (np.concatenate(arrays) for arrays in zip(*parts, strict=True))
        if len(keys) > self._max_rows:
            kept = np.argpartition(keys, self._max_rows - 1)[: self._max_rows]
            keys, x, y = keys[kept], x[kept], y[kept]
        return [(keys, x, y)]


class _FitTrees(beam.PTransform):
    """Batches of (inputs, label) to one (features, thresholds) pair, as two PCollections."""

    def __init__(self, spec: TreeLeaves) -> None:
        super().__init__()
        self._spec = spec

    def expand(self, batches: beam.PCollection) -> tuple[beam.PCollection, beam.PCollection]:
        spec = self._spec
        trees = (
            batches
            | "Sample" >> beam.CombineGlobally(_Sample(spec.max_rows))
            | "Fit" >> beam.Map(lambda sample: fit(*sample, spec))
        )
        return (
            trees | "Features" >> beam.Map(lambda t: t[0]),
            trees | "Thresholds" >> beam.Map(lambda t: t[1]),
        )


def leaves(x: tf.Tensor, features: tf.Tensor, thresholds: tf.Tensor) -> tf.Tensor:
    """Leaf ids [batch, trees] of rows ``x`` [batch, inputs]: tree t's leaf l is t * 2^depth + l."""
    trees, nodes = features.shape
    depth = int(np.log2(nodes + 1))
    flat_features, flat_thresholds = tf.reshape(features, [-1]), tf.reshape(thresholds, [-1])
    first = tf.range(trees, dtype=tf.int32) * nodes
    node = tf.zeros([tf.shape(x)[0], trees], tf.int32)
    for _ in range(depth):
        at = first + node
        value = tf.gather(x, tf.gather(flat_features, at), batch_dims=1)
        node = 2 * node + 1 + tf.cast(value > tf.gather(flat_thresholds, at), tf.int32)
    leaf = node - nodes
    return tf.cast(tf.range(trees, dtype=tf.int32) * (nodes + 1) + leaf, tf.int64)


def tree_leaves(spec: TreeLeaves, inputs: tuple[tf.Tensor, ...], label: tf.Tensor) -> tf.Tensor:
    """Leaf ids [batch, trees] of trees Transform fits on ``inputs`` ([batch] each), ``label``."""
    with tf.name_scope("tree_columns"):
        x = tf.stack([tf.cast(t, tf.float32) for t in inputs], axis=1)
        # A missing number (NaN) below every present one: scikit-learn takes no NaN here.
        x = tf.where(tf.math.is_nan(x), MISSING, x)
    nodes = 2**spec.depth - 1
    features, thresholds = tft.experimental.ptransform_analyzer(
        [x, label],
        _FitTrees(spec),
        output_dtypes=[tf.int32, tf.float32],
        output_shapes=[[spec.trees, nodes], [spec.trees, nodes]],
        name="tree_leaves",
    )
    return leaves(x, features, thresholds)

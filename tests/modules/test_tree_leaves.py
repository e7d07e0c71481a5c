"""Boosted trees fit in a real tf.Transform analysis, their leaves found in the graph."""

from __future__ import annotations

import random
from types import SimpleNamespace

import numpy as np
import pytest
import tensorflow as tf
from sklearn.ensemble import GradientBoostingClassifier
from transform_run import analyze_and_write

from modules import tree_leaves
from modules.features import (
    DatasetDeclaration,
    Hashed,
    Label,
    Numeric,
    Scaling,
    TreeLeaves,
    Vocabulary,
    transformed_name,
)
from modules.hparams import HParams
from modules.model import build_model
from modules.preprocessing import transformed_features

LEAVES = TreeLeaves(trees=4, depth=3)
# A churn-like rule: many minutes without a plan, or many calls.
PLANTED = DatasetDeclaration(
    "planted",
    Label("churned", ("churn",), "yes"),
    numeric=(Numeric("minutes", Scaling.Z), Numeric("calls", Scaling.Z)),
    vocabularies=(Vocabulary("plan", top_k=5),),
    tree_leaves=LEAVES,
)
LEAVES_XF = transformed_name(TreeLeaves.NAME)


def _planted_rows(n: int = 600) -> list[dict]:
    rng = random.Random(0)
    rows = []
    for _ in range(n):
        minutes, calls, plan = rng.uniform(0, 300), rng.randint(0, 9), rng.choice(["yes", "no"])
        churn = (minutes > 220 and plan == "no") or calls >= 6
        rows.append({"minutes": minutes, "calls": calls, "plan": plan, "churn": churn})
    return rows


@pytest.fixture(scope="module")
def analyzed(tmp_path_factory) -> SimpleNamespace:
    """The planted rows through Transform; its output written as the pipeline writes it."""
    rows = _planted_rows()
    instances = [
        {
            "minutes": [r["minutes"]],
            "calls": [r["calls"]],
            "plan": [r["plan"].encode()],
            "churn": [b"yes" if r["churn"] else b"no"],
        }
        for r in rows
    ]
    dtypes = {"minutes": tf.float32, "calls": tf.int64, "plan": tf.string, "churn": tf.string}
    spec = {name: tf.io.VarLenFeature(dtype) for name, dtype in dtypes.items()}
    transformed, feature_spec, output = analyze_and_write(
        lambda x: transformed_features(PLANTED, x), instances, spec, tmp_path_factory
    )
    return SimpleNamespace(
        rows=rows,
        instances=instances,
        transformed=transformed,
        spec=feature_spec,
        output=output,
    )


@pytest.mark.slow  # needs the trees fitted and a real Transform
def test_leaves_are_one_feature_of_an_id_per_tree_in_its_own_range(analyzed):
    assert analyzed.spec[LEAVES_XF] == tf.io.FixedLenFeature([LEAVES.trees], tf.int64)
    ids = np.array([r[LEAVES_XF] for r in analyzed.transformed])
    assert ids.shape == (len(analyzed.rows), LEAVES.trees)
    for t in range(LEAVES.trees):
        assert set(ids[:, t]) <= set(range(t * LEAVES.leaves, (t + 1) * LEAVES.leaves))


@pytest.mark.slow  # needs the trees fitted and a real Transform
def test_the_leaves_hold_the_planted_rule(analyzed):
    # Rows that reach the same leaves share their label: the trees found the rule.
    labels = np.array([r["churn"] for r in analyzed.rows])
    cells: dict[tuple, list[bool]] = {}
    for row, label in zip(analyzed.transformed, labels, strict=True):
        cells.setdefault(tuple(row[LEAVES_XF]), []).append(label)
    majority = sum(max(sum(c), len(c) - sum(c)) for c in cells.values())
    assert majority / len(labels) >= 0.97, cells.keys()
    assert min(labels.mean(), 1 - labels.mean()) > 0.2  # a rule worth finding


@pytest.mark.slow  # needs the trees fitted and a real Transform
def test_serving_finds_the_same_leaves_without_the_label(analyzed):
    layer = analyzed.output.transform_features_layer()
    raw = {
        "minutes": tf.sparse.from_dense([[i["minutes"][0]] for i in analyzed.instances]),
        "calls": tf.sparse.from_dense(
            tf.constant([[i["calls"][0]] for i in analyzed.instances], tf.int64)
        ),
        "plan": tf.sparse.from_dense([[i["plan"][0]] for i in analyzed.instances]),
    }
    served = layer(raw)
    assert PLANTED.label_key not in served
    expected = [r[LEAVES_XF] for r in analyzed.transformed]
    np.testing.assert_array_equal(served[LEAVES_XF].numpy(), expected)


@pytest.mark.slow  # needs the trees fitted and a real Transform
def test_the_wide_part_has_a_weight_per_leaf_and_the_model_predicts(analyzed):
    sizes = {**PLANTED.fixed_cardinalities(), transformed_name("plan"): 3}
    model = build_model(PLANTED, sizes, HParams(hidden_units=(4,)))
    (kernel,) = [v for v in model.weights if v.name.startswith("linear/kernel")]
    assert kernel.shape[0] == 3 + LEAVES.cardinality
    names = [*PLANTED.dense_features(), *PLANTED.categorical_features(), LEAVES_XF]
    batch = {n: np.array([np.reshape(r[n], [-1]) for r in analyzed.transformed]) for n in names}
    assert model.predict(batch, verbose=0).shape == (len(analyzed.rows), 1)


def test_leaves_split_rows_as_the_fitted_trees_do():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2000, 4)).astype(np.float32)
    x[:, 3] = rng.integers(0, 2, 2000)  # binary: its branches end above the last level
    y = ((x[:, 0] * x[:, 1] > 0.2) ^ (x[:, 3] == 1)).astype(np.int64)
    spec = TreeLeaves(trees=6, depth=4)
    features, thresholds = tree_leaves.fit(x, y, spec)
    ids = tree_leaves.leaves(tf.constant(x), tf.constant(features), tf.constant(thresholds)).numpy()
    order = np.lexsort(np.column_stack([x, y]).T)
    fitted = GradientBoostingClassifier(
        n_estimators=6,
        max_depth=4,
        learning_rate=tree_leaves.LEARNING_RATE,
        random_state=tree_leaves.SEED,
    ).fit(x[order], y[order])
    theirs = fitted.apply(x)[:, :, 0]
    for t in range(spec.trees):
        # The same partition of the rows: each of our leaves is one of theirs.
        pairs = set(zip(ids[:, t], theirs[:, t], strict=True))
        assert len(pairs) == len(set(ids[:, t])) == len(set(theirs[:, t])), t


def test_a_value_next_to_a_threshold_goes_the_way_scikit_learn_sends_it():
    # scikit-learn splits between two neighbouring float32 values at their float64
    # midpoint; rounded to nearest in float32, it would be the upper one.
    low = np.float32(1.0) + np.finfo(np.float32).eps
    high = np.nextafter(low, np.float32(2.0))
    midpoint = (np.float64(low) + np.float64(high)) / 2
    assert np.float32(midpoint) == high
    stump = SimpleNamespace(
        children_left=np.array([1, -1, -1]),
        children_right=np.array([2, -1, -1]),
        feature=np.array([0, -2, -2]),
        threshold=np.array([midpoint, -2.0, -2.0]),
    )
    features, thresholds = tree_leaves.heap_arrays(stump, depth=1)
    ids = tree_leaves.leaves(
        tf.constant([[low], [high]]), tf.constant([features]), tf.constant([thresholds])
    )
    assert ids.numpy().tolist() == [[0], [1]]


def test_a_label_of_one_class_gives_trees_that_send_every_row_to_one_leaf():
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    features, thresholds = tree_leaves.fit(x, np.ones(10, np.int64), LEAVES)
    ids = tree_leaves.leaves(tf.constant(x), tf.constant(features), tf.constant(thresholds)).numpy()
    assert (ids == np.arange(LEAVES.trees) * LEAVES.leaves).all()


def test_the_sample_is_the_same_rows_however_they_are_batched_and_ordered():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(1000, 3)).astype(np.float32)
    y = rng.integers(0, 2, 1000)
    sampler = tree_leaves._Sample(max_rows=100)

    def sampled(order: np.ndarray, batch: int) -> set[tuple]:
        halves = []
        for half in np.array_split(order, 2):  # two workers, merged
            parts = sampler.create_accumulator()
            for start in range(0, len(half), batch):
                rows = half[start : start + batch]
                parts = sampler.add_input(parts, (x[rows], y[rows]))
            halves.append(parts)
        kept_x, kept_y = sampler.extract_output(sampler.merge_accumulators(halves))
        assert kept_x.shape == (100, 3) and kept_y.shape == (100,)
        return {(*r, label) for r, label in zip(kept_x.tolist(), kept_y.tolist(), strict=True)}

    first = sampled(np.arange(1000), batch=64)
    assert sampled(rng.permutation(1000), batch=7) == first
    assert len(first) == 100
    # Not the first or last rows read: rows from the whole split.
    index = {tuple(r): i for i, r in enumerate(x.tolist())}
    positions = sorted(index[row[:3]] for row in first)
    assert positions[0] < 100 and positions[-1] > 900


def _trees_in_beam(batches: list[tuple[np.ndarray, np.ndarray]], expected: tuple) -> None:
    """Asserts that ``_FitTrees`` in a real Beam pipeline fits the ``expected`` arrays."""
    import apache_beam as beam
    from apache_beam.testing.util import assert_that, equal_to

    with beam.Pipeline() as pipeline:
        fitted = pipeline | beam.Create(batches) | tree_leaves._FitTrees(LEAVES)
        for name, arrays, want in zip(("features", "thresholds"), fitted, expected, strict=True):
            as_lists = arrays | f"{name} as lists" >> beam.Map(lambda a: a.tolist())
            assert_that(as_lists, equal_to([want.tolist()]), label=name)


@pytest.mark.slow  # fits trees in a Beam pipeline
def test_beam_fits_the_trees_of_the_rows_whatever_their_batches():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(300, 2)).astype(np.float32)
    y = (x[:, 0] * x[:, 1] > 0).astype(np.int64)
    order = rng.permutation(300)
    batches = [(x[rows], y[rows]) for rows in np.array_split(order, 7)]
    _trees_in_beam(batches, tree_leaves.fit(x, y, LEAVES))


@pytest.mark.slow  # fits trees in a Beam pipeline
def test_an_empty_train_split_gives_trees_that_send_every_row_to_one_leaf():
    nodes = 2**LEAVES.depth - 1
    no_split = (np.zeros((LEAVES.trees, nodes)), np.full((LEAVES.trees, nodes), np.inf))
    _trees_in_beam([], no_split)


def test_a_declaration_with_leaves_needs_a_feature_the_trees_can_read():
    with pytest.raises(ValueError, match="tree leaves need a column the trees can read"):
        DatasetDeclaration(
            "ids", Label("y", ("y",), "1"), hashed=(Hashed("id", 100),), tree_leaves=LEAVES
        )
    assert PLANTED.tree_columns() == ("minutes", "calls", "plan")


def _ancestors(ops: list[tf.Operation]) -> set[str]:
    """The names of every op ``ops`` are computed from."""
    seen: set[str] = set()
    stack = [t.op for op in ops for t in op.inputs]
    while stack:
        op = stack.pop()
        if op.name not in seen:
            seen.add(op.name)
            stack.extend(t.op for t in op.inputs)
    return seen


def test_the_trees_are_fit_in_the_first_analysis_pass():
    # No other analyzer's output feeds the trees: TFT needs no second pass over the data.
    graph = tf.Graph()
    dtypes = {"minutes": tf.float32, "calls": tf.int64, "plan": tf.string, "churn": tf.string}
    with graph.as_default():
        inputs = {
            name: tf.compat.v1.sparse_placeholder(dtype, shape=(None, None), name=name)
            for name, dtype in dtypes.items()
        }
        transformed_features(PLANTED, inputs)
    ops = graph.get_operations()
    # Outside tf.Transform's tracing, each analyzer's outputs are placeholders in its scope.
    analyzed = {
        op.name for op in ops if op.type == "Placeholder" and op.name.split("/")[0] not in dtypes
    }
    # What the trees are fit on: the rows of the columns stacked in that scope.
    columns = [op for op in ops if op.name.startswith("tree_columns/")]
    assert {"scale_to_z_score", "approximate_vocabulary"} <= {n.split("/")[0] for n in analyzed}
    assert columns and not _ancestors(columns) & analyzed

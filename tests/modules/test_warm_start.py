"""Warm start from the serving model's kept weights: towers matched, or why not."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import numpy as np
import pytest

from datasets.taxi import DATASET as TAXI
from modules import features, warm_start
from modules.hparams import HParams
from modules.keras_setup import keras
from modules.model import build_model
from modules.training import cardinalities


@pytest.fixture(scope="module")
def spaces(transformed) -> warm_start.IdSpaces:
    sizes = cardinalities(TAXI, transformed.output)
    return warm_start.IdSpaces.of(TAXI, transformed.output, sizes)


def _model(spaces: warm_start.IdSpaces, members: int, seed: int) -> keras.Model:
    keras.utils.set_random_seed(seed)
    hp = HParams(hidden_units=(8,), ensemble_members=members, seed=seed)
    return build_model(TAXI, spaces.sizes, hp)


def _weights(model: keras.Model) -> dict[str, np.ndarray]:
    return {v.name: v.numpy() for v in model.weights}


def _serving(spaces: warm_start.IdSpaces, members: int, folder: Path) -> dict[str, np.ndarray]:
    """Export-side weights of a serving model of ``members`` towers kept in ``folder``."""
    served = _model(spaces, members, seed=1)
    warm_start.save(served, spaces, str(folder))
    return _weights(served)


@pytest.mark.parametrize("members", [1, 3])
def test_a_model_starts_from_the_serving_model_of_as_many_towers(spaces, tmp_path, members):
    served = _serving(spaces, members, tmp_path)
    candidate = _model(spaces, members, seed=2)
    assert warm_start.warm_start(candidate, str(tmp_path), TAXI, spaces) is None
    for name, value in _weights(candidate).items():
        np.testing.assert_array_equal(value, served[name], err_msg=name)


@pytest.mark.parametrize(("served", "trained"), [(2, 3), (1, 2), (2, 1)])
def test_another_tower_count_trains_from_scratch_and_says_why(spaces, tmp_path, served, trained):
    _serving(spaces, served, tmp_path)
    candidate = _model(spaces, trained, seed=2)
    fresh = _weights(candidate)
    why = warm_start.warm_start(candidate, str(tmp_path), TAXI, spaces)
    assert why == f"the serving model has {served} tower(s), this one {trained}"
    for name, value in _weights(candidate).items():
        np.testing.assert_array_equal(value, fresh[name], err_msg=name)


def test_the_towers_embedding_rows_follow_their_tokens_to_new_ids(spaces, tmp_path):
    served = _serving(spaces, 2, tmp_path)
    name = features.transformed_name("company")
    tokens = spaces.tokens[name]
    # The next period's vocabulary: the same tokens, in the reverse order.
    new = dataclasses.replace(spaces, tokens={**spaces.tokens, name: tokens[::-1]})
    candidate = _model(new, 2, seed=2)
    assert warm_start.warm_start(candidate, str(tmp_path), TAXI, new) is None
    moved = _weights(candidate)[f"{name}_embedding/embeddings:0"]
    kept = served[f"{name}_embedding/embeddings:0"]
    n = len(tokens)
    np.testing.assert_array_equal(moved[:n], kept[:n][::-1])


def test_a_lone_member_exported_before_towers_still_warm_starts(spaces, tmp_path):
    served = _serving(spaces, 1, tmp_path)
    folder = tmp_path / warm_start.WARM_START_DIR
    os.rename(folder / warm_start.WEIGHTS_FILE, folder / "member_0.npz")
    candidate = _model(spaces, 1, seed=2)
    assert warm_start.warm_start(candidate, str(tmp_path), TAXI, spaces) is None
    np.testing.assert_array_equal(_weights(candidate)["linear/kernel:0"], served["linear/kernel:0"])


def test_members_exported_apart_before_towers_are_not_taken(spaces, tmp_path):
    _serving(spaces, 1, tmp_path)
    folder = tmp_path / warm_start.WARM_START_DIR
    for member in (0, 1):
        (folder / f"member_{member}.npz").write_bytes(
            (folder / warm_start.WEIGHTS_FILE).read_bytes()
        )
    (folder / warm_start.WEIGHTS_FILE).unlink()
    why = warm_start.warm_start(_model(spaces, 2, seed=2), str(tmp_path), TAXI, spaces)
    assert why == "the serving model's members were trained apart (exported before towers)"


def test_the_wide_weights_of_tree_leaves_start_fresh_and_the_others_are_taken(spaces, tmp_path):
    # The trees are fit anew each period: a leaf id names another rule than before.
    leaves = features.TreeLeaves(trees=2, depth=2)
    declared = dataclasses.replace(TAXI, tree_leaves=leaves)
    hp = HParams(hidden_units=(8,), seed=1)
    serving = build_model(declared, spaces.sizes, hp)
    # A trained wide part: no weight at its initial zero.
    for variable in serving.weights:
        if variable.name.startswith("linear/"):
            variable.assign(np.random.default_rng(0).normal(size=variable.shape))
    warm_start.save(serving, spaces, str(tmp_path))
    served = _weights(serving)
    keras.utils.set_random_seed(2)
    candidate = build_model(declared, spaces.sizes, dataclasses.replace(hp, seed=2))
    fresh = _weights(candidate)["linear/kernel:0"]
    assert warm_start.warm_start(candidate, str(tmp_path), declared, spaces) is None
    kernel = _weights(candidate)["linear/kernel:0"]
    ids = kernel.shape[0] - leaves.cardinality
    np.testing.assert_array_equal(kernel[:ids], served["linear/kernel:0"][:ids])
    np.testing.assert_array_equal(kernel[ids:], fresh[ids:])
    assert not np.array_equal(fresh[ids:], served["linear/kernel:0"][ids:])

"""Warm start: a new period's model starts from the weights of the model that serves.

Each export keeps, in ``assets.extra/warm_start/`` (files serving does not load), the
model's weights by variable name (all its towers, when it is an ensemble) and the id
spaces they were trained on: each categorical input's size and, for vocabulary
features, the tokens in id order. A later Trainer given that SavedModel
(ServingBaseline's copy of the serving version) starts from it when the inputs and
the towers match: the same transformed features, as many towers, the same weight
shapes once ids are mapped. Vocabularies are ordered by frequency and change
between periods, so a row of an embedding (or of the wide part's one-hot weights) moves
to its token's new id; tokens new to the vocabulary keep their fresh rows. Anything
else that differs (a feature added, a layer resized) means training from scratch, and
the reason is given in one line.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import tensorflow as tf
import tensorflow_transform as tft

from modules.features import DatasetDeclaration, transformed_name, vocabulary_file
from modules.keras_setup import keras

WARM_START_DIR = os.path.join("assets.extra", "warm_start")
INPUTS_FILE = "inputs.json"
WEIGHTS_FILE = "weights.npz"
# Before ensembles were towers of one model, an export kept one file per member; the
# first member's file of a lone member holds the same weights as WEIGHTS_FILE.
MEMBER_FILE = "member_{}.npz"
# In the Trainer's model_run folder: whether the model was warm-started, and why not.
OUTCOME_FILE = "warm_start.json"


@dataclass(frozen=True)
class IdSpaces:
    """The transformed features, and each categorical input's ids: its size and tokens."""

    feature_spec: dict[str, str]
    sizes: dict[str, int]
    tokens: dict[str, list[str]]  # vocabulary features only, in id order

    @classmethod
    def of(
        cls, declared: DatasetDeclaration, tf_transform_output: tft.TFTransformOutput, sizes: dict
    ) -> IdSpaces:
        """The id spaces of the model trained on ``tf_transform_output``."""
        spec = tf_transform_output.transformed_feature_spec()
        tokens = {
            transformed_name(v.name): [
                t.decode("utf-8", "replace") if isinstance(t, bytes) else str(t)
                for t in tf_transform_output.vocabulary_by_name(vocabulary_file(v.name))
            ]
            for v in declared.vocabularies
        }
        return cls({k: repr(v) for k, v in sorted(spec.items())}, dict(sizes), tokens)


def save(model: keras.Model, spaces: IdSpaces, model_dir: str) -> None:
    """Keep ``model``'s weights and their id spaces inside the SavedModel at ``model_dir``."""
    folder = os.path.join(model_dir, WARM_START_DIR)
    tf.io.gfile.makedirs(folder)
    buffer = io.BytesIO()
    np.savez(buffer, **{v.name: v.numpy() for v in model.weights})
    with tf.io.gfile.GFile(os.path.join(folder, WEIGHTS_FILE), "wb") as f:
        f.write(buffer.getvalue())
    with tf.io.gfile.GFile(os.path.join(folder, INPUTS_FILE), "w") as f:
        f.write(json.dumps(spaces.__dict__))


def _rows(old: IdSpaces, new: IdSpaces, name: str) -> np.ndarray:
    """For each id of input ``name`` now, the id it had in ``old`` (-1: new, none)."""
    size = new.sizes[name]
    if name not in new.tokens:
        source = np.arange(size)
        source[source >= old.sizes[name]] = -1
        return source
    was = {token: i for i, token in enumerate(old.tokens.get(name, []))}
    known = [was.get(token, -1) for token in new.tokens[name]]
    # The out-of-vocabulary buckets follow the vocabulary, as many as before.
    oov = size - len(new.tokens[name])
    old_oov = old.sizes[name] - len(old.tokens.get(name, []))
    return np.array(known + [len(was) + k if k < old_oov else -1 for k in range(oov)])


def _moved(value: np.ndarray, fresh: np.ndarray, sources: np.ndarray) -> np.ndarray:
    """``fresh`` with each row whose source is known taken from ``value``'s row."""
    out = fresh.copy()
    known = sources >= 0
    out[known] = value[sources[known]]
    return out


def _row_sources(
    declared: DatasetDeclaration, variable: tf.Variable, old: IdSpaces, new: IdSpaces
) -> np.ndarray | None:
    """Where each row of ``variable`` comes from, for the weights indexed by ids; else None."""
    names = list(declared.categorical_features() + declared.cross_features())
    layer = variable.name.split("/")[0]
    for name in names:
        if layer == f"{name}_embedding":
            return _rows(old, new, name)
    if layer == "linear" and "kernel" in variable.name:
        # The wide part's one-hots, concatenated in this order (modules.model._wide).
        offsets = np.cumsum([0] + [old.sizes[n] for n in names])
        moved = [
            np.where(r >= 0, r + offsets[i], -1)
            for i, r in enumerate(_rows(old, new, n) for n in names)
        ]
        # The trees' leaves come last; the trees are fit anew on each period's data, so
        # a leaf id means another rule now, and its weight starts fresh.
        if declared.tree_leaves:
            moved.append(np.full(declared.tree_leaves.cardinality, -1))
        return np.concatenate(moved)
    return None


def _saved_weights(folder: str) -> dict[str, np.ndarray] | str:
    """The weights kept in ``folder``, by variable name; or why there are none to use."""
    path = os.path.join(folder, WEIGHTS_FILE)
    if not tf.io.gfile.exists(path):
        if tf.io.gfile.exists(os.path.join(folder, MEMBER_FILE.format(1))):
            return "the serving model's members were trained apart (exported before towers)"
        path = os.path.join(folder, MEMBER_FILE.format(0))
    with tf.io.gfile.GFile(path, "rb") as f:
        return dict(np.load(io.BytesIO(f.read())))


def _towers(weights: Mapping[str, tuple[int, ...]]) -> int:
    """A model's towers, from its weights' shapes: the wide part has an output per tower."""
    return next(shape[-1] for name, shape in weights.items() if name.startswith("linear/kernel"))


def warm_start(
    model: keras.Model, base_dir: str, declared: DatasetDeclaration, new: IdSpaces
) -> str | None:
    """Give ``model`` the weights of the model kept at ``base_dir``; None, or why not."""
    folder = os.path.join(base_dir, WARM_START_DIR)
    if not tf.io.gfile.exists(os.path.join(folder, INPUTS_FILE)):
        return "the serving model keeps no weights to start from (exported before warm starts)"
    with tf.io.gfile.GFile(os.path.join(folder, INPUTS_FILE)) as f:
        old = IdSpaces(**json.loads(f.read()))
    if old.feature_spec != new.feature_spec:
        changed = sorted(set(old.feature_spec.items()) ^ set(new.feature_spec.items()))
        return f"the transformed features differ from the serving model's ({changed[0][0]})"
    saved = _saved_weights(folder)
    if isinstance(saved, str):
        return saved
    towers = _towers({v.name: tuple(v.shape) for v in model.weights})
    saved_towers = _towers({name: value.shape for name, value in saved.items()})
    if towers != saved_towers:
        return f"the serving model has {saved_towers} tower(s), this one {towers}"
    values = []
    for variable in model.weights:
        value, fresh = saved.get(variable.name), variable.numpy()
        if value is None:
            return f"the serving model has no weight {variable.name}"
        sources = _row_sources(declared, variable, old, new)
        if sources is not None:
            value = _moved(value, fresh, sources)
        if value.shape != fresh.shape:
            return f"{variable.name} is {fresh.shape} now, {value.shape} in the serving model"
        values.append(value)
    model.set_weights(values)
    return None


def write_outcome(run_dir: str, cold_because: str | None) -> None:
    """Record in ``run_dir`` whether the model started from the serving one, and why not."""
    outcome = {"warm_started": cold_because is None, "why_not": cold_because or ""}
    with tf.io.gfile.GFile(os.path.join(run_dir, OUTCOME_FILE), "w") as f:
        f.write(json.dumps(outcome))


def read_outcome(run_dir: str) -> dict[str, object]:
    """What ``write_outcome`` recorded in ``run_dir``."""
    with tf.io.gfile.GFile(os.path.join(run_dir, OUTCOME_FILE)) as f:
        return json.loads(f.read())

"""The wide-and-deep model graph (no training, no I/O).

Built from tf_keras' own pieces: ``keras.experimental.WideDeepModel`` joins a
``LinearModel`` over one-hot categories and hashed crosses (the wide part, FTRL) and
a ReLU network over embeddings and dense features (the deep part, Adam). Both parts
are trained jointly on one logistic output, as in Cheng et al. (2016) and
``DNNLinearCombinedClassifier``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from modules.features import Dataset
from modules.hparams import HParams
from modules.keras_setup import keras

# What keras.Input returns: a symbolic tensor of the functional API.
KerasTensor = type(keras.Input(shape=(1,)))


def embedding_dim(cardinality: int, max_dim: int) -> int:
    """Embedding width for a category of the given cardinality (fast.ai's rule, capped)."""
    return max(2, min(max_dim, round(1.6 * cardinality**0.56)))


def _inputs(dataset: Dataset) -> dict[str, KerasTensor]:
    inputs = {
        name: keras.Input(shape=(1,), name=name, dtype="float32")
        for name in dataset.dense_features()
    }
    for name in dataset.categorical_features() + dataset.cross_features():
        inputs[name] = keras.Input(shape=(1,), name=name, dtype="int64")
    return inputs


def _wide(
    dataset: Dataset, inputs: Mapping[str, KerasTensor], cardinalities: Mapping[str, int]
) -> keras.Model:
    one_hots = [
        keras.layers.CategoryEncoding(
            cardinalities[name], output_mode="one_hot", name=f"{name}_1hot"
        )(inputs[name])
        for name in dataset.categorical_features() + dataset.cross_features()
    ]
    joined = keras.layers.Concatenate(name="wide_one_hots")(one_hots)
    logit = keras.experimental.LinearModel(units=1, name="linear")(joined)
    return keras.Model(inputs=dict(inputs), outputs=logit, name="wide")


def _deep(
    dataset: Dataset,
    inputs: Mapping[str, KerasTensor],
    cardinalities: Mapping[str, int],
    hp: HParams,
) -> keras.Model:
    embedded = dataset.categorical_features()
    if hp.embed_crosses:
        # "Embedding feature crosses": the deep part also sees each hashed cross,
        # so it can share what it learns between neighbouring cells of a cross.
        embedded += dataset.cross_features()
    parts = [
        keras.layers.Flatten()(
            keras.layers.Embedding(
                cardinalities[name],
                embedding_dim(cardinalities[name], hp.max_embedding_dim),
                name=f"{name}_embedding",
            )(inputs[name])
        )
        for name in embedded
    ]
    parts += [inputs[name] for name in dataset.dense_features()]
    x = keras.layers.Concatenate(name="deep_inputs")(parts)
    for i, units in enumerate(hp.hidden_units):
        x = keras.layers.Dense(units, activation="relu", name=f"hidden_{i}")(x)
        if hp.batch_norm:
            x = keras.layers.BatchNormalization(name=f"batch_norm_{i}")(x)
        if hp.dropout:
            x = keras.layers.Dropout(hp.dropout, seed=hp.seed + i, name=f"dropout_{i}")(x)
    logit = keras.layers.Dense(1, name="deep_logit")(x)
    return keras.Model(inputs=dict(inputs), outputs=logit, name="deep")


def build_model(dataset: Dataset, cardinalities: Mapping[str, int], hp: HParams) -> keras.Model:
    """The compiled wide-and-deep classifier of ``dataset``; ``cardinalities`` sizes its ids.

    Call inside a distribution strategy's scope when one is used: variables and
    optimizer slots are created here.
    """
    ids = dataset.categorical_features() + dataset.cross_features()
    missing = sorted(set(ids) - set(cardinalities))
    if missing:
        raise ValueError(f"no cardinality given for id feature(s) {missing}")
    inputs = _inputs(dataset)
    model = keras.experimental.WideDeepModel(
        _wide(dataset, inputs, cardinalities),
        _deep(dataset, inputs, cardinalities, hp),
        activation="sigmoid",
    )
    wide_optimizer = keras.optimizers.Ftrl(
        learning_rate=hp.wide_learning_rate,
        l1_regularization_strength=hp.wide_l1,
        l2_regularization_strength=hp.wide_l2,
    )
    deep_optimizer = keras.optimizers.Adam(learning_rate=hp.deep_learning_rate)
    model.compile(
        optimizer=[wide_optimizer, deep_optimizer],
        loss=keras.losses.BinaryCrossentropy(),
        metrics=[
            keras.metrics.AUC(name="auc"),
            keras.metrics.BinaryAccuracy(name="binary_accuracy"),
        ],
    )
    return model


def averaged(dataset: Dataset, members: Sequence[keras.Model]) -> keras.Model:
    """One model whose output is the mean of ``members``' probabilities (their weights shared).

    A single member is returned as it is. Nothing is trained or compiled here: the
    result is for serving (``modules.export``), after the members were trained.
    """
    if not members:
        raise ValueError("an ensemble needs at least one member")
    if len(members) == 1:
        return members[0]
    inputs = _inputs(dataset)
    outputs = [member(inputs) for member in members]
    mean = keras.layers.Average(name="member_mean")(outputs)
    return keras.Model(inputs=inputs, outputs=mean, name="ensemble")

"""The wide-and-deep model graph (no training, no I/O).

Built from tf_keras' own pieces: ``keras.experimental.WideDeepModel`` joins a
``LinearModel`` over one-hot categories and hashed crosses (the wide part, FTRL) and
a ReLU network over embeddings and dense features (the deep part, Adam). Both parts
are trained jointly on one logistic output, as in Cheng et al. (2016) and
``DNNLinearCombinedClassifier``.

An ensemble of N members (``HParams.ensemble_members``) is one such model with N
towers, trained in one fit: the wide part has N outputs over the same one-hots (N
linear models), the deep part N parallel networks with their own embeddings, and no
weight is shared between towers. Their weights are stacked (a tower axis in each
variable, the layers' names unchanged), so that a layer is one op for all towers.
Each tower learns from its own binary cross-entropy, with the gradient a separate
fit would give it; the model predicts (and serves) the mean of the N probabilities.
One member is exactly the plain model.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import tensorflow as tf

from modules.features import DatasetDeclaration
from modules.hparams import HParams
from modules.keras_setup import keras

# What keras.Input returns: a symbolic tensor of the functional API.
KerasTensor = type(keras.Input(shape=(1,)))


def embedding_dim(cardinality: int, max_dim: int) -> int:
    """Embedding width for a category of the given cardinality (fast.ai's rule, capped)."""
    return max(2, min(max_dim, round(1.6 * cardinality**0.56)))


def _inputs(dataset: DatasetDeclaration) -> dict[str, KerasTensor]:
    inputs = {
        name: keras.Input(shape=(width,), name=name, dtype="float32")
        for name, width in dataset.dense_widths().items()
    }
    for name in dataset.categorical_features() + dataset.cross_features():
        inputs[name] = keras.Input(shape=(1,), name=name, dtype="int64")
    if dataset.tree_leaves:
        (name,) = dataset.leaf_features()
        inputs[name] = keras.Input(shape=(dataset.tree_leaves.trees,), name=name, dtype="int64")
    return inputs


class TowerDense(keras.layers.Layer):
    """A Dense layer for each tower, stacked: [batch, towers, in] -> [batch, towers, units].

    Tower t has its own kernel ``kernel[t]`` and bias ``bias[t]``, initialized as a
    Dense layer's would be, so the towers share no weight; one einsum computes them
    all, where a layer per tower would cost an op (and its gradient) each.
    """

    def __init__(self, units: int, activation: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.units = units
        self.activation = keras.activations.get(activation)

    def build(self, input_shape: tf.TensorShape) -> None:
        """Create the stacked kernel and bias for the input's towers and width."""
        towers, width = int(input_shape[-2]), int(input_shape[-1])
        # Glorot-uniform per tower: the initializer counts the tower axis into both
        # fans, and scale=towers takes it out again.
        glorot = keras.initializers.VarianceScaling(towers, "fan_avg", "uniform")
        self.kernel = self.add_weight(
            "kernel", shape=(towers, width, self.units), initializer=glorot
        )
        self.bias = self.add_weight("bias", shape=(towers, self.units), initializer="zeros")
        super().build(input_shape)

    def call(self, x: tf.Tensor) -> tf.Tensor:
        """Each tower's slice of ``x`` through that tower's kernel."""
        return self.activation(tf.einsum("bti,tiu->btu", x, self.kernel) + self.bias)

    def get_config(self) -> dict[str, Any]:
        """The layer's arguments (Keras' serialization)."""
        activation = keras.activations.serialize(self.activation)
        return {**super().get_config(), "units": self.units, "activation": activation}


class TowerCross(keras.layers.Layer):
    """A cross layer of DCN-v2 (Wang et al. 2021), per tower: x0 * (x U V + b) + x.

    Called on ``[x0, x]``, each [batch, in] or [batch, towers, in]. Every feature of
    ``x0`` is multiplied by a learned mix of all of ``x``: stacked L times, the layer
    holds products of up to L + 1 features, which a ReLU network finds only
    approximately. The mix is low-rank (U: in x rank, V: rank x in), as the paper
    advises, for few rows. Off by default (``HParams.cross_layers``): two layers lowered
    the benchmark suite's mean gap to the trees (docs/decisions/drafting-rules.md).
    """

    def __init__(self, rank: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rank = rank

    def build(self, input_shape: list[tf.TensorShape]) -> None:
        """Create U, V and the bias for the input's towers (if any) and width."""
        shape = tf.TensorShape(input_shape[0])
        width = int(shape[-1])
        self.towers = (int(shape[-2]),) if shape.rank == 3 else ()
        towers = self.towers[0] if self.towers else 1

        def glorot() -> keras.initializers.Initializer:
            # An instance per weight: Keras warns when an unseeded one is reused.
            return keras.initializers.VarianceScaling(towers, "fan_avg", "uniform")

        self.down = self.add_weight(
            "down", shape=(*self.towers, width, self.rank), initializer=glorot()
        )
        self.up = self.add_weight(
            "up", shape=(*self.towers, self.rank, width), initializer=glorot()
        )
        self.bias = self.add_weight("bias", shape=(*self.towers, width), initializer="zeros")
        super().build(input_shape)

    def call(self, inputs: list[tf.Tensor]) -> tf.Tensor:
        """x0 * (x U V + b) + x, tower by tower."""
        x0, x = inputs
        if self.towers:
            mixed = tf.einsum("btr,trj->btj", tf.einsum("bti,tir->btr", x, self.down), self.up)
        else:
            mixed = tf.matmul(tf.matmul(x, self.down), self.up)
        return x0 * (mixed + self.bias) + x

    def get_config(self) -> dict[str, Any]:
        """The layer's arguments (Keras' serialization)."""
        return {**super().get_config(), "rank": self.rank}


def _wide(
    dataset: DatasetDeclaration,
    inputs: Mapping[str, KerasTensor],
    cardinalities: Mapping[str, int],
    towers: int,
) -> keras.Model:
    one_hots = [
        keras.layers.CategoryEncoding(
            cardinalities[name], output_mode="one_hot", name=f"{name}_1hot"
        )(inputs[name])
        for name in dataset.categorical_features() + dataset.cross_features()
    ]
    if dataset.tree_leaves:
        # The trees' leaves: one id per tree, so one hot column per tree among their ids.
        (name,) = dataset.leaf_features()
        one_hots.append(
            keras.layers.CategoryEncoding(
                dataset.tree_leaves.cardinality, output_mode="multi_hot", name=f"{name}_hot"
            )(inputs[name])
        )
    joined = keras.layers.Concatenate(name="wide_one_hots")(one_hots)
    # One output per tower: a kernel column and a bias each, N linear models in one.
    logits = keras.experimental.LinearModel(units=towers, name="linear")(joined)
    return keras.Model(inputs=dict(inputs), outputs=logits, name="wide")


def _embedded(name: str, id_input: KerasTensor, cardinality: int, hp: HParams) -> KerasTensor:
    """The id's embedding: [batch, width], or [batch, towers, width] for several towers.

    The towers' embeddings are one table of towers * width columns, tower t reading
    its own width of them: no column is shared.
    """
    width = embedding_dim(cardinality, hp.max_embedding_dim)
    towers = hp.ensemble_members
    vectors = keras.layers.Embedding(cardinality, towers * width, name=f"{name}_embedding")(
        id_input
    )
    if towers == 1:
        return keras.layers.Flatten()(vectors)
    return keras.layers.Reshape((towers, width))(vectors)


def _deep(
    dataset: DatasetDeclaration,
    inputs: Mapping[str, KerasTensor],
    cardinalities: Mapping[str, int],
    hp: HParams,
) -> keras.Model:
    embedded = dataset.categorical_features()
    if hp.embed_crosses:
        # "Embedding feature crosses": the deep part also sees each hashed cross,
        # so it can share what it learns between neighbouring cells of a cross.
        embedded += dataset.cross_features()
    parts = [_embedded(name, inputs[name], cardinalities[name], hp) for name in embedded]
    dense = [inputs[name] for name in dataset.dense_features()]
    towers = hp.ensemble_members
    if towers > 1 and dense:
        # Every tower sees the same dense features.
        joined = dense[0] if len(dense) == 1 else keras.layers.Concatenate()(dense)
        dense = [keras.layers.RepeatVector(towers)(joined)]
    x = keras.layers.Concatenate(name="deep_inputs")(parts + dense)
    crossed = x
    for i in range(hp.cross_layers):
        crossed = TowerCross(hp.cross_rank, name=f"cross_{i}")([x, crossed])

    def layer(units: int, activation: str | None, name: str) -> keras.layers.Layer:
        if towers == 1:
            return keras.layers.Dense(units, activation=activation, name=name)
        return TowerDense(units, activation=activation, name=name)

    for i, units in enumerate(hp.hidden_units):
        x = layer(units, "relu", f"hidden_{i}")(x)
        if hp.batch_norm:
            # Several towers: statistics and scales per tower and unit.
            axis = -1 if towers == 1 else [1, 2]
            x = keras.layers.BatchNormalization(axis=axis, name=f"batch_norm_{i}")(x)
        if hp.dropout:
            x = keras.layers.Dropout(hp.dropout, seed=hp.seed + i, name=f"dropout_{i}")(x)
    if hp.cross_layers:
        # DCN-v2's parallel form: the cross layers beside the ReLU layers, one logit on both.
        x = keras.layers.Concatenate(name="deep_and_cross")([x, crossed])
    logit = layer(1, None, "deep_logit")(x)
    if towers > 1:
        logit = keras.layers.Reshape((towers,), name="deep_logits")(logit)
    return keras.Model(inputs=dict(inputs), outputs=logit, name="deep")


class TowerEnsemble(keras.experimental.WideDeepModel):
    """Wide-and-deep towers trained in one fit, predicting the mean of their probabilities.

    The loss reported is the mean of the towers' binary cross-entropies; the gradient
    is that of their sum, so that each tower gets exactly the gradient a fit of its
    own would (FTRL's steps, unlike Adam's, depend on the gradient's scale). Metrics,
    and so early stopping, judge the mean probability: the ensemble that is served.
    """

    def tower_probabilities(self, inputs: dict, training: bool | None = None) -> tf.Tensor:
        """Each tower's probability: [batch, towers]."""
        return super().call(inputs, training=training)

    def call(self, inputs: dict, training: bool | None = None) -> tf.Tensor:
        """The mean of the towers' probabilities: [batch, 1]."""
        towers = self.tower_probabilities(inputs, training=training)
        return tf.reduce_mean(towers, axis=-1, keepdims=True)

    def _loss(self, data: tuple, training: bool) -> tuple[tf.Tensor, int]:
        """The towers' mean loss on ``data`` and their number; the metrics judge their mean."""
        x, y, sample_weight = keras.utils.unpack_x_y_sample_weight(data)
        towers = self.tower_probabilities(x, training=training)
        # Every tower is scored against the same label.
        labels = tf.broadcast_to(tf.reshape(tf.cast(y, towers.dtype), [-1, 1]), tf.shape(towers))
        # No layer of the model adds a loss of its own (regularization is FTRL's).
        loss = self.compiled_loss(labels, towers, sample_weight)
        mean = tf.reduce_mean(towers, axis=-1, keepdims=True)
        self.compiled_metrics.update_state(y, mean, sample_weight)
        return loss, towers.shape[-1]

    def train_step(self, data: tuple) -> dict[str, tf.Tensor]:
        """One step: each part's optimizer applies the towers' gradients to its weights."""
        with tf.GradientTape() as tape:
            loss, towers = self._loss(data, training=True)
            summed = loss * towers
        variables = [part.trainable_variables for part in (self.linear_model, self.dnn_model)]
        gradients = tape.gradient(summed, variables)
        for optimizer, grads, part in zip(self.optimizer, gradients, variables, strict=True):
            optimizer.apply_gradients(zip(grads, part, strict=True))
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data: tuple) -> dict[str, tf.Tensor]:
        """Validation: the towers' mean loss, and the metrics of their mean."""
        self._loss(data, training=False)
        return {m.name: m.result() for m in self.metrics}


def build_model(
    dataset: DatasetDeclaration, cardinalities: Mapping[str, int], hp: HParams
) -> keras.Model:
    """The compiled wide-and-deep classifier of ``dataset``; ``cardinalities`` sizes its ids.

    With ``hp.ensemble_members`` above 1, a ``TowerEnsemble`` of that many towers.
    Call inside a distribution strategy's scope when one is used: variables and
    optimizer slots are created here.
    """
    if hp.ensemble_members < 1:
        raise ValueError(f"ensemble_members must be at least 1, got {hp.ensemble_members}")
    ids = dataset.categorical_features() + dataset.cross_features()
    missing = sorted(set(ids) - set(cardinalities))
    if missing:
        raise ValueError(f"no cardinality given for id feature(s) {missing}")
    inputs = _inputs(dataset)
    kind = keras.experimental.WideDeepModel if hp.ensemble_members == 1 else TowerEnsemble
    model = kind(
        _wide(dataset, inputs, cardinalities, hp.ensemble_members),
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

import numpy as np
import pytest
import tensorflow as tf

from datasets.taxi import DATASET as TAXI
from modules import features
from modules.hparams import HParams
from modules.keras_setup import keras
from modules.model import TowerCross, TowerDense, TowerEnsemble, build_model, embedding_dim

# Seconds a test: the tests build Keras models, and most train them.
pytestmark = pytest.mark.slow

VOCAB_SIZES = {"payment_type": 8, "company": 40}


@pytest.fixture(scope="module")
def cardinalities() -> dict[str, int]:
    sizes = TAXI.fixed_cardinalities()
    sizes.update(
        {
            features.transformed_name(v.name): VOCAB_SIZES[v.name] + v.num_oov_buckets
            for v in TAXI.vocabularies
        }
    )
    return sizes


def _batch(cardinalities: dict[str, int], n: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    batch = {name: rng.normal(size=(n, 1)).astype("float32") for name in TAXI.dense_features()}
    for name in TAXI.categorical_features() + TAXI.cross_features():
        batch[name] = rng.integers(0, cardinalities[name], size=(n, 1))
    return batch


def test_predicts_one_probability_per_example(cardinalities):
    model = build_model(TAXI, cardinalities, HParams(hidden_units=(16, 8)))
    predictions = model.predict(_batch(cardinalities, 32), verbose=0)
    assert predictions.shape == (32, 1)
    assert ((predictions >= 0) & (predictions <= 1)).all()


def _changed(before: list[np.ndarray], after: list[tf.Variable]) -> bool:
    return any((b != a.numpy()).any() for b, a in zip(before, after, strict=True))


def test_wide_and_deep_parts_train_jointly_with_their_own_optimizers(cardinalities):
    model = build_model(TAXI, cardinalities, HParams(hidden_units=(16,)))
    x = _batch(cardinalities, 256)
    # A label the wide part alone can learn: one hour of the day tips well.
    y = (x[features.transformed_name("trip_start_hour")] == 3).astype("float32")
    wide_before = [w.numpy().copy() for w in model.linear_model.trainable_weights]
    deep_before = [w.numpy().copy() for w in model.dnn_model.trainable_weights]
    history = model.fit(x, y, epochs=5, batch_size=64, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert _changed(wide_before, model.linear_model.trainable_weights)
    assert _changed(deep_before, model.dnn_model.trainable_weights)
    wide_opt, deep_opt = model.optimizer
    assert type(wide_opt).__name__ == "Ftrl" and type(deep_opt).__name__ == "Adam"


@pytest.mark.parametrize("embed_crosses", [False, True])
def test_crosses_reach_the_deep_part_only_when_embedded(cardinalities, embed_crosses):
    hp = HParams(hidden_units=(8,), embed_crosses=embed_crosses)
    model = build_model(TAXI, cardinalities, hp)
    deep_layers = {layer.name for layer in model.dnn_model.layers}
    crosses = {f"{name}_embedding" for name in TAXI.cross_features()}
    assert crosses & deep_layers == (crosses if embed_crosses else set())


def test_missing_cardinality_is_named(cardinalities):
    sizes = dict(cardinalities)
    del sizes[features.transformed_name("company")]
    with pytest.raises(ValueError, match="company_xf"):
        build_model(TAXI, sizes, HParams())


@pytest.mark.parametrize(("cardinality", "expected"), [(2, 2), (25, 10), (10_000, 16)])
def test_embedding_width_grows_with_cardinality_up_to_the_cap(cardinality, expected):
    assert embedding_dim(cardinality, max_dim=16) == expected


def test_keras_internals_are_not_autograph_converted():
    from tensorflow.python.autograph.impl import conversion

    from modules.keras_setup import keras

    assert conversion.is_allowlisted(keras.layers.Dense.call)
    assert tf.keras.__name__.startswith("tf_keras.")  # Keras 2 (tf_keras), not Keras 3


def _weights(model: keras.Model) -> dict[str, np.ndarray]:
    return {v.name: v.numpy() for v in model.weights}


def test_one_member_is_the_plain_wide_and_deep_model_with_its_names(cardinalities):
    model = build_model(TAXI, cardinalities, HParams(hidden_units=(8, 4)))
    assert type(model) is keras.experimental.WideDeepModel
    embeddings = [f"{name}_embedding" for name in TAXI.categorical_features()]
    deep = ["deep_inputs", "hidden_0", "dropout_0", "hidden_1", "dropout_1", "deep_logit"]
    skipped = (keras.layers.InputLayer, keras.layers.Flatten)
    layers = {layer.name for layer in model.dnn_model.layers if not isinstance(layer, skipped)}
    assert layers == {*embeddings, *deep}
    # Warm start finds a serving model's weights by these names.
    dense = [
        f"{layer}/{w}:0"
        for layer in ("hidden_0", "hidden_1", "deep_logit")
        for w in ("kernel", "bias")
    ]
    expected = {"linear/kernel:0", "linear/bias:0", *dense}
    assert set(_weights(model)) == expected | {f"{e}/embeddings:0" for e in embeddings}
    assert model.linear_model.output_shape == (None, 1)


def test_towers_have_an_output_each_and_the_model_predicts_their_mean(cardinalities):
    model = build_model(TAXI, cardinalities, HParams(hidden_units=(8,), ensemble_members=3))
    assert isinstance(model, TowerEnsemble)
    x = _batch(cardinalities, 64)
    towers = model.tower_probabilities(x).numpy()
    assert towers.shape == (64, 3)
    assert np.abs(towers[:, 0] - towers[:, 1]).max() > 1e-3  # the towers differ: no echo
    predicted = model.predict(x, verbose=0)
    np.testing.assert_allclose(predicted, towers.mean(axis=1, keepdims=True), atol=1e-6, rtol=0)


def _tower_slice(name: str, value: np.ndarray, tower: int, towers: int) -> np.ndarray:
    """Tower ``tower``'s part of a stacked weight, shaped as a one-member model's (a view)."""
    if name.startswith("linear/"):  # a column (kernel) or an entry (bias) per tower
        return value[..., tower : tower + 1]
    if "_embedding/" in name:  # each tower's width of columns
        return value.reshape(value.shape[0], towers, -1)[:, tower, :]
    if "batch_norm" in name:  # [1, towers, units]: the batch axis kept
        return value[0, tower]
    return value[tower]  # TowerDense: the tower axis first


@pytest.mark.parametrize(("batch_norm", "cross_layers"), [(False, 0), (True, 0), (False, 2)])
def test_a_towers_loss_reaches_none_of_the_other_towers_weights(
    cardinalities, batch_norm, cross_layers
):
    hp = HParams(
        hidden_units=(8,), ensemble_members=3, batch_norm=batch_norm, cross_layers=cross_layers
    )
    model = build_model(TAXI, cardinalities, hp)
    x = _batch(cardinalities, 64)
    y = tf.constant((x[features.transformed_name("trip_start_hour")] == 3).astype("float32"))
    with tf.GradientTape() as tape:
        towers = model.tower_probabilities(x, training=True)
        loss = keras.losses.binary_crossentropy(y, towers[:, 1:2])
    variables = model.trainable_variables
    for variable, grad in zip(variables, tape.gradient(loss, variables), strict=True):
        grad = tf.convert_to_tensor(grad).numpy()  # embeddings' IndexedSlices too
        reached = [_tower_slice(variable.name, grad, k, 3).any() for k in range(3)]
        assert reached == [False, True, False], variable.name


@pytest.mark.parametrize("cross_layers", [0, 2])
def test_each_tower_trains_as_a_fit_of_its_own_would(cardinalities, cross_layers):
    # No dropout: the masks would differ between the two models.
    hp = HParams(hidden_units=(8,), dropout=0.0, cross_layers=cross_layers)
    single = build_model(TAXI, cardinalities, hp)
    towered = build_model(TAXI, cardinalities, hp.overridden({"ensemble_members": 2}))
    values = _weights(towered)
    for name, value in _weights(single).items():
        _tower_slice(name, values[name], 1, 2)[...] = value
    towered.set_weights([values[v.name] for v in towered.weights])
    x = _batch(cardinalities, 64)
    y = (x[features.transformed_name("trip_start_hour")] < 12).astype("float32")
    for _ in range(3):  # FTRL's and Adam's state after the first step matters too
        single.train_on_batch(x, y)
        towered.train_on_batch(x, y)
    trained = _weights(towered)
    for name, value in _weights(single).items():
        mine = _tower_slice(name, trained[name], 1, 2)
        np.testing.assert_allclose(mine, value, atol=1e-5, rtol=1e-4, err_msg=name)


def test_each_towers_dense_kernel_starts_as_a_dense_layers_would():
    layer = TowerDense(200, activation="relu")
    layer.build(tf.TensorShape([None, 5, 400]))
    bound = np.sqrt(6 / (400 + 200))  # Glorot uniform's
    for kernel in layer.kernel.numpy():
        # float32 draws: the largest may round a last bit above the float64 bound.
        assert 0.99 * bound < np.abs(kernel).max() <= bound * (1 + 1e-6)
    assert layer.activation is keras.activations.relu  # so the ReLU watch finds it


def test_loss_is_the_towers_mean_loss_and_metrics_judge_their_mean(cardinalities):
    model = build_model(TAXI, cardinalities, HParams(hidden_units=(8,), ensemble_members=3))
    x = _batch(cardinalities, 128)
    y = (x[features.transformed_name("trip_start_hour")] < 12).astype("float32")
    scores = model.evaluate(x, y, batch_size=128, return_dict=True, verbose=0)
    towers = model.tower_probabilities(x).numpy()
    each = [keras.losses.binary_crossentropy(y, towers[:, [k]]).numpy().mean() for k in range(3)]
    np.testing.assert_allclose(scores["loss"], np.mean(each), rtol=1e-4)
    auc = keras.metrics.AUC()
    auc.update_state(y, towers.mean(axis=1, keepdims=True))
    np.testing.assert_allclose(scores["auc"], auc.result().numpy(), rtol=1e-5)


def test_no_members_is_refused(cardinalities):
    with pytest.raises(ValueError, match="ensemble_members must be at least 1"):
        build_model(TAXI, cardinalities, HParams(ensemble_members=0))


@pytest.mark.parametrize("towers", [0, 2])
def test_a_cross_layer_multiplies_the_first_input_by_a_low_rank_mix_of_the_second(towers):
    rng = np.random.default_rng(1)
    shape = (5, towers, 6) if towers else (5, 6)
    x0, x = (tf.constant(rng.normal(size=shape), tf.float32) for _ in range(2))
    layer = TowerCross(rank=3)
    layer([x0, x])
    layer.bias.assign(rng.normal(size=layer.bias.shape))
    down, up, bias = (w.numpy() for w in (layer.down, layer.up, layer.bias))
    if towers:
        mixed = np.stack([x.numpy()[:, t] @ down[t] @ up[t] + bias[t] for t in range(towers)], 1)
    else:
        mixed = x.numpy() @ down @ up + bias
    assert down.shape[-2:] == (6, 3) and up.shape[-2:] == (3, 6)
    # float32: a sum of products is off by a few ulps, beyond a relative 1e-5 where small.
    np.testing.assert_allclose(layer([x0, x]), x0.numpy() * mixed + x.numpy(), rtol=1e-5, atol=1e-6)


def test_cross_layers_sit_beside_the_relu_layers_and_reach_the_logit(cardinalities):
    model = build_model(TAXI, cardinalities, HParams(hidden_units=(8,), cross_layers=2))
    deep = model.dnn_model
    assert [layer.name for layer in deep.layers if isinstance(layer, TowerCross)] == [
        "cross_0",
        "cross_1",
    ]
    x = _batch(cardinalities, 32)
    with tf.GradientTape() as tape:
        logit = deep(x)
    grads = tape.gradient(logit, deep.get_layer("cross_0").trainable_variables)
    assert all(tf.convert_to_tensor(g).numpy().any() for g in grads)

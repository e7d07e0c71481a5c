import numpy as np
import pytest
import tensorflow as tf

from modules import features as F
from modules.datasets.taxi import DATASET as TAXI
from modules.hparams import HParams
from modules.model import averaged, build_model, embedding_dim

VOCAB_SIZES = {"payment_type": 8, "company": 40}


@pytest.fixture(scope="module")
def cardinalities() -> dict[str, int]:
    sizes = TAXI.fixed_cardinalities()
    sizes.update(
        {
            F.transformed_name(v.name): VOCAB_SIZES[v.name] + v.num_oov_buckets
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
    y = (x[F.transformed_name("trip_start_hour")] == 3).astype("float32")
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
    del sizes[F.transformed_name("company")]
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


def test_an_ensemble_serves_the_mean_of_its_members_probabilities(cardinalities):
    members = [
        build_model(TAXI, cardinalities, HParams(hidden_units=(8,), seed=seed))
        for seed in (1, 2, 3)
    ]
    x = _batch(cardinalities, 64)
    each = [member.predict(x, verbose=0) for member in members]
    assert np.abs(each[0] - each[1]).max() > 1e-3  # the members differ: the mean is no echo
    served = averaged(TAXI, members).predict(x, verbose=0)
    np.testing.assert_allclose(served, np.mean(each, axis=0), atol=1e-6, rtol=0)


def test_one_member_is_served_as_it_is(cardinalities):
    model = build_model(TAXI, cardinalities, HParams(hidden_units=(8,)))
    assert averaged(TAXI, [model]) is model
    with pytest.raises(ValueError, match="at least one member"):
        averaged(TAXI, [])

"""The exported signatures against the in-memory model: no training/serving skew."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from transform_run import analyze_and_write, example_bytes, fit_taxi

from datasets.taxi import DATASET as TAXI
from modules import export
from modules.features import DatasetDeclaration, Label, Numeric, Scaling, Vocabulary
from modules.hparams import HParams
from modules.model import build_model
from modules.preprocessing import transformed_features
from modules.training import cardinalities

SERVED = TAXI.raw_feature_columns()
PREDICTION_KEY = TAXI.prediction_key


def _example(instance: dict[str, list], spec: dict, drop: tuple[str, ...] = ()) -> bytes:
    return example_bytes(instance, spec, SERVED, drop)


@pytest.fixture(scope="module")
def exported(transformed, tmp_path_factory):
    """A briefly trained model, its in-memory predictions on Transform's output, and its export."""
    model, inputs = fit_taxi(transformed, (16, 8), epochs=2)
    in_memory = model.predict(inputs, verbose=0)
    path = str(tmp_path_factory.mktemp("export") / "model")
    export.export(TAXI, model, transformed.output, path)
    return in_memory, tf.saved_model.load(path)


def test_serving_default_matches_the_in_memory_model_on_transform_output(transformed, exported):
    in_memory, saved = exported
    examples = [_example(i, transformed.spec) for i in transformed.instances]
    served = saved.signatures[export.SERVING_DEFAULT](examples=tf.constant(examples))
    served = served[PREDICTION_KEY].numpy()
    assert served.shape == in_memory.shape == (len(examples), 1)
    np.testing.assert_allclose(served, in_memory, atol=1e-5, rtol=0)
    assert in_memory.std() > 0.01  # predictions vary: the comparison is not vacuous


def test_raw_tensor_signature_matches_serving_default(transformed, exported):
    in_memory, saved = exported
    complete = [i for i, inst in enumerate(transformed.instances) if all(inst[c] for c in SERVED)][
        :50
    ]
    assert len(complete) >= 10
    columns = {
        name: tf.constant(
            [transformed.instances[i][name][0] for i in complete],
            dtype=transformed.spec[name].dtype,
        )
        for name in SERVED
    }
    served = saved.signatures[export.SERVING_RAW](**columns)[PREDICTION_KEY].numpy()
    np.testing.assert_allclose(served, in_memory[complete], atol=1e-5, rtol=0)


def test_a_request_missing_optional_features_still_gets_an_answer(transformed, exported):
    _, saved = exported
    missing = ("company", "dropoff_latitude", "dropoff_longitude", "trip_seconds")
    examples = [_example(i, transformed.spec, drop=missing) for i in transformed.instances[:20]]
    served = saved.signatures[export.SERVING_DEFAULT](examples=tf.constant(examples))
    probabilities = served[PREDICTION_KEY].numpy()
    assert probabilities.shape == (20, 1)
    assert np.isfinite(probabilities).all()
    assert ((probabilities >= 0) & (probabilities <= 1)).all()


def test_transform_features_signature_gives_the_label_for_evaluation(transformed, exported):
    _, saved = exported
    spec = transformed.spec
    examples = []
    for instance in transformed.instances[:40]:
        example = tf.train.Example.FromString(_example(instance, spec))
        for column in TAXI.label_source_columns():
            if instance[column]:
                example.features.feature[column].float_list.value.extend(instance[column])
        examples.append(example.SerializeToString())
    features = saved.signatures[export.TRANSFORM_FEATURES](examples=tf.constant(examples))
    label = TAXI.label_key
    expected = [row[label] for row in transformed.rows[:40]]
    assert features[label].numpy().tolist() == expected
    assert sum(expected) > 0


def test_a_malformed_serialized_example_is_an_error_not_a_prediction(transformed, exported):
    _, saved = exported
    good = _example(transformed.instances[0], transformed.spec)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse example input"):
        saved.signatures[export.SERVING_DEFAULT](examples=tf.constant([good, b"not a tf.Example"]))


def test_a_feature_of_the_wrong_type_is_an_error_naming_it(transformed, exported):
    _, saved = exported
    example = tf.train.Example.FromString(_example(transformed.instances[0], transformed.spec))
    example.features.feature["fare"].Clear()
    example.features.feature["fare"].bytes_list.value.append(b"twelve dollars")
    with pytest.raises(tf.errors.InvalidArgumentError, match="fare"):
        saved.signatures[export.SERVING_DEFAULT](
            examples=tf.constant([example.SerializeToString()])
        )


def test_raw_tensors_of_the_wrong_dtype_are_refused(transformed, exported):
    _, saved = exported
    first = transformed.instances[0]
    columns = {
        name: tf.constant(
            [first[name][0] if first[name] else 0], dtype=transformed.spec[name].dtype
        )
        for name in SERVED
    }
    columns["fare"] = tf.constant(["12.5"])
    with pytest.raises((TypeError, tf.errors.InvalidArgumentError), match="float"):
        saved.signatures[export.SERVING_RAW](**columns)


def test_an_ensemble_export_serves_the_mean_of_its_towers(transformed, tmp_path):
    sizes = cardinalities(TAXI, transformed.output)
    model = build_model(TAXI, sizes, HParams(hidden_units=(8,), ensemble_members=2))
    inputs = {
        name: np.array([[row[name]] for row in transformed.rows[:40]])
        for name in transformed.rows[0]
        if name != TAXI.label_key
    }
    towers = model.tower_probabilities(inputs).numpy()
    path = str(tmp_path / "model")
    export.export(TAXI, model, transformed.output, path)
    saved = tf.saved_model.load(path)
    assert set(saved.signatures) == {
        export.SERVING_DEFAULT,
        export.SERVING_RAW,
        export.TRANSFORM_FEATURES,
    }
    examples = [_example(i, transformed.spec) for i in transformed.instances[:40]]
    served = saved.signatures[export.SERVING_DEFAULT](examples=tf.constant(examples))
    assert served[PREDICTION_KEY].shape == (40, 1)
    np.testing.assert_allclose(
        served[PREDICTION_KEY].numpy(), towers.mean(axis=1, keepdims=True), atol=1e-5
    )
    assert np.abs(towers[:, 0] - towers[:, 1]).max() > 1e-3


# Columns named as a table may name them (rwm1984's `self`: self-employed), which a
# SavedModel signature cannot take as arguments as they are.
AWKWARD = DatasetDeclaration(
    "awkward",
    Label("y", ("outcome",), "yes"),
    numeric=(Numeric("self", Scaling.Z),),
    vocabularies=(Vocabulary("_code", top_k=5),),
)


@pytest.mark.slow  # trains and exports a model
def test_columns_a_signature_cannot_take_as_named_are_served_with_a_prefix(tmp_path_factory):
    instances = [
        {"self": [float(i % 7)], "_code": [b"abc"[i % 3 : i % 3 + 1]], "outcome": [b"yes"]}
        for i in range(40)
    ]
    spec = {
        "self": tf.io.VarLenFeature(tf.float32),
        "_code": tf.io.VarLenFeature(tf.string),
        "outcome": tf.io.VarLenFeature(tf.string),
    }
    _, _, output = analyze_and_write(
        lambda x: transformed_features(AWKWARD, x), instances, spec, tmp_path_factory
    )
    model = build_model(AWKWARD, cardinalities(AWKWARD, output), HParams(hidden_units=(4,)))
    path = str(tmp_path_factory.mktemp("awkward") / "model")
    export.export(AWKWARD, model, output, path)
    saved = tf.saved_model.load(path)
    served = saved.signatures[export.SERVING_RAW](
        column_self=tf.constant([1.0, 5.0]), column_code=tf.constant(["a", "c"])
    )[AWKWARD.prediction_key]
    examples = [
        tf.train.Example(
            features=tf.train.Features(
                feature={
                    "self": tf.train.Feature(float_list=tf.train.FloatList(value=[number])),
                    "_code": tf.train.Feature(bytes_list=tf.train.BytesList(value=[code])),
                }
            )
        ).SerializeToString()
        for number, code in ((1.0, b"a"), (5.0, b"c"))
    ]
    default = saved.signatures[export.SERVING_DEFAULT](examples=tf.constant(examples))
    np.testing.assert_allclose(served.numpy(), default[AWKWARD.prediction_key].numpy(), atol=1e-6)


def test_columns_that_would_be_one_serving_argument_are_refused():
    with pytest.raises(ValueError, match=r"the same serving argument \['column_self'\]"):
        DatasetDeclaration(
            "clash",
            Label("y", ("outcome",), "yes"),
            numeric=(Numeric("self", Scaling.Z), Numeric("column_self", Scaling.Z)),
        )

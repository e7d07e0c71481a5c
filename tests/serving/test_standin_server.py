"""The stand-in's REST shapes: TF Serving's row and columnar forms, its errors and metadata."""

from __future__ import annotations

import base64
import math

import pytest
import tensorflow as tf
from served_models import tiny_model

from datasets.taxi import DATASET as TAXI
from serving import standin_server
from serving.standin_server import RequestError

KEY = TAXI.prediction_key


@pytest.fixture(scope="module")
def raw(served_model):
    """The served taxi model's raw-column signature."""
    return tf.saved_model.load(str(served_model)).signatures["serving_raw"]


@pytest.fixture(scope="module")
def row(raw) -> dict:
    """One row of every raw input, a value of its kind."""
    kinds = {tf.string: "Cash", tf.float32: 1.5, tf.int64: 3}
    return {n: kinds[s.dtype] for n, s in raw.structured_input_signature[1].items()}


def test_the_row_and_columnar_forms_answer_alike_one_score_per_row(raw, row):
    rows = [row, {**row, "fare": math.nan, "company": ""}]
    by_rows = standin_server.predict(raw, {"instances": rows})["predictions"]
    columns = {n: [r[n] for r in rows] for n in row}
    by_columns = standin_server.predict(raw, {"inputs": columns})["outputs"]
    assert len(by_rows) == 2 and all(len(p) == 1 for p in by_rows)
    assert by_rows == by_columns


def test_a_row_missing_an_input_is_refused_naming_it(raw, row):
    lacking = {n: v for n, v in row.items() if n != "fare"}
    with pytest.raises(RequestError, match=r"element: 1 of 'instances'.* at: fare$"):
        standin_server.predict(raw, {"instances": [row, lacking]})


def test_a_value_of_another_kind_is_refused_naming_the_input(raw, row):
    with pytest.raises(RequestError, match=r"input trip_start_hour: 3.5 is not of expected type"):
        standin_server.predict(raw, {"instances": [{**row, "trip_start_hour": 3.5}]})


def test_a_body_with_both_forms_or_neither_is_refused(raw, row):
    for body in ({"instances": [row], "inputs": {}}, {"signature_name": "serving_raw"}):
        with pytest.raises(RequestError, match="exactly one of 'instances' or 'inputs'"):
            standin_server.predict(raw, body)


def test_base64_examples_reach_a_single_input_signature(tmp_path):
    model = tf.saved_model.load(str(tiny_model(tmp_path / "lengths")))
    examples = [b"\x00\xffab", b"abc"]
    body = {"instances": [{"b64": base64.b64encode(e).decode()} for e in examples]}
    answer = standin_server.predict(model.signatures["serving_default"], body)
    assert answer == {"predictions": [[4.0], [3.0]]}


def test_the_metadata_names_each_signatures_inputs_and_dtypes(served_model):
    model = tf.saved_model.load(str(served_model))
    found = standin_server.metadata("candidate", "1", model.signatures)
    assert found["model_spec"] == {"name": "candidate", "signature_name": "", "version": "1"}
    defs = found["metadata"]["signature_def"]["signature_def"]
    assert defs["serving_default"]["inputs"]["examples"]["dtype"] == "DT_STRING"
    assert defs["serving_raw"]["inputs"]["trip_start_hour"]["dtype"] == "DT_INT64"
    assert defs["serving_raw"]["inputs"]["fare"]["dtype"] == "DT_FLOAT"
    assert set(defs["serving_raw"]["outputs"]) == {KEY}

"""Rows in TF Serving's REST shapes, and scores read back from either form's answer."""

from __future__ import annotations

import math

import pytest
import tensorflow as tf

from serving.requests import AnswerShapeError, raw_rows, sample_requests, scores_of

INPUTS = {"fare": "DT_FLOAT", "company": "DT_STRING", "hour": "DT_INT64"}
COLUMNS = {"fare": "fare", "company": "company name", "hour": "trip_start_hour"}


def _example(**values: object) -> bytes:
    feature = {}
    for name, value in values.items():
        if isinstance(value, float):
            feature[name] = tf.train.Feature(float_list=tf.train.FloatList(value=[value]))
        elif isinstance(value, int):
            feature[name] = tf.train.Feature(int64_list=tf.train.Int64List(value=[value]))
        else:
            feature[name] = tf.train.Feature(bytes_list=tf.train.BytesList(value=[value]))
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


def test_missing_values_are_sent_as_training_reads_them_and_integers_cannot_be():
    examples = [
        _example(fare=12.5, **{"company name": b"Flash Cab"}, trip_start_hour=9),
        _example(trip_start_hour=10),
        _example(fare=3.0, **{"company name": b"\xff"}),
    ]
    rows = raw_rows(examples, INPUTS, COLUMNS)
    assert sorted(rows) == [0, 1]  # the third lacks an integer: serving_default alone
    assert rows[0] == {"fare": 12.5, "company": "Flash Cab", "hour": 9}
    assert math.isnan(rows[1]["fare"]) and rows[1]["company"] == "" and rows[1]["hour"] == 10
    forms = sample_requests(examples, rows, "serving_raw")
    assert [(f.form, f.rows) for f in forms] == [
        ("serving_default (base64 tf.Examples)", (0, 1, 2)),
        ("serving_raw (rows)", (0, 1)),
        ("serving_raw (columns)", (0, 1)),
    ]
    assert forms[2].body["inputs"]["hour"] == [9, 10]


def test_text_that_is_not_utf8_is_sent_as_base64():
    rows = raw_rows([_example(fare=1.0, **{"company name": b"\xff"}, trip_start_hour=1)],
                    INPUTS, COLUMNS)  # fmt: skip
    assert rows[0]["company"] == {"b64": "/w=="}


@pytest.mark.parametrize(
    "answer",
    [
        {"predictions": [[0.25], [0.5]]},
        {"predictions": [0.25, 0.5]},
        {"predictions": [{"p": [0.25]}, {"p": 0.5}]},
        {"outputs": [[0.25], [0.5]]},
        {"outputs": {"p": [[0.25], [0.5]], "other": [1, 2]}},
    ],
)
def test_scores_are_read_from_either_forms_answer(answer):
    assert scores_of(answer, "p", 2) == [0.25, 0.5]


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ({"predictions": [[0.25]]}, "2 rows asked, the answer holds 1"),
        ({"predictions": [[0.25, 0.75], [0.5, 0.5]]}, "a row's answer is not one score"),
        ({"predictions": [{"q": 1.0}, {"q": 1.0}]}, "a row's answer has no 'p'"),
        ({"outputs": {"q": [1.0, 2.0]}}, "the answer has no output 'p'"),
        ({"error": "boom"}, "2 rows asked, the answer holds NoneType"),
    ],
)
def test_an_answer_of_another_shape_says_what_came(answer, said):
    with pytest.raises(AnswerShapeError, match=said):
        scores_of(answer, "p", 2)

"""Run-time parameters given as NAME=VALUE, typed by the package's declarations."""

from __future__ import annotations

import pytest

from kubeflow.operator.parameters import parse_parameters

DECLARED = {
    "data_root": {"parameterType": "STRING", "defaultValue": "s3://b/data"},
    "span": {"parameterType": "STRING", "defaultValue": "latest"},
    "train_steps": {"parameterType": "NUMBER_INTEGER", "defaultValue": 1000},
    "min_auc": {"parameterType": "NUMBER_DOUBLE", "defaultValue": 0.9},
    "strict": {"parameterType": "BOOLEAN", "defaultValue": True},
}


def test_values_take_their_parameters_types():
    pairs = ["span=7", "train_steps=300", "min_auc=0.85", "strict=False", "data_root=s3://x=y"]
    assert parse_parameters(pairs, DECLARED) == {
        "span": "7",  # the span travels as text: "latest" or a number
        "train_steps": 300,
        "min_auc": 0.85,
        "strict": False,
        "data_root": "s3://x=y",
    }


@pytest.mark.parametrize(
    ("pair", "message"),
    [
        ("epochs=3", "epochs: not a run-time parameter of the pipeline; they are data_root, "
         "min_auc, span, strict, train_steps"),
        ("train_steps=many", "train_steps takes an integer"),
        ("min_auc=high", "min_auc takes a number"),
        ("strict=yes", "strict takes true or false"),
        ("span", "is not NAME=VALUE"),
        ("=3", "is not NAME=VALUE"),
    ],
)  # fmt: skip
def test_a_bad_pair_is_named(pair, message):
    with pytest.raises(ValueError, match=message):
        parse_parameters([pair], DECLARED)

"""The serving check on real SavedModels served by a real process, as the pipeline runs it."""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import replace

import pytest
import tensorflow as tf
from served_models import COLUMNS, tiny_model

from data_layout.properties import STANDIN, TF_SERVING
from serving import check, model_server
from serving.check import ServingCheckError
from serving.requests import raw_rows

# Each test starts a model server process (TensorFlow's import and the model's load).
pytestmark = pytest.mark.slow

FORMS = (
    "serving_default (base64 tf.Examples)",
    "serving_raw (rows)",
    "serving_raw (columns)",
)


def test_the_served_model_answers_every_form_as_the_evaluator_scored(served_model, scored):
    figures = check.check(str(served_model), scored, COLUMNS)
    assert figures.server == STANDIN
    # A row missing an integer column cannot be sent in the raw forms; every other can.
    inputs = {arg: "DT_INT64" for arg in ("trip_start_hour", "dropoff_census_tract")}
    sendable = len(raw_rows(scored.examples, inputs, COLUMNS))
    assert 0 < sendable < len(scored.examples)
    assert figures.rows_checked == {
        FORMS[0]: len(scored.examples),
        FORMS[1]: sendable,
        FORMS[2]: sendable,
    }
    assert 0 < figures.load_s < model_server.LOAD_TIMEOUT_S
    assert 0 < figures.p50_ms <= figures.p99_ms
    assert 0 < figures.p50_ms_100_rows <= figures.p99_ms_100_rows
    sizes = [f.stat().st_size for f in served_model.rglob("*") if f.is_file()]
    assert figures.model_bytes == sum(sizes)


def test_scores_other_than_the_evaluators_fail_naming_the_form_and_the_row(served_model, scored):
    moved = list(scored.scores)
    moved[3] += 2e-5
    with pytest.raises(ServingCheckError) as failed:
        check.check(str(served_model), replace(scored, scores=tuple(moved)), COLUMNS)
    said = str(failed.value)
    assert said.startswith(f"{FORMS[0]}: row 3 scored ")
    assert said.endswith("(1 of 100 rows differ beyond 1e-05)")


def test_a_model_without_its_variables_does_not_load_and_fails(served_model, scored, tmp_path):
    damaged = tmp_path / "model"
    shutil.copytree(served_model, damaged)
    shutil.rmtree(damaged / "variables")
    with pytest.raises(ServingCheckError) as failed:
        check.check(str(damaged), scored, COLUMNS)
    said = str(failed.value)
    assert said.startswith("the model server ended (exit 1): error: model candidate version 1 ")
    assert "did not load" in said


def test_an_answer_of_another_shape_fails_saying_what_came(scored, tmp_path):
    two = tiny_model(tmp_path / "two", lambda size: tf.stack([size, size], axis=1))
    with pytest.raises(ServingCheckError) as failed:
        check.check(str(two), scored, COLUMNS)
    assert str(failed.value).startswith(f"{FORMS[0]}: a row's answer is not one score: [")


def test_a_model_without_the_raw_signature_is_asked_in_examples_alone(scored, tmp_path):
    lengths = tiny_model(tmp_path / "lengths")
    sample = replace(scored, scores=tuple(float(len(e)) for e in scored.examples))
    figures = check.check(str(lengths), sample, COLUMNS)
    assert figures.rows_checked == {FORMS[0]: len(scored.examples)}


def test_tf_servings_binary_is_taken_where_it_is_on_the_path(scored, tmp_path, monkeypatch):
    # No TF Serving binary is to be had here (docs/decisions/serving-check.md): a program of
    # its name that takes its flags stands in, to show which server is started, and how.
    args = tmp_path / "args"
    binary = tmp_path / "bin" / TF_SERVING
    binary.parent.mkdir()
    standin = model_server.STANDIN_SCRIPT
    binary.write_text(
        f'#!/bin/sh\necho "$@" > {args}\nexec "{sys.executable}" -I "{standin}" "$@"\n'
    )
    binary.chmod(0o755)
    monkeypatch.setenv("PATH", f"{binary.parent}{os.pathsep}{os.environ['PATH']}")
    lengths = tiny_model(tmp_path / "lengths")
    sample = replace(scored, scores=tuple(float(len(e)) for e in scored.examples))
    figures = check.check(str(lengths), sample, COLUMNS)
    assert figures.server == TF_SERVING
    flags = args.read_text().split()
    assert [f.split("=")[0] for f in flags] == [
        "--port", "--rest_api_port", "--model_name", "--model_base_path"
    ]  # fmt: skip
    assert "--model_name=candidate" in flags

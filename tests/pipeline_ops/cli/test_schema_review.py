"""The curated schema: it accepts the shipped data, and the review command's comparison."""

from __future__ import annotations

import copy

import pytest
import tensorflow_data_validation as tfdv
from tensorflow_metadata.proto.v0 import schema_pb2

import datasets
from pipeline_ops import commands
from pipeline_ops.cli import schema_review
from pipeline_ops.cli.schema_review import differences


@pytest.fixture(scope="module")
def curated():
    return tfdv.load_schema_text(str(datasets.schema_path("taxi")))


def test_the_taxi_curated_schema_declares_its_columns(curated):
    assert {f.name for f in curated.feature} >= {"fare", "tips", "payment_type", "company"}


def test_the_label_source_is_absent_from_serving(curated):
    tips = next(f for f in curated.feature if f.name == "tips")
    assert list(tips.not_in_environment) == ["SERVING"]


def test_no_difference_with_itself(curated):
    assert differences(curated, curated) == []


def test_differences_name_each_feature(curated):
    inferred = copy.deepcopy(curated)
    miles = next(f for f in inferred.feature if f.name == "trip_miles")
    inferred.feature.remove(miles)
    extra = inferred.feature.add(name="rating")
    extra.type = schema_pb2.INT
    fare = next(f for f in inferred.feature if f.name == "fare")
    fare.type = schema_pb2.BYTES
    next(d for d in inferred.string_domain if d.name == "payment_type").value.append("Bitcoin")
    lines = differences(curated, inferred)
    assert "+ rating: in the data (INT), not in the curated schema" in lines
    assert "- trip_miles: in the curated schema, not in the data" in lines
    assert "~ fare: type FLOAT (curated) but BYTES in the data" in lines
    assert "~ payment_type: values outside the curated domain: Bitcoin" in lines


def _inferred_path(recorded_runs, run_id: str) -> str:
    """The schema SchemaGen inferred in the recorded run ``run_id``."""
    from pipeline_def import node_ids
    from pipeline_def.metadata_stores import SqliteMetadata
    from pipeline_ops.metadata.runs import find_run
    from pipeline_ops.metadata.store import open_store

    store = open_store(SqliteMetadata(str(recorded_runs.output_dir / "metadata.sqlite")))
    schema = find_run(store, "taxi-wide-deep", run_id).output(node_ids.SCHEMA_GEN, "schema")
    return f"{schema.uri}/{schema_review.SCHEMA_FILE}"


def test_the_command_writes_the_newest_inference_and_prints_each_difference(
    recorded_runs, tmp_path, capsys, curated
):
    proposal = tmp_path / "proposal.pbtxt"
    code = schema_review.main(
        ["--output-dir", str(recorded_runs.output_dir), "--proposal", str(proposal)]
    )
    out = capsys.readouterr().out
    inferred = tfdv.load_schema_text(str(proposal))
    # The newest run's inference (the slice regression's), not the broken run's before it,
    # which saw text in trip_miles.
    assert inferred == tfdv.load_schema_text(
        _inferred_path(recorded_runs, recorded_runs.slice_regression)
    )
    broken = tfdv.load_schema_text(_inferred_path(recorded_runs, recorded_runs.broken))
    assert "~ trip_miles: type FLOAT (curated) but BYTES in the data" in differences(
        curated, broken
    )
    miles = next(f for f in inferred.feature if f.name == "trip_miles")
    assert miles.type == schema_pb2.FLOAT
    lines = differences(curated, inferred)
    assert lines  # the sample's census tracts are all empty: inferred as text
    assert code == commands.EXIT_FAILED
    assert f"{len(lines)} difference(s) from {datasets.schema_path('taxi')}:" in out
    assert all(f"  {line}" in out.splitlines() for line in lines)


def test_the_command_without_runs_of_the_pipeline_is_bad_input(recorded_runs, capsys):
    code = schema_review.main(
        ["--output-dir", str(recorded_runs.output_dir), "--pipeline-name", "other"]
    )
    assert code == commands.EXIT_BAD_INPUT
    assert "no run of other in SQLite " in capsys.readouterr().err

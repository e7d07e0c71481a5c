"""Reading back what the components record, from either orchestrator's ML-Metadata."""

from __future__ import annotations

import json

import pytest
from ml_metadata.proto import metadata_store_pb2 as mlmd

from data_layout.properties import WINDOW_PROPERTY, Outcome, PushRecord, span_record, value_of


def _examples(window: list[dict[str, int]]) -> mlmd.Artifact:
    artifact = mlmd.Artifact()
    artifact.custom_properties[WINDOW_PROPERTY].string_value = json.dumps(window)
    return artifact


def test_the_span_as_tfx_records_it_a_property_of_the_examples():
    examples = _examples([{"span": 2, "rows": 10}, {"span": 3, "rows": 12}])
    examples.properties["span"].int_value = 3
    record = span_record(examples)
    assert (record.span, [w["span"] for w in record.window]) == (3, [2, 3])


@pytest.mark.parametrize("stored", ["double", "struct"])
def test_the_span_as_kubeflow_records_it_a_custom_number(stored):
    examples = _examples([{"span": 1, "rows": 10}])
    if stored == "double":  # the launcher's record
        examples.custom_properties["span"].double_value = 1.0
    else:  # what TFX's entry point hands a later step
        examples.custom_properties["span"].struct_value.update({"__value__": 1.0})
    assert span_record(examples).span == 1


def test_no_examples_no_span():
    assert span_record(None).span is None


def test_a_property_value_reads_as_plain_data_whatever_its_kind():
    artifact = mlmd.Artifact()
    props = artifact.custom_properties
    props["count"].int_value = 3
    props["note"].string_value = "held"
    props["rates"].struct_value.update({"test": 1.0, "nested": {"train": [1, 2]}})
    props["empty"].SetInParent()
    assert {k: value_of(v) for k, v in props.items()} == {
        "count": 3,
        "note": "held",
        "rates": {"test": 1.0, "nested": {"train": [1.0, 2.0]}},
        "empty": None,
    }
    assert json.dumps(value_of(props["rates"]), sort_keys=True)  # as inspect prints it


@pytest.mark.parametrize(
    ("push", "version"),
    [
        (PushRecord(pushed=True, destination="/serving/taxi/1795448548/"), "1795448548"),
        (PushRecord(pushed=True, destination="gs://bucket/serving/1795448600"), "1795448600"),
        (PushRecord(pushed=False, destination="/serving/taxi/1795448548"), None),
        (None, None),
    ],
)
def test_the_pushed_version_is_the_last_part_of_where_the_model_went(push, version):
    assert Outcome(blessed=True, baseline=None, push=push).pushed_version == version

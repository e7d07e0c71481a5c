"""What differs between two runs: JSON values followed key by key, whole."""

from __future__ import annotations

from pipeline_ops.metadata import run_diff


def test_changed_leaves_follow_objects_and_name_a_key_one_side_lacks():
    a = '{"eval": {"specs": [{"name": "auc", "t": 0.5}]}, "seed": 1}'
    b = {"eval": {"specs": [{"name": "auc", "t": 0.6}]}, "seed": 1, "new": None}
    leaves = run_diff.changed_leaves(a, b, "E")
    assert [(path, x, y) for path, x, y in leaves if path != "E.new"] == [
        ("E.eval.specs[0].t", 0.5, 0.6)
    ]
    (path, absent, null), *_ = [leaf for leaf in leaves if leaf[0] == "E.new"]
    assert null is None and absent is not None  # absent on one side, null on the other
    # The same object written otherwise (spaces, key order) is no change.
    assert run_diff.changed_leaves('{"a": 1, "b": 2}', '{ "b":2,"a":1 }', "x") == []

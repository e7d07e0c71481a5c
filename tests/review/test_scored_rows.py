"""The rows the paired comparison judges: slice values as TFMA names them, labels, scores."""

from __future__ import annotations

import numpy as np

from review import scored_rows


def _records(values: list[dict[str, object]]) -> list[bytes]:
    import tensorflow as tf

    examples = []
    for row in values:
        example = tf.train.Example()
        for name, value in row.items():
            feature = example.features.feature[name]
            if isinstance(value, str):
                feature.bytes_list.value.append(value.encode())
            elif isinstance(value, int):
                feature.int64_list.value.append(value)
            elif value is None:
                feature.bytes_list.SetInParent()  # an empty cell, as ExampleGen writes it
        examples.append(example.SerializeToString())
    return examples


def test_split_records_are_one_split_s_examples_file_by_file(tmp_path):
    import tensorflow as tf

    records = _records([{"hour": h} for h in range(30)])
    options = tf.io.TFRecordOptions(compression_type="GZIP")
    # Written out of name order: the split is read in its files' name order.
    for split, name, rows in [("test", "b.gz", records[10:]), ("test", "a.gz", records[:10]),
                              ("train", "a.gz", records[:3])]:  # fmt: skip
        (tmp_path / f"Split-{split}").mkdir(exist_ok=True)
        with tf.io.TFRecordWriter(str(tmp_path / f"Split-{split}" / name), options) as writer:
            for row in rows:
                writer.write(row)

    assert scored_rows.split_records(str(tmp_path), "test") == records
    assert scored_rows.split_records(str(tmp_path), "train") == records[:3]


def test_slice_values_are_the_raw_cells_as_tfma_names_its_slices():
    import tensorflow as tf

    records = _records([{"pay": "Cash", "hour": 3}, {"pay": "Crédit", "hour": 0}, {"pay": None}])
    unset = tf.train.Example()
    unset.features.feature["pay"].SetInParent()  # a feature of no kind at all
    miles = tf.train.Example()
    miles.features.feature["miles"].float_list.value.extend([0.9, 2.0])
    bad_text = tf.train.Example()
    bad_text.features.feature["pay"].bytes_list.value.append(b"\xffCash")
    records += [r.SerializeToString() for r in (unset, miles, bad_text)]

    assert scored_rows.slice_values(records, ["pay", "hour", "miles", "absent"]) == {
        "pay": [["Cash"], ["Crédit"], [], [], [], ["\ufffdCash"]],
        "hour": [["3"], ["0"], [], [], [], []],
        # As a float32 reads back in Python, as TFMA names it.
        "miles": [[], [], [], [], [str(np.float32(0.9).item()), "2.0"], []],
        "absent": [[]] * 6,
    }
    assert scored_rows.slice_values([], ["pay"]) == {"pay": []}


def test_labels_and_scores_are_the_transform_s_labels_and_the_serving_scores(
    served_model, transformed
):
    from transform_run import example_bytes

    from datasets.taxi import DATASET as TAXI

    rows = range(60)
    records = [example_bytes(transformed.instances[i], transformed.spec, list(transformed.spec))
               for i in rows]  # fmt: skip
    labels, scores = scored_rows.labels_and_scores(
        str(served_model), records, TAXI.label_key, TAXI.prediction_key
    )
    assert labels.tolist() == [int(transformed.rows[i][TAXI.label_key]) for i in rows]
    assert 0 < labels.sum() < len(rows)
    served = scored_rows.model_scores(str(served_model), records, TAXI.prediction_key)
    assert np.allclose(scores, served, atol=1e-6) and len(scores) == len(rows)

"""The dataset benchmark: its folds."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def bench(load_script):
    return load_script("bench_dataset")


@pytest.mark.parametrize("folds", [3, 5])
def test_folds_hold_every_row_once_in_near_equal_sizes(bench, folds):
    records = [f"row {i}".encode() for i in range(103)]
    dealt = bench.deal_folds(records, folds)
    assert len(dealt) == folds
    assert sorted(r for fold in dealt for r in fold) == sorted(records)
    assert max(map(len, dealt)) - min(map(len, dealt)) <= 1
    # Shuffled, and the same shuffle every time: a benchmark reruns on the same folds.
    assert dealt[0] != records[::folds]
    assert bench.deal_folds(records, folds) == dealt
    assert bench.deal_folds(records, folds, seed=1) != dealt


@pytest.mark.parametrize("folds", [3, 5])
def test_each_round_scores_one_fold_chooses_on_another_and_trains_on_the_rest(bench, folds):
    roles = bench.fold_roles(folds)
    assert sorted(scored for scored, _, _ in roles) == list(range(folds))
    for scored, choosing, training in roles:
        assert scored != choosing
        assert sorted((scored, choosing, *training)) == list(range(folds))
    # Every fold chooses once too, so no fold's noise steers more rounds than another's.
    assert sorted(choosing for _, choosing, _ in roles) == list(range(folds))


def test_fewer_than_three_folds_are_refused_before_any_work(bench, monkeypatch, capsys):
    monkeypatch.setattr("sys.argv", ["bench_dataset.py", "--folds", "2"])
    with pytest.raises(SystemExit) as exit_info:
        bench.main()
    assert exit_info.value.code == 2
    assert "--folds needs at least 3 (score, choose, train), got 2" in capsys.readouterr().err


def _example(cells: dict[str, str]) -> bytes:
    import tensorflow as tf

    feature = {
        name: tf.train.Feature(bytes_list=tf.train.BytesList(value=[value.encode()]))
        for name, value in cells.items()
        if value
    }
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


def test_trees_read_money_and_dates_as_numbers_as_the_model_does(bench):
    from modules.features import (
        DatasetDeclaration,
        Label,
        NumberText,
        Numeric,
        Scaling,
        TimeFormat,
        Timestamp,
    )

    dataset = DatasetDeclaration(
        name="exported",
        label=Label(name="paid_label", columns=("paid",), positive="yes"),
        numeric=(Numeric("amount", Scaling.Z, text=NumberText.DECIMAL_POINT),),
        timestamps=(Timestamp("opened", TimeFormat.YMD),),
    )
    records = [
        _example({"amount": "$1,234.50", "opened": "2024-01-01 13:30:00", "paid": "yes"}),
        _example({"amount": "(12.00)", "opened": "not a date", "paid": "no"}),
        _example({"amount": "", "opened": "", "paid": "no"}),
    ]
    tables, labels = bench._labelled_tables(dataset, {"train": records})
    table = tables["train"]
    assert labels["train"] == [1, 0, 0]
    assert table["amount"].tolist()[:2] == [1234.5, -12.0]
    assert table["amount"].isna().tolist() == [False, False, True]
    # 2024-01-01 was a Monday; 13:30 is 48,600 s into the day.
    assert table["opened"][0] == 1704115800
    assert (table["opened_weekday"][0], table["opened_seconds_of_day"][0]) == (0, 48600)
    assert table[["opened", "opened_weekday", "opened_seconds_of_day"]][1:].isna().all(None)


def test_an_unknown_setting_is_refused_before_any_work(bench, monkeypatch, capsys):
    monkeypatch.setattr("sys.argv", ["bench_dataset.py", "--folds", "3", "--hparam", "wide=0.1"])
    with pytest.raises(SystemExit) as exit_info:
        bench.main()
    assert exit_info.value.code == 2
    assert "unknown hyperparameter(s) ['wide']" in capsys.readouterr().err

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


def _panel_records(entities: int, years: int) -> list[bytes]:
    import tensorflow as tf

    def example(person: int, year: int) -> bytes:
        feature = {
            "person": tf.train.Feature(int64_list=tf.train.Int64List(value=[person])),
            "year": tf.train.Feature(int64_list=tf.train.Int64List(value=[year])),
        }
        return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()

    return [example(p, y) for p in range(entities) for y in range(years)]


def test_an_entity_s_rows_share_one_fold(bench):
    records = _panel_records(entities=40, years=7)
    dealt = bench.deal_folds(records, 5, entity="person")
    folds_of = {}
    for k, fold in enumerate(dealt):
        for record in fold:
            folds_of.setdefault(bench.partition_key(record, b"person"), set()).add(k)
    assert len(folds_of) == 40
    assert all(len(folds) == 1 for folds in folds_of.values())
    assert sorted(r for fold in dealt for r in fold) == sorted(records)
    # Whole entities of 7 rows each: the folds within one entity of each other.
    assert max(map(len, dealt)) - min(map(len, dealt)) <= 7
    assert bench.deal_folds(records, 5, entity="person") == dealt
    # Rows dealt one by one put most entities in several folds: what the entity prevents.
    by_row = bench.deal_folds(records, 5)
    spread = {bench.partition_key(r, b"person"): set() for r in records}
    for k, fold in enumerate(by_row):
        for record in fold:
            spread[bench.partition_key(record, b"person")].add(k)
    assert sum(len(folds) > 1 for folds in spread.values()) > 30


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

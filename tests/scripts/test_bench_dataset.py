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

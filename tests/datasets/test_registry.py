"""The registry of datasets: a name to its declaration, or a line saying what to do."""

from __future__ import annotations

import shutil

import pytest

import datasets


def test_an_unknown_dataset_is_named_with_the_known_ones():
    with pytest.raises(datasets.UnknownDatasetError, match=r"no dataset 'nope'.*known: .*taxi"):
        datasets.load("nope")


def test_a_dataset_drafted_where_datasets_were_before_is_named_with_the_move(tmp_path, monkeypatch):
    former = tmp_path / "modules" / "datasets"
    shutil.copytree(datasets.DATASETS_DIR / "credit_data", former / "loans")
    monkeypatch.setattr(datasets, "_FORMER_DIR", former)
    with pytest.raises(datasets.UnknownDatasetError) as raised:
        datasets.load("loans")
    assert str(raised.value) == (
        f"dataset 'loans' is in {former / 'loans'}, where datasets were drafted before they "
        f"moved to {datasets.DATASETS_DIR}; move it there: "
        f"mv {former / 'loans'} {datasets.DATASETS_DIR / 'loans'}"
    )


def test_every_known_dataset_loads_under_its_own_name():
    assert "taxi" in datasets.known()
    for name in datasets.known():
        assert datasets.load(name).name == name
        assert datasets.schema_path(name).is_file()

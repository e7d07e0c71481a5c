"""The crosses' benchmark: its tables plant the interaction it reports on."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def bench(load_script):
    return load_script("bench_crosses")


@pytest.mark.slow  # drafts a table, boosted trees included
def test_a_planted_table_reports_its_pair_crossed_and_the_null_one_nothing(bench):
    found = bench.one_table(3000, 0, [8.0])
    assert found["planted_8"]["pair"] == "n3_bucket x n4_bucket"
    assert found["planted_8"]["crossable"] and found["planted_8"]["gain"] > 20
    assert not found["null_strongest"]["crossable"]

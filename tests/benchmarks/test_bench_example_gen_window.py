"""The ExampleGen window benchmark on small generated spans: what each timed run read."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def test_each_window_reuses_the_earlier_spans_and_the_cold_runs_none(
    load_script, monkeypatch, tmp_path
):
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # it imports bench_transform_cache beside it
    bench = load_script("bench_example_gen_window")
    args = argparse.Namespace(rows=3000, repeats=2, out=tmp_path)
    runs = bench.run(args, tmp_path)
    spans = [
        json.loads((tmp_path / "data" / f"span-{s}" / "MANIFEST.json").read_text())
        for s in range(4)
    ]
    assert all(s["rows"] == 3000 for s in spans)
    seen = [(r["repeat"], r["window"], r["rows"], r["reused"]) for r in runs]
    assert seen == [
        (0, 1, 3000, [2]), (0, 4, 12000, [0, 1, 2]),
        (1, 4, 12000, [0, 1, 2]), (1, 1, 3000, [2]),
        ("cold", 1, 3000, []), ("cold", 4, 12000, []),
    ]  # fmt: skip
    assert all(r["seconds"] > 0 for r in runs)

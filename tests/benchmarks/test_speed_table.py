"""A benchmark's figures as a markdown section: machine, date, each step beside the reference."""

from __future__ import annotations

import datetime

import pytest


@pytest.fixture
def speed_table(load_script):
    return load_script("speed_table")


FIGURES = {
    "runs": 2,
    "wall_seconds_median": 110.0,
    "peak_memory_mib_median": 1536.0,
    "component_seconds_median": {
        "CsvExampleGen": 2.7,
        "Trainer": 12.1,
        "ServingCheck": 8.0,
        "SchemaGen": 0.3,
    },
    "auc": [0.9585, 0.9581],
}
REFERENCE = {
    "wall_seconds_median": 220.0,
    "peak_memory_mib_median": 4096.0,
    "component_seconds_median": {
        "CsvExampleGen": 5.4,
        "Trainer": 48.4,
        "Pusher": 0.5,
        "SchemaGen": 0.1,
    },
}


def test_each_step_stands_beside_the_reference_s_with_their_ratio(speed_table):
    text = speed_table.section(
        {**FIGURES, "reference": REFERENCE}, 15_000, "bench_run.py", "abc1234"
    )
    lines = text.splitlines()

    assert lines[0] == f"### {datetime.date.today().isoformat()}, 15,000 rows, " + (
        f"TFX {speed_table.metadata.version('tfx')}"
    )
    assert " cores, " in lines[2] and " GiB; Python " in lines[2] and "; at abc1234." in lines[2]
    assert "each followed by one of TFX's example" in lines[2]
    assert "| CsvExampleGen | 2.7 s | 5.4 s | 0.50 |" in lines
    # Under a second on either side is noise: no ratio.
    assert "| SchemaGen | 0.3 s | 0.1 s |  |" in lines
    assert "| Trainer | 12.1 s | 48.4 s | 0.25 |" in lines
    # A step of one side only has no ratio.
    assert "| ServingCheck | 8.0 s |  |  |" in lines
    assert "| Pusher |  | 0.5 s |  |" in lines
    assert "| **end to end** | 110.0 s | 220.0 s | 0.50 |" in lines
    assert "| peak memory, all processes (PSS) | 1.50 GiB | 4.00 GiB | 0.38 |" in lines
    assert "Test AUC of each run: 0.9585, 0.9581." in lines


def test_without_the_reference_only_this_pipeline_s_column_is_filled(speed_table):
    lines = speed_table.section(FIGURES, 1_500_000, "bench_run.py", "abc1234").splitlines()

    assert "1,500,000 rows" in lines[0]
    assert "Medians of 2 runs:" in lines[2]
    one = speed_table.section({**FIGURES, "runs": 1}, 15_000, "bench_run.py", "abc1234")
    assert "One run:" in one.splitlines()[2]
    assert "| Trainer | 12.1 s |  |  |" in lines
    assert "| peak memory, all processes (PSS) | 1.50 GiB |  |  |" in lines

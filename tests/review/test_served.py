"""The serving check's record as the review and the run's closing lines print it."""

from __future__ import annotations

from data_layout.properties import TF_SERVING
from review.served import served_lines

CHECK = {
    "passed": True,
    "server": "in-process",
    "rows_checked": {"instances": 100, "inputs": 100, "b64": 100},
    "load_s": 3.66,
    "p50_ms": 4.4,
    "p99_ms": 9.25,
    "model_bytes": 1_020_000,
}


def test_what_was_asked_and_what_serving_cost_are_each_a_line():
    assert served_lines(CHECK) == [
        "Served right (stand-in): 100 rows, 3 REST forms, the Evaluator's scores.",
        "Serving cost: load 3.7 s, p50 4.4 ms, p99 9.2 ms a request, model 1.0 MB.",
    ]


def test_a_slow_machine_s_figures_keep_each_line_short():
    slow = {**CHECK, "server": TF_SERVING, "load_s": 123.4, "p50_ms": 1234.5, "p99_ms": 12345.6,
            "model_bytes": 1_234_000_000}  # fmt: skip

    lines = served_lines(slow)

    assert lines[0].startswith("Served right (TF Serving): 100 rows")
    assert "load 123.4 s, p50 1234.5 ms, p99 12345.6 ms a request, model 1234.0 MB." in lines[1]
    # The review's lines are printed indented and kept within 120 columns.
    assert max(len(line) for line in lines) <= 100


def test_no_check_no_line_and_a_check_that_failed_or_did_not_run_says_so():
    assert served_lines(None) == []
    assert served_lines({"passed": False}) == [
        "Serving check FAILED: the candidate was not served as the Evaluator scored it."
    ]
    note = {"note": "not checked: the Evaluator did not bless the candidate"}
    assert served_lines(note) == [
        "Serving check: not checked: the Evaluator did not bless the candidate."
    ]

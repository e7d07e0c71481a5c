"""The serving check's record in a line or two, for the run's closing lines and its review."""

from __future__ import annotations

from typing import Any

from data_layout.properties import TF_SERVING


def served_lines(check: dict[str, Any] | None) -> list[str]:
    """What the serving check found (``data_layout.properties.serving_check_of``), in lines.

    What it asked, then what serving cost: the costs on a line of their own, so that a
    slow machine's wider figures keep each line short. No line where no check ran (a run
    from before the check, or one that stopped earlier).
    """
    if check is None:
        return []
    if check.get("note"):
        return [f"Serving check: {check['note']}."]
    if not check.get("passed"):
        return ["Serving check FAILED: the candidate was not served as the Evaluator scored it."]
    rows = max(check["rows_checked"].values())
    server = "TF Serving" if check["server"] == TF_SERVING else "stand-in"
    return [
        f"Served right ({server}): {rows} rows, {len(check['rows_checked'])} REST forms, the "
        "Evaluator's scores.",
        f"Serving cost: load {check['load_s']:.1f} s, p50 {check['p50_ms']:.1f} ms, "
        f"p99 {check['p99_ms']:.1f} ms a request, model {check['model_bytes'] / 1e6:.1f} MB.",
    ]

"""The serving check's record in one line, for the run's closing lines and its review."""

from __future__ import annotations

from typing import Any

from data_layout.properties import TF_SERVING


def served_line(check: dict[str, Any] | None) -> str | None:
    """What the serving check found (``data_layout.properties.serving_check_of``), in a line.

    None where no check ran (a run from before the check, or one that stopped earlier).
    """
    if check is None:
        return None
    if check.get("note"):
        return f"Serving check: {check['note']}."
    if not check.get("passed"):
        return "Serving check FAILED: the candidate was not served as the Evaluator scored it."
    rows = max(check["rows_checked"].values())
    server = "TF Serving" if check["server"] == TF_SERVING else "stand-in"
    return (
        f"Served right ({server}): {rows} rows, {len(check['rows_checked'])} REST forms, the "
        f"Evaluator's scores; load {check['load_s']:.1f} s, p50 {check['p50_ms']:.1f} ms, "
        f"p99 {check['p99_ms']:.1f} ms, {check['model_bytes'] / 1e6:.1f} MB."
    )

"""The Evaluator's output read back: TFMA's metrics by slice and model, and what failed.

Also the thresholds of the eval config the Evaluator ran with.
"""

from __future__ import annotations

from review.curves import key_value
from review.paired_comparison import (
    slice_order,
)
from review.records import BASELINE, CANDIDATE, MIN_SLICE_SIZE, SliceMetrics, overall_of
from review.tfma_files import load_metrics


def overall_metrics(evaluation_uri: str) -> dict[str, float]:
    """The candidate's metrics on the whole split the Evaluator at ``evaluation_uri`` scored."""
    return overall_of(read_slices(evaluation_uri)[0])


def candidate_and_baseline(evaluation_uri: str) -> tuple[dict[str, float], dict[str, float]]:
    """The candidate's and the serving model's overall metrics on the same rows ({}: none)."""
    slices, _ = read_slices(evaluation_uri)
    overall = next((s for s in slices if s.column is None), None)
    return (overall.metrics, overall.baseline) if overall else ({}, {})


def _is_model(model_name: str, wanted: str) -> bool:
    # Without a baseline TFMA names the single model "" rather than "candidate".
    return model_name == wanted or (wanted == CANDIDATE and model_name == "")


def model_of(model_name: str) -> str | None:
    """CANDIDATE or BASELINE for TFMA's model name; None for any other model."""
    return next((m for m in (CANDIDATE, BASELINE) if _is_model(model_name, m)), None)


def read_slices(uri: str) -> tuple[list[SliceMetrics], list[SliceMetrics]]:
    """Both models' metrics per slice: those of at least MIN_SLICE_SIZE, and the smaller."""
    slices, small = [], []
    for per_slice in load_metrics(uri):
        keys = per_slice.slice_key.single_slice_keys
        if len(keys) > 1:
            continue
        by_model: dict[str, dict[str, float]] = {CANDIDATE: {}, BASELINE: {}}
        for kv in per_slice.metric_keys_and_values:
            model = model_of(kv.key.model_name)
            if kv.key.is_diff or model is None or not kv.value.HasField("double_value"):
                continue
            by_model[model][kv.key.name] = kv.value.double_value.value
        column, value = (keys[0].column, key_value(keys[0])) if keys else (None, None)
        found = SliceMetrics(column, value, by_model[CANDIDATE], by_model[BASELINE])
        (small if keys and found.rows < MIN_SLICE_SIZE else slices).append(found)
    slices.sort(key=_slice_order)
    small.sort(key=_slice_order)
    return slices, small


def _slice_order(s: SliceMetrics) -> tuple:
    """Overall first; then by column: numbers (hours, areas) in order, text by size."""
    return slice_order(s.column, s.value, s.rows)

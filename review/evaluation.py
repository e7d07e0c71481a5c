"""An evaluation, read back for people: metrics by slice, the verdict, the curves.

Everything here comes from the Evaluator's output directory (TFMA's metrics, plots,
validation result and the eval config it actually used) plus the blessing and
push records, so the report component and the review command show the same thing.
"""

from __future__ import annotations

from data_layout.properties import Outcome
from data_layout.splits import TEST
from review import paired_comparison
from review.calibration import BRIER_SCORE, Calibration, calibration_of
from review.changes import left_out_of, slice_changes
from review.checks import beyond_noise, failing_slices, rate_checks, read_failures, threshold_checks
from review.curves import Curves, load_curves
from review.error_rates import load_rates
from review.paired_comparison import (
    OVERALL,
)
from review.reading import model_of, read_slices
from review.records import BASELINE, CANDIDATE, MIN_SLICE_SIZE, Review, SliceMetrics
from review.tfma_files import load_eval_run

_NO_BASELINE = "No baseline: no model had been blessed before, so only the absolute bounds apply."


def load_review(
    evaluation_uri: str,
    outcome: Outcome,
    run_id: str | None = None,
    split: str = TEST,
) -> Review:
    """Read the Evaluator's output at ``evaluation_uri``, computed on ``split``, into a Review."""
    eval_run = load_eval_run(evaluation_uri)
    config, model_locations = eval_run.eval_config, eval_run.model_locations
    baseline_spec = next((s for s in config.model_specs if s.is_baseline), None)
    slices, small = read_slices(evaluation_uri)
    whole = next((s for s in slices if s.column is None), None)
    failed, other_failures = read_failures(evaluation_uri)
    checks = threshold_checks(
        config, whole.metrics if whole else {}, whole.baseline if whole else {}, failed
    )
    comparison = paired_comparison.read(evaluation_uri)
    checks = beyond_noise(checks + other_failures, comparison) + rate_checks(evaluation_uri)
    paired = paired_comparison.read_slices(evaluation_uri)
    candidate_name = next((s.name for s in config.model_specs if not s.is_baseline), "")
    notes = [comparison.describe()] if comparison is not None else []
    if baseline_spec is None:
        notes.append(_NO_BASELINE)
    curves = load_curves(evaluation_uri, model_of, MIN_SLICE_SIZE)
    return Review(
        evaluation_uri=evaluation_uri,
        model_uri=model_locations.get(candidate_name, ""),
        baseline_uri=model_locations.get(baseline_spec.name) if baseline_spec else None,
        blessed=outcome.blessed,
        checks=checks,
        slices=slices,
        curves_by_slice=curves,
        push=outcome.push,
        run_id=run_id,
        notes=notes,
        split=split,
        changes=slice_changes(
            slices,
            paired,
            comparison,
            failing_slices(checks),
            paired_comparison.read_estimates(evaluation_uri),
        ),
        left_out=left_out_of(small, paired),
        candidate_version=outcome.pushed_version or _model_id(model_locations.get(candidate_name)),
        serving_version=outcome.baseline,
        rates=load_rates(evaluation_uri, model_of, MIN_SLICE_SIZE),
        calibration=_calibration(curves.get(OVERALL, {}), whole),
    )


def _calibration(curves: dict[str, Curves], whole: SliceMetrics | None) -> dict[str, Calibration]:
    """Each model's calibration on the whole split: TFMA's buckets and Brier score."""
    metrics = {CANDIDATE: whole.metrics if whole else {}, BASELINE: whole.baseline if whole else {}}
    return {
        model: calibration_of(found.calibration, metrics[model].get(BRIER_SCORE))
        for model, found in curves.items()
        if found.calibration
    }


def _model_id(location: str | None) -> str | None:
    """An unpushed candidate's name: ``model <id>`` from ``.../model/<id>/Format-Serving``."""
    if not location:
        return None
    parts = location.rstrip("/").split("/")
    if parts[-1] == "Format-Serving":  # TFX's layout of a Trainer's model
        parts = parts[:-1]
    return f"model {parts[-1]}"

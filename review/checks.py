"""The verdict's checks: TFMA's thresholds as run, the error-rate bound, the slice bound.

A slice's AUC change is judged on its noise, the paired comparison's interval.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from review import paired_comparison
from review.curves import slice_name
from review.error_rates import read_held
from review.paired_comparison import (
    GATED_METRIC,
    Comparison,
    SliceComparison,
    interval_text,
)
from review.records import Check
from review.tfma_files import enum_value, load_validation_result

if TYPE_CHECKING:
    from tensorflow_model_analysis.proto.config_pb2 import EvalConfig, MetricConfig, MetricThreshold


def slice_bound_check(check: Check, paired: SliceComparison | None) -> Check:
    """A slice's AUC change failure as the gate judged it on the slice's paired comparison.

    Held: the failure stands. Otherwise the gate set it aside: a gated slice within its
    noise (its interval not wholly below the bound), a slice too small to gate, or one
    without an interval (its reason). No comparison recorded: TFMA's failure stands.
    """
    if paired is None:
        return check
    c = paired.comparison
    check = replace(check, rows=paired.rows, interval=(c.low, c.high) if c is not None else None)
    if paired.held:
        return check
    if not paired.gated:
        return replace(check, passed=True, relaxed="too small to gate")
    if c is None:
        reason = paired.undefined or "no paired comparison"
        return replace(check, passed=True, relaxed=f"no interval: {reason}")
    return replace(check, passed=True, relaxed="within noise")


def judged_on_noise(check: Check) -> bool:
    """Whether a slice's check was decided on its interval: held, or within its noise."""
    return not check.passed or check.relaxed == "within noise"


def slice_checks(checks: Sequence[Check]) -> list[Check]:
    """The checks on slices: failures, then those within noise, then the rest.

    The largest drop first in each group.
    """
    found = [c for c in checks if c.slice is not None]
    return sorted(
        found,
        key=lambda c: (
            c.passed,
            not judged_on_noise(c),
            c.candidate if c.candidate is not None and not math.isnan(c.candidate) else 0.0,
        ),
    )


def threshold_checks(
    config: EvalConfig,
    candidate: dict[str, float],
    baseline: dict[str, float],
    failed: set[tuple[str, bool]],
) -> list[Check]:
    """A Check per threshold of the eval config, overall: the candidate's value, passed or not."""
    checks = []
    for name, threshold in thresholds_of(config):
        value = threshold.value_threshold
        if value.HasField("lower_bound") or value.HasField("upper_bound"):
            parts = []
            if value.HasField("lower_bound"):
                parts.append(f">= {value.lower_bound.value:.4f}")
            if value.HasField("upper_bound"):
                parts.append(f"<= {value.upper_bound.value:.4f}")
            checks.append(
                Check(
                    name,
                    "absolute",
                    candidate.get(name),
                    None,
                    " and ".join(parts),
                    (name, False) not in failed,
                )
            )
        change = threshold.change_threshold
        if change.HasField("absolute") or change.HasField("relative"):
            higher = change.direction == enum_value("MetricDirection", "HIGHER_IS_BETTER")
            if change.HasField("absolute"):
                bound = (
                    f"candidate - baseline {'>=' if higher else '<='} {change.absolute.value:+.4f}"
                )
            else:
                bound = f"relative change {'>=' if higher else '<='} {change.relative.value:+.2%}"
            checks.append(
                Check(
                    name,
                    "change",
                    candidate.get(name),
                    baseline.get(name),
                    bound,
                    (name, True) not in failed,
                )
            )
    return checks


def rate_checks(evaluation_uri: str) -> list[Check]:
    """The error-rate bound's check, where the dataset declared one ([] otherwise)."""
    found = read_held(evaluation_uri)
    if found is None:
        return []
    bound = f"FPR, FNR at most {found.bound:+.3f} above serving's beyond noise"
    if found.held:
        bound += ": " + "; ".join(found.held)
    # A bound that could judge nothing holds nothing back, and says so in its result.
    judged = f"not judged ({found.not_judged})" if found.not_judged else ""
    return [Check("error rates", "rise", None, None, bound, not found.held, relaxed=judged)]


def beyond_noise(checks: list[Check], comparison: Comparison | None) -> list[Check]:
    """The AUC change check as the gate judged it: on the paired comparison's interval."""
    if comparison is None:
        return checks
    interval = interval_text(comparison.low, comparison.high)
    bound = f"change >= {-comparison.tolerance:+.4f} unless its 95% interval {interval} is below"
    return [
        replace(c, bound=bound, passed=not comparison.worse)
        if (c.metric, c.kind, c.slice) == (GATED_METRIC, "change", None)
        else c
        for c in checks
    ]


def failing_slices(checks: list[Check]) -> set[str]:
    """The slices the verdict names as failing a bound on the gated metric."""
    return {c.slice for c in checks if not c.passed and c.slice and c.metric == GATED_METRIC}


def read_failures(uri: str) -> tuple[set[tuple[str, bool]], list[Check]]:
    """The failed overall thresholds, and a Check for every other failure TFMA reported.

    The first is a set of (metric name, is a change check); the others are failures
    on other slices or missing metrics, which also withhold the blessing, except a
    slice's AUC change failure the gate set aside (``slice_bound_check``).
    """
    result = load_validation_result(uri)
    judged = {s.name: s for s in paired_comparison.read_slices(uri)}
    overall, others = set(), []
    for per_slice in result.metric_validations_per_slice:
        keys = per_slice.slice_key.single_slice_keys
        for failure in per_slice.failures:
            key = failure.metric_key
            if not keys:
                overall.add((key.name, key.is_diff))
                continue
            where = slice_name(keys)
            value = (
                failure.metric_value.double_value.value
                if failure.HasField("metric_value")
                else None
            )
            check = Check(
                key.name,
                "change" if key.is_diff else "absolute",
                value,
                None,
                failure.message,
                passed=False,
                slice=where,
            )
            gated_bound = key.is_diff and key.name == GATED_METRIC and len(keys) == 1
            others.append(slice_bound_check(check, judged.get(where)) if gated_bound else check)
    return overall, others


def thresholds_of(
    config: EvalConfig,
) -> Iterable[tuple[str, MetricThreshold]]:
    """Each metric's threshold in the eval config the Evaluator ran with, by metric name."""
    for spec in config.metrics_specs:
        for metric in spec.metrics:
            name = _metric_name(metric)
            for per_slice in metric.per_slice_thresholds:
                if any(
                    not s.feature_keys and not s.feature_values for s in per_slice.slicing_specs
                ):
                    yield name, per_slice.threshold
            if metric.HasField("threshold"):
                yield name, metric.threshold


def _metric_name(metric: MetricConfig) -> str:
    return json.loads(metric.config or "{}").get("name", metric.class_name)

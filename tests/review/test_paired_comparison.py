"""The paired comparison: AUC, the bootstrap interval of a difference, the gate's reading."""

from __future__ import annotations

import random

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from modules import exact_auc
from review import paired_comparison


@pytest.fixture(scope="module")
def scored() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """800 rows: a score that separates the classes well, and one that barely does."""
    rng = random.Random(7)
    labels = [i % 3 == 0 for i in range(800)]
    good = [y + rng.gauss(0, 0.5) for y in labels]
    weak = [0.2 * y + rng.gauss(0, 0.5) for y in labels]
    return np.array(labels, dtype=int), np.array(good), np.array(weak)


def test_auc_is_scikit_learns_ties_included(scored):
    labels, good, _ = scored
    assert exact_auc.auc(labels, good) == pytest.approx(roc_auc_score(labels, good))
    rounded = np.round(good, 1)  # many tied scores
    assert exact_auc.auc(labels, rounded) == pytest.approx(roc_auc_score(labels, rounded))


def test_a_model_against_itself_differs_by_nothing(scored):
    labels, good, _ = scored
    assert paired_comparison.auc_difference_interval(labels, good, good, rounds=200) == (0.0, 0.0)


def test_a_clearly_better_model_has_the_whole_interval_above_zero(scored):
    labels, good, weak = scored
    low, high = paired_comparison.auc_difference_interval(labels, good, weak, rounds=300)
    assert 0.0 < low < high
    assert paired_comparison.auc_difference_interval(labels, weak, good, rounds=300) == (
        -high,
        -low,
    )


def test_a_tie_up_to_noise_has_zero_inside_the_interval(scored):
    labels, good, _ = scored
    rng = random.Random(3)
    jittered = good + np.array([rng.gauss(0, 0.05) for _ in good])
    low, high = paired_comparison.auc_difference_interval(labels, good, jittered, rounds=300)
    assert low < 0.0 < high


def test_a_clearly_worse_candidate_is_worse_beyond_the_tolerance(scored):
    labels, good, weak = scored
    comparison = paired_comparison.compare(labels, weak, good, 0.01)
    assert comparison.rows == 800 and comparison.difference < -0.1
    assert comparison.worse
    assert "paired bootstrap on 800 test rows" in comparison.describe()


def test_a_candidate_a_little_below_on_few_rows_is_not_called_worse(scored):
    # 200 rows: the candidate's point figure is below the serving one's by more than
    # the 0.01 tolerated, but within the rows' noise.
    labels, good, _ = (a[:200] for a in scored)
    candidate = good + np.random.default_rng(2).normal(0, 0.2, len(good))
    comparison = paired_comparison.compare(labels, candidate, good, 0.01)
    assert comparison.difference < -0.01
    assert comparison.low < -0.01 < comparison.high
    assert not comparison.worse


@pytest.mark.parametrize("positives", [0, 1, 4])
def test_too_few_rows_of_a_class_have_no_comparison(positives):
    labels = np.array([1] * positives + [0] * (300 - positives))
    with pytest.raises(ValueError, match=f"300 rows with {positives} positive: fewer than 5"):
        paired_comparison.compare(labels, np.arange(300.0), np.arange(300.0), 0.01)


def test_no_rows_have_no_comparison():
    with pytest.raises(ValueError, match="0 rows with 0 positive"):
        paired_comparison.compare(np.array([], dtype=int), np.array([]), np.array([]), 0.01)


def test_a_comparison_is_kept_beside_the_evaluation(tmp_path, scored):
    labels, good, weak = scored
    comparison = paired_comparison.compare(labels, good, weak, 0.01)
    assert paired_comparison.read(str(tmp_path)) is None
    paired_comparison.write(comparison, str(tmp_path))
    assert paired_comparison.read(str(tmp_path)) == comparison


def test_slice_comparisons_are_read_back_as_written(tmp_path):
    compared = paired_comparison.Comparison(
        rows=40, candidate_auc=0.81, baseline_auc=0.86, low=-0.12, high=0.01, tolerance=0.02
    )
    slices = [
        paired_comparison.SliceComparison("payment_type", "Cash", 40, 12, compared),
        paired_comparison.SliceComparison(
            "payment_type", "No Charge", 9, 0, None, "no positive example"
        ),
    ]
    paired_comparison.write_slices(slices, str(tmp_path))
    assert paired_comparison.read_slices(str(tmp_path)) == slices
    assert paired_comparison.read_slices(str(tmp_path / "elsewhere")) == []


def test_the_bootstrap_draws_all_at_once_as_a_loop_of_draws_would(scored):
    # The vectorized draws are the loop's draws (same generator, same order): each
    # draw's AUC, ties included, is the one auc() gives on the drawn rows.
    labels, good, weak = scored
    rounded = np.round(good, 1)
    counts = paired_comparison._draw_counts(np.random.default_rng(5), len(labels), 3)
    rng = np.random.default_rng(5)
    for row in counts:
        drawn = rng.integers(0, len(labels), len(labels))
        assert np.array_equal(row, np.bincount(drawn, minlength=len(labels)))
        for scores in (rounded, good, np.ones(len(labels))):  # many ties, none, all tied
            assert paired_comparison.weighted_aucs(labels, scores, row[None])[0] == pytest.approx(
                exact_auc.auc(labels[drawn], scores[drawn])
            )
    every = paired_comparison.weighted_aucs(labels, weak, counts)
    assert every.tolist() == [paired_comparison.weighted_aucs(labels, weak, c[None])[0]
                              for c in counts]  # fmt: skip
    # Counts in a narrow type (800 rows: running counts past 255) give the same figures.
    narrow = paired_comparison.weighted_aucs(labels, weak, counts.astype(np.uint8))
    assert narrow.tolist() == every.tolist()
    one_class = np.zeros((1, len(labels)), dtype=int)
    one_class[0, np.flatnonzero(labels == 0)[:5]] = 1
    assert np.isnan(paired_comparison.weighted_aucs(labels, good, one_class)[0])


@pytest.mark.parametrize(
    ("positives", "negatives", "reason"),
    [
        (0, 40, "no positive example"),
        (40, 0, "no negative example"),
        (1, 40, "1 positive: fewer than 5 of a class"),
        (2, 40, "2 positives: fewer than 5 of a class"),
        (40, 4, "4 negatives: fewer than 5 of a class"),
        (5, 5, None),
    ],
)
def test_why_a_slice_has_no_comparison(positives, negatives, reason):
    assert paired_comparison.undefined_reason(np.array([1] * positives + [0] * negatives)) == reason


@pytest.mark.parametrize(
    ("rows", "positives", "gate", "review"),
    [
        (0, 0, "no example", "no example"),
        (9, 0, "no positive example", "no positive example"),
        (9, 9, "no negative example", "no negative example"),
        (43, 3, "3 positives: fewer than 5 of a class", None),  # an AUC, no honest interval
        (10, 5, None, None),
    ],
)
def test_the_gate_and_the_review_give_one_class_the_same_reason(rows, positives, gate, review):
    from review.records import undefined_reason

    labels = np.array([1] * positives + [0] * (rows - positives), dtype=int)
    assert paired_comparison.undefined_reason(labels) == gate
    assert undefined_reason(rows, positives) == review


def test_a_change_and_its_interval_read_alike_wherever_they_are_shown():
    c = paired_comparison.Comparison(
        rows=1234, candidate_auc=0.9, baseline_auc=0.912, low=-0.03, high=0.006, tolerance=0.01
    )
    assert paired_comparison.interval_text(c.low, c.high) == "-0.0300 to +0.0060"
    assert (
        paired_comparison.interval_text(c.low, c.high, between="..", digits=3) == "-0.030..+0.006"
    )
    assert c.change_text(c.drawn_on()) == (
        "-0.0120 (95% interval -0.0300 to +0.0060, paired bootstrap on 1,234 rows)"
    )
    assert c.describe() == (
        "candidate - serving AUC -0.0120 (95% interval -0.0300 to +0.0060, "
        "paired bootstrap on 1,234 test rows)"
    )


def test_every_slice_value_is_compared_on_its_own_rows(scored):
    labels, good, weak = scored  # 800 rows, a third positive
    n = len(labels)
    # "a": 600 rows where the candidate (weak) is far worse; "b": 190 rows where both
    # models score alike; "c": 10 rows of one class; the rest has no value.
    pay = ["a"] * 600 + ["b"] * 190 + ["c"] * 10
    candidate = np.where(np.arange(n) < 600, weak, good)
    labels = labels.copy()
    labels[790:] = 0
    slices = paired_comparison.slice_comparisons(
        labels, candidate, good, {"pay": [[v] for v in pay]}, tolerance=0.05, min_rows=200
    )
    by_value = {s.value: s for s in slices}
    assert [s.value for s in slices] == ["a", "b", "c"]  # the largest first
    a, b, c = by_value["a"], by_value["b"], by_value["c"]
    assert (a.rows, a.positives) == (600, int(labels[:600].sum()))
    assert a.comparison == paired_comparison.compare(labels[:600], weak[:600], good[:600], 0.05)
    assert a.comparison.worse and a.gated and not a.held
    assert b.comparison.difference == 0.0 and not b.comparison.worse
    assert not b.gated  # 190 rows, under min_rows
    assert c.comparison is None and c.undefined == "no positive example"
    assert a.name == "pay=a"

"""Error rates from TFMA's counts: each rate's rows, interval, and the gap to serving."""

from __future__ import annotations

import pytest

from review.curves import Operating
from review.error_rates import (
    HEADINGS,
    HeldRates,
    SliceRates,
    beyond_bound,
    not_judged,
    read_held,
    write_held,
)


def test_rates_come_from_the_counts_of_their_class():
    # 100 negatives (fp 20, tn 80), 50 positives (fn 5, tp 45).
    rates = SliceRates("payment_type", "Cash", 0.25, Operating(0.25, 45, 20, 80, 5), None)
    fpr, fnr = rates.rate("fpr"), rates.rate("fnr")
    assert (fpr.errors, fpr.rows, fnr.errors, fnr.rows) == (20, 100, 5, 50)
    assert fpr.share == 0.2 and fnr.share == 0.1
    low, high = fpr.interval
    assert low < 0.2 < high
    cells = rates.cells()
    assert len(cells) == len(HEADINGS)
    assert cells[:3] == [
        "payment_type=Cash",
        "100",
        f"0.200 {low:.3f}-{high:.3f}".replace(" 0.", " .").replace("-0.", "-."),
    ]
    assert cells[-1] == "" and rates.gap("fnr") is None  # nothing served


@pytest.mark.parametrize(
    ("serving_fn", "flagged"), [(1, ["FNR"]), (8, [])], ids=["beyond-noise", "within-noise"]
)
def test_a_rate_higher_than_servings_is_flagged_beyond_noise_only(serving_fn, flagged):
    # The candidate misses 12 of 200 positives; the serving model 1 (or 8) of the same rows.
    candidate = Operating(0.25, 188, 30, 270, 12)
    serving = Operating(0.25, 200 - serving_fn, 30, 270, serving_fn)
    rates = SliceRates(None, None, 0.25, candidate, serving)
    assert rates.higher == flagged
    assert rates.cells()[-1] == (f"higher {','.join(flagged)}" if flagged else "")


def test_the_bound_names_each_rate_beyond_it_and_only_those():
    # FNR 12/200 against 1/200: gap interval about +0.025 to +0.095.
    rose = SliceRates("company", "Cab", 0.25, Operating(0.25, 188, 30, 270, 12),
                      Operating(0.25, 199, 30, 270, 1))  # fmt: skip
    steady = SliceRates(None, None, 0.5, Operating(0.5, 190, 20, 280, 10),
                        Operating(0.5, 190, 20, 280, 10))  # fmt: skip
    (held,) = beyond_bound([rose, steady], 0.0)
    assert held.startswith("company=Cab FNR at 0.25: 0.060 against 0.005 (gap 95% interval +0.0")
    assert beyond_bound([rose, steady], 0.05) == []  # the interval reaches below +0.05
    assert beyond_bound([SliceRates(None, None, 0.5, Operating(0.5, 1, 1, 1, 1), None)], 0.0) == []


def test_the_held_rates_are_kept_beside_the_evaluation(tmp_path):
    assert read_held(str(tmp_path)) is None  # no bound declared
    write_held(HeldRates(0.02, ["Overall FNR at 0.25: ..."]), str(tmp_path))
    assert read_held(str(tmp_path)) == HeldRates(0.02, ["Overall FNR at 0.25: ..."])
    # As a run before "not judged" was recorded wrote it: still read.
    (tmp_path / "held_error_rates.json").write_text('{"bound": 0.01, "held": []}')
    assert read_held(str(tmp_path)) == HeldRates(0.01, [], "")


def test_a_bound_that_could_judge_no_rate_says_why():
    assert not_judged([]) == "the evaluation recorded no error rates"
    alone = SliceRates(None, None, 0.5, Operating(0.5, 190, 20, 280, 10), None)
    assert not_judged([alone]) == (
        "no rate has rows of its class on both the candidate and the serving model"
    )
    served = SliceRates(None, None, 0.5, Operating(0.5, 190, 20, 280, 10),
                        Operating(0.5, 190, 20, 280, 10))  # fmt: skip
    assert not_judged([alone, served]) == ""

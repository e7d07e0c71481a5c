"""Wilson's and Newcombe's intervals against published figures."""

from __future__ import annotations

import pytest

from review.proportions import gap_interval, wilson


def test_wilson_matches_newcombes_worked_examples():
    # Newcombe (1998), Statistics in Medicine 17:857, table I: 81/263 and 15/148.
    assert wilson(81, 263) == pytest.approx((0.2553, 0.3662), abs=1e-4)
    assert wilson(15, 148) == pytest.approx((0.0624, 0.1605), abs=1e-4)
    # A share of 0 keeps its interval inside [0, 1].
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson(3, 0) is None


def test_newcombes_hybrid_interval_of_a_difference():
    # Newcombe (1998), Statistics in Medicine 17:873, table II example (a): 56/70 - 48/80.
    assert gap_interval((56, 70), (48, 80)) == pytest.approx((0.0524, 0.3339), abs=1e-4)
    assert gap_interval((1, 0), (2, 5)) is None

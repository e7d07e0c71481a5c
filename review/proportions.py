"""Intervals for a share of rows: Wilson's for one, Newcombe's for the gap between two.

A slice's false negative rate on 30 positives, or a calibration bin's observed rate,
is a count out of a few rows: the normal approximation's interval runs below 0 or
above 1 there, Wilson's score interval does not. Newcombe's hybrid (his method 10)
combines two Wilson intervals into one for the difference of two independent shares.
"""

from __future__ import annotations

import math

# The normal quantile of a two-sided 95% interval.
Z95 = 1.959964


def wilson(count: float, rows: float, z: float = Z95) -> tuple[float, float] | None:
    """The 95% Wilson score interval of ``count`` out of ``rows`` (None: no rows)."""
    if rows <= 0:
        return None
    share = count / rows
    centre = (share + z * z / (2 * rows)) / (1 + z * z / rows)
    half = z / (1 + z * z / rows) * math.sqrt(share * (1 - share) / rows + z * z / (4 * rows**2))
    # The share itself lies inside, rounding aside (at 0 and 1 the ends meet it).
    return max(0.0, min(share, centre - half)), min(1.0, max(share, centre + half))


def gap_interval(
    first: tuple[float, float], second: tuple[float, float]
) -> tuple[float, float] | None:
    """Newcombe's 95% interval of share(first) - share(second), each (count, rows).

    None where either has no rows.
    """
    one, two = wilson(*first), wilson(*second)
    if one is None or two is None:
        return None
    p1, p2 = first[0] / first[1], second[0] / second[1]
    (l1, u1), (l2, u2) = one, two
    gap = p1 - p2
    return (
        gap - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
        gap + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2),
    )

"""Wilson score interval for a binomial proportion (P, P_family, P per difficulty).

Irrational (a square root), so computed in floating point and written with 6
decimals; the proportion itself stays exact elsewhere.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from statistics import NormalDist


@lru_cache(maxsize=64)
def z_value(confidence: Fraction) -> float:
    """Two-sided standard-normal quantile: z with P(|Z| <= z) = confidence (1.959964 for 0.95).

    ``confidence`` must lie strictly between 0 and 1 (ValueError otherwise). Memoised: every Wilson
    interval of a run (subjects, families, difficulty levels) uses the same level.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    return NormalDist().inv_cdf(float(1 - (1 - Fraction(confidence)) / 2))


def wilson_interval(successes: int, n: int, confidence: Fraction = Fraction(95, 100)) -> tuple[float, float] | None:
    """Wilson score interval (low, high) for ``successes`` out of ``n``, within [0, 1].

    With p = successes/n and z = z_value(confidence)::

        centre = (p + z²/(2n)) / (1 + z²/n)
        half   = z · sqrt(p(1 − p)/n + z²/(4n²)) / (1 + z²/n)

    Degenerate cases: None when n = 0 (no interval); low is exactly 0 when
    successes = 0 and high exactly 1 when successes = n (the formula gives those
    values up to rounding; they are pinned so that P = 0 or 1 never shows
    -0.000000 or 1.000001). Unlike the normal (Wald) interval, it is never empty
    or degenerate at P = 0 or 1: with 0 of 30 it is [0, 0.114].
    """
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return None
    z = z_value(confidence)
    p = successes / n
    z2n = z * z / n
    denominator = 1 + z2n
    centre = (p + z2n / 2) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z2n / (4 * n)) / denominator
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high

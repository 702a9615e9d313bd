"""Score intervals: Wilson's for a proportion (P, P_family, P per difficulty) and its extension to a mean of
values in [0, 1] over cases (BS).

Irrational (a square root), so computed in floating point from exact sums and written with 6 decimals; the
estimate itself stays exact elsewhere.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from statistics import NormalDist

import numpy as np


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

    With p = successes/n and z = z_value(confidence), [centre − half, centre + half] for

        centre = (p + z²/(2n)) / (1 + z²/n)
        half   = z · sqrt(p(1 − p)/n + z²/(4n²)) / (1 + z²/n)

    computed as :func:`bounded_mean_interval` of n cases of one run, ``successes`` of them 1 (the same interval:
    one implementation). Degenerate cases: None when n = 0 (no interval); low is exactly 0 when successes = 0
    and high exactly 1 when successes = n (so P = 0 or 1 never shows -0.000000 or 1.000001). Unlike the normal
    (Wald) interval, it is never empty or degenerate at P = 0 or 1: with 0 of 30 it is [0, 0.114].
    """
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    return bounded_mean_interval([1] * successes + [0] * (n - successes), [1] * n, confidence)


def bounded_mean_interval(sums: Sequence[int] | np.ndarray, runs: Sequence[int] | np.ndarray, confidence: Fraction,
                          unit: int | Fraction = 1) -> tuple[float, float] | None:
    """The score interval of m = Σ_c a_c / Σ_c n_c when every run's value lies in [0, 1] (BS), allowing for large
    values the cases did not show.

    ``sums[c]`` a_c is case c's total over its ``runs[c]`` = n_c runs in units of 1/``unit`` (whole numbers: every
    sum below is exact). With N = Σ n_c, the estimate x̄ = Σ a_c / (unit · N), the per-case variance s² =
    Σ_c (a_c/unit − x̄ n_c)² / Σ_c n_c² and the effective number of cases K_e = N² / Σ_c n_c² (K with equal
    runs), the interval is every m whose score test passes, (m − x̄)² ≤ z² σ²(m) / K_e (Wilson 1927, "Probable
    inference, the law of succession, and statistical inference", JASA 22), with σ²(m) the variance of the
    empirical law of the case values moved to mean m by the least mass at the nearer bound: m > x̄ puts mass
    ε = (m − x̄)/(1 − x̄) at 1, m < x̄ mass (x̄ − m)/x̄ at 0, so σ²(m) = (1 − ε) s² + d (u − d) with d = |m − x̄|
    and u = 1 − x̄ above, x̄ below (a case with all its runs at the bound is the largest error a sample that
    has none cannot rule out). Solving (1 + c) d² − c (u − s²/u) d − c s² = 0 for c = z²/K_e gives each side's

        d = [c (u − s²/u) + sqrt(c² (u − s²/u)² + 4 (1 + c) c s²)] / (2 (1 + c))     (0 when u = 0)

    and [low, high] = [x̄ − d_below, x̄ + d_above], within [0, 1] (d < u). For 0/1 values s² = x̄(1 − x̄) and it
    is Wilson's interval of :func:`wilson_interval` exactly; for values that are rarely large it is wider than
    a bootstrap, which resamples only what was drawn (aggregate_metrics.md §18 has the measured coverage and
    width). None without cases; x̄ = 0 gives low 0 (all ones: high 1); one case gives a wide interval, never a
    point (nothing measures the spread of one case). ValueError when a case has no run.
    """
    a = [int(x) for x in sums]
    n = [int(x) for x in runs]
    if not n:
        return None
    if min(n) < 1 or len(a) != len(n):
        raise ValueError("every case needs at least one run and one sum")
    total, squares = sum(n), sum(x * x for x in n)
    mean = Fraction(sum(a), unit * total)
    variance = sum((Fraction(x, unit) - mean * k) ** 2 for x, k in zip(a, n)) / squares
    z = z_value(confidence)
    c = z * z * squares / (total * total)

    def reach(room: Fraction) -> float:
        if room == 0:
            return 0.0
        b = float(room - variance / room)
        return (c * b + math.sqrt(c * c * b * b + 4 * (1 + c) * c * float(variance))) / (2 * (1 + c))

    return max(0.0, float(mean) - reach(mean)), min(1.0, float(mean) + reach(1 - mean))

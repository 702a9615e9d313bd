"""Percentile intervals of exact (``Fraction``) bootstrap replicates, for the statistics whose replicates are
exact ratios (the difficulty separation, the agreement statistics)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction

import numpy as np


def percentile_interval(replicates: Iterable[Fraction], confidence: Fraction) -> tuple[Fraction, Fraction]:
    """(low, high): the (1−c)/2 and (1+c)/2 quantiles of the replicates, exactly (Hyndman-Fan type 7, numpy's
    and R's default): with x_(0) ≤ … ≤ x_(B−1) and h = (B − 1) q, x_(⌊h⌋) + (h − ⌊h⌋)(x_(⌊h⌋+1) − x_(⌊h⌋))."""
    ordered = sorted(replicates)
    if not ordered:
        raise ValueError("no replicate")
    out = []
    for q in ((1 - confidence) / 2, (1 + confidence) / 2):
        h = (len(ordered) - 1) * Fraction(q)
        lo = math.floor(h)
        frac = h - lo
        out.append(ordered[lo] if frac == 0 else ordered[lo] + frac * (ordered[lo + 1] - ordered[lo]))
    return out[0], out[1]


def seeded_stream(seed: int) -> np.random.Generator:
    """numpy Generator(PCG64(SeedSequence(seed))): the stream of a statistic seeded from its own data."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))

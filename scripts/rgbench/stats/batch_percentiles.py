"""Exact percentile intervals of many bootstrap quantities at once.

Each quantity p has B replicates scale_p · num[p, i] / den[p, i] (integers, every
den > 0). :func:`percentile_intervals` gives the same exact (low, high) as
:func:`.bootstrap.percentile_interval` on each row (tests prove it), but orders
all rows with one vectorised float sort instead of one exact sort per quantity.

Why the float order is the exact order. Let D be the largest denominator of a row
and M the largest |value| (before the scale). Two different replicate values
x = n/d and y = n'/d' differ by at least 1/(d·d') >= 1/D². Division of exact
integers is correctly rounded, so fl(x) is within M·2**-53 of x. When
M·D² < 2**51, the rounding errors of x and y together (at most M·2**-52) are
less than half the smallest gap, so x < y implies fl(x) < fl(y), and x = y gives
fl(x) = fl(y): the float order is the exact order, ties included. A row failing
the check (far beyond any benchmark's size) falls back to the exact
per-quantity path, so the result is exact either way.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import numpy as np

from .bootstrap import Replicates, percentile_interval, quantile_positions

_EXACT_ORDER_LIMIT = float(1 << 51)


def exact_float_order(ordered: np.ndarray, den: np.ndarray) -> np.ndarray:
    """Per row, whether the float order of the quotients is their exact order (the check above).

    ``ordered`` holds each row's float quotients sorted (so M is the larger of
    |first| and |last|), ``den`` the denominators.
    """
    largest = np.maximum(np.abs(ordered[:, 0]), np.abs(ordered[:, -1]))
    d = den.max(axis=1).astype(np.float64)
    return largest * d * d < _EXACT_ORDER_LIMIT


def percentile_intervals(num: np.ndarray, den: np.ndarray, scales: Sequence[Fraction],
                         confidence: Fraction) -> list[tuple[Fraction, Fraction]]:
    """(low, high) per row: the percentile interval of scales[p] · num[p, :] / den[p, :], exact.

    ``num`` and ``den`` are (P x B) float arrays of exact integers (below
    2**53 in magnitude, every den > 0); each ``scales[p]`` is positive. The
    quantiles are those of :func:`.bootstrap.percentile_interval` (type 7).
    """
    rows, b = num.shape
    if rows == 0:
        return []
    if den.min() <= 0:
        raise ValueError("every replicate needs a positive denominator")
    positions = quantile_positions(b, confidence)
    ranks = sorted({r for lo, frac in positions for r in ((lo, lo + 1) if frac else (lo,))})
    approx = num.astype(np.float64) / den.astype(np.float64)     # exact integers, one correctly rounded division
    ordered = np.sort(approx, axis=1)
    fast = exact_float_order(ordered, den)
    out: list[tuple[Fraction, Fraction] | None] = [None] * rows
    chosen = np.flatnonzero(fast)
    if chosen.size:
        values, ordered = (approx, ordered) if chosen.size == rows else (approx[chosen], ordered[chosen])
        picked = {}
        for r in ranks:
            at = np.argmax(values == ordered[:, r:r + 1], axis=1)   # a replicate holding the r-th smallest value
            picked[r] = (list(map(int, num[chosen, at].tolist())), list(map(int, den[chosen, at].tolist())))
        rows_scales = [Fraction(scales[row]) for row in chosen.tolist()]
        low, high = (_quantiles(picked, lo, frac, rows_scales) for lo, frac in positions)
        for row, bounds in zip(chosen.tolist(), zip(low, high)):
            out[row] = bounds
    for row in np.flatnonzero(~fast).tolist():
        replicates = Replicates(num[row].astype(np.int64), den[row].astype(np.int64), Fraction(scales[row]))
        out[row] = percentile_interval(replicates, confidence)
    return out  # type: ignore[return-value]


def _quantiles(picked: dict, lo: int, frac: Fraction, scales: list[Fraction]) -> list[Fraction]:
    """Per row, scale · (x0 + frac · (x1 − x0)) with x = n/d at the order statistics lo and lo + 1, as one
    exact fraction each."""
    n0s, d0s = picked[lo]
    if frac == 0:
        return [Fraction(s.numerator * n0, s.denominator * d0) for s, n0, d0 in zip(scales, n0s, d0s)]
    n1s, d1s = picked[lo + 1]
    fn, fd = frac.numerator, frac.denominator
    return [Fraction(s.numerator * (n0 * d1 * fd + fn * (n1 * d0 - n0 * d1)), s.denominator * d0 * d1 * fd)
            for s, n0, d0, n1, d1 in zip(scales, n0s, d0s, n1s, d1s)]

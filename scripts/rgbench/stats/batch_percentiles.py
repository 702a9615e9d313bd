"""Exact percentile intervals of many bootstrap quantities at once.

Each quantity p has B replicates scale_p · num[p, i] / den[p, i] (integers, every
den > 0). :func:`percentile_intervals` gives the same exact (low, high) as
:func:`.bootstrap.percentile_interval` on each row (tests prove it), but finds
the order statistics of all rows with one vectorised float sort instead of one
exact sort per quantity.

Why a float sort gives the exact order statistics. The quotient f(x) of two
exact integers, correctly rounded to a float format (then possibly rounded again
to a narrower one), is a non-decreasing function of the exact value x = num/den
alone. So in a row sorted by f, a value v = f(x) at rank r that is *isolated*
(its neighbours at ranks r − 1 and r + 1 are different floats) belongs to
exactly one replicate, and that replicate's exact value has rank r: every
replicate with a smaller (larger) float has a smaller (larger) exact value.
Moreover, with a p-bit significand, when M·D² < 2**(p−2) (M the largest |f|
of the row, D its largest denominator) distinct exact values, at least 1/D²
apart, always round to distinct floats, so equal floats mean equal exact values
and *any* replicate holding the float at rank r has the exact value of rank r.

Rows are tried in float32 (half the memory traffic of float64) with either
argument; the rows neither argument settles are retried in float64; the few
rows left (far beyond any benchmark's size, or near-ties at a wanted rank)
take the exact per-quantity path. The result is exact either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from .bootstrap import Replicates, percentile_interval, quantile_positions

# M·D² below 2**(p-2) for a p-bit significand: float32 (p = 24; one more rounding from float64 at most)
# and float64 (p = 53)
_EXACT_ORDER_LIMIT = {np.float32: float(1 << 22), np.float64: float(1 << 51)}


def order_statistic_indices(num: np.ndarray, den: np.ndarray, ranks: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """(picks, settled): per row, the index of a replicate holding the exact value of each 0-based rank.

    ``num`` and ``den`` are (P x B) float arrays of exact integers (every den > 0);
    ``ranks`` are distinct ranks in 0..B-1. ``picks`` is (P x len(ranks)) int64;
    rows with ``settled`` False have no pick (the float orders could not prove
    which replicate it is: see the module docstring) and must take the exact path.
    """
    rows, b = num.shape
    picks = np.zeros((rows, len(ranks)), dtype=np.int64)
    settled = np.zeros(rows, dtype=bool)
    if rows == 0 or not ranks:
        settled[:] = True
        return picks, settled
    single = num.dtype == np.float32 and den.dtype == np.float32
    chunk = max(1, _CHUNK_VALUES // b)          # a few rows at a time: the temporaries stay in cache
    for start in range(0, rows, chunk):
        part = slice(start, min(start + chunk, rows))
        if single:
            quotient32 = num[part] / den[part]                               # one correctly rounded division
        else:
            quotient32 = (num[part].astype(np.float64) / den[part].astype(np.float64)).astype(np.float32)
        _settle(quotient32, den[part], ranks, np.float32, picks, np.arange(part.start, part.stop), settled)
    todo = np.flatnonzero(~settled)
    if todo.size:
        quotient64 = num[todo].astype(np.float64) / den[todo].astype(np.float64)
        _settle(quotient64, den[todo], ranks, np.float64, picks, todo, settled)
    return picks, settled


_CHUNK_VALUES = 1 << 17    # replicates per chunk of rows (512 KB of float32)


def _settle(quotient: np.ndarray, den: np.ndarray, ranks: Sequence[int], dtype, picks: np.ndarray,
            rows: np.ndarray, settled: np.ndarray) -> None:
    """Settle the ``rows`` whose ``quotient`` floats prove their order statistics (picks and settled)."""
    ordered = np.sort(quotient, axis=1)
    b = ordered.shape[1]
    ok = np.ones(len(ordered), dtype=bool)                                # isolated at every rank
    for r in ranks:
        if r > 0:
            ok &= ordered[:, r - 1] < ordered[:, r]
        if r < b - 1:
            ok &= ordered[:, r] < ordered[:, r + 1]
    tied = np.flatnonzero(~ok)
    if tied.size:                                                         # or float ties are exact ties
        largest = np.maximum(np.abs(ordered[tied, 0]), np.abs(ordered[tied, -1])).astype(np.float64)
        d = den[tied].max(axis=1).astype(np.float64)
        ok[tied] = largest * d * d < _EXACT_ORDER_LIMIT[dtype]
    if ok.any():
        chosen = rows[ok]
        for j, r in enumerate(ranks):             # (all rows: cheaper than copying out the chosen ones)
            picks[chosen, j] = np.argmax(quotient == ordered[:, r:r + 1], axis=1)[ok]
        settled[chosen] = True


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
    picks, settled = order_statistic_indices(num, den, ranks)
    out: list[tuple[Fraction, Fraction] | None] = [None] * rows
    chosen = np.flatnonzero(settled)
    if chosen.size:
        nums = num[chosen[:, None], picks[chosen]].astype(np.int64)      # exact integers (below 2**53)
        dens = den[chosen[:, None], picks[chosen]].astype(np.int64)
        exact: dict[int, tuple[int, int]] = {}                            # id -> (numerator, denominator)
        for scale in scales:
            if id(scale) not in exact:
                value = Fraction(scale)
                exact[id(scale)] = (value.numerator, value.denominator)
        row_scales = [exact[id(scales[row])] for row in chosen.tolist()]
        largest_scale = max(max(abs(sn), sd) for sn, sd in exact.values())
        column = {r: j for j, r in enumerate(ranks)}
        low, high = (_quantiles(nums, dens, column, lo, frac, row_scales, largest_scale) for lo, frac in positions)
        for row, bounds in zip(chosen.tolist(), zip(low, high)):
            out[row] = bounds
    for row in np.flatnonzero(~settled).tolist():
        replicates = Replicates(num[row].astype(np.int64), den[row].astype(np.int64), Fraction(scales[row]))
        out[row] = percentile_interval(replicates, confidence)
    done = [bounds for bounds in out if bounds is not None]
    assert len(done) == rows  # every row is either settled or computed one by one above
    return done


_INT64_SAFE = 1 << 62


def _quantiles(nums: np.ndarray, dens: np.ndarray, column: dict[int, int], lo: int, frac: Fraction,
               scales: list[tuple[int, int]], largest_scale: int) -> list[Fraction]:
    """Per row, scale · (x0 + frac · (x1 − x0)) with x = n/d at the order statistics lo and lo + 1 (the
    columns of ``nums``/``dens`` given by ``column``), as one exact fraction each; ``scales`` are
    (numerator, denominator) pairs, none above ``largest_scale``. Numerators and denominators in int64
    when they fit, else Python ints."""
    fn, fd = frac.numerator, frac.denominator
    columns = [column[lo]] if frac == 0 else [column[lo], column[lo + 1]]
    largest = max(int(np.abs(nums[:, columns]).max()), int(dens[:, columns].max()), 1)
    if 3 * largest ** len(columns) * fd * largest_scale < _INT64_SAFE:
        n0, d0 = nums[:, columns[0]], dens[:, columns[0]]
        s_num = np.array([sn for sn, _ in scales], dtype=np.int64)
        s_den = np.array([sd for _, sd in scales], dtype=np.int64)
        if frac == 0:
            numerators, denominators = s_num * n0, s_den * d0
        else:
            n1, d1 = nums[:, columns[1]], dens[:, columns[1]]
            numerators, denominators = s_num * (n0 * d1 * fd + fn * (n1 * d0 - n0 * d1)), s_den * (d0 * d1 * fd)
        return [Fraction(n, d) for n, d in zip(numerators.tolist(), denominators.tolist())]
    n0s, d0s = nums[:, columns[0]].tolist(), dens[:, columns[0]].tolist()
    if frac == 0:
        return [Fraction(sn * n0, sd * d0) for (sn, sd), n0, d0 in zip(scales, n0s, d0s)]
    n1s, d1s = nums[:, columns[1]].tolist(), dens[:, columns[1]].tolist()
    return [Fraction(sn * (n0 * d1 * fd + fn * (n1 * d0 - n0 * d1)), sd * d0 * d1 * fd)
            for (sn, sd), n0, d0, n1, d1 in zip(scales, n0s, d0s, n1s, d1s)]

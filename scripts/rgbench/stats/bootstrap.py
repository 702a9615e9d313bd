"""Percentile bootstrap over cases, seeded from the data, with exact percentiles.

Cases are the resampling unit: a case's runs move together, because repeated
runs of one case are correlated and are not independent observations. Every
statistic resampled here is a ratio of per-case sums (a weighted sum over the
drawn cases divided by another), so a replicate is computed from a (B x K)
matrix of draw counts times per-case integer columns: vectorised, and exact.

Seeds: ``bootstrap_seed`` takes the first 64 bits of results/manifest.json's
``input_digest``; a stream is ``PCG64(SeedSequence([seed, label_key(label)]))``
(:func:`generator`). compute_metrics uses one stream per computation, labelled
by its case list, and gives each case set its draw from it
(:mod:`.case_draws`); :func:`draw_counts` draws from any stream directly. The
same inputs give the same draws, hence the same bytes.

This module is the straightforward, exact path (one quantity at a time); the
tables of all subjects and pairs use :mod:`.batch_percentiles` and are tested
equal to it.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np

_INT64_SAFE = 1 << 62
_FLOAT_WINDOW = 1e-9  # far wider than float64 division error (~1e-16), far narrower than real gaps


def bootstrap_seed(input_digest: str) -> int:
    """The base seed: the first 16 hex digits (64 bits) of the input digest, as an integer."""
    return int(input_digest[:16], 16)


def label_key(label: str) -> int:
    """A 64-bit integer naming one resampled quantity, e.g. ``subject:alpha-model``."""
    return int.from_bytes(hashlib.sha256(label.encode("utf-8")).digest()[:8], "big")


def generator(seed: int, label: str) -> np.random.Generator:
    """The random stream of ``label`` under base ``seed``: numpy Generator(PCG64) on SeedSequence([seed, key])."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, label_key(label)])))


def draw_counts(rng: np.random.Generator, n_cases: int, resamples: int) -> np.ndarray:
    """(resamples x n_cases) int64 matrix: how often each case is drawn in each replicate.

    Each replicate draws n_cases cases uniformly with replacement (one
    ``rng.integers(0, n_cases, size=(resamples, n_cases))`` call), so every
    row sums to n_cases.
    """
    if n_cases < 1 or resamples < 1:
        raise ValueError("need at least one case and one resample")
    picks = rng.integers(0, n_cases, size=(resamples, n_cases), dtype=np.int64)
    offsets = (np.arange(resamples, dtype=np.int64) * n_cases)[:, None]
    return np.bincount((picks + offsets).ravel(), minlength=resamples * n_cases).reshape(resamples, n_cases)


def integer_column(values: Sequence[Fraction | int]) -> tuple[np.ndarray, int]:
    """(ints, L): exact per-case values as int64 numerators over their common denominator L (value = int / L)."""
    fractions = [Fraction(v) for v in values]
    common = math.lcm(*(f.denominator for f in fractions)) if fractions else 1
    return _checked([f.numerator * (common // f.denominator) for f in fractions]), common


def _checked(ints: Sequence[int]) -> np.ndarray:
    """int64 array of ``ints``; OverflowError when a sum over a replicate could leave int64."""
    if sum(abs(int(i)) for i in ints) * max(len(ints), 1) >= _INT64_SAFE:
        raise OverflowError("per-case sums too large for exact int64 resampling")
    return np.asarray(ints, dtype=np.int64)


@dataclass(frozen=True)
class Replicates:
    """Bootstrap replicates as exact ratios: replicate i = scale * num[i] / den[i], every den[i] > 0."""

    num: np.ndarray
    den: np.ndarray
    scale: Fraction

    def value(self, index: int) -> Fraction:
        return self.scale * Fraction(int(self.num[index]), int(self.den[index]))


def ratio_replicates(counts: np.ndarray, numerators: Sequence[Fraction | int], denominators: Sequence[int],
                     scale: Fraction = Fraction(1)) -> Replicates:
    """Replicates of scale · (sum over drawn cases of numerator) / (sum over drawn cases of denominator).

    ``numerators`` are exact per-case values (ints, or Fractions brought to a
    common denominator); ``denominators`` are positive integers (a case's run
    count), so every replicate has a positive denominator.
    """
    if all(isinstance(v, (int, np.integer)) for v in numerators):
        ints, common = _checked(numerators), 1
    else:
        ints, common = integer_column(numerators)
    return Replicates(counts @ ints, counts @ np.asarray(denominators, dtype=np.int64), scale / common)


def abs_sum_replicates(counts: np.ndarray, per_case_bins: Sequence[Sequence[int]], denominators: Sequence[int],
                       scale: Fraction = Fraction(1)) -> Replicates:
    """Replicates of scale · (sum over bins of |sum over drawn cases of d[case][bin]|) / (sum of denominators).

    ECE's form; ``per_case_bins`` are integers (scaled by ``scale``).
    """
    matrix = _checked([v for row in per_case_bins for v in row]).reshape(len(per_case_bins), -1)
    return Replicates(np.abs(counts @ matrix).sum(axis=1), counts @ np.asarray(denominators, dtype=np.int64), scale)


def order_statistics(replicates: Replicates, ranks: Sequence[int]) -> list[Fraction]:
    """The exact values of the given 0-based order statistics (ascending) of the replicates.

    Sorting is done on float approximations; the neighbourhood of each asked
    rank (values within 1e-9 of it) is then re-sorted with exact fractions, so
    two replicates closer than float precision are still ordered exactly.
    """
    num, den = replicates.num, replicates.den
    approx = num / den
    ordered = np.sort(approx, kind="stable")
    out = []
    for rank in ranks:
        target = ordered[rank]
        window = _FLOAT_WINDOW * max(1.0, abs(float(target)))
        below = int(np.count_nonzero(approx < target - window))
        near = np.flatnonzero(np.abs(approx - target) <= window)
        exact = sorted(Fraction(int(num[i]), int(den[i])) for i in near)
        out.append(replicates.scale * exact[rank - below])
    return out


def quantile_positions(resamples: int, confidence: Fraction) -> tuple[tuple[int, Fraction], tuple[int, Fraction]]:
    """((lo, frac), (lo, frac)) of the (1-c)/2 and (1+c)/2 quantiles of B sorted replicates (Hyndman-Fan type 7).

    h = (B - 1) * q, lo = floor(h), frac = h - lo in [0, 1): the quantile is
    x_(lo) + frac * (x_(lo+1) - x_(lo)), and x_(lo+1) is needed only when frac > 0.
    """
    out = []
    for q in ((1 - confidence) / 2, (1 + confidence) / 2):
        h = (resamples - 1) * Fraction(q)
        lo = math.floor(h)
        out.append((lo, h - lo))
    return out[0], out[1]


def percentile_interval(replicates: Replicates, confidence: Fraction) -> tuple[Fraction, Fraction]:
    """(low, high): the (1-c)/2 and (1+c)/2 quantiles of the replicates, exactly.

    Quantiles interpolate linearly between order statistics at position
    h = (B - 1) * q (Hyndman-Fan type 7, numpy's and R's default): with
    x_(0) <= ... <= x_(B-1), quantile(q) = x_(floor h) + (h - floor h)(x_(floor h + 1) - x_(floor h)).
    """
    result = []
    for lo, frac in quantile_positions(len(replicates.num), confidence):
        if frac == 0:
            result.append(order_statistics(replicates, [lo])[0])
        else:
            x0, x1 = order_statistics(replicates, [lo, lo + 1])
            result.append(x0 + frac * (x1 - x0))
    return result[0], result[1]

"""Percentile bootstrap over cases: the seed, the random streams, and exact percentiles of one quantity.

Cases are the resampling unit: a case's runs move together, because repeated
runs of one case are correlated and are not independent observations. Every
statistic resampled is a ratio of per-case sums (a weighted sum over the drawn
cases divided by another): a replicate is an exact ratio (:class:`Replicates`).

Seeds: ``bootstrap_seed`` takes the first 64 bits of results/manifest.json's
``input_digest``; a stream is ``PCG64(SeedSequence([seed, label_key(label)]))``
(:func:`generator`). compute_metrics uses one stream per computation, labelled
by its case list, and gives each case set its draw from it (:mod:`.case_draws`).
The same inputs give the same draws, hence the same bytes.

:func:`percentile_interval` is the exact path for one quantity; the tables of all
subjects and pairs use :mod:`.batch_percentiles`, which falls back to it for the
rows whose float order proves nothing.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

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


@dataclass(frozen=True)
class Replicates:
    """Bootstrap replicates as exact ratios: replicate i = scale * num[i] / den[i], every den[i] > 0."""

    num: np.ndarray
    den: np.ndarray
    scale: Fraction

    def value(self, index: int) -> Fraction:
        return self.scale * Fraction(int(self.num[index]), int(self.den[index]))


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

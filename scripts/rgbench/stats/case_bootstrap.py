"""A percentile bootstrap of any statistic of rated units, resampling cases (a case's runs move together).

For the reviewer report and the judge's agreement, whose statistics (Krippendorff's alpha, macro-F1, a
mean deviation) are not ratios of per-case sums, so each replicate recomputes the statistic exactly on
the drawn units. Clusters are the cases: the units of one case are drawn together, as everywhere in
rgbench.stats (aggregate_metrics.md: the case is the unit). The stream is
:func:`label_stream` (PCG64 seeded by the input digest and a label), so the same
inputs give the same bytes; the interval is Hyndman-Fan type 7 on the replicates where the statistic is
defined (:func:`quantile_positions`). :func:`ratio_interval` is the exact,
vectorised form for a mean that is a ratio of per-case sums.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeVar

import numpy as np

U = TypeVar("U")

_FLOAT_WINDOW = 1e-9  # far wider than float64 division error (~1e-16), far narrower than real gaps


def bootstrap_seed(input_digest: str) -> int:
    """The base seed: the first 16 hex digits (64 bits) of the input digest, as an integer."""
    return int(input_digest[:16], 16)


def label_key(label: str) -> int:
    """A 64-bit integer naming one resampled quantity, e.g. ``subject:alpha-model``."""
    return int.from_bytes(hashlib.sha256(label.encode("utf-8")).digest()[:8], "big")


def label_stream(seed: int, label: str) -> np.random.Generator:
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


def case_interval(clusters: Sequence[Sequence[U]], statistic: Callable[[list[U]], Fraction | None], *,
                  seed: int, label: str, resamples: int,
                  confidence: Fraction) -> tuple[Fraction | None, Fraction | None, int]:
    """(low, high, undefined): the percentile interval of ``statistic`` over case-resampled units.

    ``clusters``: the units of each case (in a fixed order). Each of ``resamples`` replicates draws as
    many cases as there are, with replacement, and evaluates ``statistic`` on their units; replicates
    where it is None (e.g. no variation) are counted in ``undefined`` and left out. (None, None, B)
    when no replicate is defined or there is no cluster.
    """
    if not clusters:
        return None, None, resamples
    draws = label_stream(seed, label).integers(0, len(clusters), size=(resamples, len(clusters)))
    values: list[Fraction] = []
    for row in draws:
        value = statistic([unit for index in row for unit in clusters[int(index)]])
        if value is not None:
            values.append(value)
    if not values:
        return None, None, resamples
    values.sort()
    bounds = []
    for lo, frac in quantile_positions(len(values), confidence):
        bounds.append(values[lo] if frac == 0 else values[lo] + frac * (values[lo + 1] - values[lo]))
    return bounds[0], bounds[1], resamples - len(values)



def ratio_interval(parts: Sequence[tuple[Fraction, int]], *, seed: int, label: str, resamples: int,
                   confidence: Fraction) -> tuple[Fraction | None, Fraction | None]:
    """(low, high) of Σ sum_c / Σ n_c over case-resampled cases, ``parts`` = (sum_c, n_c ≥ 1) per case, exactly.

    A mean over units that decomposes into per-case sums (a mean deviation) needs no per-replicate
    recomputation: replicate = Σ_c m_c·sum_c / Σ_c m_c·n_c, with m_c the times case c is drawn, as an
    exact ratio (:class:`Replicates`, :func:`percentile_interval`). The draws
    are those of :func:`case_interval` under the same seed and label. (None, None) when ``parts`` is empty.
    """
    if not parts:
        return None, None
    scale = math.lcm(*(total.denominator for total, _ in parts))
    sums = np.array([int(total * scale) for total, _ in parts], dtype=np.int64)
    counts = np.array([n for _, n in parts], dtype=np.int64)
    cases = len(parts)
    draws = label_stream(seed, label).integers(0, cases, size=(resamples, cases))
    multiplicity = np.zeros((resamples, cases), dtype=np.int64)
    np.add.at(multiplicity, (np.repeat(np.arange(resamples), cases), draws.ravel()), 1)
    replicates = Replicates(multiplicity @ sums, multiplicity @ counts, Fraction(1, scale))
    return percentile_interval(replicates, confidence)

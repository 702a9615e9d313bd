"""Bootstrap intervals over units (runs) for every agreement statistic of agreement.csv, exact per replicate.

The unit is the run: a replicate redraws the statistic's own units with replacement (multiplicities
w_u, Σ w_u = U) and recomputes the statistic. Every statistic of :mod:`.agreement` is a ratio of sums
over units of per-unit integer terms, so a replicate is an exact integer ratio
and its percentile interval is exact (:func:`.exact_quantiles.percentile_interval`):

- Krippendorff's alpha: each unit's coincidences, scaled by L = lcm(m_u − 1) to integers, add up to the
  replicate's matrix O (:func:`alpha_replicates`);
- percent agreement: agreeing pairs over all pairs;
- quadratic-weighted kappa: weighted sums of x, y, x², y², (x − y)²;
- mean deviation: the mean of the per-unit deviations.

Replicates where the statistic is undefined (D_e = 0 in the redrawn units) are left out; with none left
the interval is empty. Seeds: each row's stream is seeded from the sha256 of its statistic, target,
reviewers and units (:func:`units_seed`), so the same ratings give the same bytes and a new grade moves
only the rows whose units it enters.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from .agreement import Unit, pairable
from .exact_quantiles import percentile_interval, seeded_stream

Interval = tuple[Fraction, Fraction] | None


def units_seed(*parts: object) -> int:
    """64 bits of the sha256 of ``repr`` of the parts (statistic, target, reviewers, units as sorted items)."""
    text = repr(tuple(tuple(sorted(p.items())) if isinstance(p, dict) else p for p in parts))
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def unit_weights(rng: np.random.Generator, n_units: int, resamples: int) -> np.ndarray:
    """(resamples x n_units) int64 multiplicities of a bootstrap over the units: each row sums to n_units."""
    picks = rng.integers(0, n_units, size=(resamples, n_units))
    rows = np.repeat(np.arange(resamples), n_units)
    return np.bincount(rows * n_units + picks.ravel(), minlength=resamples * n_units).reshape(resamples, n_units)


def interval_of(num: np.ndarray, den: np.ndarray, scale: Fraction, confidence: Fraction) -> Interval:
    """The percentile interval of the defined replicates num/den (den != 0) times ``scale``; None if none is."""
    replicates = [scale * Fraction(int(a), int(b)) for a, b in zip(num.tolist(), den.tolist()) if b != 0]
    return percentile_interval(replicates, confidence) if replicates else None


def alpha_replicates(units: Sequence[Unit], metric: str, weights: np.ndarray,
                     order: Sequence | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(num, den) per replicate with alpha = num / den, exactly; den = 0 where alpha is undefined.

    With O the replicate's coincidences times L, N_c its marginals, N = Σ N_c:
    alpha = (Σ N_c N_k E_ck − (N − L) Σ O_ck E_ck) / Σ N_c N_k E_ck, where E_ck = [c ≠ k] (nominal) or
    E_ck = (2 Σ_{g=c..k} N_g − N_c − N_k)² (ordinal; 4 L² δ²_ck in Krippendorff's 2011 notation): the
    factors of L cancel. ``order`` lists the categories from lowest (default: sorted values).
    """
    units = pairable(units)
    values = sorted({v for u in units for v in u.values()}) if order is None else list(order)
    index = {v: i for i, v in enumerate(values)}
    k = len(values)
    big_l = math.lcm(1, *(len(u) - 1 for u in units))
    contributions = np.zeros((len(units), k * k), dtype=np.int64)
    for row, unit in enumerate(units):
        share = big_l // (len(unit) - 1)
        ratings = [index[v] for v in unit.values()]
        for i, c in enumerate(ratings):
            for j, d in enumerate(ratings):
                if i != j:
                    contributions[row, c * k + d] += share
    o = (weights @ contributions).reshape(-1, k, k)                 # replicates x k x k
    marg = o.sum(axis=2)                                            # N_c
    n = marg.sum(axis=1)
    if metric == "nominal":
        e = np.broadcast_to(1 - np.eye(k, dtype=np.int64), o.shape)
    else:
        cum = np.concatenate([np.zeros((len(o), 1), dtype=np.int64), np.cumsum(marg, axis=1)], axis=1)
        lo, hi = np.minimum.outer(np.arange(k), np.arange(k)), np.maximum.outer(np.arange(k), np.arange(k))
        between = cum[:, hi + 1] - cum[:, lo]                        # Σ_{g=lo..hi} N_g
        e = (2 * between - marg[:, :, None] - marg[:, None, :]) ** 2
    expected = (marg[:, :, None] * marg[:, None, :] * e).sum(axis=(1, 2))
    observed = (o * e).sum(axis=(1, 2))
    return expected - (n - big_l) * observed, expected


def alpha_interval(units: Sequence[Unit], metric: str, rng: np.random.Generator, resamples: int,
                   confidence: Fraction, order: Sequence | None = None) -> Interval:
    units = pairable(units)
    if not units:
        return None
    num, den = alpha_replicates(units, metric, unit_weights(rng, len(units), resamples), order)
    return interval_of(num, den, Fraction(1), confidence)


def percent_interval(units: Sequence[Unit], rng: np.random.Generator, resamples: int,
                     confidence: Fraction) -> Interval:
    units = pairable(units)
    if not units:
        return None
    agree = np.array([sum(c * (c - 1) // 2 for c in Counter(u.values()).values()) for u in units], dtype=np.int64)
    total = np.array([len(u) * (len(u) - 1) // 2 for u in units], dtype=np.int64)
    w = unit_weights(rng, len(units), resamples)
    return interval_of(w @ agree, w @ total, Fraction(1), confidence)


def _integers(values: Sequence[Fraction | int]) -> tuple[np.ndarray, int]:
    """Values as integers over a common denominator D: (array, D)."""
    d = math.lcm(1, *(Fraction(v).denominator for v in values))
    return np.array([int(Fraction(v) * d) for v in values], dtype=np.int64), d


def kappa_interval(pairs: Sequence[tuple[Fraction | int, Fraction | int]], rng: np.random.Generator,
                   resamples: int, confidence: Fraction) -> Interval:
    """kappa = 1 − n Σ(x − y)² / (n Σx² − 2 Σx Σy + n Σy²) per replicate, as (den − n Σ(x−y)²) / den."""
    if not pairs:
        return None
    both, _ = _integers([v for pair in pairs for v in pair])
    x, y = both[0::2], both[1::2]
    w = unit_weights(rng, len(pairs), resamples)
    n = w.sum(axis=1)
    sx, sy = w @ x, w @ y
    den = n * (w @ (x * x)) - 2 * sx * sy + n * (w @ (y * y))
    return interval_of(den - n * (w @ ((x - y) ** 2)), den, Fraction(1), confidence)


def deviation_interval(deviations: Sequence[Fraction], rng: np.random.Generator, resamples: int,
                       confidence: Fraction) -> Interval:
    """The mean of the per-unit deviations per replicate."""
    if not deviations:
        return None
    d, denominator = _integers(deviations)
    w = unit_weights(rng, len(deviations), resamples)
    return interval_of(w @ d, w.sum(axis=1), Fraction(1, denominator), confidence)


def stream(*parts: object) -> np.random.Generator:
    """The random stream of one agreement row, from :func:`units_seed` of its parts."""
    return seeded_stream(units_seed(*parts))

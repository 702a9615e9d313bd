"""Bootstrap intervals over units (runs) for every agreement statistic of agreement.csv: BCa over unit weights.

The unit is the run: :func:`unit_weights` redraws the row's own U units with replacement (multiplicities
w_u, Σ w_u = U: :func:`rgbench.stats.bootstrap.case_weights`, the draw of every case bootstrap of
the library) and takes :func:`rgbench.stats.bootstrap.bca_interval` (the acceleration from
leave-one-unit-out). Every statistic of :mod:`.agreement` is a function of the unit weights, a ratio of
weighted sums of per-unit integer terms, evaluated in float64 per replicate (the statistic itself stays
exact in agreement.csv's ``value``):

- Krippendorff's alpha (:func:`alpha_statistic`): each unit's coincidences, scaled by L = lcm(m_u − 1)
  to integers, add up to the replicate's matrix O;
- percent agreement: agreeing pairs over all pairs;
- quadratic-weighted kappa (:func:`kappa_statistic`): weighted sums of x, y, x², y², (x − y)²;
- mean deviation (:func:`rgbench.stats.bootstrap.mean_statistic`): the mean of the per-unit deviations.

So no statistic needs a percentile of recomputed replicates. Replicates where the statistic is undefined
(D_e = 0 in the redrawn units) are NaN and left out; with none left the interval is empty. Seeds: each
row's draw follows its label (statistic and target) and :func:`units_digest` of its statistic, target,
reviewers and units, so the same ratings give the same bytes and a new grade moves only the rows whose
units it enters.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from .agreement import Unit, pairable
from .bootstrap import Interval, Statistic, bca_interval, case_weights, mean_statistic, ratio_statistic, safe_ratio


def units_digest(*parts: object) -> str:
    """Hex sha256 of ``repr`` of the parts (statistic, target, reviewers, units as sorted items): the data a
    row resamples."""
    text = repr(tuple(tuple(sorted(p.items())) if isinstance(p, dict) else p for p in parts))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def unit_weights(n_units: int, statistic: str, target: str, parts: Sequence[object], resamples: int) -> np.ndarray:
    """The draw of one agreement row's ``n_units`` units: :func:`rgbench.stats.bootstrap.case_weights` with label
    ``agreement:<statistic>:<target>`` over :func:`units_digest` of the statistic, target and ``parts`` (the
    data the row resamples)."""
    return case_weights(n_units, digest=units_digest(statistic, target, *parts), label=f"agreement:{statistic}:{target}",
                        resamples=resamples)


def alpha_statistic(units: Sequence[Unit], metric: str) -> Statistic:
    """W -> Krippendorff's alpha of the pairable ``units`` weighted by W (replicates x units); NaN where
    D_e = 0.

    With O the weighted coincidences times L, N_c its marginals, N = Σ N_c:
    alpha = (Σ N_c N_k E_ck − (N − L) Σ O_ck E_ck) / Σ N_c N_k E_ck, where E_ck = [c ≠ k] (nominal) or
    E_ck = (2 Σ_{g=c..k} N_g − N_c − N_k)² (ordinal; 4 L² δ²_ck in Krippendorff's 2011 notation): the
    factors of L cancel. The categories are ordered by their sorted values.
    """
    units = pairable(units)
    values = sorted({v for u in units for v in u.values()})
    index = {v: i for i, v in enumerate(values)}
    k = len(values)
    big_l = math.lcm(1, *(len(u) - 1 for u in units))
    contributions = np.zeros((len(units), k * k), dtype=np.float64)
    for row, unit in enumerate(units):
        share = big_l // (len(unit) - 1)
        ratings = [index[v] for v in unit.values()]
        for i, c in enumerate(ratings):
            for j, d in enumerate(ratings):
                if i != j:
                    contributions[row, c * k + d] += share
    lo, hi = np.minimum.outer(np.arange(k), np.arange(k)), np.maximum.outer(np.arange(k), np.arange(k))

    def statistic(weights: np.ndarray) -> np.ndarray:
        o = (np.asarray(weights, dtype=np.float64) @ contributions).reshape(-1, k, k)   # replicates x k x k
        marg = o.sum(axis=2)                                                              # N_c
        n = marg.sum(axis=1)
        if metric == "nominal":
            e = np.broadcast_to(1 - np.eye(k), o.shape)
        else:
            cum = np.concatenate([np.zeros((len(o), 1)), np.cumsum(marg, axis=1)], axis=1)
            between = cum[:, hi + 1] - cum[:, lo]                                         # Σ_{g=lo..hi} N_g
            e = (2 * between - marg[:, :, None] - marg[:, None, :]) ** 2
        expected = (marg[:, :, None] * marg[:, None, :] * e).sum(axis=(1, 2))
        observed = (o * e).sum(axis=(1, 2))
        return safe_ratio(expected - (n - big_l) * observed, expected)
    return statistic


def alpha_interval(units: Sequence[Unit], metric: str, weights: np.ndarray, confidence: Fraction) -> Interval | None:
    """The BCa interval of alpha over the unit draw ``weights`` (one column per pairable unit); None without one."""
    return bca_interval(alpha_statistic(units, metric), len(pairable(units)), weights, confidence)


def percent_interval(units: Sequence[Unit], weights: np.ndarray, confidence: Fraction) -> Interval | None:
    """The BCa interval of percent agreement (agreeing pairs over all pairs) over the unit draw ``weights``."""
    units = pairable(units)
    agree = np.array([sum(c * (c - 1) // 2 for c in Counter(u.values()).values()) for u in units], dtype=np.float64)
    total = np.array([len(u) * (len(u) - 1) // 2 for u in units], dtype=np.float64)
    return bca_interval(ratio_statistic(agree, total), len(units), weights, confidence)


def kappa_statistic(pairs: Sequence[tuple[Fraction | int, Fraction | int]]) -> Statistic:
    """W -> kappa = 1 − n Σ(x − y)² / (n Σx² − 2 Σx Σy + n Σy²) over the weighted pairs, as (den − n Σ(x−y)²) / den;
    NaN where den = 0 (no variation)."""
    x = np.array([float(a) for a, _ in pairs], dtype=np.float64)
    y = np.array([float(b) for _, b in pairs], dtype=np.float64)

    def statistic(weights: np.ndarray) -> np.ndarray:
        w = np.asarray(weights, dtype=np.float64)
        n = w.sum(axis=1)
        sx, sy = w @ x, w @ y
        den = n * (w @ (x * x)) - 2 * sx * sy + n * (w @ (y * y))
        return safe_ratio(den - n * (w @ ((x - y) ** 2)), den)
    return statistic


def kappa_interval(pairs: Sequence[tuple[Fraction | int, Fraction | int]], weights: np.ndarray,
                   confidence: Fraction) -> Interval | None:
    return bca_interval(kappa_statistic(pairs), len(pairs), weights, confidence)


def deviation_interval(deviations: Sequence[Fraction], weights: np.ndarray, confidence: Fraction) -> Interval | None:
    """The mean of the per-unit deviations per replicate."""
    values = np.array([float(d) for d in deviations], dtype=np.float64)
    return bca_interval(mean_statistic(values), len(deviations), weights, confidence)

"""Bootstrap intervals over units (runs) for every agreement statistic of agreement.csv: BCa over unit weights.

The unit is the run: :func:`unit_weights` redraws the row's own U units with replacement (multiplicities
w_u, Σ w_u = U: :func:`rgbench.stats.bootstrap.case_weights`, the draw of every case bootstrap of
the library) and takes :func:`rgbench.stats.bootstrap.bca_interval` (the acceleration from
leave-one-unit-out). Every statistic of :mod:`.agreement` is a function of the unit weights, a ratio of
weighted sums of per-unit integer terms, evaluated in float64 per replicate (the statistic itself stays
exact in agreement.csv's ``value``):

- Krippendorff's alpha (:func:`alpha_statistic`): each unit's coincidences, scaled by L = lcm(m_u − 1)
  to integers, add up to the replicate's matrix O, whose sums are taken in closed form from per-rating
  terms (memory replicates x ratings, never replicates x values²);
- percent agreement: agreeing pairs over all pairs;
- quadratic-weighted kappa (:func:`kappa_statistic`): weighted sums of x, y, x², y², (x − y)²;
- mean deviation (:func:`rgbench.stats.bootstrap.mean_statistic`): the mean of the per-unit deviations.

So no statistic needs a percentile of recomputed replicates. Replicates where the statistic is undefined
(D_e = 0 in the redrawn units) are NaN and left out; with none left the interval is empty. Seeds: each
row's draw follows its label (statistic and target) and :func:`units_digest` of the declared seed (config.yaml
``seed``) and its statistic, target, reviewers and units as parsed values in canonical text
(:func:`rgbench.stats.seeds.canonical_text`: ``7`` and ``7.0`` are one value), so the same ratings give the
same bytes and a new grade moves only the rows whose units it enters. The units are taken in a canonical
order (:func:`canonical_units`: sorted by their values), so run ids, file order and formatting change no
draw.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from ..load.config import DEFAULT_SEED
from .agreement import Unit, pairable
from .bootstrap import Interval, Statistic, bca_interval, case_weights, mean_statistic, ratio_statistic, safe_ratio
from .seeds import canonical_text, data_digest

_ROWS = 512   # replicates evaluated at a time by alpha_statistic: its working memory is _ROWS x ratings


def _canonical_part(part: object) -> object:
    """A unit (reviewer -> value) as its sorted [reviewer, value] pairs; anything else as it is."""
    return sorted([k, v] for k, v in part.items()) if isinstance(part, dict) else part


def units_digest(*parts: object, seed: int = DEFAULT_SEED) -> str:
    """Hex sha256 of the canonical text (:func:`rgbench.stats.seeds.data_digest`) of ``["units", seed, parts]``
    with every unit as its sorted (reviewer, value) pairs: the declared seed and the data a row resamples
    (statistic, target, reviewers, units), parsed values only."""
    return data_digest(["units", seed, [_canonical_part(p) for p in parts]])


def canonical_units(units: Sequence[Unit]) -> list[Unit]:
    """The units sorted by the canonical text of their sorted (reviewer, value) pairs: an order that depends on
    the ratings alone (not on run ids or file order). Every statistic here is order-free; the draw is not, so
    a row's units are taken in this order."""
    return sorted(units, key=lambda unit: canonical_text(_canonical_part(unit)))


def unit_weights(n_units: int, statistic: str, target: str, parts: Sequence[object], resamples: int,
                 seed: int = DEFAULT_SEED) -> np.ndarray:
    """The draw of one agreement row's ``n_units`` units: :func:`rgbench.stats.bootstrap.case_weights` with label
    ``agreement:<statistic>:<target>`` over :func:`units_digest` of the statistic, target and ``parts`` (the
    data the row resamples) with the declared ``seed``."""
    return case_weights(n_units, digest=units_digest(statistic, target, *parts, seed=seed),
                        label=f"agreement:{statistic}:{target}", resamples=resamples)


def alpha_statistic(units: Sequence[Unit], metric: str) -> Statistic:
    """W -> Krippendorff's alpha of the pairable ``units`` weighted by W (replicates x units); NaN where
    D_e = 0. Memory linear in replicates x ratings, whatever the number of distinct values.

    With O the weighted coincidences times L = lcm(m_u − 1), N_c its marginals (N_c = L Σ_u w_u #u(c), #u(c)
    the ratings of value c in unit u), N = Σ N_c:
    alpha = (Σ N_c N_k E_ck − (N − L) Σ O_ck E_ck) / Σ N_c N_k E_ck, where E_ck = [c ≠ k] (nominal) or
    E_ck = (2 Σ_{g=c..k} N_g − N_c − N_k)² (ordinal; 4 L² δ²_ck in Krippendorff's 2011 notation): the
    factors of L cancel. The categories are ordered by their sorted values. No values x values matrix is
    formed: with T_c = 2 Σ_{g<c} N_g + N_c (twice the mid-rank of c), the ordinal E_ck = (T_k − T_c)², so
    Σ N_c N_k E_ck = 2 N Σ N_c T_c² − 2 (Σ N_c T_c)² and a unit's Σ_{i≠j} E = 2 m_u Σ_i T_i² − 2 (Σ_i T_i)²
    over its ratings i; nominal: Σ N_c N_k E_ck = N² − Σ N_c², a unit's ordered pairs of unequal values
    m_u² − Σ_c #u(c)². These sums are whole numbers, computed exactly in int64 where they fit (8 N⁴ < 2⁶³)
    and converted to float64 for the last ratio, so a replicate is the float of the same integers as the
    coincidence-matrix form; replicates are evaluated in blocks of rows (:data:`_ROWS`).
    """
    units = pairable(units)
    values = sorted({v for u in units for v in u.values()})
    index = {v: i for i, v in enumerate(values)}
    big_l = math.lcm(1, *(len(u) - 1 for u in units))
    sizes = np.array([len(u) for u in units], dtype=np.int64)
    share = big_l // np.maximum(sizes - 1, 1)                                  # L / (m_u − 1)
    rating_unit = np.repeat(np.arange(len(units)), sizes)                      # ratings, unit by unit
    rating_value = np.array([index[v] for u in units for v in u.values()], dtype=np.int64)
    unit_starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    by_value = np.argsort(rating_value, kind="stable")                         # ratings grouped by value
    value_starts = np.searchsorted(rating_value[by_value], np.arange(len(values)))
    unequal = np.array([len(u) ** 2 - sum(c * c for c in Counter(u.values()).values()) for u in units],
                       dtype=np.int64) * share                                  # L/(m − 1) · ordered unequal pairs

    def block(w: np.ndarray) -> np.ndarray:
        marg = big_l * np.add.reduceat(w[:, rating_unit[by_value]], value_starts, axis=1)   # N_c, rows x values
        n = marg.sum(axis=1)
        if not (8 * int(n.max(initial=0)) ** 4 < 2 ** 63):
            marg, n, w = marg.astype(np.float64), n.astype(np.float64), w.astype(np.float64)
        if metric == "nominal":
            expected = n * n - (marg * marg).sum(axis=1)
            observed = w @ unequal
        else:
            t = 2 * (np.cumsum(marg, axis=1) - marg) + marg                     # T_c
            expected = 2 * n * (marg * t * t).sum(axis=1) - 2 * (marg * t).sum(axis=1) ** 2
            rated = t[:, rating_value]                                           # T of each rating
            first = np.add.reduceat(rated, unit_starts, axis=1)                  # Σ_i T_i per unit
            second = np.add.reduceat(rated * rated, unit_starts, axis=1)         # Σ_i T_i² per unit
            observed = ((2 * sizes * second - 2 * first * first) * (w * share)).sum(axis=1)
        expected, observed, n = (np.asarray(x, dtype=np.float64) for x in (expected, observed, n))
        return safe_ratio(expected - (n - big_l) * observed, expected)

    def statistic(weights: np.ndarray) -> np.ndarray:
        w = np.asarray(weights, dtype=np.float64)
        if not units:
            return np.full(len(w), np.nan)
        whole = bool(np.array_equal(w, np.round(w)))
        return np.concatenate([block(w[i:i + _ROWS].astype(np.int64) if whole else w[i:i + _ROWS])
                               for i in range(0, len(w), _ROWS)] or [np.zeros(0)])
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

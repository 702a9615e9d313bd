"""Agreement between reviewers who graded the same runs: each statistic written once, as a function of unit weights.

A *unit* is one run (subject, case, run); its ratings map reviewer ids to the
value each reviewer gave (a criterion score, raw_score, classification, ...).
Units with one rating tell nothing about agreement and are skipped where a
statistic needs pairs. Each statistic is :data:`rgbench.stats.bootstrap.Terms` (unit weights -> numerator and
denominator per replicate: :func:`alpha_terms`, :func:`percent_terms`, :func:`kappa_terms`, the mean deviation
as :func:`rgbench.stats.bootstrap.ratio_terms`), so the exact value (:func:`krippendorff_alpha`,
:func:`percent_agreement`, :func:`cohen_weighted_kappa`, :func:`mean_deviation`: the terms at unit weights in
Fractions) and its bootstrap replicates (:mod:`.agreement_bootstrap`: the same terms in float64) come from one
function. Every statistic returns None when it is undefined; the caller says why (no pairable unit, no variation).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TypeVar

import numpy as np

from .bootstrap import Terms, exact_value, numbers_like, ratio_terms

Score = Fraction | int  # a numeric rating: raw_score, a criterion score, correctness (a bool is an int)
Rating = Score | str  # any rating: a number or a label such as a classification
Unit = Mapping[str, Rating]  # reviewer_id -> value
R = TypeVar("R", bound=Rating)
METRICS = ("nominal", "ordinal", "interval")
_ROWS = 512   # replicates evaluated at a time by alpha_terms: its working memory is _ROWS x ratings


def as_score(value: Rating) -> Score:
    """``value`` itself when it is numeric; TypeError for a label (interval distances, kappa and deviations need numbers)."""
    if isinstance(value, Fraction | int):
        return value
    raise TypeError(f"not a numeric rating: {value!r}")


def pairable(units: Sequence[Unit]) -> list[Unit]:
    """The units rated by at least two reviewers."""
    return [unit for unit in units if len(unit) >= 2]


def alpha_terms(units: Sequence[Unit], metric: str = "nominal") -> Terms:
    """W -> Krippendorff's alpha of the pairable ``units`` weighted by W (replicates x pairable units) as
    (numerator, denominator); memory linear in replicates x ratings, whatever the number of distinct values.

    Krippendorff's alpha = 1 − (n − 1) Σ_ck o_ck δ²(c, k) / Σ_ck n_c n_k δ²(c, k) with the coincidences o_ck
    (each pairable unit u adds 1/(m_u − 1) per ordered pair of ratings by different reviewers), n_c = Σ_k o_ck,
    n = Σ_c n_c. Scaled by L = lcm(m_u − 1) to whole numbers: O = L o (weighted), N_c = L Σ_u w_u #u(c)
    (#u(c) the ratings of value c in unit u), N = Σ N_c, and alpha = (Σ N_c N_k E_ck − (N − L) Σ O_ck E_ck) /
    Σ N_c N_k E_ck: the factors of L cancel. E_ck = [c ≠ k] (nominal), (T_k − T_c)² with T_c = 2 Σ_{g<c} N_g + N_c
    (ordinal: twice L times the mid-rank of c, so E_ck = (2 Σ_{g=c..k} N_g − N_c − N_k)², 4 L² δ²_ck in
    Krippendorff's 2011 notation; categories ordered by their sorted values) or T_c = c (interval, δ² = (c − k)²).
    No values x values matrix is formed: Σ N_c N_k E_ck = N² − Σ N_c² (nominal), else 2 N Σ N_c T_c² −
    2 (Σ N_c T_c)²; a unit's Σ_{i≠j} E over its ratings is m_u² − Σ_c #u(c)² (nominal), else 2 m_u Σ_i T_i² −
    2 (Σ_i T_i)². 1 is perfect agreement, 0 agreement at chance level, below 0 systematic disagreement.

    Arithmetic follows W: Fractions at exact weights (:func:`krippendorff_alpha`); with whole float weights
    (every draw, the estimate, leave-one-out) the sums are whole numbers taken exactly in int64 where they fit
    (8 N⁴ < 2⁶³) and converted to float64 for the last difference and ratio, so a replicate is the float of the
    same integers as the coincidence-matrix form; replicates are evaluated in blocks of :data:`_ROWS` rows.
    Denominator 0 (no variation: D_e = 0) where every weighted rating has one value. ValueError for another
    metric; TypeError for a label under ``interval``.
    """
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
    units = pairable(units)
    values = sorted({v for u in units for v in u.values()})
    index = {v: i for i, v in enumerate(values)}
    positions = [as_score(v) for v in values] if metric == "interval" else []
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

    def block(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        exact = w.dtype == object
        marg = big_l * np.add.reduceat(w[:, rating_unit[by_value]], value_starts, axis=1)   # N_c, rows x values
        n = marg.sum(axis=1)
        if not exact and not (8 * int(n.max(initial=0)) ** 4 < 2 ** 63):
            marg, n, w = marg.astype(np.float64), n.astype(np.float64), w.astype(np.float64)
        if metric == "nominal":
            expected = n * n - (marg * marg).sum(axis=1)
            observed = w @ unequal
        else:
            t = (np.broadcast_to(numbers_like(w, positions), marg.shape) if metric == "interval"
                 else 2 * (np.cumsum(marg, axis=1) - marg) + marg)             # T_c
            expected = 2 * n * (marg * t * t).sum(axis=1) - 2 * (marg * t).sum(axis=1) ** 2
            rated = t[:, rating_value]                                           # T of each rating
            first = np.add.reduceat(rated, unit_starts, axis=1)                  # Σ_i T_i per unit
            second = np.add.reduceat(rated * rated, unit_starts, axis=1)         # Σ_i T_i² per unit
            observed = ((2 * sizes * second - 2 * first * first) * (w * share)).sum(axis=1)
        expected, observed, n = (numbers_like(w, x) for x in (expected, observed, n))
        return expected - (n - big_l) * observed, expected

    def terms(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if not units or not len(w):
            return np.zeros(len(w)), np.zeros(len(w))
        if w.dtype == object:
            return block(w)
        whole = bool(np.array_equal(w, np.round(w)))
        parts = [block(w[i:i + _ROWS].astype(np.int64) if whole else w[i:i + _ROWS]) for i in range(0, len(w), _ROWS)]
        return np.concatenate([num for num, _ in parts]), np.concatenate([den for _, den in parts])
    return terms


def krippendorff_alpha(units: Sequence[Unit], metric: str = "nominal") -> Fraction | None:
    """Krippendorff's alpha (:func:`alpha_terms`), exact, at most 1, higher is better agreement. ``metric``:
    ``nominal``, ``ordinal`` (ranks only) or ``interval``. Works with any number of reviewers and missing
    ratings, and any values (labels, or integers or Fractions of any range). Degenerate cases: None when no
    unit has two ratings, and None when every pairable rating has the same value (D_e = 0: no variation, so
    agreement cannot be told from chance; reported with that note rather than as 1)."""
    return exact_value(alpha_terms(units, metric), len(pairable(units)))


def percent_terms(units: Sequence[Unit]) -> Terms:
    """W -> (weighted agreeing pairs, weighted pairs) over the pairable ``units``: per unit Σ_c C(#u(c), 2) and
    C(m_u, 2)."""
    units = pairable(units)
    return ratio_terms([sum(c * (c - 1) // 2 for c in Counter(u.values()).values()) for u in units],
                       [len(u) * (len(u) - 1) // 2 for u in units])


def percent_agreement(units: Sequence[Unit]) -> Fraction | None:
    """Share of agreeing pairs: Σ_u #equal pairs / Σ_u C(m_u, 2) over pairable units, in [0, 1]
    (:func:`percent_terms`).

    With two reviewers per run it is the share of runs on which they gave the
    same value. Not chance-corrected (read it next to alpha). None when no unit
    has two ratings.
    """
    return exact_value(percent_terms(units), len(pairable(units)))


def kappa_terms(pairs: Sequence[tuple[Fraction | int, Fraction | int]]) -> Terms:
    """W -> (den − n Σ w (x − y)², den) with n = Σ w and den = n Σ w x² − 2 Σ w x Σ w y + n Σ w y² over the
    weighted pairs (x, y): :func:`cohen_weighted_kappa` as a ratio; den = 0 where there is no variation."""
    def terms(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x, y = numbers_like(w, [a for a, _ in pairs]), numbers_like(w, [b for _, b in pairs])
        n = w.sum(axis=1)
        sx, sy = w @ x, w @ y
        den = n * (w @ (x * x)) - 2 * sx * sy + n * (w @ (y * y))
        return den - n * (w @ ((x - y) ** 2)), den
    return terms


def cohen_weighted_kappa(pairs: Sequence[tuple[Fraction | int, Fraction | int]]) -> Fraction | None:
    """Cohen's kappa with quadratic weights for two reviewers' numeric ratings of the same units (:func:`kappa_terms`).

    kappa_w = 1 − D_o / D_e with D_o = (1/n) Σ_u (x_u − y_u)² and
    D_e = (1/n²) Σ_u Σ_v (x_u − y_v)² = (n Σ x² − 2 Σx Σy + n Σ y²) / n² (disagreement expected if each
    reviewer's ratings were paired at random). At most 1, higher is better; 0 at chance,
    below 0 worse than chance. Equal to the usual table form with weights
    (i − j)² when categories are the consecutive integer scores. Degenerate
    cases: None when the reviewers share no unit (n = 0) or when both gave one
    and the same value everywhere (D_e = 0).
    """
    return exact_value(kappa_terms(pairs), len(pairs))


def pair_ratings(units: Sequence[Mapping[str, R]], a: str, b: str) -> list[tuple[R, R]]:
    """(a's value, b's value) for every unit both reviewers rated, in the units' order."""
    return [(unit[a], unit[b]) for unit in units if a in unit and b in unit]


def unit_deviations(units: Sequence[Unit], reviewer: str) -> list[Fraction]:
    """Per unit the reviewer rated together with at least one other reviewer: its value minus the mean of
    the others' values (in the units' order)."""
    deviations = []
    for unit in units:
        if reviewer in unit and len(unit) >= 2:
            others = [Fraction(v) for r, v in unit.items() if r != reviewer]
            deviations.append(Fraction(unit[reviewer]) - sum(others, Fraction(0)) / len(others))
    return deviations


def mean_deviation(units: Sequence[Unit], reviewer: str) -> tuple[Fraction | None, int]:
    """(mean of x_r − mean of the others' values, n): how lenient (> 0) or severe (< 0) a reviewer is.

    Over the n units the reviewer rated together with at least one other
    reviewer; in the target's units (points of raw_score, say). With two
    reviewers the two deviations are opposite. (None, 0) when the reviewer
    shares no unit with anyone. The mean of :func:`unit_deviations` as
    :func:`rgbench.stats.bootstrap.ratio_terms` (its replicates: :func:`.agreement_bootstrap.deviation_interval`).
    """
    deviations = unit_deviations(units, reviewer)
    return exact_value(ratio_terms(deviations, [1] * len(deviations)), len(deviations)), len(deviations)


def leniency(deviation: Fraction, higher_is_better: bool = True) -> str:
    """``lenient``, ``severe`` or ``neutral`` for a :func:`mean_deviation`: a reviewer above the others is
    lenient where higher is better and severe where lower is better (a higher penalty); 0 is neutral."""
    if deviation == 0:
        return "neutral"
    return "lenient" if (deviation > 0) == higher_is_better else "severe"

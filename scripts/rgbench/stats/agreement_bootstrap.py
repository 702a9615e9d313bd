"""Bootstrap intervals over units (runs) for every agreement statistic of agreement.csv: BCa over unit weights.

The unit is the run: :func:`unit_weights` redraws the row's own U units with replacement (multiplicities
w_u, Σ w_u = U: :func:`rgbench.stats.bootstrap.case_weights`, the draw of every case bootstrap of
the library) and takes :func:`rgbench.stats.bootstrap.bca_interval` (the acceleration from
leave-one-unit-out). Every statistic of :mod:`.agreement` is written once there as a function of the unit
weights (:data:`rgbench.stats.bootstrap.Terms`: a numerator and a denominator of weighted sums of per-unit
terms); agreement.csv's ``value`` is those terms at unit weights in Fractions, its replicates here the same
terms in float64 (:func:`rgbench.stats.bootstrap.replicates`):

- Krippendorff's alpha (:func:`alpha_statistic`, :func:`.agreement.alpha_terms`): each unit's coincidences,
  scaled by L = lcm(m_u − 1) to integers, add up to the replicate's matrix O, whose sums are taken in closed
  form from per-rating terms (memory replicates x ratings, never replicates x values²);
- percent agreement (:func:`.agreement.percent_terms`): agreeing pairs over all pairs;
- quadratic-weighted kappa (:func:`kappa_statistic`): weighted sums of x, y, x², y², (x − y)²;
- mean deviation: the mean of the per-unit deviations (:func:`rgbench.stats.bootstrap.ratio_terms`).

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

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from ..load.config import DEFAULT_SEED
from .agreement import Unit, alpha_terms, kappa_terms, pairable, percent_terms
from .bootstrap import Interval, Statistic, bca_interval, case_weights, ratio_terms, replicates
from .seeds import canonical_text, data_digest


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
    """W -> Krippendorff's alpha of the pairable ``units`` weighted by W (replicates x units) in float64
    (:func:`.agreement.alpha_terms`); NaN where D_e = 0."""
    return replicates(alpha_terms(units, metric))


def alpha_interval(units: Sequence[Unit], metric: str, weights: np.ndarray, confidence: Fraction) -> Interval | None:
    """The BCa interval of alpha over the unit draw ``weights`` (one column per pairable unit); None without one."""
    return bca_interval(alpha_statistic(units, metric), len(pairable(units)), weights, confidence)


def percent_interval(units: Sequence[Unit], weights: np.ndarray, confidence: Fraction) -> Interval | None:
    """The BCa interval of percent agreement (:func:`.agreement.percent_terms`) over the unit draw ``weights``."""
    return bca_interval(replicates(percent_terms(units)), len(pairable(units)), weights, confidence)


def kappa_statistic(pairs: Sequence[tuple[Fraction | int, Fraction | int]]) -> Statistic:
    """W -> quadratic-weighted kappa of the weighted pairs in float64 (:func:`.agreement.kappa_terms`); NaN where
    there is no variation."""
    return replicates(kappa_terms(pairs))


def kappa_interval(pairs: Sequence[tuple[Fraction | int, Fraction | int]], weights: np.ndarray,
                   confidence: Fraction) -> Interval | None:
    return bca_interval(kappa_statistic(pairs), len(pairs), weights, confidence)


def deviation_interval(deviations: Sequence[Fraction], weights: np.ndarray, confidence: Fraction) -> Interval | None:
    """The mean of the per-unit deviations per replicate (the ratio :func:`.agreement.mean_deviation` takes)."""
    return bca_interval(replicates(ratio_terms(deviations, [1] * len(deviations))), len(deviations), weights,
                        confidence)

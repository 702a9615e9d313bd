"""The case bootstrap and its bias-corrected and accelerated (BCa) interval.

A replicate draws K cases uniformly with replacement from the K cases resampled
(:func:`case_counts`: how often each case was drawn, B x K); a case brings all
its runs. A statistic is a function of case weights: ``statistic(W)`` maps a
(R x K) array of weights to R values, so the estimate is ``statistic(ones)``,
the replicates ``statistic(counts)`` and the leave-one-case-out jackknife
``statistic(ones − I)``, one code path for all three.

:func:`bca_interval` is the BCa interval of Efron (1987), "Better bootstrap
confidence intervals", JASA 82:171-185 (Efron & Tibshirani 1993, §14.3): with
z0 = Φ⁻¹(share of replicates below the estimate, ties counted half) and the
acceleration a = Σ(θ̄ − θ₍ᵢ₎)³ / (6 (Σ(θ̄ − θ₍ᵢ₎)²)^{3/2}) over the jackknife
values θ₍ᵢ₎, the bounds are the replicates' quantiles (linear interpolation,
numpy's default) at Φ(z0 + (z0 + z_q)/(1 − a (z0 + z_q))) for q = (1 − c)/2 and
(1 + c)/2. It corrects the percentile interval's bias and skew, which matter for
ratios like BS and for proportions near 0 or 1 with ~30 cases.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from statistics import NormalDist

import numpy as np

Statistic = Callable[[np.ndarray], np.ndarray]
Interval = tuple[float, float]   # (low, high) bounds of a confidence interval
_NORMAL = NormalDist()
_TIE = 1e-12   # replicates this close to the estimate (relative) count as equal to it
_BLOCK = 512   # leave-one-out weight rows built at a time: k x k weights for thousands of units would not fit


def case_counts(rng: np.random.Generator, k: int, resamples: int) -> np.ndarray:
    """(resamples x k): how often each of the k cases is drawn in each replicate (k draws with replacement).

    Whole numbers held as float64 (exact), the type every statistic multiplies them in, converted once.
    """
    picks = rng.integers(0, k, size=(resamples, k))
    offsets = (np.arange(resamples, dtype=np.int64) * k)[:, None]
    counts = np.bincount((picks + offsets).ravel(), minlength=resamples * k).reshape(resamples, k)
    return counts.astype(np.float64)


def ratio_statistic(numerator: np.ndarray, denominator: np.ndarray, scale: float = 1.0) -> Statistic:
    """W -> (W @ numerator) / (W @ denominator) / scale: a ratio of per-case sums (P, s_bar, BS, Q_final).

    A replicate whose denominator is 0 gives NaN (only possible when some cases have no weight in it).
    """
    num = np.asarray(numerator, dtype=np.float64)
    den = np.asarray(denominator, dtype=np.float64)

    def statistic(weights: np.ndarray) -> np.ndarray:
        w = np.asarray(weights, dtype=np.float64)
        bottom = w @ den
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(bottom > 0, (w @ num) / np.where(bottom > 0, bottom, 1) / scale, np.nan)
    return statistic


def mean_statistic(values: np.ndarray) -> Statistic:
    """W -> the weighted mean of per-case values (a paired difference: one value per shared case)."""
    return ratio_statistic(values, np.ones(len(values)))


def jackknife_acceleration(jackknife: np.ndarray) -> float:
    """a = Σ(θ̄ − θ₍ᵢ₎)³ / (6 · (Σ(θ̄ − θ₍ᵢ₎)²)^{3/2}); 0 when every leave-one-out value is equal (or K < 2)."""
    values = jackknife[np.isfinite(jackknife)]
    if values.size < 2:
        return 0.0
    d = values.mean() - values
    s2 = float((d * d).sum())
    return 0.0 if s2 <= 0 else float((d ** 3).sum()) / (6.0 * s2 ** 1.5)


def bca_bounds(estimate: float, replicates: np.ndarray, acceleration: float,
               confidence: Fraction) -> tuple[float, float] | None:
    """The BCa bounds from the replicates (NaN replicates dropped); None when no replicate is finite.

    When every replicate equals the estimate the interval is that point (no case-level variation).
    """
    reps = replicates[np.isfinite(replicates)]
    if not reps.size:
        return None
    tie = _TIE * max(1.0, abs(estimate))
    below = np.count_nonzero(reps < estimate - tie)
    equal = np.count_nonzero(np.abs(reps - estimate) <= tie)
    if equal == reps.size:
        return estimate, estimate
    share = (below + equal / 2) / reps.size
    share = min(max(share, 0.5 / reps.size), 1 - 0.5 / reps.size)
    z0 = _NORMAL.inv_cdf(share)
    out = []
    for q in ((1 - confidence) / 2, (1 + confidence) / 2):
        zq = z0 + _NORMAL.inv_cdf(float(q))
        level = _NORMAL.cdf(z0 + zq / (1 - acceleration * zq))
        out.append(float(np.quantile(reps, level)))
    return out[0], out[1]


def bca_interval(statistic: Statistic, k: int, counts: np.ndarray, confidence: Fraction) -> tuple[float, float] | None:
    """The case-bootstrap BCa interval of ``statistic`` over k cases with the draw ``counts`` (B x k).

    None when k = 0. One case: every replicate is the estimate, so the interval is a point (no
    case-level variation can be measured: read it as unknown, not as certain).
    """
    if k == 0:
        return None
    estimate = float(statistic(np.ones((1, k)))[0])
    jackknife = np.concatenate([statistic(np.ones((min(_BLOCK, k - start), k)) - np.eye(k)[start:start + _BLOCK])
                                for start in range(0, k, _BLOCK)]) if k > 1 else np.zeros(0)
    return bca_bounds(estimate, statistic(counts), jackknife_acceleration(jackknife), confidence)

"""Case-bootstrap intervals of P, s_bar, BS, ECE and Q_final of one subject, and of any proportion over cases.

Every interval resamples the subject's cases (:func:`.bootstrap.case_counts` with the subject's own
stream, :mod:`.seeds`): P, s_bar and Q_final take the BCa bounds (:func:`.bootstrap.ratio_interval`), ECE its own
interval (:func:`ece_interval`, below), all from the same draw. BS takes no draw: its interval is the score
interval of a mean of values in [0, 1] (:func:`.wilson.bounded_mean_interval`), because a sample that drew none of a
subject's rare large errors has a low BS and a narrow spread alike, and every bootstrap tried (BCa, bootstrap-t on
three scales) covered it 84-90% then.
A proportion at 0 or 1 (P, P_family, a pass rate per difficulty) has every
replicate equal to it, so the bootstrap says nothing; :func:`proportion_interval` then gives the Wilson
interval over the K cases (each case counted once, the largest design effect runs of one case can
have), which is never a point.

ECE is not a smooth function of the per-case sums where a bin's mean gap is 0 (a sum of absolute
values), and the plug-in ECE is biased upward there; a bootstrap of ECE itself (BCa or percentile)
centres on that bias and cannot cover a true ECE near 0. :func:`ece_interval` therefore bootstraps the
vector of signed bin gaps, which is smooth, studentises its Euclidean length, and projects that confidence
ball onto ECE (see
its docstring and aggregate_metrics.md §18). It is also the calibration rule (§19a): a subject is
miscalibrated distinguishably from chance exactly when ECE_low > 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .bootstrap import Interval, case_counts, ratio_interval
from .case_summary import CaseSummary
from .wilson import bounded_mean_interval, wilson_interval


@dataclass(frozen=True)
class SubjectIntervals:
    """Intervals (low, high) of one subject's figures (BCa; BS a score interval; ECE by :func:`ece_interval`); None
    without a scored run."""

    p: Interval | None = None
    s_bar: Interval | None = None
    bs: Interval | None = None
    ece: Interval | None = None
    q_final: Interval | None = None


def proportion_interval(summary: CaseSummary, counts: np.ndarray, confidence: Fraction) -> Interval | None:
    """The BCa interval of the pass rate Σ passes / Σ runs over the summary's cases (Wilson over K cases at 0 or 1)."""
    if summary.k == 0:
        return None
    passes, runs = int(summary.passes.sum()), int(summary.runs.sum())
    if passes in (0, runs):
        return wilson_interval(0 if passes == 0 else summary.k, summary.k, confidence)
    return ratio_interval(summary.passes, summary.runs, counts, confidence)


def ece_interval(summary: CaseSummary, counts: np.ndarray, confidence: Fraction) -> Interval | None:
    """The confidence interval of the population ECE of the same fixed bins, from the case draw ``counts``.

    With θ_b the population mean signed gap (confidence − correctness) per run in bin b, the population
    ECE is Σ_b |θ_b| and the seed's ECE is its plug-in Σ_b |θ̂_b|, θ̂_b = Σ_c g_cb / N (g_cb = gaps[c, b] /
    (100 · scale), N = Σ_c n_c). The root is the Euclidean length of the gap vector's error studentised by its
    case-cluster scale, R = ‖θ̂ − θ‖ / S with S² = Σ_c Σ_b (g_cb − θ̂_b n_c)² / N² (the trace of the
    cluster-robust covariance of θ̂, cases the clusters, so E‖θ̂ − θ‖² ≈ S²); each case-bootstrap replicate gives
    θ*_b (the ratio of the drawn sums), S* by the same formula over the drawn cases (each counted as often as
    drawn) and R* = ‖θ* − θ̂‖ / S* (a bootstrap-t root: Hall 1988, "Theoretical comparison of bootstrap confidence
    intervals", Annals of Statistics 16(3); Beran 1988, "Balanced simultaneous confidence sets", JASA 83). With r
    the ``confidence`` quantile of R* (linear interpolation, numpy's default), the ball {θ : ‖θ̂ − θ‖ ≤ r · S}
    covers θ with the bootstrap's probability, and the interval is the smallest and largest Σ|θ_b| on it
    (:func:`ece_range`), so it covers the population ECE at least as often as the ball covers θ, at ECE = 0 too.
    Low > 0 exactly when ‖θ̂‖ > r · S: the test of perfect calibration (θ = 0) at level 1 − ``confidence``, the
    calibration rule of aggregate_metrics.md §19a. Studentising matters there: the plain root called perfectly
    calibrated subjects miscalibrated 7-9% of the time with one run per case, because a case sample without the
    rare large gaps has both a large |θ̂| and a small bootstrap spread; S* moves with them. The length, not the
    L1 distance Σ_b |θ̂_b − θ_b| (this interval until 2026-12-04): S² is the expected squared length, so the
    length's studentised root has the law its bootstrap estimates; the L1 root's bootstrap quantile fell short
    of its own at 100 cases (false alarms 6.1-6.3%).
    A replicate whose drawn cases have no residual (S* = 0: every drawn case has the same gaps per run) has R*
    = 0 when θ* = θ̂, else the largest float (it says nothing about the spread). None when K = 0; S = 0 (one
    case, or every case with the same gaps per run): every replicate is the estimate, the point ECE.
    """
    k = summary.k
    if k == 0:
        return None
    # In the integer units of the gaps (1 / (100 · scale)): every sum below is an integer, exact in float64 up to
    # 2^53, so "no residual" and "the replicate is the estimate" are exact comparisons.
    unit = float(100 * summary.scale)
    gaps = summary.gaps.astype(np.float64)
    runs = summary.runs.astype(np.float64)
    total = float(runs.sum())
    sums = gaps.sum(axis=0)
    estimate = float(np.abs(sums).sum()) / (total * unit)
    residual = gaps * total - runs[:, None] * sums                          # (g_cb − θ̂_b n_c) · N · unit
    if not residual.any():
        return estimate, estimate
    scale = math.sqrt(float((residual * residual).sum())) / (total * total * unit)
    bins = gaps.shape[1]
    # One product for every sum a replicate needs (integer-valued, exact): M = Σ w g, A = Σ w g², Bm = Σ w g n
    # per bin, then N* = Σ w n and C = Σ w n²
    drawn_all = np.asarray(counts, dtype=np.float64) @ np.hstack(
        [gaps, gaps * gaps, gaps * runs[:, None], runs[:, None], (runs * runs)[:, None]])
    drawn_sums, squares, cross = drawn_all[:, :bins], drawn_all[:, bins:2 * bins], drawn_all[:, 2 * bins:3 * bins]
    drawn, runs_squared = drawn_all[:, 3 * bins], drawn_all[:, 3 * bins + 1]   # N*: every replicate draws k cases
    error = drawn_sums * total - sums * drawn[:, None]                      # (θ*_b − θ̂_b) · N* · N · unit
    distance = np.sqrt((error * error).sum(axis=1)) / (drawn * total * unit)
    # Σ_c w_c (g_cb N* − M_b n_c)² = A_b N*² − 2 M_b Bm_b N* + M_b² C
    spread = (squares * (drawn * drawn)[:, None] - 2 * drawn_sums * cross * drawn[:, None]
              + drawn_sums * drawn_sums * runs_squared[:, None]).sum(axis=1)
    scale_star = np.sqrt(np.maximum(spread, 0.0)) / (drawn * drawn * unit)
    with np.errstate(divide="ignore", invalid="ignore"):
        root = np.where(scale_star > 0, distance / scale_star,
                        np.where(distance > 0, np.finfo(np.float64).max, 0.0))
    return ece_range(sums / (total * unit), float(np.quantile(root, float(confidence))) * scale)


def ece_range(gaps: np.ndarray, radius: float) -> Interval:
    """The smallest and largest Σ_b |θ_b| over the ball ‖θ − θ̂‖ ≤ ``radius`` around the bin gaps θ̂ = ``gaps``
    (d bins), within [0, 1].

    Largest: Σ|θ̂_b| + radius · √d (every θ_b moved outward by radius/√d). Smallest: 0 when ‖θ̂‖ ≤ radius (the
    ball holds θ = 0); otherwise the ball's point nearest 0 in L1 is θ̂ soft-thresholded at τ, sign(θ̂_b) ·
    max(|θ̂_b| − τ, 0), with τ the one value where Σ_b min(|θ̂_b|, τ)² = radius² (taking |θ̂_b| ascending, the
    first j with τ_j = sqrt((radius² − Σ_{i<j} |θ̂|²_(i)) / (d − j)) ≤ |θ̂|_(j)), and the smallest Σ|θ_b| is
    Σ_b max(|θ̂_b| − τ, 0). A radius of 0 gives the point ECE."""
    ordered = np.sort(np.abs(np.asarray(gaps, dtype=np.float64)))
    ece, d = float(ordered.sum()), len(ordered)
    high = min(1.0, ece + radius * math.sqrt(d))
    if math.sqrt(float((ordered * ordered).sum())) <= radius:
        return 0.0, high
    below = 0.0
    for j, value in enumerate(ordered.tolist()):
        tau = math.sqrt((radius * radius - below) / (d - j))
        if tau <= value:
            break
        below += value * value
    return max(0.0, float(np.maximum(ordered - tau, 0.0).sum())), high


def subject_intervals(summary: CaseSummary, rng: np.random.Generator, resamples: int,
                      confidence: Fraction, *, passes: bool = True, calibration: bool = True) -> SubjectIntervals:
    """P, s_bar, BS, ECE and Q_final intervals of one subject from one case draw of its stream ``rng``.

    ``passes`` False (no pass rule) leaves P's out, ``calibration`` False (no confidence or no correctness)
    BS's and ECE's; the draw is the same, so the other intervals do not move.
    """
    counts = case_counts(rng, summary.k, resamples)
    unit = 100 * summary.scale
    return SubjectIntervals(
        p=proportion_interval(summary, counts, confidence) if passes else None,
        s_bar=ratio_interval(summary.clipped, summary.runs, counts, confidence, float(summary.score_unit)),
        bs=bounded_mean_interval(summary.brier, summary.runs, confidence, unit * unit) if calibration else None,
        ece=ece_interval(summary, counts, confidence) if calibration else None,
        q_final=ratio_interval(summary.q, summary.runs, counts, confidence, float(summary.q_scale)),
    )

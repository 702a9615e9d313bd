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
vector of signed bin gaps, which is smooth, studentised (its level calibrated by a fast double bootstrap), and
projects its confidence region onto ECE (see
its docstring and aggregate_metrics.md §18). It is also the calibration rule (§19a): a subject is
miscalibrated distinguishably from chance exactly when ECE_low > 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .bootstrap import Interval, case_counts, nested_counts, ratio_interval
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


def ece_interval(summary: CaseSummary, counts: np.ndarray, inner: np.ndarray, confidence: Fraction) -> Interval | None:
    """The confidence interval of the population ECE of the same fixed bins, from the case draw ``counts``.

    With θ_b the population mean signed gap (confidence − correctness) per run in bin b, the population
    ECE is Σ_b |θ_b| and the seed's ECE is its plug-in Σ_b |θ̂_b|, θ̂_b = Σ_c g_cb / N (g_cb = gaps[c, b] /
    (100 · scale), N = Σ_c n_c). The root is the L1 distance of the gap vector studentised by its case-cluster
    scale, R = Σ_b |θ̂_b − θ_b| / S with S² = Σ_c Σ_b (g_cb − θ̂_b n_c)² / N² (the trace of the cluster-robust
    covariance of θ̂, cases the clusters); each case-bootstrap replicate gives θ*_b (the ratio of the drawn
    sums), S* by the same formula over the drawn cases (each counted as often as drawn) and R* = Σ_b |θ*_b −
    θ̂_b| / S* (a bootstrap-t root: Hall 1988, "Theoretical comparison of bootstrap confidence intervals",
    Annals of Statistics 16(3); Beran 1988, "Balanced simultaneous confidence sets", JASA 83). The bootstrap's
    quantile of R* falls short of R's at these sizes (false alarms 5.7-6.3% at 100 cases), so its level is
    calibrated by the fast double bootstrap (Davidson and MacKinnon 2007, "Improving the reliability of bootstrap
    tests with the fast double bootstrap", CSDA 51(7); for intervals Chang and Hall 2015, Biometrika 102(1)):
    ``inner`` (:func:`.bootstrap.nested_counts`) resamples each draw's own cases once, R** is the root of that
    resample against its draw (θ** against θ*, S** over its cases), a' is the share of R** above the
    ``confidence`` quantile of R*, and r is the 1 − a' quantile of R* (linear interpolation, numpy's default;
    a' = 0 gives the largest R*). With q = r · S the set {θ : Σ_b |θ̂_b − θ_b| ≤ q} covers θ with the
    calibrated probability; by the triangle inequality the smallest and largest Σ|θ_b| on it are exactly

        [max(0, ECE − q), min(1, ECE + q)]

    so the interval covers the population ECE at least as often as the set covers θ, at ECE = 0 too. Low > 0
    is the test of perfect calibration (θ = 0) at level 1 − ``confidence``, which is the calibration rule of
    aggregate_metrics.md §19a. Studentising matters there: the plain root (q from Σ|θ*_b − θ̂_b|) called
    perfectly calibrated subjects miscalibrated 7-9% of the time with one run per case, because a case sample
    without the rare large gaps has both a large |θ̂| and a small bootstrap spread; S* moves with them.
    A replicate whose drawn cases have no residual (S* = 0: every drawn case has the same gaps per run) has R*
    = 0 when θ* = θ̂, else the largest float (it says nothing about the spread); so has a resample of the second
    level against its draw. None when K = 0; S = 0 (one
    case, or every case with the same gaps per run): every replicate is the estimate, q = 0, the point ECE.
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
    outer, outer_sums, outer_runs = _roots(gaps, runs, counts, sums[None, :], np.array([total]), unit)
    critical = float(np.quantile(outer, float(confidence)))
    second = _roots(gaps, runs, inner, outer_sums, outer_runs, unit)[0]
    level = 1.0 - float(np.count_nonzero(second > critical)) / len(second)
    q = float(np.quantile(outer, level)) * scale
    return max(0.0, estimate - q), min(1.0, estimate + q)


def _roots(gaps: np.ndarray, runs: np.ndarray, weights: np.ndarray, centre: np.ndarray, centre_runs: np.ndarray,
           unit: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(R, M, N) per row of the case weights (R x K): the studentised root R = Σ_b |M_b/N − c_b/n| / S of the drawn
    gap sums M (R x bins) and runs N against the centre's sums c (``centre``, one row or one per weight row) over
    its runs n, S the cluster-robust scale of the drawn cases (each as often as drawn). A row with no residual
    (S = 0) has R = 0 when it is the centre, else the largest float (it says nothing about the spread)."""
    bins = gaps.shape[1]
    # One product for every sum a replicate needs (integer-valued, exact): M = Σ w g, A = Σ w g², Bm = Σ w g n
    # per bin, then N = Σ w n and C = Σ w n²
    drawn_all = np.asarray(weights, dtype=np.float64) @ np.hstack(
        [gaps, gaps * gaps, gaps * runs[:, None], runs[:, None], (runs * runs)[:, None]])
    drawn_sums, squares, cross = drawn_all[:, :bins], drawn_all[:, bins:2 * bins], drawn_all[:, 2 * bins:3 * bins]
    drawn, runs_squared = drawn_all[:, 3 * bins], drawn_all[:, 3 * bins + 1]   # every replicate draws k cases
    distance = (np.abs(drawn_sums * centre_runs[:, None] - centre * drawn[:, None]).sum(axis=1)
                / (drawn * centre_runs * unit))
    # Σ_c w_c (g_cb N − M_b n_c)² = A_b N² − 2 M_b Bm_b N + M_b² C
    spread = (squares * (drawn * drawn)[:, None] - 2 * drawn_sums * cross * drawn[:, None]
              + drawn_sums * drawn_sums * runs_squared[:, None]).sum(axis=1)
    scale = np.sqrt(np.maximum(spread, 0.0)) / (drawn * drawn * unit)
    with np.errstate(divide="ignore", invalid="ignore"):
        root = np.where(scale > 0, distance / scale, np.where(distance > 0, np.finfo(np.float64).max, 0.0))
    return root, drawn_sums, drawn


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
        ece=ece_interval(summary, counts, nested_counts(rng, counts), confidence) if calibration else None,
        q_final=ratio_interval(summary.q, summary.runs, counts, confidence, float(summary.q_scale)),
    )

"""Case-bootstrap intervals of P, s_bar, BS, ECE and Q_final of one subject, and of any proportion over cases.

Every interval resamples the subject's cases (:func:`.bootstrap.case_counts` with the subject's own
stream, :mod:`.seeds`): P, s_bar and Q_final take the BCa bounds (:func:`.bootstrap.ratio_interval`), BS the
bootstrap-t bounds (:func:`.bootstrap.studentised_ratio_interval`: BCa covered BS 84-95% in simulation, short on
the high side, because a sample that drew few of a subject's rare large errors has a low BS and a narrow
spread alike), ECE its own interval (:func:`ece_interval`, below). All five figures of a subject use the same draw.
A proportion at 0 or 1 (P, P_family, a pass rate per difficulty) has every
replicate equal to it, so the bootstrap says nothing; :func:`proportion_interval` then gives the Wilson
interval over the K cases (each case counted once, the largest design effect runs of one case can
have), which is never a point.

ECE is not a smooth function of the per-case sums where a bin's mean gap is 0 (a sum of absolute
values), and the plug-in ECE is biased upward there; a bootstrap of ECE itself (BCa or percentile)
centres on that bias and cannot cover a true ECE near 0. :func:`ece_interval` therefore bootstraps the
vector of signed bin gaps, which is smooth, and projects its confidence region onto ECE (see its
docstring and aggregate_metrics.md §18).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .bootstrap import Interval, case_counts, ratio_interval, studentised_ratio_interval
from .case_summary import CaseSummary
from .wilson import wilson_interval


@dataclass(frozen=True)
class SubjectIntervals:
    """Intervals (low, high) of one subject's figures (BCa; BS bootstrap-t; ECE by :func:`ece_interval`); None
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
    ECE is Σ_b |θ_b| and the seed's ECE is its plug-in Σ_b |θ̂_b|, θ̂_b = Σ_c gaps[c, b] / (100 · scale · N).
    Each case-bootstrap replicate gives θ*_b (the ratio of the drawn sums); the L1 distance
    D* = Σ_b |θ*_b − θ̂_b| estimates the distribution of D = Σ_b |θ̂_b − θ_b| (a bootstrapped root, Beran
    1988, "Balanced simultaneous confidence sets", JASA 83:679-686), with q its ``confidence`` quantile
    (linear interpolation, numpy's default) times sqrt(K / (K − 1)) (a bootstrap variance over K cases is
    (K − 1)/K of the unbiased one). The set {θ : Σ_b |θ̂_b − θ_b| ≤ q} covers θ with the bootstrap's
    probability; by the triangle inequality | Σ|θ̂_b| − Σ|θ_b| | ≤ Σ|θ̂_b − θ_b|, and the smallest and largest
    Σ|θ_b| on that set are exactly

        [max(0, ECE − q), min(1, ECE + q)]

    so the interval covers the population ECE at least as often as the set covers θ, including at
    ECE = 0 (low is exactly 0 when ECE ≤ q: "consistent with no bin-level miscalibration").
    Not centred on the estimate's bias: the point estimate stays the plug-in ECE of §7.
    None when K = 0; one case: every replicate is the estimate, q = 0, the interval is the point ECE.
    """
    k = summary.k
    if k == 0:
        return None
    unit = float(100 * summary.scale)
    gaps = summary.gaps.astype(np.float64) / unit
    runs = summary.runs.astype(np.float64)
    theta = gaps.sum(axis=0) / runs.sum()
    estimate = float(np.abs(theta).sum())
    if k == 1:
        return estimate, estimate
    w = np.asarray(counts, dtype=np.float64)
    replicates = (w @ gaps) / (w @ runs)[:, None]          # every replicate draws k cases, each with n_c ≥ 1 runs
    distance = np.abs(replicates - theta).sum(axis=1)
    q = float(np.quantile(distance, float(confidence))) * math.sqrt(k / (k - 1))
    return max(0.0, estimate - q), min(1.0, estimate + q)


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
        bs=studentised_ratio_interval(summary.brier, summary.runs, counts, confidence, float(unit * unit))
        if calibration else None,
        ece=ece_interval(summary, counts, confidence) if calibration else None,
        q_final=ratio_interval(summary.q, summary.runs, counts, confidence, float(summary.q_scale)),
    )

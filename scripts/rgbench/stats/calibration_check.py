"""How large ECE is under perfect calibration, for each subject's own confidences (consistency resampling).

ECE (aggregate_metrics.md §7) is biased upward: with a few runs per bin, a
perfectly calibrated subject still shows bin gaps, so a raw ECE of 0.10 says
nothing until it is set against what perfect calibration would give with the
same confidences. Following Bröcker and Smith (2007, "Increasing the reliability
of reliability diagrams", Weather and Forecasting 22(3)), each of B resamples
keeps the subject's confidences c_i and redraws every outcome as
Bernoulli(c_i / 100), which is perfectly calibrated by construction; the ECE of
each resample is computed with the same bins as the observed ECE.

Soft targets. correctness takes 0, 1/2 or 1; the null draws outcomes in {0, 1}.
Among all outcome distributions on [0, 1] with mean c, Bernoulli(c) is the
largest in convex order, and a bin's term |Σ (c_i − o_i)| is a convex function
of the outcomes, so this null makes a gap harder, never easier, to call real.

Cases are the clusters. Runs of one case are correlated beyond what their
confidences say (a case hard for the subject is hard in every run), and perfect
calibration (E[correctness | c] = c) says nothing about that correlation; only
cases are independent. So each resample draws ONE uniform U per case and sets
o_i = [U < c_i] for every run i of the case: the outcomes of a case are
comonotone, each still exactly Bernoulli(c_i). ECE is Σ_bins φ(Σ_{i in bin} o_i)
with φ convex, a supermodular function of the outcomes, and among all vectors
with these Bernoulli marginals the comonotone one has the largest expectation
of every supermodular function (Tchen 1980, "Inequalities for distributions
with given marginals", Annals of Probability 8(4); applied case by case, cases
independent), so ECE_calibrated_mean is the largest expected ECE of any
perfectly calibrated subject with these confidences, whatever the dependence
of runs within a case. With one run per case it is the independent null of
Bröcker and Smith.

Seeds. Each subject's stream is ``seeds.generator("calibration", [its digest])``
with the digest of :func:`rgbench.stats.seeds.subject_digest` (the declared seed
and the subject's own parsed runs), so editing one subject's data leaves every
other subject's figures byte-identical.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .calibration import confidence_bins
from .run_columns import RunColumns
from .seeds import generator

_BLOCK = 4_000_000   # at most this many outcome draws in memory at once


@dataclass(frozen=True)
class CalibrationCheck:
    """One subject's ECE against perfect calibration, both exact over the B resamples drawn.

    ``expected``: the mean ECE of the calibrated resamples, in [0, 1] (the ECE a
    perfectly calibrated subject with these confidences shows on average);
    ``share_at_or_above``: the share of calibrated resamples whose ECE is at or
    above the observed one, in [0, 1] (small: the gap is larger than perfect
    calibration explains).
    """

    expected: Fraction
    share_at_or_above: Fraction
    resamples: int


def calibration_check(confidence: np.ndarray, correctness: np.ndarray, case: np.ndarray, scale: int, bins: int,
                      rng: np.random.Generator, resamples: int) -> CalibrationCheck | None:
    """The check of one subject's runs: integer ``confidence`` in 0..100, ``correctness`` = k / ``scale``,
    ``case`` the run's case (any integer labels; runs with equal labels are one cluster).

    Each resample draws one U_c uniform on the integers 0..99 per case (in the order of the sorted labels)
    and o_i = [U_c < c_i] for the runs i of case c (exactly Bernoulli(c_i/100), comonotone within a case),
    and its ECE is (1/N) Σ_bins |Σ c_i/100 − Σ o_i|. Observed and resampled ECE are compared as integers
    (Σ_bins |scale · Σ c − 100 · Σ k|, both over 100 · scale · N): no float enters a comparison.
    None when the subject has no run. All confidences equal, one run: still defined (the draws vary).
    """
    n = int(confidence.size)
    if n == 0:
        return None
    bin_of = confidence_bins(confidence, bins)
    onehot = np.zeros((n, bins), dtype=np.float64)   # 0/1 products summed over n runs: exact in float64 (BLAS)
    onehot[np.arange(n), bin_of] = 1
    conf_sums = np.bincount(bin_of, weights=confidence, minlength=bins).astype(np.int64)
    k_sums = np.bincount(bin_of, weights=correctness, minlength=bins).astype(np.int64)
    observed = int(np.abs(scale * conf_sums - 100 * k_sums).sum())          # ECE · 100 · scale · N
    _, cluster = np.unique(case, return_inverse=True)
    clusters = int(cluster.max()) + 1
    total = at_or_above = 0
    block = max(1, _BLOCK // n)
    done = 0
    while done < resamples:
        size = min(block, resamples - done)
        uniform = rng.integers(0, 100, size=(size, clusters))
        outcomes = (uniform[:, cluster] < confidence[None, :]).astype(np.float64)
        hits = (outcomes @ onehot).astype(np.int64)                             # outcomes per bin, exact
        numerators = scale * np.abs(conf_sums[None, :] - 100 * hits).sum(axis=1)   # · 100 · scale · N
        total += int(numerators.sum())
        at_or_above += int(np.count_nonzero(numerators >= observed))
        done += size
    return CalibrationCheck(Fraction(total, resamples * 100 * scale * n), Fraction(at_or_above, resamples),
                            resamples)


def calibration_checks(columns: RunColumns, bins: int, digests: Mapping[str, str],
                       resamples: int) -> dict[str, CalibrationCheck | None]:
    """Subject id -> :func:`calibration_check` of its runs, its stream ``generator("calibration", [digest])``
    with ``digests`` the subjects' :func:`rgbench.stats.seeds.subject_digest`; None without runs."""
    out: dict[str, CalibrationCheck | None] = {}
    for s, sid in enumerate(columns.subjects):
        mask = columns.subject == s
        rng = generator("calibration", [digests[sid]])
        out[sid] = calibration_check(columns.confidence[mask], columns.correctness[mask], columns.case[mask],
                                     columns.scale, bins, rng, resamples)
    return out

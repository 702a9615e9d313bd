"""Case-bootstrap BCa intervals of P, s_bar, BS, ECE and Q_final of one subject, and of any proportion over cases.

Every interval resamples the subject's cases (:func:`.bootstrap.case_counts` with the subject's own
stream, :mod:`.seeds`) and takes the BCa bounds (:func:`.bootstrap.bca_interval`). All five figures of a
subject use the same draw. A proportion at 0 or 1 (P, P_family, a pass rate per difficulty) has every
replicate equal to it, so the bootstrap says nothing; :func:`proportion_interval` then gives the Wilson
interval over the K cases (each case counted once, the largest design effect runs of one case can
have), which is never a point.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .bootstrap import bca_interval, case_counts, ece_statistic, ratio_statistic
from .case_summary import CaseSummary
from .wilson import wilson_interval

Interval = tuple[float, float]


@dataclass(frozen=True)
class SubjectIntervals:
    """BCa intervals (low, high) of one subject's figures; None when it has no scored run."""

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
    return bca_interval(ratio_statistic(summary.passes, summary.runs), summary.k, counts, confidence)


def subject_intervals(summary: CaseSummary, rng: np.random.Generator, resamples: int,
                      confidence: Fraction) -> SubjectIntervals:
    """P, s_bar, BS, ECE and Q_final intervals of one subject from one case draw of its stream ``rng``."""
    k = summary.k
    counts = case_counts(rng, k, resamples)
    unit = 100 * summary.scale

    def bca(statistic):
        return bca_interval(statistic, k, counts, confidence)

    return SubjectIntervals(
        p=proportion_interval(summary, counts, confidence),
        s_bar=bca(ratio_statistic(summary.clipped, summary.runs)),
        bs=bca(ratio_statistic(summary.brier, summary.runs, float(unit * unit))),
        ece=bca(ece_statistic(summary.gaps, summary.runs, float(unit))),
        q_final=bca(ratio_statistic(summary.q, summary.runs, float(summary.q_scale))),
    )

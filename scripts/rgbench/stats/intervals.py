"""Per-subject bootstrap intervals of s_bar, BS, ECE and Q_final (resampling cases).

Each metric of metrics.py is a ratio of per-case sums, so it is resampled
with :mod:`.bootstrap`; drawing every case once reproduces the metric exactly
(a test proves it). The per-case sums are kept as integers over fixed scales
(see :func:`correctness_scale` and :func:`gap`), so resampling is integer arithmetic.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np

from ..derive import PASS, RunRow
from ..metrics import confidence_bin
from .bootstrap import abs_sum_replicates, draw_counts, percentile_interval, ratio_replicates

Interval = tuple[Fraction, Fraction]


def correctness_scale(rows: Sequence[RunRow]) -> int:
    """L: the common denominator of the correctness values (2 for 0, 1/2, 1), so correctness = k / L exactly."""
    return math.lcm(1, *(row.correctness.denominator for row in rows))


def gap(row: RunRow, scale: int) -> int:
    """(confidence_unit − correctness) · 100 · scale as an integer: c · L − 100 · k."""
    return row.reported_confidence * scale - 100 * row.correctness.numerator * (scale // row.correctness.denominator)


@dataclass(frozen=True)
class CaseSums:
    """One case's runs of one subject, summed as integers: the unit the bootstrap draws.

    brier = Σ gap² (BS scale 1/(100 L)²), gaps per confidence bin = Σ gap (ECE scale 1/(100 L)).
    """

    case_id: str
    n: int
    passes: int
    clipped: int
    brier: int
    gaps: tuple[int, ...]


def case_sums(rows: Sequence[RunRow], bins: int, scale: int | None = None) -> list[CaseSums]:
    """Per-case sums of one subject's scored runs, sorted by case_id (``scale`` = correctness_scale(rows))."""
    scale = correctness_scale(rows) if scale is None else scale
    groups: dict[str, list[RunRow]] = defaultdict(list)
    for row in rows:
        groups[row.case_id].append(row)
    out = []
    for case_id, group in sorted(groups.items()):
        gaps = [0] * bins
        brier = passes = clipped = 0
        for row in group:
            g = gap(row, scale)
            gaps[confidence_bin(row.reported_confidence, bins)] += g
            brier += g * g
            passes += row.classification == PASS
            clipped += row.clipped_score
        out.append(CaseSums(case_id, len(group), passes, clipped, brier, tuple(gaps)))
    return out


@dataclass(frozen=True)
class SubjectIntervals:
    """Percentile bootstrap intervals (low, high), exact; None when the subject has no scored run."""

    s_bar: Interval | None = None
    bs: Interval | None = None
    ece: Interval | None = None
    q_final: Interval | None = None


def subject_intervals(rows: Sequence[RunRow], *, bins: int, alpha: Fraction, max_score: int, confidence: Fraction,
                      counts: np.ndarray | None = None, rng: np.random.Generator | None = None,
                      resamples: int | None = None) -> SubjectIntervals:
    """Bootstrap intervals of s_bar, BS, ECE and Q_final for one subject's scored runs.

    Resamples the subject's K distinct cases with replacement; a drawn case
    brings all its runs. ``counts`` is the draw, (B x K) with columns in case_id
    order (compute_metrics uses the draw of the subject's case set,
    :meth:`.case_draws.CaseDraws.counts`); or ``rng`` and ``resamples`` draw one
    with :func:`.bootstrap.draw_counts`. Degenerate cases: no scored run -> all
    None; a single case -> every replicate equals the estimate, so each interval
    is [estimate, estimate] (no case-level variation can be measured).

    This is the straightforward path, one subject at a time;
    :func:`.intervals_table.subject_intervals_table` computes the same for all
    subjects at once.
    """
    scale = correctness_scale(rows)
    cases = case_sums(rows, bins, scale)
    if not cases:
        return SubjectIntervals()
    if counts is None:
        if rng is None or resamples is None:
            raise ValueError("give the draw (counts) or a generator and the number of resamples")
        counts = draw_counts(rng, len(cases), resamples)
    if counts.shape[1] != len(cases):
        raise ValueError(f"the draw has {counts.shape[1]} cases, the runs {len(cases)}")
    n = [c.n for c in cases]
    # Q_final per case = (a · max_score · passes + (d − a) · clipped) / (d · max_score), alpha = a/d
    a, d = alpha.numerator, alpha.denominator
    q_num = [a * max_score * c.passes + (d - a) * c.clipped for c in cases]
    return SubjectIntervals(
        s_bar=percentile_interval(ratio_replicates(counts, [c.clipped for c in cases], n), confidence),
        bs=percentile_interval(ratio_replicates(counts, [c.brier for c in cases], n, Fraction(1, (100 * scale) ** 2)),
                               confidence),
        ece=percentile_interval(abs_sum_replicates(counts, [c.gaps for c in cases], n, Fraction(1, 100 * scale)),
                                confidence),
        q_final=percentile_interval(ratio_replicates(counts, q_num, n, Fraction(1, d * max_score)), confidence),
    )

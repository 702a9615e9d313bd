"""The bootstrap intervals of s_bar, BS, ECE and Q_final of every subject at once (aggregate_metrics.md §18).

Each metric of metrics.py is a ratio of per-case sums, so a replicate is
Σ_c w_c·a_c / Σ_c w_c·n_c over the case draw counts w; drawing every case once
reproduces the metric exactly. The per-case sums are integers over fixed scales
(gap = c·L − 100·k, see :func:`_case_sums`; Q_final's numerator is
:func:`rgbench.compute.metrics.q_numerator`). The intervals equal the straightforward
path, one subject at a time with the draw of its case set (``tests/reference_stats.py``,
``subject_intervals``; tests prove it on random data). Computed for all subjects
together: the per-case integer sums of every subject form a (subjects x cases)
matrix, the replicate sums of all of them are one product with the draw counts
(:meth:`.case_draws.CaseDraws.replicate_sums`, exact), and one vectorised
percentile step orders them (:mod:`.batch_percentiles`). Subjects with the same
case set share one draw (:mod:`.case_draws`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..compute.metrics import confidence_bin, q_numerator
from .batch_percentiles import percentile_intervals
from .case_draws import CaseDraws
from .exact_products import exact_bincount
from .run_columns import RunColumns

_CHUNK = 64  # subjects per product: bounds memory at (4 + bins) · 64 · B floats

Interval = tuple[Fraction, Fraction]


@dataclass(frozen=True)
class SubjectIntervals:
    """Percentile bootstrap intervals (low, high), exact; None when the subject has no scored run."""

    s_bar: Interval | None = None
    bs: Interval | None = None
    ece: Interval | None = None
    q_final: Interval | None = None


def subject_intervals_table(columns: RunColumns, *, bins: int, alpha: Fraction, max_score: int, draws: CaseDraws,
                            confidence: Fraction) -> dict[str, SubjectIntervals]:
    """Subject id -> its s_bar, BS, ECE and Q_final intervals (all None when it has no scored run).

    ``columns`` holds every subject's runs (:class:`.run_columns.RunColumns`);
    every case must be in ``draws.universe``. A subject's replicates resample its
    own cases with the draw of that case set (:mod:`.case_draws`).
    """
    ids = columns.subjects
    sums = _case_sums(columns, bins, draws)
    q_num = q_numerator(sums["passes"], sums["clipped"], alpha, max_score)     # Q_final · d · max_score · n
    scale = columns.scale
    scales = (Fraction(1), Fraction(1, (100 * scale) ** 2), Fraction(1, 100 * scale),
              Fraction(1, alpha.denominator * max_score))
    out = {sid: SubjectIntervals() for sid in ids}
    scored = [s for s in range(len(ids)) if sums["n"][s].any()]
    for start in range(0, len(scored), _CHUNK):
        chunk = scored[start:start + _CHUNK]
        c = len(chunk)
        members = sums["n"][chunk] > 0                                   # each subject's own case set
        gaps = [sums["gaps"][chunk, k] for k in range(bins)]
        den, clipped, brier, q, *per_bin = draws.replicate_sums(
            [sums["n"][chunk], sums["clipped"][chunk], sums["brier"][chunk], q_num[chunk], *gaps], members)
        # Σ over bins of |bin sum|: in float64, where a sum of `bins` exact integers stays exact
        ece = sum(np.abs(part.astype(np.float64)) for part in per_bin)
        bounds = percentile_intervals(np.vstack([clipped, brier, ece, q]), np.vstack([den] * 4),
                                      [sc for sc in scales for _ in range(c)], confidence)
        for i, s in enumerate(chunk):
            out[ids[s]] = SubjectIntervals(s_bar=bounds[i], bs=bounds[c + i], ece=bounds[2 * c + i],
                                           q_final=bounds[3 * c + i])
    return out


def _case_sums(columns: RunColumns, bins: int, draws: CaseDraws) -> dict[str, np.ndarray]:
    """Per (subject, case of U) integer sums: n, passes, clipped, brier = Σ gap², and gaps per (subject, bin, case).

    gap = c · L − 100 · k for confidence c (percent) and correctness k / L, with
    L = ``columns.scale`` (the values do not depend on L: BS and ECE scale by
    1/(100 L)² and 1/(100 L)).
    """
    confidence = columns.confidence
    if confidence.size and not 0 <= int(confidence.min()) <= int(confidence.max()) <= 100:
        raise ValueError("confidence outside 0..100")
    bin_of = np.array([confidence_bin(c, bins) for c in range(101)], dtype=np.int64)
    gap = confidence * columns.scale - 100 * columns.correctness
    universe = draws.index
    case = np.array([universe[c] for c in columns.cases], dtype=np.int64)[columns.case] if columns.case.size \
        else columns.case
    cell = (columns.subject * bins + bin_of[confidence]) * draws.k + case
    return {
        "n": columns.per_subject_case(np.ones(len(gap), dtype=np.int64), universe),
        "passes": columns.per_subject_case(columns.passed, universe),
        "clipped": columns.per_subject_case(columns.clipped, universe),
        "brier": columns.per_subject_case(gap * gap, universe),
        "gaps": exact_bincount(cell, gap, len(columns.subjects) * bins * draws.k).reshape(
            len(columns.subjects), bins, draws.k),
    }

"""Aggregate metrics of aggregate_metrics.md, as pure functions over per-run rows.

All values are exact (``Fraction``); rounding happens only in the writers.
Every function takes the scored runs R of one subject (or one family) and
returns ``None`` where the metric is undefined: N = 0, or the benchmark does not record what it needs
(no pass rule: P; no confidence or no correctness: BS, ECE; aggregate_metrics.md §0b).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..load.scale import ScoreScale, in_units, score_unit
from .derive import PASS, RunRow
from .exact_sums import exact_bincount


def classified(rows: Sequence[RunRow]) -> bool:
    """True when every row has a classification (the benchmark has a pass rule) and there is one."""
    return bool(rows) and all(row.classification is not None for row in rows)


def calibrated(rows: Sequence[RunRow]) -> bool:
    """True when every row has a confidence and a correctness (the benchmark records both) and there is one."""
    return bool(rows) and all(row.reported_confidence is not None and row.correctness is not None for row in rows)


def pass_rate(rows: Sequence[RunRow]) -> Fraction | None:
    """P = #Pass / N, in [0, 1], higher is better. Conditional is not a pass; None when N = 0 or the runs are
    not classified (no pass rule)."""
    if not classified(rows):
        return None
    return Fraction(sum(1 for row in rows if row.classification == PASS), len(rows))


def mean_clipped_score(rows: Sequence[RunRow]) -> Fraction | None:
    """s_bar = mean clipped_score, in [score_min, score_max], on the domain's scale and in its direction
    (rgbench.load.scale); None when N = 0."""
    if not rows:
        return None
    return Fraction(sum(row.clipped_score for row in rows), len(rows))


def _correctness_scale(rows: Sequence[RunRow]) -> int:
    """L, the common denominator of the rows' correctness values (2 for {0, 0.5, 1}; 1 for {0, 1}).

    Each correctness is then an integer k / L, so sums stay in integers, exact
    and fast, whatever correctness values the evaluation schema allows.
    """
    return score_unit(row.correctness for row in rows if row.correctness is not None)


def _correctness_units(row: RunRow, scale: int) -> int:
    """correctness x ``scale`` as an integer (``scale`` a multiple of its denominator); calibrated rows only."""
    assert row.correctness is not None
    return in_units(row.correctness, scale)


def brier_score(rows: Sequence[RunRow]) -> Fraction | None:
    """Soft Brier BS = mean (confidence_unit - correctness)^2, in [0, 1], lower is better; None when N = 0 or
    the runs carry no confidence or no correctness.

    Computed in integers: (c/100 - k/L)^2 = (L c - 100 k)^2 / (100 L)^2, with c the
    integer confidence, L = :func:`_correctness_scale` and k the correctness in 1/L units.
    """
    if not calibrated(rows):
        return None
    scale = _correctness_scale(rows)
    total = 0
    for row in rows:
        diff = scale * row.reported_confidence - 100 * _correctness_units(row, scale)  # type: ignore[operator]
        total += diff * diff
    return Fraction(total, (100 * scale) ** 2 * len(rows))


def confidence_bin(confidence: int, bins: int) -> int:
    """Bin index 0..bins-1 of an integer percentage: floor(c * bins / 100), with 100 in the last bin.

    Integer arithmetic only, so 30 falls in [0.3, 0.4) exactly (bin 3 of 10).
    """
    if not 0 <= confidence <= 100:
        raise ValueError(f"confidence {confidence} outside 0..100")
    return min(confidence * bins // 100, bins - 1)


def bin_sums(cell: np.ndarray, confidence: np.ndarray, correctness: np.ndarray, cells: int, bins: int) -> np.ndarray:
    """int64 (cells x bins x 6): per cell and confidence bin (:func:`confidence_bin`) the exact integer sums
    (n, Σc, Σk, Σc², Σk², Σck) of the runs, given one array entry per run: its cell 0..cells-1, its integer
    confidence c in percent and its correctness k in integer units (correctness times a common scale).

    The one source of per-bin sums: a subject's bins (:func:`calibration_bins`: ECE, calibration_bins.csv, the
    reliability diagrams) and, per subject and case (:meth:`rgbench.stats.run_columns.RunColumns.bin_sums`),
    the Brier decomposition and the case summaries' calibration gaps. ValueError for a confidence outside
    0..100; OverflowError when a sum does not fit exactly (:func:`rgbench.compute.exact_sums.exact_bincount`).
    """
    c, k = np.asarray(confidence, dtype=np.int64), np.asarray(correctness, dtype=np.int64)
    if c.size and not 0 <= int(c.min()) <= int(c.max()) <= 100:
        raise ValueError("confidence outside 0..100")
    bin_of = np.array([confidence_bin(value, bins) for value in range(101)], dtype=np.int64)
    index = np.asarray(cell, dtype=np.int64) * bins + bin_of[c]
    sums = [exact_bincount(index, w, cells * bins) for w in (np.ones_like(c), c, k, c * c, k * k, c * k)]
    return np.stack(sums, axis=1).reshape(cells, bins, 6)


@dataclass(frozen=True)
class CalibrationBin:
    """One non-empty confidence bin: count and exact sums of confidence_unit and correctness."""

    index: int
    count: int
    confidence_sum: Fraction
    correctness_sum: Fraction

    @property
    def mean_confidence(self) -> Fraction:
        return self.confidence_sum / self.count

    @property
    def mean_correctness(self) -> Fraction:
        return self.correctness_sum / self.count


def calibration_bins(rows: Sequence[RunRow], bins: int) -> list[CalibrationBin]:
    """The non-empty fixed-width confidence bins, by index, from the integer sums of :func:`bin_sums` (exact:
    Σc / 100 and Σk / L, L = :func:`_correctness_scale`); empty bins are omitted, and so is every bin of runs
    without a confidence or a correctness (none: the benchmark records no calibration)."""
    if not calibrated(rows):
        return []
    scale = _correctness_scale(rows)
    confidence = np.array([row.reported_confidence for row in rows], dtype=np.int64)
    correctness = np.array([_correctness_units(row, scale) for row in rows], dtype=np.int64)
    sums = bin_sums(np.zeros_like(confidence), confidence, correctness, 1, bins)[0].tolist()
    return [CalibrationBin(i, n, Fraction(sc, 100), Fraction(sk, scale)) for i, (n, sc, sk, *_) in enumerate(sums) if n]


def calibration_tables(runs_by_subject: Mapping[str, Sequence[RunRow]], bins: int) -> dict[str, list[CalibrationBin]]:
    """Subject id -> :func:`calibration_bins` of its runs (the bins its ECE is made of): the non-empty bins by
    index, exact; a subject without runs has no bin. calibration_bins.csv."""
    return {sid: calibration_bins(rows, bins) for sid, rows in runs_by_subject.items()}


def expected_calibration_error(rows: Sequence[RunRow], bins: int) -> Fraction | None:
    """ECE = sum over non-empty bins of |B|/N * |conf(B) - acc(B)|, in [0, 1], lower is better.

    Equal to (1/N) * sum |sum conf - sum acc| per bin, which is how it is
    computed (no division inside bins). Empty bins contribute nothing; None when N = 0 or the runs carry no
    confidence or no correctness.
    """
    if not calibrated(rows):
        return None
    total = sum((abs(b.confidence_sum - b.correctness_sum) for b in calibration_bins(rows, bins)), Fraction(0))
    return total / len(rows)


def q_final(p: Fraction | None, s_bar: Fraction | None, alpha: Fraction, scale: ScoreScale) -> Fraction | None:
    """Q_final = alpha * P + (1 - alpha) * norm(s_bar), in [0, 1], higher is better; None if s_bar is, or if P is
    while alpha > 0. With alpha = 0 (a benchmark without a pass rule has no P) it is norm(s_bar).

    norm(s_bar) = (s_bar - score_min) / (score_max - score_min), or (score_max - s_bar) / (score_max - score_min)
    when lower is better (:meth:`rgbench.load.scale.ScoreScale.norm`; s_bar / 12 on the seed's 0-12 scale).
    Computed as ``q_numerator(P, credit, alpha, span) / (d * span)`` with alpha = a/d, credit = norm(s_bar) * span
    and span = score_max - score_min.
    """
    alpha = Fraction(alpha)
    if s_bar is None or (p is None and alpha):
        return None
    return Fraction(q_numerator(p or 0, scale.credit(s_bar), alpha, scale.span)) / (alpha.denominator * scale.span)


def q_numerator(passed, credit, alpha: Fraction, span):
    """a * span * passed + (d - a) * credit, with alpha = a/d in lowest terms: Q_final times d * span.

    The one encoding of Q_final as an integer numerator over ``d * span``, where span = score_max - score_min and
    credit = norm(score) * span (score - score_min, or score_max - score when lower is better):
    alpha * P + (1 - alpha) * credit / span = (a * span * P + (d - a) * credit) / (d * span).
    ``passed`` and ``credit`` may be one run's [Pass] and credit, sums of them over runs (then the value is
    Q_final times d * span * N), numpy integer arrays of either (element-wise, with span and credit in the
    same integer units: rgbench.load.scale.score_unit), or P and the credit of s_bar (as :func:`q_final`
    uses it). Integers in, integers out: exact.
    """
    alpha = Fraction(alpha)
    a, d = alpha.numerator, alpha.denominator
    return a * span * passed + (d - a) * credit


def critical_gate(rows: Sequence[RunRow]) -> tuple[bool, int]:
    """(disqualified, n_critical): disqualified when any scored run has a critical fail; (False, 0) when N = 0."""
    n_critical = sum(1 for row in rows if row.has_critical_fail)
    return n_critical > 0, n_critical


@dataclass(frozen=True)
class SubjectMetrics:
    subject_id: str
    subject_version: str
    n: int
    n_unscored: int
    p: Fraction | None
    s_bar: Fraction | None
    bs: Fraction | None
    ece: Fraction | None
    q_final: Fraction | None
    alpha: Fraction
    disqualified: bool
    n_critical: int


def subject_metrics(subject_id: str, subject_version: str, rows: Sequence[RunRow], n_unscored: int,
                    *, alpha: Fraction, bins: int, scale: ScoreScale) -> SubjectMetrics:
    """All per-subject metrics of one subject's scored runs."""
    p = pass_rate(rows)
    s_bar = mean_clipped_score(rows)
    disqualified, n_critical = critical_gate(rows)
    return SubjectMetrics(
        subject_id=subject_id,
        subject_version=subject_version,
        n=len(rows),
        n_unscored=n_unscored,
        p=p,
        s_bar=s_bar,
        bs=brier_score(rows),
        ece=expected_calibration_error(rows, bins),
        q_final=q_final(p, s_bar, alpha, scale),
        alpha=alpha,
        disqualified=disqualified,
        n_critical=n_critical,
    )


@dataclass(frozen=True)
class FamilyMetrics:
    subject_id: str
    subject_version: str
    family: str
    n_family: int
    p_family: Fraction | None   # None: no pass rule
    s_bar_family: Fraction


def family_metrics(rows: Sequence[RunRow]) -> list[FamilyMetrics]:
    """P_family and s_bar_family for every (subject, family) with n_family > 0, sorted by (subject_id, family)."""
    groups: dict[tuple[str, str, str], list[RunRow]] = defaultdict(list)
    for row in rows:
        groups[(row.subject_id, row.subject_version, row.family)].append(row)
    families = []
    for (sid, version, family), group in sorted(groups.items()):
        p_family, s_bar_family = pass_rate(group), mean_clipped_score(group)
        assert s_bar_family is not None  # None only for no rows; every group has one (P_family: no pass rule)
        families.append(FamilyMetrics(sid, version, family, len(group), p_family, s_bar_family))
    return families

"""How Q_final and the ranking move with alpha, the only free weight of the formulas."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from ..compute.metrics import SubjectMetrics, q_final
from ..compute.ranking import rank_subjects

ALPHA_GRID = tuple(Fraction(i, 10) for i in range(11))  # 0, 0.1, ..., 1


@dataclass(frozen=True)
class AlphaRow:
    """One row of alpha_sensitivity.csv: Q_final at ``alpha`` and the leaderboard rank it gives (None if unranked)."""

    subject_id: str
    subject_version: str
    alpha: Fraction
    q_final: Fraction | None
    rank: int | None


def ranked_order(subjects: Iterable[SubjectMetrics], alpha: Fraction, max_score: int,
                 incomplete: Collection[str] = frozenset()) -> list[tuple[int, str]]:
    """(rank, subject_id) of the ranked subjects (N > 0, not disqualified, not incomplete) when Q_final
    uses ``alpha``, best first, by the leaderboard's rule (:func:`rgbench.compute.ranking.rank_subjects`)."""
    at_alpha = (replace(m, alpha=alpha, q_final=q_final(m.p, m.s_bar, alpha, max_score)) for m in subjects)
    return [(s.rank, s.metrics.subject_id) for s in rank_subjects(at_alpha, incomplete) if s.rank is not None]


def alpha_sensitivity(subjects: Sequence[SubjectMetrics], max_score: int,
                      grid: Sequence[Fraction] = ALPHA_GRID, incomplete: Collection[str] = frozenset()) -> list[AlphaRow]:
    """Q_final and rank of every registered subject at each alpha of ``grid``, sorted by (subject_id, alpha).

    Q_final(alpha) = alpha · P + (1 − alpha) · s_bar / max_score is linear in
    alpha: at 0 it is s_bar / max_score, at 1 it is P. Disqualified subjects
    and Incomplete subjects keep their Q_final but get no rank; subjects with N = 0 have neither.
    """
    grid = [Fraction(alpha) for alpha in grid]
    ranks = [{sid: rank for rank, sid in ranked_order(subjects, alpha, max_score, incomplete)} for alpha in grid]
    rows = []
    for m in sorted(subjects, key=lambda m: m.subject_id):
        for alpha, rank_of in zip(grid, ranks):
            rows.append(AlphaRow(m.subject_id, m.subject_version, alpha, q_final(m.p, m.s_bar, alpha, max_score),
                                 rank_of.get(m.subject_id)))
    return rows


def top_ranks_by_alpha(rows: Iterable[AlphaRow], top: int = 3) -> dict[Fraction, tuple[tuple[int, str], ...]]:
    """For each alpha, the (rank, subject_id) pairs with rank <= top, best first."""
    out: dict[Fraction, list[tuple[int, str]]] = {}
    for row in rows:
        out.setdefault(row.alpha, [])
        if row.rank is not None and row.rank <= top:
            out[row.alpha].append((row.rank, row.subject_id))
    return {alpha: tuple(sorted(pairs)) for alpha, pairs in sorted(out.items())}


def top_ranks_depend_on_alpha(rows: Iterable[AlphaRow], top: int = 3) -> bool:
    """True when the subjects holding ranks 1..top (and their ranks) differ between two alphas of the grid."""
    return len(set(top_ranks_by_alpha(rows, top).values())) > 1

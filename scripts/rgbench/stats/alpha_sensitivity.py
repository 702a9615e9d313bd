"""How Q_final and the ranking move with alpha, the only free weight of the formulas."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from ..compute.metrics import SubjectMetrics, q_final
from ..compute.ranking import rank_subjects
from ..load.scale import ScoreScale

ALPHA_GRID = tuple(Fraction(i, 10) for i in range(11))  # 0, 0.1, ..., 1


@dataclass(frozen=True)
class AlphaRow:
    """One row of alpha_sensitivity.csv: Q_final at ``alpha`` and the leaderboard rank it gives (None if unranked)."""

    subject_id: str
    subject_version: str
    alpha: Fraction
    q_final: Fraction | None
    rank: int | None


def ranked_order(subjects: Iterable[SubjectMetrics], alpha: Fraction, scale: ScoreScale,
                 incomplete: Collection[str] = frozenset()) -> list[tuple[int, str]]:
    """(rank, subject_id) of the ranked subjects (N > 0, not disqualified, not incomplete) when Q_final
    uses ``alpha``, best first, by the leaderboard's rule (:func:`rgbench.compute.ranking.rank_subjects`)."""
    at_alpha = (replace(m, alpha=alpha, q_final=q_final(m.p, m.s_bar, alpha, scale)) for m in subjects)
    return [(s.rank, s.metrics.subject_id)
            for s in rank_subjects(at_alpha, incomplete, higher_is_better=scale.higher_is_better) if s.rank is not None]


def alpha_sensitivity(subjects: Sequence[SubjectMetrics], scale: ScoreScale,
                      grid: Sequence[Fraction] = ALPHA_GRID, incomplete: Collection[str] = frozenset()) -> list[AlphaRow]:
    """Q_final and rank of every registered subject at each alpha of ``grid``, sorted by (subject_id, alpha).

    Q_final(alpha) = alpha · P + (1 − alpha) · norm(s_bar) is linear in alpha: at 0 it is norm(s_bar) (the score
    on [0, 1], rgbench.load.scale), at 1 it is P. Disqualified subjects and Incomplete subjects keep their
    Q_final but get no rank; subjects with N = 0 have neither.
    """
    grid = [Fraction(alpha) for alpha in grid]
    ranks = [{sid: rank for rank, sid in ranked_order(subjects, alpha, scale, incomplete)} for alpha in grid]
    rows = []
    for m in sorted(subjects, key=lambda m: m.subject_id):
        for alpha, rank_of in zip(grid, ranks):
            rows.append(AlphaRow(m.subject_id, m.subject_version, alpha, q_final(m.p, m.s_bar, alpha, scale),
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


@dataclass(frozen=True)
class OrderRow:
    """One row of rank_stability.csv: ranked subject a above ranked subject b (leaderboard order).

    ``alpha_crossing``: the alpha in [0, 1] at which Q_final(a) = Q_final(b) when b is above a for some alpha of
    [0, 1] (None when a stays at or above b for every alpha); ``swap_share``: the share of the rank sets'
    bootstrap replicates in which b's Q_final is above a's (ties count half); ``adjacent``: consecutive places.
    """

    subject_a: str
    subject_b: str
    rank_a: int
    rank_b: int
    adjacent: bool
    alpha_crossing: Fraction | None
    swap_share: float | None


def alpha_crossing(a: SubjectMetrics, b: SubjectMetrics, scale: ScoreScale) -> Fraction | None:
    """Where the order of a (above) and b changes on alpha in [0, 1], exactly; None when it never does.

    d(alpha) = Q_final(a) − Q_final(b) = alpha · d1 + (1 − alpha) · d0 with d0 = norm(s_bar_a) − norm(s_bar_b)
    (alpha = 0) and d1 = P_a − P_b (alpha = 1) is linear, so b gets above a somewhere on [0, 1] iff
    min(d0, d1) < 0, and the two are equal at alpha = d0 / (d0 − d1).
    """
    if a.p is None or b.p is None or a.s_bar is None or b.s_bar is None:
        return None
    d0, d1 = scale.norm(a.s_bar) - scale.norm(b.s_bar), a.p - b.p
    if min(d0, d1) >= 0 or d0 == d1:
        return None
    return d0 / (d0 - d1)


def order_stability(ranked: Sequence[tuple[int, SubjectMetrics]], scale: ScoreScale,
                    swap: Sequence[Sequence[float]] | None) -> list[OrderRow]:
    """Every pair of ranked subjects (``ranked``: (rank, metrics) in leaderboard order), a above b, with
    :func:`alpha_crossing` and ``swap[i][j]`` (share of replicates with subject j above subject i)."""
    rows = []
    for i, (rank_a, a) in enumerate(ranked):
        for j in range(i + 1, len(ranked)):
            rank_b, b = ranked[j]
            share = None if swap is None else float(swap[i][j])
            rows.append(OrderRow(a.subject_id, b.subject_id, rank_a, rank_b, j == i + 1,
                                 alpha_crossing(a, b, scale), share))
    return rows

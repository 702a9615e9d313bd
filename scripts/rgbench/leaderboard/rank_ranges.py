"""Which ranks the data establish, and whether the top of the table depends on alpha: pure rules.

Rank ranges (issue 11) are results/rank_sets.csv's simultaneous 95% confidence
sets for ranks (Mogstad, Romano, Shaikh and Wilhelm 2024;
:func:`rgbench.stats.rank_sets.rank_confidence_sets`): with 95% confidence,
every ranked subject's true rank (its rank on the population of cases this
sample stands for) lies in its range, all at once. They come from compute_metrics;
the leaderboard shows them.

The significant differences listed are pairwise.csv's ``significantly_better``
among ranked subjects: the case-level sign-flip test of the Q_final difference,
Holm-adjusted over the pairs of ranked subjects (pairwise.csv's family ``ranked``;
:func:`rgbench.stats.pairwise.significantly_better`). Pairs the test cannot resolve
(:func:`rgbench.stats.pairwise.unresolvable`) are counted so that the page says so.

Alpha (issue 5): :func:`alpha_statement` summarises alpha_sensitivity.csv's
ranks with :func:`rgbench.stats.alpha_sensitivity.top_ranks_depend_on_alpha`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import groupby
from operator import itemgetter
from typing import NamedTuple

from ..stats.alpha_sensitivity import AlphaRow, top_ranks_by_alpha, top_ranks_depend_on_alpha
from ..stats.pairwise import PairwiseRow, minimum_detectable_difference, significantly_better, unresolvable

TOP = 3  # "the top ranks" of issue 5: ranks 1..3


class RankRange(NamedTuple):
    """One ranked subject's simultaneous rank set from rank_sets.csv: ``low``..``high``, jointly for every
    ranked subject (the file's marginal columns are shown nowhere)."""

    low: int
    high: int


@dataclass(frozen=True)
class Significance:
    """The rank sets and the paired comparisons shown with them.

    ``level``: the significance level (config.yaml); ``n_pairs``: pairs of ranked
    subjects with a shared case; ``above``: (better, worse) subject_id pairs that
    differ significantly; ``ranges``: subject_id -> (low, high) simultaneous rank set
    of each ranked subject;
    ``q_mde``: (smallest, largest) over the pairs of ranked subjects of the difference in Q_final the
    sign-flip test finds with 80% power at level/n_pairs (:func:`minimum_detectable_difference` of
    pairwise.csv's q_diff_sd with ``pairs`` = n_pairs: the strictest step of the adjustment; infinity for a pair
    with too few cases to reach that level), or None;
    ``p_mde``: pairwise.csv's p_mde span (no test on the page compares P; not printed);
    ``unresolved``: how many of the ``n_pairs`` the test cannot resolve at all (p_min above level / n_pairs).
    """

    level: Fraction
    n_pairs: int
    above: tuple[tuple[str, str], ...]
    ranges: dict[str, tuple[int, int]]
    q_mde: tuple[Fraction, Fraction] | None = None
    p_mde: tuple[Fraction, Fraction] | None = None
    correction: str = "holm"  # config.yaml's pairwise_correction: holm or benjamini-hochberg
    unresolved: int = 0   # pairs of ranked subjects the test cannot resolve (rgbench.stats.pairwise.unresolvable)


@dataclass(frozen=True)
class AlphaSpan:
    """Consecutive alphas of the grid (ascending) at which the top ranks are the same ``top`` (rank, subject_id) pairs."""

    alphas: tuple[Fraction, ...]
    top: tuple[tuple[int, str], ...]


@dataclass(frozen=True)
class AlphaStatement:
    """Whether ranks 1..``top`` change over the alpha grid, and what they are on each stretch of it."""

    top: int
    depends: bool
    grid: tuple[Fraction, ...]
    spans: tuple[AlphaSpan, ...]


def _span(values: list) -> tuple | None:
    values = [v for v in values if v is not None]
    return (min(values), max(values)) if values else None


def _power_figure(row: PairwiseRow, level: Fraction, pairs: int) -> float | None:
    """The page's power figure for one ranked pair: :func:`minimum_detectable_difference` at level/``pairs`` (the
    strictest step of the adjustment over the pairs compared); infinity when the pair's cases are too few for
    the test to reach that level at all (n ≤ z²); None without a spread (SD unknown or 0)."""
    if row.q_diff_sd is None or row.q_diff_sd <= 0:
        return None
    value = minimum_detectable_difference(float(row.q_diff_sd), row.n_cases, level, pairs=pairs)
    return math.inf if value is None and row.n_cases >= 2 else value


def significance(ranked_ids: Sequence[str], rows: Iterable[PairwiseRow], level: Fraction,
                 rank_sets: dict[str, RankRange] | None, correction: str = "holm") -> Significance:
    """The rank sets of the ranked subjects and the significant differences among them (module docstring).

    ``ranked_ids`` in leaderboard order; ``above`` follows that order (by the better subject, then the
    worse one). Without rank_sets.csv every range is 1..N (nothing established).
    """
    wanted = set(ranked_ids)
    pairs = [row for row in rows if row.subject_a in wanted and row.subject_b in wanted and row.n_cases > 0]
    position = {sid: index for index, sid in enumerate(ranked_ids)}
    above = []
    for row in pairs:
        better = significantly_better(row, level, correction)
        if better is not None:
            worse = row.subject_b if better == row.subject_a else row.subject_a
            above.append((better, worse))
    above.sort(key=lambda pair: (position[pair[0]], position[pair[1]]))
    n = len(ranked_ids)
    sets = rank_sets or {}
    ranges = {sid: (sets[sid].low, sets[sid].high) if sid in sets else (1, n) for sid in ranked_ids}
    unresolved = sum(1 for row in pairs if unresolvable(row, level, len(pairs)))
    q_mde = [_power_figure(row, level, len(pairs)) for row in pairs]
    return Significance(level, len(pairs), tuple(above), ranges, _span(q_mde), _span([row.p_mde for row in pairs]),
                        correction, unresolved)


def alpha_statement(rows: Sequence[AlphaRow], n_ranked: int, top: int = TOP) -> AlphaStatement | None:
    """Ranks 1..min(top, n_ranked) at each alpha of alpha_sensitivity.csv, grouped into stretches; None
    when nothing is ranked or there are no rows.

    ``depends`` is :func:`top_ranks_depend_on_alpha`: True when the subjects
    holding those ranks, or their ranks, differ between two alphas of the grid.
    """
    if n_ranked < 1 or not rows:
        return None
    top = min(top, n_ranked)
    by_alpha = top_ranks_by_alpha(rows, top)
    spans = tuple(AlphaSpan(tuple(alpha for alpha, _ in stretch), leaders)
                  for leaders, stretch in groupby(by_alpha.items(), key=itemgetter(1)))
    return AlphaStatement(top, top_ranks_depend_on_alpha(rows, top), tuple(by_alpha), spans)


def outside_range(rank: int | None, rank_range: tuple[int, int] | None) -> bool:
    """True when a rank lies outside its range (never for rank_sets.csv's sets, which contain the
    estimated rank by construction; kept as a guard the writers report)."""
    return rank is not None and rank_range is not None and not rank_range[0] <= rank <= rank_range[1]


def tie_groups(ranges: Sequence[tuple[int, int]]) -> list[int]:
    """The tie group of each rank range, given in leaderboard order: the connected components of "the two ranges
    share a rank" (so a chain A~B~C is one group even when A's and C's ranges do not overlap), numbered 0, 1, ...
    by their first member in the order given."""
    group = list(range(len(ranges)))

    def root(i: int) -> int:
        while group[i] != i:
            i = group[i]
        return i
    for i, (low_i, high_i) in enumerate(ranges):
        for j in range(i):
            if low_i <= ranges[j][1] and ranges[j][0] <= high_i:
                group[max(root(i), root(j))] = min(root(i), root(j))
    firsts = sorted({root(i) for i in range(len(ranges))})
    return [firsts.index(root(i)) for i in range(len(ranges))]


def group_label(index: int) -> str:
    """Tie group 0, 1, ..., 25, 26, ... as ``A``, ``B``, ..., ``Z``, ``AA``, ... (spreadsheet columns)."""
    label = ""
    index += 1
    while index:
        index, digit = divmod(index - 1, 26)
        label = chr(ord("A") + digit) + label
    return label

"""Which ranks the data establish, and whether the top of the table depends on alpha: pure rules.

Rank ranges (issue 5). Two ranked subjects differ significantly when the exact
McNemar test on Pass vs not Pass over the runs both answered, Holm-adjusted,
gives p < significance_level, the subject with more discordant passes is the
better one and the paired Q_final difference on those runs points the same way
(:func:`rgbench.stats.pairwise.significantly_better`). A subject's best rank is
1 + the number of ranked subjects significantly above it, its worst rank the
number of ranked subjects minus those it is significantly above
(:func:`rgbench.stats.pairwise.rank_ranges`).

The Holm family is the comparisons among **ranked** subjects only: the ranking
is a statement about them, and a disqualified subject neither occupies a rank
nor should its comparisons make the ranked ones harder to tell apart. So the
exact McNemar p-values of the pairs of ranked subjects (those sharing at least
one scored run) are re-adjusted with :func:`rgbench.stats.pairwise.holm` over
just those pairs. pairwise.csv's ``p_holm`` and ``significantly_better`` adjust
over every pair in the file, disqualified subjects included, so they can be more
conservative than the leaderboard's ranges, never less.

Alpha (issue 5): :func:`alpha_statement` summarises alpha_sensitivity.csv's
ranks with :func:`rgbench.stats.alpha_sensitivity.top_ranks_depend_on_alpha`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from itertools import groupby
from operator import itemgetter

from ..stats.alpha_sensitivity import AlphaRow, top_ranks_by_alpha, top_ranks_depend_on_alpha
from ..stats.pairwise import PairwiseRow, holm, rank_ranges, significantly_better

TOP = 3  # "the top ranks" of issue 5: ranks 1..3


@dataclass(frozen=True)
class Significance:
    """The paired comparisons behind the rank ranges.

    ``level``: the significance level (config.yaml); ``n_pairs``: pairs of ranked
    subjects compared (Holm's m); ``above``: (better, worse) subject_id pairs that
    differ significantly; ``ranges``: subject_id -> (best, worst) of each ranked subject.
    """

    level: Fraction
    n_pairs: int
    above: tuple[tuple[str, str], ...]
    ranges: dict[str, tuple[int, int]]


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


def ranked_pairs(ranked_ids: Iterable[str], rows: Iterable[PairwiseRow]) -> list[PairwiseRow]:
    """The rows comparing two ranked subjects, with ``p_holm`` re-adjusted by Holm over just these rows.

    The adjustment uses each row's exact ``mcnemar_p`` (not a rounded one); the
    order of the rows is kept. Rows involving any other subject are dropped.
    """
    wanted = set(ranked_ids)
    kept = [row for row in rows if row.subject_a in wanted and row.subject_b in wanted]
    adjusted = holm([row.mcnemar_p for row in kept])
    return [replace(row, p_holm=p) for row, p in zip(kept, adjusted)]


def significance(ranked_ids: Sequence[str], rows: Iterable[PairwiseRow], level: Fraction) -> Significance:
    """Rank ranges of the ranked subjects and the significant differences among them (module docstring).

    ``ranked_ids`` in leaderboard order; ``above`` follows that order (by the
    better subject, then the worse one).
    """
    pairs = ranked_pairs(ranked_ids, rows)
    position = {sid: index for index, sid in enumerate(ranked_ids)}
    above = []
    for row in pairs:
        better = significantly_better(row, level)
        if better is not None:
            worse = row.subject_b if better == row.subject_a else row.subject_a
            above.append((better, worse))
    above.sort(key=lambda pair: (position[pair[0]], position[pair[1]]))
    return Significance(level, len(pairs), tuple(above), rank_ranges(ranked_ids, pairs, level))


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
    """True when a rank lies outside its range.

    It can: the ranking uses every scored run, the paired test only the runs two
    subjects share, so with unequal run sets they can disagree. The writers say so.
    """
    return rank is not None and rank_range is not None and not rank_range[0] <= rank <= rank_range[1]

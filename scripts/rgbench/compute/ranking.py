"""The one ranking rule: leaderboard order, status and competition rank, pure functions over subject metric rows.

The leaderboard ranks with it, ``stats.alpha_sensitivity`` at every alpha of its grid and ``results_diff``
when a side has no leaderboard.csv. Rules (issue 3):

* status: ``Unscored`` when N = 0; else ``Disqualified`` when the subject
  version has any critical fail; else ``Incomplete`` when it is in the
  ``incomplete`` set (scored runs on fewer than ``min_case_coverage`` of the
  benchmark's cases, :mod:`rgbench.stats.eligibility`); else ``Ranked``.
  Disqualified wins over Incomplete.
* Ranked rows first, by Q_final descending, then P descending, s_bar
  descending (ascending when the benchmark's score_direction is lower_is_better: the better s_bar first),
  BS ascending, subject_id ascending (code-point order).
* rank is competition ranking ("1, 2, 2, 4"): rows equal on (Q_final, P,
  s_bar, BS) share the rank of the first of them, and the next distinct row
  takes its position. subject_id only orders tied rows; it never breaks a tie.
* Incomplete rows follow, in the same order, with no rank; then Disqualified rows.
* Unscored rows come last, by subject_id, with no rank.

Values are compared exactly (``Fraction`` parsed from the committed
six-decimal strings), never as rounded text or floats.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from .metrics import SubjectMetrics

RANKED, INCOMPLETE, DISQUALIFIED, UNSCORED = "Ranked", "Incomplete", "Disqualified", "Unscored"


@dataclass(frozen=True)
class Standing:
    """A subject's place on the leaderboard: rank (None unless Ranked), status and its metrics."""

    rank: int | None
    status: str
    metrics: SubjectMetrics


def status_of(m: SubjectMetrics, incomplete: Collection[str] = frozenset()) -> str:
    """``Unscored`` if N = 0, else ``Disqualified`` if disqualified, else ``Incomplete`` if its subject_id
    is in ``incomplete``, else ``Ranked``."""
    if m.n == 0:
        return UNSCORED
    if m.disqualified:
        return DISQUALIFIED
    return INCOMPLETE if m.subject_id in incomplete else RANKED


def tie_key(m: SubjectMetrics) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    """The values two rows must share to tie: (Q_final, P, s_bar, BS). Requires N > 0. P or BS is None for every
    subject of a benchmark that does not define it (no pass rule; no confidence or correctness): it then
    counts as 0 in every key, so the order rests on the other figures."""
    if m.q_final is None or m.s_bar is None:
        raise ValueError(f"{m.subject_id}: a scored subject needs Q_final and s_bar")
    return (m.q_final, m.p or Fraction(0), m.s_bar, m.bs or Fraction(0))


def order_key(m: SubjectMetrics, higher_is_better: bool = True) -> tuple[Fraction, Fraction, Fraction, Fraction, str]:
    """Sort key, best first: Q_final desc, P desc, s_bar desc (asc when lower is better), BS asc, then
    subject_id asc."""
    q, p, s_bar, bs = tie_key(m)
    return (-q, -p, -s_bar if higher_is_better else s_bar, bs, m.subject_id)


def competition_ranks(keys: Sequence[object]) -> list[int]:
    """Ranks for keys already in leaderboard order: equal consecutive keys share a rank ("1, 2, 2, 4").

    ``competition_ranks(["a", "b", "b", "c"]) == [1, 2, 2, 4]``; an empty list gives [].
    """
    ranks: list[int] = []
    for position, key in enumerate(keys, start=1):
        ranks.append(ranks[-1] if ranks and key == keys[position - 2] else position)
    return ranks


def rank_subjects(rows: Iterable[SubjectMetrics], incomplete: Collection[str] = frozenset(), *,
                  higher_is_better: bool = True) -> list[Standing]:
    """Ranked rows (with competition ranks), then Incomplete, Disqualified, Unscored, as the module docstring says.

    The input order does not matter; the output is a total order (subject_id
    is unique), so the same rows always give the same list. ``higher_is_better`` is the score's direction
    (Spec.higher_is_better): it orders s_bar, which decides only between rows equal on Q_final and P (at alpha 1).
    """
    rows = list(rows)
    status = {m.subject_id: status_of(m, incomplete) for m in rows}

    def key(m: SubjectMetrics) -> tuple:
        return order_key(m, higher_is_better)
    ranked = sorted((m for m in rows if status[m.subject_id] == RANKED), key=key)
    partial = sorted((m for m in rows if status[m.subject_id] == INCOMPLETE), key=key)
    disqualified = sorted((m for m in rows if status[m.subject_id] == DISQUALIFIED), key=key)
    unscored = sorted((m for m in rows if status[m.subject_id] == UNSCORED), key=lambda m: m.subject_id)
    ranks = competition_ranks([tie_key(m) for m in ranked])
    return (
        [Standing(rank, RANKED, m) for rank, m in zip(ranks, ranked)]
        + [Standing(None, INCOMPLETE, m) for m in partial]
        + [Standing(None, DISQUALIFIED, m) for m in disqualified]
        + [Standing(None, UNSCORED, m) for m in unscored]
    )

"""Paired comparison of subjects on the items both answered: exact McNemar, Holm, paired bootstrap, rank ranges.

Subjects answer the same cases, so two subjects are compared on their shared
scored (case_id, run_id) items, not as independent proportions.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Iterable, Mapping, Sequence

from ..derive import PASS, RunRow
from .bootstrap import draw_counts, generator, percentile_interval, ratio_replicates


def mcnemar_exact_p(a_not_b: int, b_not_a: int) -> Fraction:
    """Two-sided exact McNemar p-value from the discordant counts, in (0, 1], exact.

    Under H0 (each discordant item is equally likely to go either way) the
    smaller count k of n = a_not_b + b_not_a discordant items is Binomial(n, 1/2):

        p = min(1, 2 · Σ_{i=0..k} C(n, i) / 2^n)

    Degenerate cases: p = 1 when n = 0 (no discordant item: nothing tells the two
    apart, e.g. identical subjects) and when the counts are equal. Small p means
    the pass rates on the shared items really differ. Same as statsmodels'
    ``mcnemar(table, exact=True)``.
    """
    if a_not_b < 0 or b_not_a < 0:
        raise ValueError("discordant counts must be non-negative")
    n = a_not_b + b_not_a
    k = min(a_not_b, b_not_a)
    tail = sum(math.comb(n, i) for i in range(k + 1))
    return min(Fraction(1), Fraction(2 * tail, 2 ** n))


def holm(p_values: Sequence[Fraction]) -> list[Fraction]:
    """Holm's step-down adjustment, in the input order, exact; each adjusted value in [p, 1].

    Sort the m p-values ascending, p_(1) <= ... <= p_(m); then
    adj_(i) = max_{j <= i} min(1, (m − j + 1) · p_(j)). Controls the
    family-wise error rate over all m comparisons. Tied p-values get the same
    adjusted value whatever their order; an empty list gives [].
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted: list[Fraction] = [Fraction(0)] * m
    running = Fraction(0)
    for position, index in enumerate(order):
        running = max(running, min(Fraction(1), (m - position) * Fraction(p_values[index])))
        adjusted[index] = running
    return adjusted


@dataclass(frozen=True)
class PairwiseRow:
    """One row of pairwise.csv, exact. q_diff > 0 means subject_a has the higher Q_final on the shared items."""

    subject_a: str
    subject_b: str
    n_pairs: int
    a_pass_b_not: int
    b_pass_a_not: int
    mcnemar_p: Fraction
    q_diff: Fraction
    q_diff_low: Fraction
    q_diff_high: Fraction
    p_holm: Fraction
    n_cases: int


Items = dict[tuple[str, str], tuple[bool, int]]  # (case_id, run_id) -> (is Pass, Q numerator)


def _items(rows: Sequence[RunRow], alpha: Fraction, max_score: int) -> Items:
    """Each run's Pass flag and its share of Q_final as an integer numerator over d · max_score (alpha = a/d):
    alpha · [Pass] + (1 − alpha) · clipped / max_score = (a · max_score · [Pass] + (d − a) · clipped) / (d · max_score).
    """
    a, d = alpha.numerator, alpha.denominator
    return {(r.case_id, r.run_id): (r.classification == PASS, a * max_score * (r.classification == PASS)
                                    + (d - a) * r.clipped_score) for r in rows}


def compare_pair(a: str, rows_a: Sequence[RunRow], b: str, rows_b: Sequence[RunRow], *, alpha: Fraction,
                 max_score: int, seed: int, resamples: int, confidence: Fraction) -> PairwiseRow | None:
    """The paired comparison of a and b on their shared (case_id, run_id) items; None when they share none.

    q_diff = Q_final(a) − Q_final(b), both computed on the shared items only (it
    equals the difference of the published Q_final when both have the same
    scored items), in [−1, 1]. Its interval resamples the shared cases (a case's
    shared runs move together, the same draw for both subjects), with the
    stream ``pair:<a>:<b>``. p_holm is left equal to mcnemar_p; ``pairwise_table``
    adjusts it across all pairs.
    """
    return _compare(a, _items(rows_a, alpha, max_score), b, _items(rows_b, alpha, max_score), scale=alpha.denominator
                    * max_score, seed=seed, resamples=resamples, confidence=confidence)


def _compare(a: str, items_a: Items, b: str, items_b: Items, *, scale: int, seed: int, resamples: int,
             confidence: Fraction) -> PairwiseRow | None:
    diff_by_case: dict[str, int] = defaultdict(int)
    size_by_case: dict[str, int] = defaultdict(int)
    a_only = b_only = 0
    for key, (pass_a, q_a) in items_a.items():
        other = items_b.get(key)
        if other is None:
            continue
        pass_b, q_b = other
        a_only += pass_a and not pass_b
        b_only += pass_b and not pass_a
        diff_by_case[key[0]] += q_a - q_b
        size_by_case[key[0]] += 1
    if not size_by_case:
        return None
    cases = sorted(size_by_case)
    diffs = [diff_by_case[c] for c in cases]
    sizes = [size_by_case[c] for c in cases]
    n_pairs = sum(sizes)
    counts = draw_counts(generator(seed, f"pair:{a}:{b}"), len(cases), resamples)
    low, high = percentile_interval(ratio_replicates(counts, diffs, sizes, Fraction(1, scale)), confidence)
    p = mcnemar_exact_p(a_only, b_only)
    return PairwiseRow(a, b, n_pairs, a_only, b_only, p, Fraction(sum(diffs), scale * n_pairs), low, high, p, len(cases))


def pairwise_table(runs_by_subject: Mapping[str, Sequence[RunRow]], *, alpha: Fraction, max_score: int, seed: int,
                   resamples: int, confidence: Fraction) -> list[PairwiseRow]:
    """Every pair (a < b in code-point order) sharing at least one scored item, with Holm across all of them."""
    ids = sorted(runs_by_subject)
    items = {sid: _items(runs_by_subject[sid], alpha, max_score) for sid in ids}
    rows = []
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            row = _compare(a, items[a], b, items[b], scale=alpha.denominator * max_score, seed=seed,
                           resamples=resamples, confidence=confidence)
            if row is not None:
                rows.append(row)
    adjusted = holm([row.mcnemar_p for row in rows])
    return [replace(row, p_holm=p) for row, p in zip(rows, adjusted)]


def significantly_better(row: PairwiseRow, level: Fraction = Fraction(5, 100)) -> str | None:
    """The subject of the pair that is significantly better, or None.

    Significant means p_holm < level; the better subject is the one with more
    discordant passes, and only when q_diff points the same way (a conflict
    between the pass counts and Q_final counts as no difference: conservative).
    """
    if not row.p_holm < level:
        return None
    if row.a_pass_b_not > row.b_pass_a_not and row.q_diff > 0:
        return row.subject_a
    if row.b_pass_a_not > row.a_pass_b_not and row.q_diff < 0:
        return row.subject_b
    return None


def rank_ranges(subject_ids: Iterable[str], pairs: Iterable[PairwiseRow],
                level: Fraction = Fraction(5, 100)) -> dict[str, tuple[int, int]]:
    """Best and worst rank of each subject consistent with the significant differences.

    For the N subjects given (the ranked ones; pairs involving others are
    ignored): best = 1 + #subjects significantly better than it, worst = N −
    #subjects it is significantly better than (``significantly_better``).
    1 <= best <= worst <= N; with no significant difference every subject
    spans 1..N; a pair without shared items is never significant.
    """
    ids = sorted(set(subject_ids))
    wanted = set(ids)
    above = dict.fromkeys(ids, 0)
    below = dict.fromkeys(ids, 0)
    for row in pairs:
        if row.subject_a not in wanted or row.subject_b not in wanted:
            continue
        winner = significantly_better(row, level)
        if winner is not None:
            loser = row.subject_b if winner == row.subject_a else row.subject_a
            above[loser] += 1
            below[winner] += 1
    return {sid: (1 + above[sid], len(ids) - below[sid]) for sid in ids}

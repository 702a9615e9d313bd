"""Paired comparison of subjects on the items both answered: exact McNemar, Holm, paired bootstrap, rank ranges.

Subjects answer the same cases, so two subjects are compared on their shared
scored (case_id, run_id) items, not as independent proportions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from ..compute.derive import RunRow
from .case_draws import CaseDraws
from .pairwise_batch import pair_statistics
from .run_columns import RunColumns


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
    doubled = 2 * binomial_tail(n, k)
    return _ONE if doubled >= 1 << n else Fraction(doubled, 1 << n)


_ONE = Fraction(1)


_ROW_LIMIT = 2048   # prefix rows of n up to this are kept (at most ~256 KB each)


def binomial_tail(n: int, k: int) -> int:
    """Σ_{i=0..k} C(n, i) for 0 <= k <= n // 2 (the tails McNemar needs), exact and memoised.

    Prefix sums of row n are computed once per n (O(n) big-integer steps) and
    shared by every pair with that many discordant items, so the p-values of all
    pairs cost O(distinct n · n), not O(pairs · k).
    """
    if not 0 <= k <= n // 2:
        raise ValueError(f"need 0 <= k <= n // 2, got n={n}, k={k}")
    if n <= _ROW_LIMIT:
        return _prefix_row(n)[k]
    return _tail_direct(n, k)


@lru_cache(maxsize=512)
def _prefix_row(n: int) -> tuple[int, ...]:
    """(Σ_{i<=0} C(n, i), ..., Σ_{i<=n//2} C(n, i)), by C(n, i) = C(n, i-1) · (n-i+1) / i."""
    sums, term, total = [], 1, 0
    for i in range(n // 2 + 1):
        if i:
            term = term * (n - i + 1) // i
        total += term
        sums.append(total)
    return tuple(sums)


@lru_cache(maxsize=4096)
def _tail_direct(n: int, k: int) -> int:
    term, total = 1, 1
    for i in range(1, k + 1):
        term = term * (n - i + 1) // i
        total += term
    return total


def holm(p_values: Sequence[Fraction]) -> list[Fraction]:
    """Holm's step-down adjustment, in the input order, exact; each adjusted value in [p, 1].

    Sort the m p-values ascending, p_(1) <= ... <= p_(m); then
    adj_(i) = max_{j <= i} min(1, (m − j + 1) · p_(j)). Controls the
    family-wise error rate over all m comparisons. Tied p-values get the same
    adjusted value whatever their order; an empty list gives [].
    """
    m = len(p_values)
    values = [p if isinstance(p, Fraction) else Fraction(p) for p in p_values]
    order = _exact_order(values)
    adjusted: list[Fraction] = [_ONE] * m
    running, running_num, running_den = Fraction(0), 0, 1      # running max, also as integers
    previous = None
    for position, index in enumerate(order):
        value = values[index]
        if value is previous:             # a tie next to its first: a smaller multiple, the max stays
            adjusted[index] = running
            continue
        previous = value
        num, den = (m - position) * value.numerator, value.denominator
        if num >= den:                                        # capped at 1
            num, den = 1, 1
        if num * running_den > running_num * den:             # a new maximum: the only Fraction made
            running, running_num, running_den = Fraction(num, den), num, den
        adjusted[index] = running
    return adjusted


def _exact_order(values: Sequence[Fraction]) -> list[int]:
    """Indices of ``values`` in ascending exact order, ties in input order (a stable sort).

    Sorted by float first (float() is monotone, so this is the exact order
    except inside runs of equal floats), then each such run is re-sorted exactly.
    """
    floats = [v.numerator / v.denominator for v in values]               # float(v), correctly rounded
    order = sorted(range(len(values)), key=floats.__getitem__)
    start = 0
    while start < len(order):
        end = start + 1
        while end < len(order) and floats[order[end]] == floats[order[start]]:
            end += 1
        if end - start > 1:
            run = order[start:end]
            first = values[run[0]]
            if any(values[i] is not first and values[i] != first for i in run):      # not all equal
                order[start:end] = sorted(run, key=values.__getitem__)
        start = end
    return order


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


def pairwise_table(runs_by_subject: Mapping[str, Sequence[RunRow]], *, alpha: Fraction, max_score: int, seed: int,
                   resamples: int, confidence: Fraction, draws: CaseDraws | None = None,
                   columns: RunColumns | None = None) -> list[PairwiseRow]:
    """Every pair (a < b in code-point order) sharing at least one scored item, with Holm across all of them.

    :func:`pairwise_from_columns` of the runs with ``draws`` (by default the draws of ``seed`` over every case
    of the runs); ``columns`` may pass the runs already read (``RunColumns.of(runs_by_subject)``).
    """
    columns = columns if columns is not None else RunColumns.of(runs_by_subject)
    if not columns.cases:
        return []
    draws = draws if draws is not None else CaseDraws(seed, columns.cases, resamples)
    return pairwise_from_columns(columns, alpha=alpha, max_score=max_score, confidence=confidence, draws=draws)


def pairwise_from_columns(columns: RunColumns, *, alpha: Fraction, max_score: int, confidence: Fraction,
                          draws: CaseDraws) -> list[PairwiseRow]:
    """Every pair (a < b in code-point order) of the subjects of ``columns`` sharing at least one scored item,
    with Holm across all of them; every case of ``columns`` must be in ``draws.universe``.

    For each pair: n_pairs shared (case_id, run_id) items, the discordant passes, :func:`mcnemar_exact_p`,
    q_diff = Q_final(a) − Q_final(b) on the shared items (in [−1, 1]; > 0 when a is higher) with its paired
    bootstrap interval over the shared cases (the draw of that case set, the same for both subjects), and
    p_holm = :func:`holm` over all pairs. All pairs at once (:func:`.pairwise_batch.pair_statistics`), O(pairs)
    work with small constants besides the matrix products. The straightforward path, one pair at a time,
    is ``compare_pair`` in ``tests/reference_stats.py`` (tests prove both equal).
    """
    if not columns.cases:
        return []
    scale = alpha.denominator * max_score
    stats = pair_statistics(columns, alpha=alpha, max_score=max_score, draws=draws, confidence=confidence)
    ids = columns.subjects
    p_of: dict[tuple[int, int], Fraction] = {}                # pairs with the same discordant counts share it
    p_values = []
    for a_only, b_only in zip(stats.a_pass_b_not, stats.b_pass_a_not):
        key = (a_only, b_only) if a_only <= b_only else (b_only, a_only)
        p = p_of.get(key)
        if p is None:
            p = p_of[key] = mcnemar_exact_p(*key)
        p_values.append(p)
    return [PairwiseRow(ids[a], ids[b], n, a_only, b_only, p, Fraction(q, scale * n), low, high, adjusted, n_cases)
            for a, b, n, a_only, b_only, q, n_cases, low, high, p, adjusted in zip(
                stats.first, stats.second, stats.n_pairs, stats.a_pass_b_not, stats.b_pass_a_not, stats.q_diff_num,
                stats.n_cases, stats.low, stats.high, p_values, holm(p_values))]


def significantly_better(row: PairwiseRow, level: Fraction = Fraction(5, 100)) -> str | None:
    """The subject of the pair that is significantly better, or None.

    Significant means p_holm < level; the better subject is the one with more
    discordant passes, and only when q_diff points the same way (a conflict
    between the pass counts and Q_final counts as no difference: conservative).
    """
    return better_of(row, row.p_holm < level)


def better_of(row: PairwiseRow, significant: bool) -> str | None:
    """``significantly_better`` given whether the pair is significant (p_holm < level)."""
    if not significant:
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

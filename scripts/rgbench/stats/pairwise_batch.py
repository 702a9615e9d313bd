"""The paired comparison of every pair of subjects at once (the path ``pairwise_table`` takes).

Each subject's items (as ``pairwise.pair_items``: one Pass flag and one integer
Q numerator per scored (case_id, run_id)) become rows of three (subjects x
items) integer matrices: present, Pass, Q. Then, exactly, in integers:

- the counts of all pairs are products of those matrices: shared items
  n_pairs = present·presentᵀ, discordant passes = Pass·(present − Pass)ᵀ, and the
  Q_final difference on the shared items = Q·presentᵀ − (Q·presentᵀ)ᵀ;
- a pair's per-case sums on its shared items (Q difference, shared runs) are
  column differences of those matrices summed per case, and its bootstrap
  replicates are ``counts @ sums`` for the draw of its shared case set
  (:mod:`.case_draws`): one matrix product for a block of pairs, plus the
  few picks in which each set's draw differs from the common block 0;
- one vectorised percentile step orders the replicates (:mod:`.batch_percentiles`).

Cost: O(pairs · (items + resamples)) array work, one product of (pairs x
cases) by (cases x resamples), and, for a pair whose shared cases miss d cases
of the universe, about d picks per replicate to correct: no per-pair Python
loop beyond building the rows. Memory is bounded by blocks of 512 pairs.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .batch_percentiles import percentile_intervals
from .case_draws import CaseDraws
from .exact_products import exact_matmul
from .run_columns import RunColumns

_BLOCK = 512  # pairs per product: bounds memory at a few (512 x resamples) float arrays


@dataclass(frozen=True)
class PairStatistics:
    """The exact ingredients of one pairwise.csv row (a < b); q_diff = q_diff_num / (d · max_score · n_pairs)."""

    subject_a: str
    subject_b: str
    n_pairs: int
    a_pass_b_not: int
    b_pass_a_not: int
    q_diff_num: int
    n_cases: int
    low: Fraction
    high: Fraction


@dataclass(frozen=True)
class ItemTable:
    """Subjects x items: ``present``, ``passed`` (0/1) and ``q`` (the Q numerators), integer arrays; items
    sorted by (case_id, run_id).

    ``starts`` are the first item of each case (for per-case sums) and ``case_rows``
    the row of that case in the draws' universe.
    """

    present: np.ndarray
    passed: np.ndarray
    q: np.ndarray
    starts: np.ndarray
    case_rows: np.ndarray
    universe_size: int

    def per_case(self, values: np.ndarray) -> np.ndarray:
        """(P x items) -> (P x universe cases) sums over each case's items; zero for cases without items."""
        grouped = np.add.reduceat(values, self.starts, axis=1)
        if len(self.case_rows) == self.universe_size:
            return grouped
        out = np.zeros((values.shape[0], self.universe_size), dtype=grouped.dtype)
        out[:, self.case_rows] = grouped
        return out


def item_table(columns: RunColumns, alpha: Fraction, max_score: int, draws: CaseDraws) -> ItemTable:
    """The matrices of ``columns.subjects`` (rows in that order); every case must be in ``draws.universe``.

    Like ``pairwise.pair_items``, a subject's later run of the same (case_id,
    run_id) replaces an earlier one (validated trees have one per item). int32
    throughout when every sum over a subject's items fits, int64 otherwise.
    """
    a, d = alpha.numerator, alpha.denominator
    q_all = a * max_score * columns.passed + (d - a) * columns.clipped
    n_items = len(columns.items)
    key = columns.subject * n_items + columns.item
    last = len(key) - 1 - np.unique(key[::-1], return_index=True)[1]      # the last run of each (subject, item)
    subject, item = columns.subject[last], columns.item[last]
    largest = int(np.abs(q_all).max(initial=0))
    dtype = np.int32 if largest * max(n_items, 1) < 2**31 else np.int64
    shape = (len(columns.subjects), n_items)
    present, passed, q = np.zeros(shape, dtype=dtype), np.zeros(shape, dtype=dtype), np.zeros(shape, dtype=dtype)
    present[subject, item] = 1
    passed[subject, item] = columns.passed[last]
    q[subject, item] = q_all[last]
    slot_case = np.array([draws.index[case_id] for case_id, _ in columns.items], dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, slot_case[1:] != slot_case[:-1]]) if n_items else np.zeros(0, dtype=np.int64)
    return ItemTable(present, passed, q, starts, slot_case[starts], draws.k)


def pair_statistics(columns: RunColumns, *, alpha: Fraction, max_score: int, draws: CaseDraws,
                    confidence: Fraction) -> list[PairStatistics]:
    """Every pair (a < b in code-point order) sharing at least one scored item, in (a, b) order.

    A pair sharing no item has no row; subjects without runs share nothing. The
    bounds are the paired bootstrap interval of q_diff (``pairwise.compare_pair``).
    """
    ids = columns.subjects
    table = item_table(columns, alpha, max_score, draws)
    if not table.present.size:
        return []
    present, q = table.present, table.q
    shared = exact_matmul(present, present.T).astype(np.int64)
    discordant = exact_matmul(table.passed, (present - table.passed).T).astype(np.int64)
    q_on = exact_matmul(q, present.T).astype(np.int64)          # [a, b]: Σ of a's Q over b's items
    first, second = np.triu_indices(len(ids), 1)
    keep = shared[first, second] > 0
    first, second = first[keep], second[keep]
    scale = Fraction(1, alpha.denominator * max_score)
    out = []
    for start in range(0, len(first), _BLOCK):
        a, b = first[start:start + _BLOCK], second[start:start + _BLOCK]
        in_a, in_b = present[a], present[b]
        diff = table.per_case(q[a] * in_b - q[b] * in_a)      # (pairs x cases): Σ (Q_a − Q_b) on shared items
        runs = table.per_case(in_a * in_b)                    # shared items per case
        member = runs > 0                                     # each pair's shared case set
        num, den = draws.replicate_sums([diff, runs], member)
        bounds = percentile_intervals(num, den, [scale] * len(a), confidence)
        n_cases = member.sum(axis=1).tolist()
        for i, (x, y) in enumerate(zip(a.tolist(), b.tolist())):
            out.append(PairStatistics(ids[x], ids[y], int(shared[x, y]), int(discordant[x, y]), int(discordant[y, x]),
                                      int(q_on[x, y] - q_on[y, x]), n_cases[i], *bounds[i]))
    return out

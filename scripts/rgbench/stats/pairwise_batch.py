"""The paired comparison of every pair of subjects at once (``pairwise.pairwise_from_columns`` calls it).

Each subject's items (one Pass flag and one integer Q numerator,
:func:`rgbench.compute.metrics.q_numerator` of the run, per scored (case_id, run_id))
become rows of three (subjects x items) integer matrices: present, Pass, Q. Then, exactly, in integers:

- the counts of all pairs are products of those matrices: shared items
  n_pairs = present·presentᵀ, discordant passes = Pass·(present − Pass)ᵀ, and the
  Q_final difference on the shared items = Q·presentᵀ − (Q·presentᵀ)ᵀ;
- a pair's per-case sums on its shared items (Q difference, shared runs) come
  from one small product per case: with the items of case c as columns,
  Q_c·present_cᵀ holds Σ Q_a · [b has the item] for every (a, b) at once (the
  subjects are taken in blocks, so memory stays bounded);
- its bootstrap replicates are ``counts @ sums`` for the draw of its shared case
  set (:mod:`.case_draws`): for pairs sharing every case that is block 0 itself,
  one matrix product for a block of pairs; the other pairs are gathered and get,
  in one walk per block, the few picks in which their set's draw differs from it;
- one vectorised percentile step orders the replicates (:mod:`.batch_percentiles`).

Cost: O(pairs · (cases + resamples)) array work, one product of (pairs x
cases) by (cases x resamples), and, for a pair whose shared cases miss d cases
of the universe, about d picks per replicate to correct: no per-pair Python
loop beyond building the rows. Memory is bounded by blocks of 512 pairs and by
``_CELLS`` cells of per-case products.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..compute.metrics import q_numerator
from .batch_percentiles import percentile_intervals
from .case_draws import CaseDraws
from .exact_products import FLOAT32_EXACT, exact_matmul
from .run_columns import RunColumns

_BLOCK = 512          # pairs per product: bounds memory at a few (512 x resamples) float arrays
_CELLS = 1 << 21      # (cases x subjects x subjects) cells per block of the per-case products


@dataclass(frozen=True)
class PairStatistics:
    """The exact ingredients of the pairwise.csv rows, one list entry per pair (a < b), in (a, b) order.

    ``first``/``second`` index ``columns.subjects``; q_diff of pair i =
    q_diff_num[i] / (d · max_score · n_pairs[i]); (low[i], high[i]) its bootstrap interval.
    """

    first: list[int]
    second: list[int]
    n_pairs: list[int]
    a_pass_b_not: list[int]
    b_pass_a_not: list[int]
    q_diff_num: list[int]
    n_cases: list[int]
    low: list[Fraction]
    high: list[Fraction]


@dataclass(frozen=True)
class ItemTable:
    """Subjects x items: ``present``, ``passed`` (0/1) and ``q`` (the Q numerators), integer arrays; items
    sorted by (case_id, run_id).

    ``slot_present`` and ``slot_q`` hold the same per case: (cases x subjects x slots), slot j of case c
    being its j-th item (zero past its last one); ``case_rows`` is the row of each case in the draws'
    universe.
    """

    present: np.ndarray
    passed: np.ndarray
    q: np.ndarray
    slot_present: np.ndarray
    slot_q: np.ndarray
    case_rows: np.ndarray
    universe_size: int

    def case_products(self, low: int, high: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For first subjects a in low..high-1 and every subject b, per case c (the rows of the slots):
        Σ Q_a · present_b as [c, a − low, b], Σ Q_b · present_a as [c, b, a − low] and the shared items
        as [c, a − low, b], exact (one batch of small products per case)."""
        sp, sq = self.slot_present, self.slot_q
        sp_t = sp.transpose(0, 2, 1)
        return (np.matmul(sq[:, low:high], sp_t), np.matmul(sq, sp_t[:, :, low:high]),
                np.matmul(sp[:, low:high], sp_t))

    def per_case_pairs(self, products: tuple[np.ndarray, np.ndarray, np.ndarray], low: int, first: np.ndarray,
                       second: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(diff, runs), both (pairs x universe cases), of the pairs (first[i], second[i]) from the
        ``case_products(low, ...)`` covering their first subjects: Σ (Q_a − Q_b) and the number of shared
        items per case, over the items both have; zero for cases without items."""
        a_on_all, all_on_a, shared = products
        a = first - low
        diff = a_on_all[:, a, second] - all_on_a[:, second, a]      # (cases x pairs)
        return self._to_universe(diff), self._to_universe(shared[:, a, second])

    def _to_universe(self, per_case: np.ndarray) -> np.ndarray:
        """(cases x pairs) -> (pairs x universe cases), C-ordered, zero columns for cases without items."""
        if len(self.case_rows) == self.universe_size:
            return np.ascontiguousarray(per_case.T)
        out = np.zeros((per_case.shape[1], self.universe_size), dtype=per_case.dtype)
        out[:, self.case_rows] = per_case.T
        return out


def item_table(columns: RunColumns, alpha: Fraction, max_score: int, draws: CaseDraws) -> ItemTable:
    """The matrices of ``columns.subjects`` (rows in that order); every case must be in ``draws.universe``.

    A subject's later run of the same (case_id, run_id) replaces an earlier one (validated trees have one per item). int32
    throughout when every sum over a subject's items fits, int64 otherwise; the
    per-case slots are float32 when every per-case product is exact in it, float64 otherwise.
    """
    q_all = q_numerator(columns.passed, columns.clipped, alpha, max_score)      # per run: Q_final · d · max_score
    n_items = len(columns.items)
    key = columns.subject * n_items + columns.item
    last = len(key) - 1 - np.unique(key[::-1], return_index=True)[1]      # the last run of each (subject, item)
    subject, item = columns.subject[last], columns.item[last]
    largest = int(np.abs(q_all).max(initial=0))
    dtype = np.int32 if largest * max(n_items, 1) < 2**31 else np.int64
    n_subjects = len(columns.subjects)
    shape = (n_subjects, n_items)
    present, passed, q = np.zeros(shape, dtype=dtype), np.zeros(shape, dtype=dtype), np.zeros(shape, dtype=dtype)
    present[subject, item] = 1
    passed[subject, item] = columns.passed[last]
    q[subject, item] = q_all[last]
    slot_case = np.array([draws.index[case_id] for case_id, _ in columns.items], dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, slot_case[1:] != slot_case[:-1]]) if n_items else np.zeros(0, dtype=np.int64)
    case_of_item = np.cumsum(np.r_[True, slot_case[1:] != slot_case[:-1]]) - 1 if n_items else slot_case
    slot = np.arange(n_items) - starts[case_of_item] if n_items else slot_case
    slots = int(slot.max(initial=-1)) + 1
    slot_dtype = np.float32 if 2 * largest * slots < FLOAT32_EXACT else np.float64   # a difference of two sums
    slot_present = np.zeros((len(starts), n_subjects, slots), dtype=slot_dtype)
    slot_q = np.zeros((len(starts), n_subjects, slots), dtype=slot_dtype)
    slot_present[case_of_item[item], subject, slot[item]] = 1
    slot_q[case_of_item[item], subject, slot[item]] = q_all[last]
    return ItemTable(present, passed, q, slot_present, slot_q, slot_case[starts], draws.k)


def pair_statistics(columns: RunColumns, *, alpha: Fraction, max_score: int, draws: CaseDraws,
                    confidence: Fraction) -> PairStatistics:
    """Every pair (a < b in code-point order) sharing at least one scored item, in (a, b) order.

    A pair sharing no item has no row; subjects without runs share nothing. The
    bounds are the paired bootstrap interval of q_diff (aggregate_metrics.md §20).
    """
    ids = columns.subjects
    table = item_table(columns, alpha, max_score, draws)
    if not table.present.size:
        return PairStatistics(*([] for _ in range(9)))
    present, q = table.present, table.q
    shared = exact_matmul(present, present.T).astype(np.int64)
    discordant = exact_matmul(table.passed, (present - table.passed).T).astype(np.int64)
    q_on = exact_matmul(q, present.T).astype(np.int64)          # [a, b]: Σ of a's Q over b's items
    first, second = np.triu_indices(len(ids), 1)
    keep = shared[first, second] > 0
    first, second = first[keep], second[keep]
    scale = Fraction(1, alpha.denominator * max_score)
    cases, slots = table.slot_present.shape[0], table.slot_present.shape[2]
    per_block = max(1, _CELLS // max(1, cases * len(ids) * max(slots, 1)))   # first subjects per per-case product
    low: list[Fraction | None] = [None] * len(first)
    high: list[Fraction | None] = [None] * len(first)
    n_cases = [0] * len(first)
    scales = [scale] * _BLOCK

    def intervals(positions: list[int], values: list[np.ndarray], members: np.ndarray | None) -> None:
        num, den = draws.replicate_sums(values, members)
        for i, (lo, hi) in zip(positions, percentile_intervals(num, den, scales[:len(positions)], confidence)):
            low[i], high[i] = lo, hi

    waiting: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []   # pairs not sharing every case
    block_of = first // per_block
    bounds_at = np.flatnonzero(np.r_[True, block_of[1:] != block_of[:-1], True]) if len(first) else np.zeros(1, int)
    for group_start, group_end in zip(bounds_at[:-1].tolist(), bounds_at[1:].tolist()):
        low_subject = int(first[group_start])
        products = table.case_products(low_subject, int(first[group_end - 1]) + 1)
        for start in range(group_start, group_end, _BLOCK):
            stop = min(start + _BLOCK, group_end)
            diff, runs = table.per_case_pairs(products, low_subject, first[start:stop], second[start:stop])
            member = runs > 0                                     # each pair's shared case set
            counts = member.sum(axis=1)
            n_cases[start:stop] = counts.tolist()
            full = counts == draws.k                              # the draw of U: block 0 itself
            positions = np.arange(start, stop)
            if full.all():
                intervals(positions.tolist(), [diff, runs], None)
                continue
            if full.any():
                intervals(positions[full].tolist(), [diff[full], runs[full]], None)
            waiting.append((positions[~full], diff[~full], runs[~full], member[~full]))
    # the other pairs together: their draws differ from block 0 in a few picks, corrected in one walk
    if waiting:
        positions, diff, runs, member = (np.concatenate(parts) for parts in zip(*waiting))
        for start in range(0, len(positions), _BLOCK):
            part = slice(start, start + _BLOCK)
            intervals(positions[part].tolist(), [diff[part], runs[part]], member[part])
    done_low = [value for value in low if value is not None]
    done_high = [value for value in high if value is not None]
    assert len(done_low) == len(done_high) == len(first)  # every pair went through intervals() once
    return PairStatistics(
        first=first.tolist(), second=second.tolist(), n_pairs=shared[first, second].tolist(),
        a_pass_b_not=discordant[first, second].tolist(), b_pass_a_not=discordant[second, first].tolist(),
        q_diff_num=(q_on[first, second] - q_on[second, first]).tolist(), n_cases=n_cases, low=done_low, high=done_high,
    )

"""Straightforward reference implementations that the tests check production against (never imported by scripts/).

Production computes the statistics of aggregate_metrics.md §17-§24 for every subject or pair at once, from
integer columns (the functions the doc names). The functions here compute the same numbers the obvious way, one
subject, pair or case at a time, from the per-run rows, so that the batch machinery can be proved equal to them
(tests/test_stats_batch.py) and their definitions read in a few lines each.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb

import numpy as np

from rgbench.compute.derive import PASS, RunRow
from rgbench.compute.metrics import confidence_bin, q_numerator
from rgbench.stats.bootstrap import Replicates, percentile_interval
from rgbench.stats.brier_decomposition import BrierDecomposition
from rgbench.stats.case_draws import CaseDraws
from rgbench.stats.difficulty import ALL_SUBJECTS, DifficultyRow
from rgbench.stats.intervals_table import SubjectIntervals
from rgbench.stats.pairwise import PairwiseRow, mcnemar_exact_p
from rgbench.stats.pass_at_k import PassAtK
from rgbench.stats.wilson import wilson_interval

_INT64_SAFE = 1 << 62


# --- bootstrap replicates of one quantity (§18) --------------------------------------------------

def draw_counts(rng: np.random.Generator, n_cases: int, resamples: int) -> np.ndarray:
    """(resamples x n_cases) int64 matrix: how often each case is drawn in each replicate.

    Each replicate draws n_cases cases uniformly with replacement (one
    ``rng.integers(0, n_cases, size=(resamples, n_cases))`` call), so every
    row sums to n_cases.
    """
    if n_cases < 1 or resamples < 1:
        raise ValueError("need at least one case and one resample")
    picks = rng.integers(0, n_cases, size=(resamples, n_cases), dtype=np.int64)
    offsets = (np.arange(resamples, dtype=np.int64) * n_cases)[:, None]
    return np.bincount((picks + offsets).ravel(), minlength=resamples * n_cases).reshape(resamples, n_cases)


def _checked(ints: Sequence[int]) -> np.ndarray:
    """int64 array of ``ints``; OverflowError when a sum over a replicate could leave int64."""
    if sum(abs(int(i)) for i in ints) * max(len(ints), 1) >= _INT64_SAFE:
        raise OverflowError("per-case sums too large for exact int64 resampling")
    return np.asarray(ints, dtype=np.int64)


def ratio_replicates(counts: np.ndarray, numerators: Sequence[Fraction | int], denominators: Sequence[int],
                     scale: Fraction = Fraction(1)) -> Replicates:
    """Replicates of scale · (sum over drawn cases of numerator) / (sum over drawn cases of denominator).

    ``numerators`` are exact per-case values (ints, or Fractions brought to a common denominator);
    ``denominators`` are positive integers (a case's run count).
    """
    fractions = [Fraction(v) for v in numerators]
    common = math.lcm(1, *(f.denominator for f in fractions))
    ints = _checked([f.numerator * (common // f.denominator) for f in fractions])
    return Replicates(counts @ ints, counts @ np.asarray(denominators, dtype=np.int64), scale / common)


def abs_sum_replicates(counts: np.ndarray, per_case_bins: Sequence[Sequence[int]], denominators: Sequence[int],
                       scale: Fraction = Fraction(1)) -> Replicates:
    """Replicates of scale · (sum over bins of |sum over drawn cases of d[case][bin]|) / (sum of denominators):
    ECE's form; ``per_case_bins`` are integers (scaled by ``scale``)."""
    matrix = _checked([v for row in per_case_bins for v in row]).reshape(len(per_case_bins), -1)
    return Replicates(np.abs(counts @ matrix).sum(axis=1), counts @ np.asarray(denominators, dtype=np.int64), scale)


# --- subject intervals, one subject at a time (§18) ----------------------------------------------

def correctness_scale(rows: Sequence[RunRow]) -> int:
    """L: the common denominator of the correctness values (2 for 0, 1/2, 1), so correctness = k / L exactly."""
    return math.lcm(1, *(row.correctness.denominator for row in rows))


def gap(row: RunRow, scale: int) -> int:
    """(confidence_unit − correctness) · 100 · scale as an integer: c · L − 100 · k."""
    return row.reported_confidence * scale - 100 * row.correctness.numerator * (scale // row.correctness.denominator)


@dataclass(frozen=True)
class CaseSums:
    """One case's runs of one subject, summed as integers: brier = Σ gap², gaps per confidence bin = Σ gap."""

    case_id: str
    n: int
    passes: int
    clipped: int
    brier: int
    gaps: tuple[int, ...]


def case_sums(rows: Sequence[RunRow], bins: int, scale: int | None = None) -> list[CaseSums]:
    """Per-case sums of one subject's scored runs, sorted by case_id (``scale`` = correctness_scale(rows))."""
    scale = correctness_scale(rows) if scale is None else scale
    groups: dict[str, list[RunRow]] = defaultdict(list)
    for row in rows:
        groups[row.case_id].append(row)
    out = []
    for case_id, group in sorted(groups.items()):
        gaps = [0] * bins
        brier = passes = clipped = 0
        for row in group:
            g = gap(row, scale)
            gaps[confidence_bin(row.reported_confidence, bins)] += g
            brier += g * g
            passes += row.classification == PASS
            clipped += row.clipped_score
        out.append(CaseSums(case_id, len(group), passes, clipped, brier, tuple(gaps)))
    return out


def subject_intervals(rows: Sequence[RunRow], *, bins: int, alpha: Fraction, max_score: int, confidence: Fraction,
                      counts: np.ndarray | None = None, rng: np.random.Generator | None = None,
                      resamples: int | None = None) -> SubjectIntervals:
    """Bootstrap intervals of s_bar, BS, ECE and Q_final for one subject's scored runs.

    ``counts`` is the draw, (B x K) with columns in case_id order (the draw of the subject's case set,
    :meth:`rgbench.stats.case_draws.CaseDraws.counts`); or ``rng`` and ``resamples`` draw one with
    :func:`draw_counts`. No scored run -> all None; a single case -> every interval is a point.
    """
    scale = correctness_scale(rows)
    cases = case_sums(rows, bins, scale)
    if not cases:
        return SubjectIntervals()
    if counts is None:
        if rng is None or resamples is None:
            raise ValueError("give the draw (counts) or a generator and the number of resamples")
        counts = draw_counts(rng, len(cases), resamples)
    if counts.shape[1] != len(cases):
        raise ValueError(f"the draw has {counts.shape[1]} cases, the runs {len(cases)}")
    n = [c.n for c in cases]
    q_num = [q_numerator(c.passes, c.clipped, alpha, max_score) for c in cases]
    return SubjectIntervals(
        s_bar=percentile_interval(ratio_replicates(counts, [c.clipped for c in cases], n), confidence),
        bs=percentile_interval(ratio_replicates(counts, [c.brier for c in cases], n, Fraction(1, (100 * scale) ** 2)),
                               confidence),
        ece=percentile_interval(abs_sum_replicates(counts, [c.gaps for c in cases], n, Fraction(1, 100 * scale)),
                                confidence),
        q_final=percentile_interval(ratio_replicates(counts, q_num, n, Fraction(1, alpha.denominator * max_score)),
                                    confidence),
    )


# --- the paired comparison, one pair at a time (§20) ---------------------------------------------

Items = dict[tuple[str, str], tuple[bool, int]]  # (case_id, run_id) -> (is Pass, Q numerator)


def pair_items(rows: Sequence[RunRow], alpha: Fraction, max_score: int) -> Items:
    """Each run's Pass flag and its Q numerator over d · max_score (:func:`rgbench.compute.metrics.q_numerator`)."""
    return {(r.case_id, r.run_id): (r.classification == PASS,
                                    q_numerator(int(r.classification == PASS), r.clipped_score, alpha, max_score))
            for r in rows}


def compare_pair(a: str, rows_a: Sequence[RunRow], b: str, rows_b: Sequence[RunRow], *, alpha: Fraction,
                 max_score: int, seed: int, resamples: int, confidence: Fraction,
                 draws: CaseDraws | None = None) -> PairwiseRow | None:
    """The paired comparison of a and b on their shared (case_id, run_id) items; None when they share none.

    q_diff = Q_final(a) − Q_final(b) on the shared items; its interval resamples the shared cases with the draw
    of that case set from ``draws`` (by default the draws of ``seed`` over the cases of a and b). p_holm is left
    equal to mcnemar_p (Holm adjusts across all pairs).
    """
    if draws is None:
        cases = {r.case_id for r in rows_a} | {r.case_id for r in rows_b}
        if not cases:
            return None
        draws = CaseDraws(seed, cases, resamples)
    items_a, items_b = pair_items(rows_a, alpha, max_score), pair_items(rows_b, alpha, max_score)
    scale = alpha.denominator * max_score
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
    counts = draws.counts(draws.member(cases))
    low, high = percentile_interval(ratio_replicates(counts, diffs, sizes, Fraction(1, scale)), confidence)
    p = mcnemar_exact_p(a_only, b_only)
    return PairwiseRow(a, b, n_pairs, a_only, b_only, p, Fraction(sum(diffs), scale * n_pairs), low, high, p, len(cases))


# --- Brier decomposition of one subject, by its definition (§19) ---------------------------------

def brier_decomposition(rows: Sequence[RunRow], bins: int) -> BrierDecomposition | None:
    """Murphy's terms of one subject's BS over the ECE bins, straight from the formulas, in Fractions."""
    if not rows:
        return None
    by_bin: dict[int, list[RunRow]] = defaultdict(list)
    for row in rows:
        by_bin[confidence_bin(row.reported_confidence, bins)].append(row)
    n = len(rows)
    o = sum((row.correctness for row in rows), Fraction(0)) / n
    reliability = resolution = within = Fraction(0)
    for group in by_bin.values():
        f_k = sum(Fraction(row.reported_confidence, 100) for row in group) / len(group)
        o_k = sum((row.correctness for row in group), Fraction(0)) / len(group)
        reliability += len(group) * (f_k - o_k) ** 2
        resolution += len(group) * (o_k - o) ** 2
        for row in group:
            f = Fraction(row.reported_confidence, 100)
            within += (f - f_k) ** 2 - 2 * (f - f_k) * (row.correctness - o_k)
    uncertainty = sum(((row.correctness - o) ** 2 for row in rows), Fraction(0))
    return BrierDecomposition(reliability / n, resolution / n, uncertainty / n, within / n)


# --- pass@k per case (§22) -----------------------------------------------------------------------

def pass_at_k_table(runs_by_subject: Mapping[str, Sequence[RunRow]]) -> list[PassAtK]:
    """pass_at_k.csv's rows: per subject and k = 1..largest run count of any case, the means over the cases with
    at least k runs of 1 − C(n − c, k)/C(n, k) and C(c, k)/C(n, k) (n runs, c of them Pass)."""
    per_case: dict[str, dict[str, list[int]]] = {}
    for sid, rows in runs_by_subject.items():
        cases: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for row in rows:
            cases[row.case_id][0] += 1
            cases[row.case_id][1] += row.classification == PASS
        per_case[sid] = cases
    k_max = max((n for cases in per_case.values() for n, _ in cases.values()), default=0)
    out = []
    for sid in sorted(per_case):
        for k in range(1, k_max + 1):
            eligible = [(n, c) for n, c in per_case[sid].values() if n >= k]
            if not eligible:
                out.append(PassAtK(sid, k, None, None, 0))
                continue
            at = sum((1 - Fraction(comb(n - c, k), comb(n, k)) for n, c in eligible), Fraction(0))
            hat = sum((Fraction(comb(c, k), comb(n, k)) for n, c in eligible), Fraction(0))
            out.append(PassAtK(sid, k, at / len(eligible), hat / len(eligible), len(eligible)))
    return out


# --- difficulty (§23) ----------------------------------------------------------------------------

def weighted_pass_rate_of_rows(rows: Sequence[RunRow], difficulty_of: Mapping[str, int],
                               weights: Mapping[int, Fraction]) -> Fraction | None:
    """P_weighted = Σ_r w(d_r) · [r is Pass] / Σ_r w(d_r) over one subject's runs; None when N = 0."""
    if not rows:
        return None
    total = sum((weights[difficulty_of[row.case_id]] for row in rows), Fraction(0))
    return sum((weights[difficulty_of[row.case_id]] for row in rows if row.classification == PASS),
               Fraction(0)) / total


def difficulty_table(runs_by_subject: Mapping[str, Sequence[RunRow]], difficulty_of: Mapping[str, int],
                     weights: Mapping[int, Fraction], confidence: Fraction) -> list[DifficultyRow]:
    """metrics_per_difficulty.csv's rows, scope by scope (``ALL`` pooled first, then each subject with runs)."""
    def rows_for(scope: str, rows: Sequence[RunRow]) -> list[DifficultyRow]:
        out: list[DifficultyRow] = []
        for d in sorted({difficulty_of[row.case_id] for row in rows}):
            level = [row for row in rows if difficulty_of[row.case_id] == d]
            passes = sum(row.classification == PASS for row in level)
            p = Fraction(passes, len(level))
            low, high = wilson_interval(passes, len(level), confidence)
            out.append(DifficultyRow(scope, d, weights.get(d), len({row.case_id for row in level}), len(level),
                                     passes, p, low, high))
        return out

    table = rows_for(ALL_SUBJECTS, [row for sid in sorted(runs_by_subject) for row in runs_by_subject[sid]])
    for sid in sorted(runs_by_subject):
        table += rows_for(sid, runs_by_subject[sid])
    return table


# --- all statistics from a loaded tree -----------------------------------------------------------

def compute_statistics(tree, spec, runs: Sequence[RunRow], subjects, families, digest: str):
    """:func:`rgbench.stats.outputs.compute_statistics_from_columns` of a loaded tree's derived runs (every
    registered subject of ``subjects``)."""
    from rgbench.stats.calibration import calibration_tables
    from rgbench.stats.outputs import compute_statistics_from_columns
    from rgbench.stats.run_columns import RunColumns

    by_subject: dict[str, list[RunRow]] = defaultdict(list)
    for row in runs:
        by_subject[row.subject_id].append(row)
    difficulty_of = {case_id: gold.difficulty for case_id, gold in tree.golds.items()}
    scored = {sid: by_subject.get(sid, []) for sid in sorted(m.subject_id for m in subjects)}
    return compute_statistics_from_columns(RunColumns.of(scored), difficulty_of, spec, subjects, families, digest,
                                           calibration_tables(scored, spec.ece_bins), tree.inputs)

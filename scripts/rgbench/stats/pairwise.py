"""Paired comparisons of two subjects at the case level (pairwise.csv), Holm's adjustment, power.

For subjects a and b, the **shared cases** are the cases both have scored runs on. Each subject's case
is summarised by its per-case means (:meth:`.case_summary.CaseSummary.case_means`): the Q_final
contribution alpha·[Pass] + (1 − alpha)·clipped/max_score and Pass. The per-case differences
d_c = mean_a(c) − mean_b(c) are the data (:func:`paired_case_differences`): nothing pairs runs by their
label, every run of a shared case is used, and a case counts once however many runs it has.

- q_diff, p_diff: the mean of d_c over the shared cases, exact; their case-bootstrap BCa intervals
  (:func:`mean_difference_intervals`).
- p_value, test: :func:`sign_flip_test` of the Q_final differences (Fisher's randomisation test for paired
  data: under "no difference" each d_c is as likely to be −d_c). Deterministic, no random pattern: the exact
  distribution (:func:`sign_flip_exact`, a convolution on the integer lattice) when it is cheap, else the
  saddlepoint approximation (:func:`sign_flip_saddlepoint`, Lugannani-Rice with Daniels' lattice correction,
  Robinson 1982), and the exact p again for every pair whose decision is close (:func:`pairwise_table`).
  p_min: the smallest p the test can give the pair (:func:`smallest_p`).
- family, p_holm, p_bh: the family is the pairs of ranked subjects (the claims the board makes); :func:`holm`
  (family-wise error) and :func:`benjamini_hochberg` (false discovery rate) adjust over them alone. Pairs with
  an incomplete, unscored or disqualified subject keep their p_value, outside the family (``apart``).
  config.yaml's ``pairwise_correction`` (``holm``, the default, or ``benjamini-hochberg``) says which one
  ``significantly_better`` reads.
- q_diff_sd and the power columns: :func:`minimum_detectable_difference`.

**One draw per set of shared cases.** The pairs that share the same cases (on a complete board: every
pair) are one :class:`PairGroup`: one case draw serves all their BCa intervals, seeded from
the declared seed and the list of those cases (:func:`pair_stream`), so the whole table is a few matrix
products. A pair's row depends only on its two subjects' per-case values and its shared cases (p_holm and
p_bh aside, which are joint; and the close rule may swap a saddlepoint p for the exact one when the family
moves): a change to one subject leaves every other pair's differences and intervals byte-identical, and
relabelling, reordering or repeating runs changes nothing at all. All sums are on integers (exact in float64
below 2⁵³), so the bytes do not depend on how the products are blocked.
"""

from __future__ import annotations

import hashlib
import math
import multiprocessing
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np
from scipy import special

from ..load.parallel import usable_cores
from .bootstrap import bca_columns, case_counts, jackknife_accelerations
from .case_summary import CaseSummary
from .seeds import generator

POWER = Fraction(8, 10)
EXACT, SADDLEPOINT = "exact", "saddlepoint"
# sign_flip_test's rule: the exact distribution when its lattice costs at most EXACT_CELLS cell updates (a few ms);
# and pairwise_table's: the exact p of every pair whose adjusted saddlepoint p lies within a factor CLOSE of the level.
EXACT_CELLS = 1 << 21
CLOSE = 10
RANKED_FAMILY, APART = "ranked", "apart"
_CELLS = 1 << 22       # float64 cells of one block of a product (32 MiB): bounds memory at any board size
# Groups of pairs (one draw each) from which a fork pool pays: an incomplete board of 150 subjects has a group
# per pair, 11,175 draws of 2,000 x its shared cases (~40 ms each at 800 cases), the bulk of make metrics.
PARALLEL_MIN_GROUPS = 64
_pool_state: dict = {}


@dataclass(frozen=True)
class PairwiseRow:
    """One row of pairwise.csv (a < b). Every statistic is None when the pair shares no case.

    q_diff, p_diff: mean per-case difference a − b of the Q_final contribution and of Pass, in [−1, 1],
    > 0 when a is higher; *_low/*_high their BCa bounds; p_value, test: the sign-flip test of q_diff;
    p_holm, p_bh: adjusted over the family (empty outside it); q_diff_sd, p_diff_sd: SD of the per-case differences (n − 1);
    q_mde, p_mde: :func:`minimum_detectable_difference`; p_min: :func:`smallest_p`; family: ``ranked`` (in
    the family p_holm and p_bh adjust over) or ``apart`` (:func:`pairwise_table`).
    """

    subject_a: str
    subject_b: str
    n_cases: int
    q_diff: Fraction | None = None
    q_diff_low: float | None = None
    q_diff_high: float | None = None
    p_diff: Fraction | None = None
    p_diff_low: float | None = None
    p_diff_high: float | None = None
    p_value: Fraction | None = None
    test: str = ""
    p_holm: Fraction | None = None
    q_diff_sd: float | None = None
    p_diff_sd: float | None = None
    q_mde: float | None = None
    p_mde: float | None = None
    p_bh: Fraction | None = None
    p_min: Fraction | None = None
    family: str = ""


@dataclass(frozen=True)
class PairGroup:
    """The pairs that share exactly the cases ``cases`` (n ≥ 1), with their per-case differences.

    ``q[:, j]`` and ``p[:, j]`` (n x pairs, int64) are pair j's differences a − b of the per-case mean
    Q_final contribution times ``q_scale`` and of the per-case pass rate times ``p_scale``, exact.
    """

    cases: tuple[str, ...]
    pairs: tuple[tuple[str, str], ...]
    q: np.ndarray
    p: np.ndarray
    q_scale: int
    p_scale: int

    @property
    def n(self) -> int:
        return len(self.cases)

    def mean_q(self, j: int) -> Fraction:
        return Fraction(int(self.q[:, j].sum()), self.n * self.q_scale)

    def mean_p(self, j: int) -> Fraction:
        return Fraction(int(self.p[:, j].sum()), self.n * self.p_scale)


def paired_case_differences(summaries: Mapping[str, CaseSummary]) -> tuple[list[tuple[str, str]], list[PairGroup]]:
    """(the pairs a < b that share no case, the other pairs grouped by their shared cases), every subject
    of ``summaries`` against every other (code-point order; groups in the order of their first pair)."""
    ids = sorted(summaries)
    if not ids:
        return [], []
    cases = sorted({c for s in summaries.values() for c in s.case_ids})
    at = {c: i for i, c in enumerate(cases)}
    runs_multiple = math.lcm(*(int(r) for s in summaries.values() for r in np.unique(s.runs)))
    q_scale = runs_multiple * summaries[ids[0]].q_scale
    present = np.zeros((len(ids), len(cases)), dtype=bool)
    q = np.zeros((len(ids), len(cases)), dtype=np.int64)
    p = np.zeros((len(ids), len(cases)), dtype=np.int64)
    for i, sid in enumerate(ids):
        columns = [at[c] for c in summaries[sid].case_ids]
        present[i, columns] = True
        q[i, columns], p[i, columns] = summaries[sid].case_means(runs_multiple)
    apart: list[tuple[str, str]] = []
    grouped: dict[bytes, tuple[np.ndarray, list[tuple[int, int]]]] = {}   # shared cases -> (their mask, pairs)
    for i in range(len(ids)):
        shared = present[i] & present[i + 1:]
        for offset, row in enumerate(shared):
            if row.any():
                grouped.setdefault(np.packbits(row).tobytes(), (row, []))[1].append((i, i + 1 + offset))
            else:
                apart.append((ids[i], ids[i + 1 + offset]))
    groups = []
    for mask, members in grouped.values():
        a, b = (np.array(side) for side in zip(*members))
        keep = np.flatnonzero(mask)
        groups.append(PairGroup(tuple(cases[c] for c in keep), tuple((ids[x], ids[y]) for x, y in members),
                                (q[a][:, keep] - q[b][:, keep]).T.copy(), (p[a][:, keep] - p[b][:, keep]).T.copy(),
                                q_scale, runs_multiple))
    return apart, groups


def _blocks(rows: int, columns: int) -> list[slice]:
    """Column slices so that a (rows x block) float64 product stays under ``_CELLS`` cells."""
    width = max(1, _CELLS // max(rows, 1))
    return [slice(start, min(start + width, columns)) for start in range(0, columns, width)]


def _exact_float(x: np.ndarray, weight: int) -> np.ndarray:
    """x as float64, after checking that any sum of |x| times ``weight`` is an integer below 2⁵³ (exact BLAS)."""
    if x.size and float(np.abs(x).sum(axis=0).max()) * weight >= 2 ** 53:
        raise OverflowError("the scaled differences do not fit exactly in float64")
    return x.astype(np.float64)


def smallest_p(differences: np.ndarray) -> Fraction:
    """The smallest p-value :func:`sign_flip_test` can give ``differences`` (one column): 2 / 2ᵏ with k the
    number of non-zero differences (both patterns with every sign agreeing reach |T| = Σ|d_c|), 1 when k ≤ 1."""
    k = int(np.count_nonzero(np.asarray(differences)))
    return Fraction(1) if k <= 1 else Fraction(2, 2 ** k)


def _lattice(differences: np.ndarray) -> tuple[np.ndarray, int, int]:
    """(a, t, A) of one column: a the non-zero |d_c| divided by their gcd, t = |Σ d_c| / gcd, A = Σ a (t ≡ A mod 2)."""
    d = np.asarray(differences, dtype=np.int64).ravel()
    d = d[d != 0]
    if not len(d):
        return d, 0, 0
    g = int(np.gcd.reduce(np.abs(d)))
    return np.abs(d) // g, abs(int(d.sum())) // g, int(np.abs(d).sum()) // g


def exact_cells(differences: np.ndarray) -> int:
    """The work of :func:`sign_flip_exact` on one column: k · (⌊(A − t)/2⌋ + 1) cell updates (:func:`_lattice`)."""
    a, t, total = _lattice(differences)
    return len(a) * ((total - t) // 2 + 1)


def sign_flip_exact(differences: np.ndarray) -> Fraction:
    """The exact two-sided p-value of the sign-flip test of one column of integer differences (any scale).

    p = #{s ∈ {−1, 1}ⁿ : |Σ s_c d_c| ≥ |Σ d_c|} / 2ⁿ (Fisher 1935). A zero difference takes both signs with
    the same sum, so only the k non-zero ones count. With a_c = |d_c| / gcd, A = Σ a_c, t = |Σ d_c| / gcd and
    W the sum of the a_c whose sign flips, Σ s_c a_c = A − 2W and W is symmetric about A/2, so for t > 0
    p = 2 · #{subsets with W ≤ (A − t)/2} / 2ᵏ; t = 0 (or k = 0) gives p = 1. The subset counts come from the
    dynamic programme (convolution on the integer lattice) v ← v + v shifted by a_c, over the cases, in
    float64 with exact power-of-two rescaling: exact while the counts stay below 2⁵³ (k ≤ 52), otherwise
    relative error ≤ k · 2⁻⁵³ (every step adds non-negative numbers). Cost :func:`exact_cells`.
    """
    a, t, total = _lattice(differences)
    k = len(a)
    if k == 0 or t == 0:
        return Fraction(1)
    cut = (total - t) // 2
    counts = np.zeros(cut + 1)
    counts[0] = 1.0
    shift = 0
    for step, x in enumerate(a.tolist(), start=1):
        if x <= cut:
            counts[x:] += counts[:-x]      # numpy buffers the overlapping operands
        if step % 512 == 0:               # counts ≤ 2^512 here: rescale exactly before float64 overflows
            counts *= 2.0 ** -512
            shift += 512
    return min(Fraction(1), Fraction(float(counts.sum())) * Fraction(2) ** (shift + 1 - k))


def sign_flip_saddlepoint(differences: np.ndarray) -> np.ndarray:
    """The saddlepoint approximation of the two-sided sign-flip p-value of each column (n x m integers), float64.

    In each column's lattice units (:func:`_lattice`) W = Σ a_c b_c with b_c independent fair coins has the
    cumulant generating function K(θ) = Σ log((1 + e^{θ a_c}) / 2), and p = 2 · P(W ≥ x) with x = (A + t)/2.
    Lugannani and Rice (1980) with Daniels' (1987) second continuity correction for a lattice of span 1:
    x̃ = x − 1/2, K'(θ̃) = x̃, w = √(2(θ̃x̃ − K(θ̃))), u = 2 sinh(θ̃/2) √K''(θ̃),
    P(W ≥ x) ≈ 1 − Φ(w) + φ(w)(1/u − 1/w) (Robinson 1982 for permutation tests). θ̃ > 0 solves K'(θ) = x̃ by
    Newton's method kept inside a bracket. t ≤ 1 gives 1 exactly (W is symmetric); the result is clipped to
    [:func:`smallest_p`, 1]; near the centre (w < 10⁻³, where 1/u − 1/w cancels) the normal approximation
    with the same correction, p ≈ 1. Vectorised over the columns; measured against :func:`sign_flip_exact` in
    tests/test_pairwise_pvalues.py.
    """
    x = np.asarray(differences, dtype=np.int64)
    x = x.reshape(len(x), -1)
    out = np.ones(x.shape[1])
    for block in _blocks(len(x), x.shape[1]):
        out[block] = _saddlepoint_block(x[:, block])
    return out


def _saddlepoint_block(x: np.ndarray) -> np.ndarray:
    absolute = np.abs(x)
    g = np.gcd.reduce(absolute, axis=0)
    nonzero = g > 0
    g[~nonzero] = 1
    a = (absolute // g).astype(np.float64)
    t = np.abs(x.sum(axis=0)) // g
    total = a.sum(axis=0)
    k = np.count_nonzero(x, axis=0)
    p = np.ones(x.shape[1])
    todo = nonzero & (t > 1)
    if not todo.any():
        return p
    a, t, total, k = a[:, todo], t[todo].astype(np.float64), total[todo], k[todo]
    target = (total + t) / 2 - 0.5
    variance0 = (a * a).sum(axis=0) / 4
    theta = (target - total / 2) / variance0
    low, high = np.zeros_like(theta), np.full_like(theta, np.inf)
    for _ in range(200):
        sig = special.expit(theta * a)
        slope = (a * sig).sum(axis=0) - target
        curve = (a * a * sig * (1 - sig)).sum(axis=0)
        low = np.where(slope < 0, theta, low)
        high = np.where(slope > 0, theta, high)
        step = theta - slope / curve
        inside = (step > low) & (step < high) & np.isfinite(step)
        fallback = np.where(np.isfinite(high), (low + high) / 2, 2 * theta)
        new = np.where(inside, step, fallback)
        if np.all(np.abs(new - theta) <= 1e-14 * np.abs(theta)):
            theta = new
            break
        theta = new
    cgf = (np.logaddexp(0.0, theta * a) - math.log(2)).sum(axis=0)
    sig = special.expit(theta * a)
    curve = (a * a * sig * (1 - sig)).sum(axis=0)
    w = np.sqrt(np.maximum(2 * (theta * target - cgf), 0.0))
    u = 2 * np.sinh(theta / 2) * np.sqrt(curve)
    central = w < 1e-3
    with np.errstate(divide="ignore", invalid="ignore"):
        tail = np.where(central, special.ndtr(-(target - total / 2) / np.sqrt(variance0)),
                        special.ndtr(-w) + np.exp(-w * w / 2) / math.sqrt(2 * math.pi) * (1 / u - 1 / w))
    floor = np.ldexp(1.0, 1 - k)
    p[todo] = np.clip(2 * tail, floor, 1.0)
    return p


def sign_flip_test(differences: np.ndarray, exact_budget: int | None = None) -> tuple[list[Fraction], list[str]]:
    """(two-sided p-value of each column, the method of each: ``exact`` or ``saddlepoint``): the paired
    sign-flip test of mean 0 (Fisher's randomisation test: under "no difference" each d_c is as likely as −d_c).

    ``differences`` (n x m, or n) holds n per-case differences of m pairs as integers (any common positive
    scale: the test is scale-free), so ties are exact. Deterministic: no random pattern is drawn.
    :func:`sign_flip_saddlepoint` of every column (vectorised), then :func:`sign_flip_exact` instead for each
    column whose :func:`exact_cells` is at most ``exact_budget`` (default ``EXACT_CELLS``); :func:`pairwise_table`
    then computes the exact p of every pair whose decision is close. n = 0 is a ValueError; a column of zeros gives p = 1 (exact).
    """
    x = np.asarray(differences, dtype=np.int64)
    x = x.reshape(len(x), -1)
    if len(x) == 0:
        raise ValueError("the sign-flip test needs at least one case")
    budget = EXACT_CELLS if exact_budget is None else exact_budget
    cheap = [exact_cells(x[:, j]) <= budget for j in range(x.shape[1])]
    saddle = sign_flip_saddlepoint(x).tolist()   # every column at once; the cheap ones are then made exact
    p_values = [sign_flip_exact(x[:, j]) if c else max(Fraction(saddle[j]), smallest_p(x[:, j]))
                for j, c in enumerate(cheap)]
    return p_values, [EXACT if c else SADDLEPOINT for c in cheap]


def mean_difference_intervals(differences: np.ndarray, scale: int, counts: np.ndarray,
                              confidence: Fraction) -> list[tuple[float, float]]:
    """The case-bootstrap BCa interval (:func:`.bootstrap.bca_columns`) of each column's mean d / scale.

    ``differences`` (n x m int64, n ≥ 1) as in :func:`sign_flip_test`; ``counts`` (B x n) how often each
    case is drawn per replicate (rows sum to n), shared by the columns. Replicate = counts @ d / (n·scale),
    jackknife value i = (Σ d − d_i) / ((n − 1)·scale), both on exact integer sums. One case: a point.
    """
    n, m = differences.shape
    totals = differences.sum(axis=0)
    estimates = totals / (n * scale)
    weights = np.asarray(counts, dtype=np.float64)
    xf = _exact_float(differences, n)
    out: list[tuple[float, float]] = []
    for block in _blocks(len(counts), m):
        replicates = (weights @ xf[:, block]) / (n * scale)      # every replicate of a mean over n cases is finite
        accelerations = (jackknife_accelerations((totals[block] - differences[:, block]) / ((n - 1) * scale))
                         if n > 1 else np.zeros(replicates.shape[1]))
        out += bca_columns(estimates[block], replicates, accelerations, confidence)
    return out


def holm(p_values: Sequence[Fraction]) -> list[Fraction]:
    """Holm-adjusted p-values in the input order: sorted p_(1) <= ... <= p_(m),
    p_holm_(i) = max_{j <= i} min(1, (m - j + 1) · p_(j)). Ties keep input order (stable sort)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted: list[Fraction] = [Fraction(0)] * m
    running = Fraction(0)
    for position, i in enumerate(order):
        running = max(running, min(Fraction(1), (m - position) * Fraction(p_values[i])))
        adjusted[i] = running
    return adjusted


def benjamini_hochberg(p_values: Sequence[Fraction]) -> list[Fraction]:
    """Benjamini-Hochberg (1995) adjusted p-values in the input order: sorted p_(1) <= ... <= p_(m),
    p_bh_(i) = min_{j >= i} min(1, m · p_(j) / j). Controls the false discovery rate (independent or
    positively dependent tests); less strict than :func:`holm`, which controls the family-wise error."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted: list[Fraction] = [Fraction(0)] * m
    running = Fraction(1)
    for position in range(m - 1, -1, -1):
        i = order[position]
        running = min(running, Fraction(m, position + 1) * Fraction(p_values[i]))
        adjusted[i] = running
    return adjusted


def minimum_detectable_difference(sd: float | None, n: int, level: Fraction, power: Fraction = POWER,
                                  pairs: int = 1) -> float | None:
    """(c + t_{n−1}(power)) · sd / √n with c = z · √((n − 1) / (n − z²)), z = z_{1 − level/(2·pairs)}: the smallest
    true mean per-case difference that the sign-flip test of n cases finds at level ``level``/``pairs`` with
    probability ``power`` (a power of at least ``power`` through Holm's or Benjamini-Hochberg's adjustment over
    ``pairs`` tests, whose strictest step that level is: both declare significant whatever that step declares,
    and Holm equals it when every other pair is null).

    sd is the SD (n − 1) of the per-case differences. The sign-flip test compares T = Σd / √(Σd²) with its
    randomisation distribution, of variance 1 and close to normal (Fisher 1935; Lehmann and Romano 2005,
    Testing Statistical Hypotheses, §15.2), so it rejects when |T| > z; as T = t · √(n / (n − 1 + t²)) with t the
    paired t statistic, that is |t| > c, a stricter bound than Student's quantile at small level/pairs (Σd² holds
    the mean as well as the spread). The power is then that of the paired t-test at the bound c, by the usual
    approximation of the noncentral t by a shifted central one (Cohen 1988, Statistical Power Analysis for the
    Behavioral Sciences, ch. 2): t_{n−1}(power) above c. Greater than 0; grows with sd and pairs and falls as n
    grows. None when n < 2, n ≤ z² (no difference reaches that level by this approximation), sd is None or 0
    (no case-to-case spread measured: the design's resolution is unknown, not perfect), or pairs < 1. The z
    quantiles at level alone (the figure until issue 25) were 25% to 31% too small for the test through
    Holm's adjustment (docs/statistics_check.md).
    """
    if sd is None or sd <= 0 or n < 2 or pairs < 1:
        return None
    from scipy.special import ndtri, stdtrit  # imported here: scipy's import costs time, and only this needs it

    z = float(ndtri(1 - float(level) / (2 * pairs)))
    if n <= z * z:
        return None
    bound = z * math.sqrt((n - 1) / (n - z * z))
    return (bound + float(stdtrit(n - 1, float(power)))) * sd / math.sqrt(n)


def _sds(differences: np.ndarray, scale: int) -> list[float | None]:
    """The SD (n − 1) of each column of differences / scale, from exact integer sums (so a column's value
    does not depend on the other columns): √((nΣd² − (Σd)²) / (n(n − 1))) / scale; None when n < 2."""
    n = len(differences)
    if n < 2:
        return [None] * differences.shape[1]
    sums, squares = differences.sum(axis=0).tolist(), (differences * differences).sum(axis=0).tolist()
    return [math.sqrt(Fraction(n * s2 - s1 * s1, n * (n - 1))) / scale for s1, s2 in zip(sums, squares)]


def pair_stream(seed_digest: str, cases: Sequence[str]) -> np.random.Generator:
    """The stream of every pair whose shared cases are ``cases``: ``generator("pairs", ...)`` over
    ``seed_digest`` (the declared seed alone, :func:`.seeds.seed_digest`) and sha256 of the case ids, one a
    line. Nothing else enters: no file bytes, no golds, no system/, so only the seed and the shared cases' ids
    choose the draw, and the pair's per-case values (its two subjects' data) are what it is applied to."""
    listed = hashlib.sha256("".join(f"{c}\n" for c in cases).encode("utf-8")).hexdigest()
    return generator("pairs", [seed_digest, listed])


def compare_group(group: PairGroup, rng: np.random.Generator, *, resamples: int, confidence: Fraction,
                  level: Fraction) -> list[PairwiseRow]:
    """The rows (without p_holm, p_bh and family) of the pairs of ``group``: the BCa intervals from one draw of
    case counts from ``rng``; p_value from :func:`sign_flip_test` (deterministic, no draw) and p_min from
    :func:`smallest_p`."""
    counts = case_counts(rng, group.n, resamples)
    q_bounds = mean_difference_intervals(group.q, group.q_scale, counts, confidence)
    p_bounds = mean_difference_intervals(group.p, group.p_scale, counts, confidence)
    p_values, tests = sign_flip_test(group.q)
    q_sds, p_sds = _sds(group.q, group.q_scale), _sds(group.p, group.p_scale)
    return [PairwiseRow(a, b, group.n, group.mean_q(j), *q_bounds[j], group.mean_p(j), *p_bounds[j], p_values[j],
                        tests[j], None, q_sds[j], p_sds[j], minimum_detectable_difference(q_sds[j], group.n, level),
                        minimum_detectable_difference(p_sds[j], group.n, level), p_min=smallest_p(group.q[:, j]))
            for j, (a, b) in enumerate(group.pairs)]


def _compare_span(span: range) -> list[PairwiseRow]:
    groups, seed_digest, options = _pool_state["groups"], _pool_state["seed_digest"], _pool_state["options"]
    return [row for group in groups[span.start:span.stop]
            for row in compare_group(group, pair_stream(seed_digest, group.cases), **options)]


def compare_groups(groups: Sequence[PairGroup], seed_digest: str, *, resamples: int, confidence: Fraction,
                   level: Fraction) -> list[PairwiseRow]:
    """:func:`compare_group` of every group (each on its own :func:`pair_stream`), in order; on every core when
    there are many groups (a fork pool: the groups are inherited, each task a range of them). The rows are the
    same either way: a group's draw depends on its shared cases alone."""
    _pool_state.update(groups=groups, seed_digest=seed_digest,
                       options={"resamples": resamples, "confidence": confidence, "level": level})
    try:
        cores = usable_cores()
        if len(groups) < PARALLEL_MIN_GROUPS or cores < 2 or "fork" not in multiprocessing.get_all_start_methods():
            return _compare_span(range(len(groups)))
        step = max(1, len(groups) // (8 * cores))   # several tasks a core, so that both finish together
        spans = [range(start, min(start + step, len(groups))) for start in range(0, len(groups), step)]
        with multiprocessing.get_context("fork").Pool(cores) as pool:
            return [row for rows in pool.map(_compare_span, spans, chunksize=1) for row in rows]
    finally:
        _pool_state.clear()


def pairwise_table(summaries: Mapping[str, CaseSummary], seed_digest: str, *, resamples: int,
                   confidence: Fraction, level: Fraction, ranked: Collection[str] | None = None) -> list[PairwiseRow]:
    """Every pair (a < b, code-point order) of the subjects of ``summaries``. Each group of pairs draws its BCa
    intervals from :func:`pair_stream` of its shared cases; the p-values draw nothing (:func:`sign_flip_test`).

    The family: the pairs of two ``ranked`` subjects (None: every subject) with a shared case are the claims
    the board makes; p_holm and p_bh adjust over them alone (family ``ranked``). A pair with another subject
    (incomplete, unscored, disqualified) keeps its p_value but is outside the family (family ``apart``,
    p_holm and p_bh empty), so adding or removing such a subject moves no ranked pair's adjusted p.
    Exact near the decision: every family pair whose Holm- or Benjamini-Hochberg-adjusted p, from the
    saddlepoint p-values, lies within a factor ``CLOSE`` of ``level`` gets :func:`sign_flip_exact`, and the
    adjustment is redone until no saddlepoint p is that close.
    """
    apart, groups = paired_case_differences(summaries)
    inside = None if ranked is None else set(ranked)

    def family(a: str, b: str) -> str:
        return RANKED_FAMILY if inside is None or (a in inside and b in inside) else APART
    rows = [PairwiseRow(a, b, 0, family=family(a, b)) for a, b in apart]
    rows += [replace(row, family=family(row.subject_a, row.subject_b))
             for row in compare_groups(groups, seed_digest, resamples=resamples, confidence=confidence, level=level)]
    rows.sort(key=lambda r: (r.subject_a, r.subject_b))
    column = {pair: (group, j) for group in groups for j, pair in enumerate(group.pairs)}
    tested = [i for i, row in enumerate(rows) if row.p_value is not None and row.family == RANKED_FAMILY]

    def near(adjusted: Fraction) -> bool:
        return level / CLOSE <= adjusted <= level * CLOSE
    while True:
        p_values: list[Fraction] = [rows[i].p_value for i in tested]   # type: ignore[misc]
        adjusted = list(zip(holm(p_values), benjamini_hochberg(p_values)))
        close = [i for i, (h, b) in zip(tested, adjusted) if rows[i].test == SADDLEPOINT and (near(h) or near(b))]
        if not close:
            break
        for i in close:
            group, j = column[rows[i].subject_a, rows[i].subject_b]
            rows[i] = replace(rows[i], p_value=sign_flip_exact(group.q[:, j]), test=EXACT)
    for i, (h, b) in zip(tested, adjusted):
        rows[i] = replace(rows[i], p_holm=h, p_bh=b)
    return rows


def unresolvable(row: PairwiseRow, level: Fraction, family_size: int) -> bool:
    """Whether no correction over ``family_size`` pairs can make the pair significant on its own: its
    smallest attainable p (p_min, :func:`smallest_p`) is above level / family_size, Holm's first threshold
    and Benjamini-Hochberg's smallest (the test cannot resolve the pair: too few cases that differ)."""
    return row.p_min is not None and family_size > 0 and row.p_min * family_size > level


def without_pass_rate(rows: Sequence[PairwiseRow]) -> list[PairwiseRow]:
    """``rows`` with every pass-rate column (p_diff, its bounds, SD and MDE) empty: a benchmark without a pass rule
    has no P. The Q_final columns and the test (of Q_final) are kept as they are."""
    return [replace(row, p_diff=None, p_diff_low=None, p_diff_high=None, p_diff_sd=None, p_mde=None) for row in rows]


def significantly_better(row: PairwiseRow, level: Fraction, correction: str = "holm") -> str | None:
    """The subject of the pair whose Q_final contribution is significantly higher (the adjusted p of
    ``correction``, p_holm or p_bh, below ``level``), or None."""
    adjusted = row.p_bh if correction == "benjamini-hochberg" else row.p_holm
    if adjusted is None or row.q_diff is None or not adjusted < level or row.q_diff == 0:
        return None
    return row.subject_a if row.q_diff > 0 else row.subject_b

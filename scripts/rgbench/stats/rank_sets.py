"""Confidence sets for ranks (rank_sets.csv), after Mogstad, Romano, Shaikh and Wilhelm (2024).

"Inference for ranks with applications to mobility across neighbourhoods and academic achievement
across countries", Review of Economic Studies 91(1):476-518; the R package ``csranks`` (function
``csranks``, ``simul = TRUE`` / ``FALSE``, ``stepdown = TRUE``, two-sided). Ranks are by Q_final, 1 = best.

With θ̂_j the estimates and θ*_j their joint case-bootstrap replicates (:func:`joint_draw`: one draw of the
union of the ranked subjects' cases, each subject's Q_final recomputed on its own cases of the draw, so
shared cases move together), the differences are studentised replicate by replicate (a bootstrap-t; Hall
1992, "The Bootstrap and Edgeworth Expansion", §3.10; Romano and Wolf 2005, "Exact and approximate stepdown
methods for multiple hypothesis testing", JASA 100:94-108, take the maximum of such studentised statistics):

1. SE_jk, the standard error of θ̂_j − θ̂_k, and SE*_jk, each replicate's own, from the linearisation of the
   two ratios Q_final = Σ q_c / Σ n_c on that replicate's case weights
   (:func:`rgbench.stats.bootstrap.linearised_covariances`);
2. T*_jk = ((θ*_j − θ*_k) − (θ̂_j − θ̂_k)) / SE*_jk for every ordered pair (T*_kj = −T*_jk); the critical
   value c is the ``confidence`` quantile over replicates of max T*_jk: over every ordered pair for the
   simultaneous sets, over the pairs with subject j on either side for its marginal set;
3. j is significantly above k when z_jk = (θ̂_j − θ̂_k) / SE_jk > c, and stepwise (:func:`stepdown`, Romano and
   Wolf 2005, ``csranks``' default): the established pairs leave the maximum and c is taken again over the
   others, until no more is established; then with N⁻_j the number of subjects significantly above j and N⁺_j
   the number significantly below, the set is {N⁻_j + 1, …, p − N⁺_j}.

Dividing each replicate by its own standard error, not by the bootstrap SD of the difference as a whole,
carries the heavy tails of a studentised difference over ~30 cases into the critical value: with the fixed
SD the sets covered 91% (4 tied subjects) and 87% (8) at 30 cases, below their 95% (issue 25).

The simultaneous sets cover every subject's true rank at once with probability ≈ ``confidence``; a
marginal set covers one subject's rank. A pair whose difference has no case-level variation (SE_jk = 0:
the subjects differ by the same amount on every case, or not at all) takes no part in the maximum and is
significant when the estimates differ, not when they are equal; likewise a pair takes no part in the
maximum of a replicate in which its SE*_jk is 0; with one case nothing is established.
:func:`rank_confidence_sets` is the production function; tests check it against a brute-force enumeration
of every ordering consistent with the significant differences.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .bootstrap import case_counts, extended_quantile, linearised_covariances, safe_ratio
from .case_summary import CaseSummary

ZERO_SHARE = 1e-12   # a pair variance at most this share of its terms' magnitude is 0 (rounding is ~1e-16 of it)


@dataclass(frozen=True)
class RankSet:
    """One row of rank_sets.csv."""

    subject_id: str
    rank: int
    rank_low: int
    rank_high: int
    rank_low_marginal: int
    rank_high_marginal: int


@dataclass(frozen=True)
class JointDraw:
    """One case draw of the union of the p ranked subjects' K cases (in code-point order) and their per-case sums.

    ``sums[c, j]``: subject j's Q_final numerator over its runs of case c (Q_final · ``scales[j]`` per run, a whole
    number), 0 on a case it has no run of; ``runs[c, j]`` its runs of case c; ``counts`` (B x K): how often each case is drawn.
    """

    sums: np.ndarray
    runs: np.ndarray
    scales: np.ndarray
    counts: np.ndarray

    @property
    def replicates(self) -> np.ndarray:
        """(B x p) Q_final replicates; NaN for a subject that drew none of its cases (possible only for subjects
        with few cases; the eligibility rule makes it rare), a replicate :func:`rank_confidence_sets` drops."""
        return safe_ratio(self.counts @ self.sums, self.counts @ self.runs) / self.scales


def joint_draw(summaries: Sequence[CaseSummary], rng: np.random.Generator, resamples: int) -> JointDraw:
    """The :class:`JointDraw` of ``resamples`` case draws of the union of the subjects' cases from ``rng``."""
    union = sorted({c for s in summaries for c in s.case_ids})
    index = {c: i for i, c in enumerate(union)}
    counts = case_counts(rng, len(union), resamples)
    sums = np.zeros((len(union), len(summaries)))
    runs = np.zeros((len(union), len(summaries)))
    for j, s in enumerate(summaries):
        rows = np.array([index[c] for c in s.case_ids], dtype=np.int64)
        sums[rows, j], runs[rows, j] = s.q, s.runs
    return JointDraw(sums, runs, np.array([float(s.q_scale) for s in summaries]), counts)


@dataclass(frozen=True)
class Studentised:
    """The studentised differences of the p subjects' pairs j < k (``first[i]``, ``second[i]``): ``z`` (p x p)
    z_jk = (θ̂_j − θ̂_k) / SE_jk (z_kj = −z_jk, z_jj = 0), and ``replicates`` (B' x m), one row per usable replicate:
    T*_jk = ((θ*_j − θ*_k) − (θ̂_j − θ̂_k)) / SE*_jk, signed."""

    z: np.ndarray
    first: np.ndarray
    second: np.ndarray
    replicates: np.ndarray


def studentised_differences(estimates: Sequence[float], draw: JointDraw) -> Studentised | None:
    """The :class:`Studentised` differences of every pair of the draw's subjects; None when nothing can be
    established: fewer than 2 usable replicates (rows with a NaN are dropped) or none differs from another.

    A pair with SE_jk = 0 has T* = 0 and z = ±∞ when θ̂_j ≠ θ̂_k, 0 when equal; a replicate with SE*_jk = 0
    (it drew only cases on which the two differ by the same amount) has no studentised value and T* = 0: that
    pair takes no part in that replicate's maximum, the rule the data's own SE = 0 follows (as ±∞ it would
    put the critical value, and with it every claim on the board, at ∞ whenever a pair's spread rests on a
    few cases: 10 cases on which the last subject loses everywhere, by more on 2 of them). A pair variance at most
    1e-12 of its terms' magnitude (:func:`rgbench.stats.bootstrap.linearised_covariances`: rounding is about
    1e-16 of it) counts as 0. The draw's sums and runs are whole numbers, so every weighted sum is exact and the
    result the same on every machine. Work: one subject's pairs at a time, (B + 1) x 4p numbers each; the result
    holds B' x p(p − 1)/2.
    """
    est = np.asarray(estimates, dtype=np.float64)
    p = len(est)
    reps = draw.replicates
    usable = np.all(np.isfinite(reps), axis=1)
    if usable.sum() < 2 or np.all(reps[usable] == reps[usable][0]):
        return None
    scales = draw.scales
    weights = np.vstack([np.ones((1, draw.sums.shape[0])), draw.counts[usable]])   # row 0: the data's own weights
    totals = (weights @ draw.sums, weights @ draw.runs)                             # exact: whole numbers
    shifts = safe_ratio(totals[0], totals[1]) / scales
    shifts = shifts - shifts[0]                                                     # θ* − θ̂ (row 0: 0)
    every = np.arange(p)
    own, own_size = linearised_covariances(weights, draw.sums, draw.runs, totals, every, every)
    own, own_size = own / scales ** 2, own_size / scales ** 2
    tol = 1e-12 * max(1.0, float(np.abs(est).max()))
    z = np.zeros((p, p))
    first, second = np.triu_indices(p, 1)
    out = np.zeros((len(weights) - 1, len(first)))
    start = 0
    for j in range(p - 1):
        ks = every[j + 1:]
        cov, size = linearised_covariances(weights, draw.sums, draw.runs, totals, np.full(len(ks), j), ks)
        scale = scales[j] * scales[ks]
        pair = own[:, [j]] + own[:, ks] - 2 * cov / scale
        zero = pair <= ZERO_SHARE * (own_size[:, [j]] + own_size[:, ks] + 2 * size / scale)
        se = np.sqrt(np.where(zero, 1.0, pair))
        gap = est[j] - est[ks]
        live = ~zero[0]
        z[j, ks] = np.where(live, gap / se[0], np.where(gap > tol, np.inf, np.where(gap < -tol, -np.inf, 0.0)))
        moved = shifts[1:, [j]] - shifts[1:, ks]
        t = np.where(zero[1:], 0.0, moved / se[1:])
        t[:, ~live] = 0.0
        out[:, start:start + len(ks)] = t
        start += len(ks)
    return Studentised(z - z.T, first, second, out)


def stepdown(found: Studentised, confidence: Fraction, subject: int | None = None) -> np.ndarray:
    """(p x p) booleans, [j, k] True when j is established above k: the stepdown of Romano and Wolf (2005) over the
    one-sided hypotheses θ_j ≤ θ_k of the ordered pairs (every pair, or those with ``subject`` on either side: its
    marginal family), as ``csranks`` does with ``stepdown = TRUE``.

    While some hypotheses stand: c = the ``confidence`` quantile over replicates of the maximum of T*_jk over the
    standing ordered pairs (T*_kj = −T*_jk; the first step's maximum is max |T*| over the pairs, the single-step
    critical value); reject every standing (j, k) with z_jk > c; stop when none is rejected.
    """
    z, first, second = found.z, found.first, found.second
    columns = np.arange(len(first)) if subject is None else np.flatnonzero((first == subject) | (second == subject))
    reps = found.replicates if subject is None else found.replicates[:, columns]
    zf = z[first[columns], second[columns]]
    up = np.ones(len(columns), dtype=bool)       # standing (first, second) hypotheses
    down = up.copy()                             # standing (second, first) hypotheses
    q = float(confidence)
    while up.any() or down.any():
        tops = np.maximum(reps.max(axis=1, where=up, initial=-np.inf),
                          -reps.min(axis=1, where=down, initial=np.inf))
        c = extended_quantile(tops, q)
        new_up, new_down = up & (zf > c), down & (-zf > c)
        if not (new_up.any() or new_down.any()):
            break
        up &= ~new_up
        down &= ~new_down
    above = np.zeros((len(z), len(z)), dtype=bool)
    above[first[columns][~up], second[columns][~up]] = True
    above[second[columns][~down], first[columns][~down]] = True
    return above


def rank_confidence_sets(estimates: Sequence[float], draw: JointDraw, confidence: Fraction
                         ) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(the simultaneous sets, the marginal sets): the (low, high) rank set of every subject (rank 1 = highest
    estimate), in the input order (the draw's subject order), both from one studentisation of the draw
    (:func:`studentised_differences`, :func:`stepdown`): with N⁻_j the subjects established above j and N⁺_j
    those below, {N⁻_j + 1, …, p − N⁺_j}; the marginal set of j decides only j's own pairs.

    Nothing is established, every set {1..p}, when p < 2, fewer than 2 replicates are usable, or no
    replicate differs from another (one case: no case-level variation can be measured).
    """
    p = len(estimates)
    found = studentised_differences(estimates, draw) if p >= 2 else None
    if found is None:
        return [(1, p)] * p, [(1, p)] * p
    return sets_from(found, confidence)


def sets_from(found: Studentised, confidence: Fraction) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(simultaneous, marginal) rank sets of the p subjects of ``found`` (:func:`stepdown` over every pair, and over
    each subject's own pairs): what :func:`rank_confidence_sets` gives, for any studentised replicates (the
    judge-assisted estimator's too, :func:`rgbench.stats.judge_assisted_board.assisted_rank_sets`)."""
    p = len(found.z)
    above = stepdown(found, confidence)
    simultaneous = [(1 + int(above[:, j].sum()), p - int(above[j].sum())) for j in range(p)]
    marginal = []
    for j in range(p):
        own = stepdown(found, confidence, j)
        marginal.append((1 + int(own[:, j].sum()), p - int(own[j].sum())))
    return simultaneous, marginal


def swap_shares(replicates: np.ndarray) -> np.ndarray:
    """(p x p) share of usable replicates in which subject k is above subject j (ties count half): [j, k]."""
    reps = replicates[np.all(np.isfinite(replicates), axis=1)]
    if not len(reps):
        return np.full((replicates.shape[1],) * 2, np.nan)
    greater = (reps[:, None, :] > reps[:, :, None]).mean(axis=0)
    ties = (reps[:, None, :] == reps[:, :, None]).mean(axis=0)
    return greater + ties / 2


def rank_sets(subject_ids: Sequence[str], ranks: Sequence[int], estimates: Sequence[float], draw: JointDraw,
              confidence: Fraction) -> list[RankSet]:
    """The rank_sets.csv rows of the ranked subjects (in the order given: leaderboard order, the draw's)."""
    simul, marginal = rank_confidence_sets(estimates, draw, confidence)
    return [RankSet(sid, rank, lo, hi, mlo, mhi)
            for sid, rank, (lo, hi), (mlo, mhi) in zip(subject_ids, ranks, simul, marginal)]

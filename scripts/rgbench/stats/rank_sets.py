"""Confidence sets for ranks (rank_sets.csv), after Mogstad, Romano, Shaikh and Wilhelm (2024).

"Inference for ranks with applications to mobility across neighbourhoods and academic achievement
across countries", Review of Economic Studies 91(1):476-518; the R package ``csranks`` (function
``csranks``, ``simul = TRUE`` / ``FALSE``, single-step, two-sided). Ranks are by Q_final, 1 = best.

With θ̂_j the estimates, θ*_j their joint case-bootstrap replicates (:func:`joint_replicates`: one draw
of the union of the ranked subjects' cases, each subject's Q_final recomputed on its own cases of the
draw, so shared cases move together) and σ_jk the bootstrap standard deviation of θ*_j − θ*_k:

1. studentised deviations T*_jk = |(θ*_j − θ*_k) − (θ̂_j − θ̂_k)| / σ_jk for every ordered pair j ≠ k;
2. the critical value c is the ``confidence`` quantile over replicates of max T*_jk: over every pair for
   the simultaneous sets, over the pairs (j, ·) of one subject for its marginal set;
3. j is significantly above k when (θ̂_j − θ̂_k) / σ_jk > c; then with N⁻_j the number of subjects
   significantly above j and N⁺_j the number significantly below, the set is {N⁻_j + 1, …, p − N⁺_j}.

The simultaneous sets cover every subject's true rank at once with probability ≈ ``confidence``; a
marginal set covers one subject's rank. A pair whose replicated difference never varies (σ_jk = 0) is
significant when the estimates differ (every replicate orders them alike) and not when they are equal;
with one case nothing is established. :func:`rank_confidence_sets` is the production function; tests check it
against a brute-force enumeration of every ordering consistent with the significant differences.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .bootstrap import case_counts, ratio_statistic
from .case_summary import CaseSummary


@dataclass(frozen=True)
class RankSet:
    """One row of rank_sets.csv."""

    subject_id: str
    rank: int
    rank_low: int
    rank_high: int
    rank_low_marginal: int
    rank_high_marginal: int


def joint_replicates(summaries: Sequence[CaseSummary], rng: np.random.Generator, resamples: int) -> np.ndarray:
    """(B x p) Q_final replicates of the p subjects from one case draw of the union of their cases.

    A replicate in which some subject drew none of its cases is NaN for it (possible only for subjects
    with few cases; the eligibility rule makes it rare) and is dropped by :func:`rank_confidence_sets`.
    """
    union = sorted({c for s in summaries for c in s.case_ids})
    index = {c: i for i, c in enumerate(union)}
    counts = case_counts(rng, len(union), resamples)
    columns = []
    for s in summaries:
        cols = np.array([index[c] for c in s.case_ids], dtype=np.int64)
        columns.append(ratio_statistic(s.q, s.runs, float(s.q_scale))(counts[:, cols]))
    return np.stack(columns, axis=1) if columns else np.zeros((resamples, 0))


def _studentised(estimates: np.ndarray, replicates: np.ndarray, j: int) -> tuple[np.ndarray, np.ndarray]:
    """(z_j·, T*_j·): the studentised estimated differences θ̂_j − θ̂_k and the (B x p) bootstrap statistics.

    A pair whose replicated difference never varies (σ_jk = 0) has T* = 0 and z = ±∞ when θ̂_j ≠ θ̂_k
    (every replicate orders them the same way), 0 when they are equal; z_jj = 0.
    """
    diff = replicates[:, j:j + 1] - replicates
    sigma = diff.std(axis=0, ddof=1)
    tol = 1e-12 * max(1.0, float(np.abs(estimates).max(initial=0)))
    spread = sigma > tol
    gap = estimates[j] - estimates
    z = np.zeros_like(gap)
    z[gap > tol], z[gap < -tol] = np.inf, -np.inf
    z[spread] = gap[spread] / sigma[spread]
    z[j] = 0.0
    t = np.zeros_like(diff)
    t[:, spread] = np.abs(diff[:, spread] - gap[spread]) / sigma[spread]
    return z, t


def rank_confidence_sets(estimates: Sequence[float], replicates: np.ndarray, confidence: Fraction
                         ) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(the simultaneous sets, the marginal sets): the (low, high) rank set of every subject (rank 1 = highest
    estimate), in the input order, both from one studentisation of the replicates.

    ``replicates``: (B x p) bootstrap replicates; rows with a NaN are dropped. Nothing is established,
    every set {1..p}, when p < 2, fewer than 2 replicates are usable, or no replicate differs from
    another (one case: no case-level variation can be measured).
    """
    est = np.asarray(estimates, dtype=np.float64)
    p = len(est)
    reps = replicates[np.all(np.isfinite(replicates), axis=1)] if p else replicates
    if p < 2 or len(reps) < 2 or np.all(reps == reps[0]):
        return [(1, p)] * p, [(1, p)] * p
    rows = [_studentised(est, reps, j) for j in range(p)]
    maxima = np.stack([t.max(axis=1) for _, t in rows], axis=1)               # (B x p): max over k of T*_jk
    q = float(confidence)
    simultaneous = [float(np.quantile(maxima.max(axis=1), q))] * p
    marginal = [float(np.quantile(maxima[:, j], q)) for j in range(p)]

    def sets(critical: list[float]) -> list[tuple[int, int]]:
        out = []
        for j, (z, _) in enumerate(rows):
            n_above = int(np.count_nonzero(z < -critical[j]))        # subjects significantly above j
            n_below = int(np.count_nonzero(z > critical[j]))         # subjects significantly below j
            out.append((1 + n_above, p - n_below))
        return out
    return sets(simultaneous), sets(marginal)


def swap_shares(replicates: np.ndarray) -> np.ndarray:
    """(p x p) share of usable replicates in which subject k is above subject j (ties count half): [j, k]."""
    reps = replicates[np.all(np.isfinite(replicates), axis=1)]
    if not len(reps):
        return np.full((replicates.shape[1],) * 2, np.nan)
    greater = (reps[:, None, :] > reps[:, :, None]).mean(axis=0)
    ties = (reps[:, None, :] == reps[:, :, None]).mean(axis=0)
    return greater + ties / 2


def rank_sets(subject_ids: Sequence[str], ranks: Sequence[int], estimates: Sequence[float], replicates: np.ndarray,
              confidence: Fraction) -> list[RankSet]:
    """The rank_sets.csv rows of the ranked subjects (in the order given: leaderboard order)."""
    simul, marginal = rank_confidence_sets(estimates, replicates, confidence)
    return [RankSet(sid, rank, lo, hi, mlo, mhi)
            for sid, rank, (lo, hi), (mlo, mhi) in zip(subject_ids, ranks, simul, marginal)]

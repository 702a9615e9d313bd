"""Straightforward reference implementations that the tests check production against (never imported by scripts/).

Production computes the case-level statistics of aggregate_metrics.md §18-§21 with numpy over per-case
summaries (the functions the doc names). The functions here compute the same numbers the obvious way, from
the per-run rows or by brute-force enumeration, in a few lines each.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from rgbench.compute.derive import PASS, RunRow


def case_means(rows: Sequence[RunRow], alpha: Fraction, max_score: int) -> dict[str, tuple[Fraction, Fraction]]:
    """case_id -> (mean Q_final contribution, mean Pass) over the case's runs, by plain loops."""
    by_case: dict[str, list[RunRow]] = defaultdict(list)
    for row in rows:
        by_case[row.case_id].append(row)
    out = {}
    for case, runs in by_case.items():
        q = [alpha * (r.classification == PASS) + (1 - alpha) * Fraction(r.clipped_score, max_score) for r in runs]
        out[case] = (sum(q, Fraction(0)) / len(runs), Fraction(sum(r.classification == PASS for r in runs), len(runs)))
    return out


def sign_flip_p(differences: Sequence[Fraction]) -> Fraction:
    """Exact two-sided sign-flip p-value by listing every sign pattern with itertools."""
    observed = abs(sum(differences, Fraction(0)))
    patterns = list(itertools.product((-1, 1), repeat=len(differences)))
    hits = sum(1 for signs in patterns if abs(sum((s * d for s, d in zip(signs, differences)), Fraction(0))) >= observed)
    return Fraction(hits, len(patterns))


def rank_sets_brute_force(estimates: Sequence[float], replicates: np.ndarray, confidence: float,
                          simultaneous: bool) -> list[tuple[int, int]]:
    """The confidence sets for ranks by their definition, with loops and a permutation search.

    1. For every ordered pair (j, k): σ_jk = SD (n − 1) over replicates of θ*_j − θ*_k.
    2. Critical value: the ``confidence`` quantile (numpy linear) of the per-replicate maximum of
       |θ*_j − θ*_k − (θ̂_j − θ̂_k)| / σ_jk over all pairs (simultaneous) or over the pairs (j, ·) (marginal, per j).
    3. j is significantly above k when (θ̂_j − θ̂_k)/σ_jk > c (σ = 0: when θ̂_j > θ̂_k).
    4. The rank set of j: every rank j takes in some strict ordering of the p subjects that puts each
       significantly-higher subject above the lower one (found by trying all p! orderings).
    """
    p = len(estimates)
    est = [float(e) for e in estimates]
    reps = [list(map(float, row)) for row in replicates if all(np.isfinite(row))]

    def sigma(j, k):
        d = [r[j] - r[k] for r in reps]
        mean = sum(d) / len(d)
        return (sum((x - mean) ** 2 for x in d) / (len(d) - 1)) ** 0.5

    sig = {(j, k): sigma(j, k) for j in range(p) for k in range(p) if j != k}

    def stat(r, pairs):
        values = [abs(r[j] - r[k] - (est[j] - est[k])) / sig[(j, k)] for j, k in pairs if sig[(j, k)] > 1e-12]
        return max(values, default=0.0)

    def above(j, k, c):
        if sig[(j, k)] <= 1e-12:
            return est[j] - est[k] > 1e-12
        return (est[j] - est[k]) / sig[(j, k)] > c

    every = list(sig)
    c_all = float(np.quantile([stat(r, every) for r in reps], confidence))
    out = []
    for j in range(p):
        if simultaneous:
            c = c_all
        else:
            c = float(np.quantile([stat(r, [(j, k) for k in range(p) if k != j]) for r in reps], confidence))
        # with the marginal set only j's own comparisons are decided
        pairs = [(a, b) for a in range(p) for b in range(p) if a != b and (simultaneous or j in (a, b))]
        must = [(a, b) for a, b in pairs if above(a, b, c)]
        ranks = set()
        for order in itertools.permutations(range(p)):
            position = {s: i for i, s in enumerate(order)}
            if all(position[a] < position[b] for a, b in must):
                ranks.add(position[j] + 1)
        out.append((min(ranks), max(ranks)))
    return out

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


def krippendorff_alpha_by_matrix(units: Sequence[dict], metric: str) -> Fraction | None:
    """Krippendorff's alpha from its definition: the coincidence matrix o_ck, then D_o and D_e summed over every
    pair of values (c, k) with δ²(c, k) computed per pair (ordinal: Σ_{g=c..k} n_g − (n_c + n_k)/2, by a loop)."""
    matrix: dict = defaultdict(Fraction)
    for unit in units:
        values = list(unit.values())
        if len(values) < 2:
            continue
        for i, c in enumerate(values):
            for j, k in enumerate(values):
                if i != j:
                    matrix[(c, k)] += Fraction(1, len(values) - 1)
    if not matrix:
        return None
    marginals: dict = defaultdict(Fraction)
    for (c, _), weight in matrix.items():
        marginals[c] += weight
    n = sum(marginals.values(), Fraction(0))
    order = sorted(marginals)

    def delta(c, k):
        if metric == "nominal":
            return Fraction(c != k)
        if metric == "interval":
            return Fraction(c - k) ** 2
        lo, hi = sorted((order.index(c), order.index(k)))
        return (sum((marginals[order[g]] for g in range(lo, hi + 1)), Fraction(0)) - (marginals[c] + marginals[k]) / 2) ** 2

    observed = sum((w * delta(c, k) for (c, k), w in matrix.items()), Fraction(0))
    expected = sum((marginals[c] * marginals[k] * delta(c, k) for c in order for k in order), Fraction(0))
    return None if expected == 0 else 1 - (n - 1) * observed / expected


def alpha_replicates_by_matrix(units: Sequence[dict], metric: str, weights: np.ndarray) -> np.ndarray:
    """Krippendorff's alpha of each weight row in float64, through a values x values coincidence matrix per
    replicate (the form the library used before issue 23: memory replicates x values²): O = W @ (per-unit
    coincidences times L = lcm(m_u − 1)), N_c its marginals, E_ck = [c ≠ k] or (2 Σ_{g=c..k} N_g − N_c − N_k)²,
    alpha = (Σ N_c N_k E_ck − (N − L) Σ O_ck E_ck) / Σ N_c N_k E_ck, NaN where the denominator is 0."""
    import math
    units = [u for u in units if len(u) >= 2]
    values = sorted({v for u in units for v in u.values()})
    index = {v: i for i, v in enumerate(values)}
    k = len(values)
    big_l = math.lcm(1, *(len(u) - 1 for u in units))
    contributions = np.zeros((len(units), k * k), dtype=np.float64)
    for row, unit in enumerate(units):
        share = big_l // (len(unit) - 1)
        ratings = [index[v] for v in unit.values()]
        for i, c in enumerate(ratings):
            for j, d in enumerate(ratings):
                if i != j:
                    contributions[row, c * k + d] += share
    lo, hi = np.minimum.outer(np.arange(k), np.arange(k)), np.maximum.outer(np.arange(k), np.arange(k))
    o = (np.asarray(weights, dtype=np.float64) @ contributions).reshape(-1, k, k)
    marg = o.sum(axis=2)
    n = marg.sum(axis=1)
    if metric == "nominal":
        e = np.broadcast_to(1 - np.eye(k), o.shape)
    else:
        cum = np.concatenate([np.zeros((len(o), 1)), np.cumsum(marg, axis=1)], axis=1)
        e = (2 * (cum[:, hi + 1] - cum[:, lo]) - marg[:, :, None] - marg[:, None, :]) ** 2
    expected = (marg[:, :, None] * marg[:, None, :] * e).sum(axis=(1, 2))
    observed = (o * e).sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(expected != 0, (expected - (n - big_l) * observed) / np.where(expected != 0, expected, 1), np.nan)

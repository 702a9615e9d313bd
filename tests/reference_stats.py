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
from statistics import NormalDist

import numpy as np

from rgbench.compute.derive import PASS, RunRow
from rgbench.stats.judge_assisted import estimate


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


def rank_sets_brute_force(estimates: Sequence[float], sums: np.ndarray, runs: np.ndarray, counts: np.ndarray,
                          confidence: float, simultaneous: bool) -> list[tuple[int, int]]:
    """The confidence sets for ranks by their definition, with loops and a permutation search.

    ``sums[c][j]`` / ``runs[c][j]``: subject j's Q_final numerator (in Q_final units) and runs on case c;
    ``counts[r][c]``: how often replicate r draws case c.

    1. For a replicate's weights w (ones for the data): R_j = Σ_c w_c sums_cj / Σ_c w_c runs_cj, and for every
       pair the standard error SE_jk = sqrt(Σ_c w_c (u_cj / T_j − u_ck / T_k)²) with u_cj = sums_cj − R_j·runs_cj
       and T_j = Σ_c w_c runs_cj (the delta method for a difference of two ratios).
    2. T*_jk = (R*_j − R*_k − (R_j − R_k)) / SE*_jk per replicate and ordered pair (T*_kj = −T*_jk);
       replicates in which a subject has no case drawn are left out.
    3. Stepdown (Romano and Wolf 2005) over the ordered pairs of the family (all of them, simultaneous; those
       with j on either side, marginal, per j): c = the ``confidence`` quantile (numpy linear) of the
       per-replicate maximum of T* over the standing pairs; every standing (a, b) with
       (θ̂_a − θ̂_b)/SE_ab > c is rejected (a is above b); repeat until a step rejects none.
    4. The rank set of j: every rank j takes in some strict ordering of the p subjects that puts each
       significantly-higher subject above the lower one (found by trying all p! orderings).
    """
    p = len(estimates)
    est = [float(e) for e in estimates]
    n_cases = len(sums)

    def fit(w):
        totals = [sum(w[c] * runs[c][j] for c in range(n_cases)) for j in range(p)]
        if min(totals) == 0:
            return None
        ratio = [sum(w[c] * sums[c][j] for c in range(n_cases)) / totals[j] for j in range(p)]
        se = {}
        for j in range(p):
            for k in range(p):
                if j != k:
                    se[(j, k)] = sum(w[c] * ((sums[c][j] - ratio[j] * runs[c][j]) / totals[j]
                                             - (sums[c][k] - ratio[k] * runs[c][k]) / totals[k]) ** 2
                                     for c in range(n_cases)) ** 0.5
        return ratio, se

    theta, sig = fit([1.0] * n_cases)
    reps = [f for f in (fit(list(map(float, w))) for w in counts) if f is not None]

    def stat(rep, pairs):
        ratio, se = rep
        return max((ratio[a] - ratio[b] - (theta[a] - theta[b])) / se[(a, b)] for a, b in pairs)

    out = []
    for j in range(p):
        standing = [(a, b) for a in range(p) for b in range(p) if a != b and (simultaneous or j in (a, b))]
        must = []
        while standing:
            c = float(np.quantile([stat(r, standing) for r in reps], confidence))
            new = [(a, b) for a, b in standing if (est[a] - est[b]) / sig[(a, b)] > c]
            if not new:
                break
            must += new
            standing = [pair for pair in standing if pair not in new]
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


def mean_statistic(values: np.ndarray):
    """W -> the weighted mean of per-case values (a generic statistic to test the bootstrap on)."""
    from rgbench.stats.bootstrap import ratio_statistic
    return ratio_statistic(values, np.ones(len(values)))


def clt_interval(sums, confidence: Fraction):
    """theta ± z · √V(λ) of the judge-assisted estimate (z the normal quantile of ``confidence``): the CLT interval,
    for the comparison with ppi-python's (the toolkit's interval is the case bootstrap,
    rgbench.stats.judge_assisted.interval). None without a human value."""
    est = estimate(sums)
    if est is None:
        return None
    z = NormalDist().inv_cdf(float(1 + confidence) / 2)
    return float(est.theta) - z * est.standard_error, float(est.theta) + z * est.standard_error


def run_values(row: RunRow, criterion_scores) -> list:
    """The values of one scored run a subject's streams resample, in the order rgbench.stats.seeds' module doc
    gives: run_text's string is canonical_text of this list."""
    return [row.raw_score, row.rubric_floor, row.rubric_ceiling, row.clipped_score, row.has_critical_fail,
            row.has_recoverable_fail, row.classification, row.reported_confidence, row.correctness,
            sorted([name, score] for name, score in criterion_scores)]

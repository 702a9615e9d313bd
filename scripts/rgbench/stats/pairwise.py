"""Paired comparisons of two subjects at the case level (pairwise.csv), Holm's adjustment, power.

For subjects a and b, the **shared cases** are the cases both have scored runs on. Each subject's case
is summarised by its per-case means (:meth:`.case_summary.CaseSummary.case_means`): the Q_final
contribution alpha·[Pass] + (1 − alpha)·clipped/max_score and Pass. The per-case differences
d_c = mean_a(c) − mean_b(c) are the data (:func:`paired_case_differences`): nothing pairs runs by their
label, every run of a shared case is used, and a case counts once however many runs it has.

- q_diff, p_diff: the mean of d_c over the shared cases, exact; their case-bootstrap BCa intervals
  resample the shared cases with the pair's own stream (:mod:`.seeds`).
- p_value: :func:`sign_flip_test` of the Q_final differences (Fisher's randomisation test for paired
  data: under "no difference" each d_c is as likely to be −d_c), exact over all 2ⁿ sign patterns when
  n ≤ ``EXACT_MAX_CASES``, else seeded Monte Carlo.
- p_holm: :func:`holm` over every pair with a shared case (family-wise error); p_bh:
  :func:`benjamini_hochberg` over the same pairs (false discovery rate). config.yaml's
  ``pairwise_correction`` (``holm``, the default, or ``benjamini-hochberg``) says which one
  ``significantly_better`` reads.
- q_diff_sd and the power columns: :func:`minimum_detectable_difference`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from statistics import NormalDist

import numpy as np

from .bootstrap import bca_interval, case_counts, mean_statistic
from .case_summary import CaseSummary
from .seeds import generator

EXACT_MAX_CASES = 16   # 2**16 = 65,536 sign patterns: exact enumeration is cheap up to here
POWER = Fraction(8, 10)
EXACT, MONTE_CARLO = "exact", "monte-carlo"


@dataclass(frozen=True)
class PairwiseRow:
    """One row of pairwise.csv (a < b). Every statistic is None when the pair shares no case.

    q_diff, p_diff: mean per-case difference a − b of the Q_final contribution and of Pass, in [−1, 1],
    > 0 when a is higher; *_low/*_high their BCa bounds; p_value, test: the sign-flip test of q_diff;
    p_holm: adjusted over the pairs; q_diff_sd, p_diff_sd: SD of the per-case differences (n − 1);
    q_mde, p_mde: :func:`minimum_detectable_difference`.
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


def paired_case_differences(a: CaseSummary, b: CaseSummary) -> tuple[tuple[str, ...], list[Fraction], list[Fraction]]:
    """(shared case ids sorted, per-case Q_final-contribution differences a − b, per-case Pass differences), exact."""
    qa, pa = a.case_means()
    qb, pb = b.case_means()
    at_b = {c: i for i, c in enumerate(b.case_ids)}
    shared = [(c, i, at_b[c]) for i, c in enumerate(a.case_ids) if c in at_b]
    return (tuple(c for c, _, _ in shared), [qa[i] - qb[j] for _, i, j in shared],
            [pa[i] - pb[j] for _, i, j in shared])


def _integers(values: Sequence[Fraction]) -> np.ndarray:
    """The values times the lcm of their denominators, as int64 (exact: same order, same ties)."""
    scale = math.lcm(1, *(v.denominator for v in values))
    return np.array([int(v * scale) for v in values], dtype=np.int64)


def sign_flip_test(differences: Sequence[Fraction], rng: np.random.Generator | None, resamples: int,
                   exact_max: int = EXACT_MAX_CASES) -> tuple[Fraction, str]:
    """(two-sided p-value, ``exact`` or ``monte-carlo``) of the paired sign-flip test of mean difference 0.

    T = Σ d_c. Exact (n ≤ exact_max): p = #{s ∈ {−1, 1}ⁿ : |Σ s_c d_c| ≥ |T|} / 2ⁿ. Otherwise, with M =
    ``resamples`` sign patterns drawn uniformly from ``rng``: p = (1 + #{|T*| ≥ |T|}) / (1 + M), which is
    a valid p-value for any M (Phipson & Smyth 2010). Computed on integers, so ties are exact. n = 0 is a
    ValueError; every difference 0 gives p = 1.
    """
    n = len(differences)
    if n == 0:
        raise ValueError("the sign-flip test needs at least one case")
    x = _integers(differences)
    observed = abs(int(x.sum()))
    if float(np.abs(x).sum()) >= 2 ** 53:
        raise OverflowError("the scaled differences do not fit exactly in float64")
    xf = x.astype(np.float64)               # every partial sum an integer below 2**53: float64 BLAS is exact
    if n <= exact_max:
        patterns = (((np.arange(2 ** n)[:, None] >> np.arange(n)) & 1) * 2 - 1).astype(np.float64)
        return Fraction(int(np.count_nonzero(np.abs(patterns @ xf) >= observed)), 2 ** n), EXACT
    if rng is None:
        raise ValueError("a Monte Carlo sign-flip test needs a random stream")
    signs = (rng.integers(0, 2, size=(resamples, n)) * 2 - 1).astype(np.float64)
    hits = int(np.count_nonzero(np.abs(signs @ xf) >= observed))
    return Fraction(1 + hits, 1 + resamples), MONTE_CARLO


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


CORRECTIONS = ("holm", "benjamini-hochberg")  # config.yaml's pairwise_correction


def minimum_detectable_difference(sd: float | None, n: int, level: Fraction, power: Fraction = POWER) -> float | None:
    """(z_{1−level/2} + z_power) · sd / √n: the smallest true mean per-case difference a two-sided test at
    ``level`` detects with probability ``power`` (normal approximation of the paired test, sd the SD of
    the per-case differences). None when n < 2, or sd is None or 0 (no case-to-case spread measured:
    the design's resolution is unknown, not perfect)."""
    if sd is None or sd <= 0 or n < 2:
        return None
    normal = NormalDist()
    return (normal.inv_cdf(1 - float(level) / 2) + normal.inv_cdf(float(power))) * sd / math.sqrt(n)


def _sd(values: Sequence[Fraction]) -> float | None:
    return float(np.std(np.array([float(v) for v in values]), ddof=1)) if len(values) >= 2 else None


def compare_pair(subject_a: str, subject_b: str, a: CaseSummary, b: CaseSummary, rng: np.random.Generator,
                 *, resamples: int, confidence: Fraction, level: Fraction) -> PairwiseRow:
    """One pair's row without p_holm (:func:`pairwise_table` adds it); ``rng`` is the pair's stream."""
    shared, dq, dp = paired_case_differences(a, b)
    n = len(shared)
    if n == 0:
        return PairwiseRow(subject_a, subject_b, 0)
    counts = case_counts(rng, n, resamples)
    q_bounds = bca_interval(mean_statistic(np.array([float(v) for v in dq])), n, counts, confidence)
    p_bounds = bca_interval(mean_statistic(np.array([float(v) for v in dp])), n, counts, confidence)
    assert q_bounds is not None and p_bounds is not None   # None only for n = 0
    p_value, test = sign_flip_test(dq, rng, resamples)
    q_sd, p_sd = _sd(dq), _sd(dp)
    return PairwiseRow(subject_a, subject_b, n, sum(dq, Fraction(0)) / n, *q_bounds, sum(dp, Fraction(0)) / n,
                       *p_bounds, p_value, test, None, q_sd, p_sd,
                       minimum_detectable_difference(q_sd, n, level), minimum_detectable_difference(p_sd, n, level))


def pairwise_table(summaries: Mapping[str, CaseSummary], digests: Mapping[str, str], *, resamples: int,
                   confidence: Fraction, level: Fraction) -> list[PairwiseRow]:
    """Every pair (a < b, code-point order) of the subjects of ``summaries``, with p_holm over the pairs
    sharing a case. The pair's stream is ``generator("pair", [digest_a, digest_b])``."""
    ids = sorted(summaries)
    rows = [compare_pair(a, b, summaries[a], summaries[b], generator("pair", [digests[a], digests[b]]),
                         resamples=resamples, confidence=confidence, level=level)
            for i, a in enumerate(ids) for b in ids[i + 1:]]
    tested = [i for i, row in enumerate(rows) if row.p_value is not None]
    p_values = [rows[i].p_value for i in tested]
    for i, p, q in zip(tested, holm(p_values), benjamini_hochberg(p_values)):   # type: ignore[arg-type]
        rows[i] = replace(rows[i], p_holm=p, p_bh=q)
    return rows


def significantly_better(row: PairwiseRow, level: Fraction, correction: str = "holm") -> str | None:
    """The subject of the pair whose Q_final contribution is significantly higher (the adjusted p of
    ``correction``, p_holm or p_bh, below ``level``), or None."""
    adjusted = row.p_bh if correction == "benjamini-hochberg" else row.p_holm
    if adjusted is None or row.q_diff is None or not adjusted < level or row.q_diff == 0:
        return None
    return row.subject_a if row.q_diff > 0 else row.subject_b

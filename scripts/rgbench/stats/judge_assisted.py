"""Judge-assisted, human-anchored means (issue 28): the inverse-probability-weighted PPI++ estimate theta = Hy +
λ (Mf − Hf) with the case as the unit, its case-bootstrap intervals, and the stratified draw of runs for a human.
Method, formulas, references and degenerate cases: docs/judge_assisted.md; the board: :mod:`.judge_assisted_board`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from itertools import combinations_with_replacement
from typing import NamedTuple, TypeVar

import numpy as np

from .bootstrap import Interval, numbers_like, percentile_bounds
from .seeds import data_digest, generator

Number = int | Fraction
K = TypeVar("K")
Part = tuple[int, float]   # (units K_g, their share V_g of the estimate's variance)


class Run(NamedTuple):
    """One run of a subject: its case, the judge's value, the human's (None without one), its weight w (1/π for
    one draw, :meth:`rgbench.load.draws.HumanDraws.weight` over several; 0 outside every draw: never counted here)
    and the judge's value split in ``parts`` summing to it, each a control with its own λ (Q_final: its pass part
    and its score part; docs/judge_assisted.md, "Two controls"); empty: the judge's value is the one control."""

    case_id: str
    judge: Number
    human: Number | None = None
    weight: Number = 1
    parts: tuple[Number, ...] = ()

    @property
    def controls(self) -> tuple[Number, ...]:
        """The judge's values that are controls: its parts, else its value."""
        return self.parts or (self.judge,)


@dataclass(frozen=True)
class CaseSums:
    """Per-case sums over a case's runs, exact, cases in ``case_ids`` order (f, y: a run's judge and human value; ξ/π
    its weight, ξ = 1 when drawn): ``runs`` n_c, ``labelled`` the runs with a human value, ``drawn`` m_c = Σ ξ/π,
    ``human`` Y_c = Σ ξ y/π, ``judge`` F_c = Σ f, ``judge_drawn`` G_c = Σ ξ f/π; ``parts`` (F_c, G_c) of each of
    the judge's :attr:`Run.parts` (empty: one control, f)."""

    case_ids: tuple[str, ...]
    runs: tuple[int, ...]
    labelled: tuple[int, ...]
    drawn: tuple[Fraction, ...]
    human: tuple[Fraction, ...]
    judge: tuple[Fraction, ...]
    judge_drawn: tuple[Fraction, ...]
    parts: tuple[tuple[tuple[Fraction, ...], tuple[Fraction, ...]], ...] = ()

    @property
    def controls(self) -> tuple[tuple[tuple[Fraction, ...], tuple[Fraction, ...]], ...]:
        """(F, G) of each control: the judge's parts, else its value."""
        return self.parts or ((self.judge, self.judge_drawn),)

    @property
    def labels(self) -> int:
        """The human values used (runs drawn and graded)."""
        return sum(self.labelled)

    def labels_in(self, cases: np.ndarray) -> int:
        """The human values used on the cases of the mask ``cases``."""
        return int(np.asarray(self.labelled, dtype=np.int64)[cases].sum())

    def restricted(self, case_ids: Sequence[str]) -> CaseSums:
        """The sums on the cases ``case_ids``, in that order; a case this subject lacks is all 0 (adds to no sum)."""
        index = {c: i for i, c in enumerate(self.case_ids)}
        def col(values: tuple) -> tuple:
            return tuple(values[index[c]] if c in index else 0 for c in case_ids)
        return CaseSums(tuple(case_ids), col(self.runs), col(self.labelled), col(self.drawn), col(self.human),
                        col(self.judge), col(self.judge_drawn), tuple((col(f), col(g)) for f, g in self.parts))

    @cached_property
    def moments(self) -> Moments:
        """:func:`case_moments` of these sums, computed once."""
        return case_moments(self)


def case_sums(runs: Sequence[Run]) -> CaseSums:
    """The per-case sums of one subject's runs, cases sorted by id; a run with a human value and w > 0 is labelled.
    ValueError on a negative weight, or on parts that are not two, the same for every run, summing to the judge's
    value."""
    shapes = {len(run.parts) for run in runs}
    if shapes - {0, 2} or len(shapes) > 1:
        raise ValueError(f"the runs' judge values are split in {sorted(shapes)} parts, not all in 2 or all in none")
    by_case: dict[str, list[Fraction]] = {}
    for run in runs:
        w = Fraction(0 if run.human is None else run.weight)
        if w < 0:
            raise ValueError(f"case {run.case_id}: a labelled run has weight {w}, below 0 "
                             "(a weight is an inverse probability: 0 for a run no draw listed)")
        if run.parts and sum(map(Fraction, run.parts)) != run.judge:
            raise ValueError(f"case {run.case_id}: the judge's parts {run.parts} do not sum to its value {run.judge}")
        f = Fraction(run.judge)
        adds = [Fraction(1), Fraction(w != 0), w, Fraction(run.human or 0) * w, f, f * w]   # n, labelled, m, Y, F, G
        adds += [v for p in map(Fraction, run.parts) for v in (p, p * w)]   # each part's F and G
        by_case[run.case_id] = [s + v for s, v in zip(by_case.get(run.case_id, [Fraction(0)] * len(adds)), adds)]
    ids = tuple(sorted(by_case))
    columns = [tuple(by_case[c][j] for c in ids) for j in range(len(by_case[ids[0]]) if ids else 6)]
    parts = tuple((columns[j], columns[j + 1]) for j in range(6, len(columns), 2))
    drawn, human, judge, judge_drawn = columns[2:6]
    return CaseSums(ids, tuple(map(int, columns[0])), tuple(map(int, columns[1])), drawn, human, judge, judge_drawn, parts)


def products(base: int) -> tuple[tuple[int, int], ...]:
    """The pairs (i, j), i <= j, of ``base`` per-case sums whose products :class:`Moments` holds, in its order."""
    return tuple(combinations_with_replacement(range(base), 2))


class Moments(NamedTuple):
    """theta's sufficient statistics per case (docs/judge_assisted.md, "Computing"): the 3 + 2k base columns n, m
    and Y, then F and G of each of the k controls, centred at ``centre`` = (Hy, then Mf and Hf of each control) of
    all the subject's cases (Y − Hy m, F − Mf n, G − Hf m, so that the variances subtract no large numbers), then
    the products of every pair of them (:func:`products`): 20 columns with one control, 35 with two. Case c's
    column j is ``numerators[j][c] / denominators[j]`` exactly (Python ints, summed in ``column_sums``);
    ``floats`` (K x columns) holds the same values, each rounded once."""

    numerators: tuple[tuple[int, ...], ...]
    denominators: tuple[int, ...]
    column_sums: tuple[int, ...]
    floats: np.ndarray
    centre: tuple[Fraction, ...]

    def total(self, cases: np.ndarray) -> np.ndarray:
        """The exact column sums over the cases where the mask ``cases`` is True (1 x columns Fractions), the
        others' subtracted from all the cases' (a pair leaves out few)."""
        left = np.flatnonzero(~cases).tolist()
        return np.array([[Fraction(whole - sum(column[i] for i in left), d) for whole, column, d
                          in zip(self.column_sums, self.numerators, self.denominators)]], dtype=object)


def _over(values: Sequence[Fraction]) -> tuple[list[int], int]:
    """``values`` as Python integers over their least common denominator (numpy's would overflow)."""
    d = math.lcm(*(int(v.denominator) for v in values)) if values else 1
    return [int(v.numerator) * (d // int(v.denominator)) for v in values], d


def _centred(x: list[int], dx: int, z: list[int], dz: int, c: Fraction) -> tuple[list[int], int]:
    """x/dx − c z/dz per case, as integers over dx · (c's denominator) · dz."""
    p, q = c.numerator, c.denominator
    return [xi * q * dz - p * zi * dx for xi, zi in zip(x, z)], dx * q * dz


def case_moments(sums: CaseSums) -> Moments:
    """The :class:`Moments` of one subject's sums, in integers (Fraction arithmetic per case, as the exact estimate
    took before, was half the judge-assisted board's time on 805 cases)."""
    n, m, y = (_over([Fraction(v) for v in column]) for column in (sums.runs, sums.drawn, sums.human))
    big_n, big_m = Fraction(sum(n[0]), n[1]), Fraction(sum(m[0]), m[1])
    def mean(v: tuple[list[int], int], over: Fraction) -> Fraction:
        return Fraction(sum(v[0]), v[1]) / over if over else Fraction(0)
    hy = mean(y, big_m)
    first, centre = [n, m, _centred(*y, *m, hy)], [hy]
    for f, g in ((_over(list(map(Fraction, f))), _over(list(map(Fraction, g)))) for f, g in sums.controls):
        mf, hf = mean(f, big_n), mean(g, big_m)
        first += [_centred(*f, *n, mf), _centred(*g, *m, hf)]
        centre += [mf, hf]
    columns = first + [([a * b for a, b in zip(first[i][0], first[j][0])], first[i][1] * first[j][1])
                       for i, j in products(len(first))]
    floats = np.array([[v / d for v in values] for values, d in columns], dtype=np.float64).reshape(len(columns), -1).T
    return Moments(tuple(tuple(v) for v, _ in columns), tuple(d for _, d in columns),
                   tuple(sum(v) for v, _ in columns), np.ascontiguousarray(floats), tuple(centre))


class Fit(NamedTuple):
    """Per row of case weights: theta, λ (R x k, a column per control), V(λ) = Σ w u² and V(0) = Σ w a² (the
    linearised variances of theta and of Hy; u = a + λ·b, :func:`influence`), and what :func:`influence` reads:
    the row's base means less the centre's (Hy, then Mf and Hf of each control), N and M (not NaN where M = 0)."""

    theta: np.ndarray
    lam: np.ndarray
    variance: np.ndarray
    human_only: np.ndarray
    shifts: tuple[np.ndarray, ...]
    sizes: tuple[np.ndarray, np.ndarray]


def lambda_cap(controls: int) -> int | float:
    """λ's upper bound with ``controls`` controls: 1 with one (PPI++'s [0, 1]), none with two (a part stands in for
    more than itself: docs/judge_assisted.md, "Two controls"). The lower bound is 0."""
    return 1 if controls == 1 else math.inf


def tuned(saa: np.ndarray, sab: list[np.ndarray], sbb: list[list[np.ndarray]]) -> list[np.ndarray]:
    """λ minimising V(λ) = saa + 2 λ·sab + λᵀ sbb λ per row, in the arrays' arithmetic (docs/judge_assisted.md,
    "λ, per subject" and "Two controls"). One control: −sab/sbb clipped to [0, 1] (0 where sbb is not above 0).
    Two: the least on λ >= 0 (no cap: a part stands in for more than itself). V is convex, so that is the
    unconstrained −sbb⁻¹ sab when both are >= 0, else the better of the two edges' clipped minimisers (λ₂ = 0 first,
    so a control with sbb 0 keeps λ 0 on a tie)."""
    def edge(a: np.ndarray, b: np.ndarray) -> np.ndarray:   # argmin over λ >= 0 of 2 λ a + λ² b
        return np.maximum(np.where(b > 0, -a / np.where(b > 0, b, 1), 0), 0)
    if len(sab) == 1:
        return [np.minimum(edge(sab[0], sbb[0][0]), lambda_cap(1))]
    (a1, a2), ((s11, s12), (_, s22)) = sab, sbb
    def v(l1: np.ndarray, l2: np.ndarray) -> np.ndarray:
        return 2 * (l1 * a1 + l2 * a2) + l1 * l1 * s11 + 2 * l1 * l2 * s12 + l2 * l2 * s22
    zero = 0 * saa
    det = s11 * s22 - s12 * s12
    # in float, b₁ and b₂ within 1e-9 of collinear leave the solve to rounding: the edges hold the least V there
    solvable = det > (0 if saa.dtype == object else 1e-9 * s11 * s22)
    safe = np.where(solvable, det, 1)
    inner = ((s12 * a2 - s22 * a1) / safe, (s12 * a1 - s11 * a2) / safe)
    inside = solvable & (inner[0] >= 0) & (inner[1] >= 0)
    first, second = (edge(a1, s11), zero), (zero, edge(a2, s22))
    best = tuple(np.where(v(*second) < v(*first), b, a) for a, b in zip(first, second))
    return [np.where(inside, i, b) for i, b in zip(inner, best)]


def solved(t: np.ndarray, centre: tuple[Fraction, ...]) -> Fit:
    """:class:`Fit` per row of ``t`` (R x columns: :class:`Moments`' columns summed with a row of case weights),
    every sum of docs/judge_assisted.md from them, λ by :func:`tuned`, in t's arithmetic: exact for Fractions, else
    float64. NaN where M = 0."""
    controls = (len(centre) - 1) // 2
    base = 3 + 2 * controls
    column = {pair: base + i for i, pair in enumerate(products(base))}
    def s(i: int, j: int) -> np.ndarray:
        return t[:, column[min(i, j), max(i, j)]]
    means = numbers_like(t, centre)
    n, m = t[:, 0], t[:, 1]
    anchored = m != 0
    big_n, big_m = np.where(n != 0, n, 1), np.where(anchored, m, 1)
    over = {i: 0 if i % 2 else 1 for i in range(2, base)}   # the count each base sum is centred on: Y and G on m, F on n
    d = {i: t[:, i] / (big_m if over[i] else big_n) for i in over}   # the row's means less the centre's
    def c(i: int, j: int) -> np.ndarray:   # Σ w (X_i − d_i z_i)(X_j − d_j z_j), z the count each is centred on
        zi, zj = over[i], over[j]
        return s(i, j) - d[j] * s(i, zj) - d[i] * s(zi, j) + d[i] * d[j] * s(zi, zj)
    aa = c(2, 2)
    across = [c(2, i) for i in range(3, base)]
    if t.dtype != object:   # in float, Σ w A² within rounding of 0 (1e-12 of its terms) is 0: A = 0 on every case, as
        flat = aa <= 1e-12 * (s(2, 2) + np.abs(2 * d[2] * s(2, 1)) + d[2] * d[2] * s(1, 1))   # when every human value
        aa, across = np.where(flat, 0.0, aa), [np.where(flat, 0.0, v) for v in across]     # drawn is equal
    # a = A/M; b_j = P_j/N − Q_j/M, P_j = F_j − Mf_j n and Q_j = G_j − Hf_j m (the row's means)
    nm, mm = big_n * big_m, big_m * big_m
    saa = aa / mm
    sab = [across[2 * j] / nm - across[2 * j + 1] / mm for j in range(controls)]
    sbb = [[c(3 + 2 * j, 3 + 2 * k) / (big_n * big_n) - c(3 + 2 * j, 4 + 2 * k) / nm - c(4 + 2 * j, 3 + 2 * k) / nm
            + c(4 + 2 * j, 4 + 2 * k) / mm for k in range(controls)] for j in range(controls)]
    lam = tuned(saa, sab, sbb)
    theta = means[0] + d[2] + sum(lam[j] * (means[1 + 2 * j] + d[3 + 2 * j] - means[2 + 2 * j] - d[4 + 2 * j])
                                  for j in range(controls))
    variance = saa + 2 * sum(lam[j] * sab[j] for j in range(controls)) + sum(
        lam[j] * lam[k] * sbb[j][k] for j in range(controls) for k in range(controls))
    theta, variance, saa = (np.where(anchored, v, np.nan) for v in (theta, variance, saa))
    held = np.column_stack([np.where(anchored, v, np.nan) for v in lam])
    return Fit(theta, held, variance, saa, tuple(d.values()), (big_n, big_m))


def fit(sums: CaseSums, w: np.ndarray) -> Fit:
    """:func:`solved` per row of the case weights ``w`` (R x K; 1 for the data, a replicate's bootstrap counts), in
    float64."""
    return solved(np.asarray(w, dtype=np.float64) @ sums.moments.floats, sums.moments.centre)


def influence(sums: CaseSums, w: np.ndarray) -> np.ndarray:
    """u = a + λ b (R x K, float): each case's influence on theta (a, b: docs/judge_assisted.md) per row of the case
    weights ``w`` (R x K), λ and the means those of the row."""
    x = sums.moments.floats
    fitted = fit(sums, w)
    shifts = [v[:, None] for v in fitted.shifts]
    big_n, big_m = (v[:, None] for v in fitted.sizes)
    n, m = x[:, 0], x[:, 1]
    lam = np.where(np.isnan(fitted.lam), 0.0, fitted.lam)
    u = (x[:, 2] - shifts[0] * m) / big_m
    for j in range(lam.shape[1]):
        f, g = x[:, 3 + 2 * j], x[:, 4 + 2 * j]
        u = u + lam[:, j:j + 1] * ((f - shifts[1 + 2 * j] * n) / big_n - (g - shifts[2 + 2 * j] * m) / big_m)
    return u


def _cases(sums: CaseSums, cases: np.ndarray | None) -> np.ndarray:
    """The mask of the subject's cases (a run or more) among ``cases`` (a mask; None: all)."""
    has = np.asarray(sums.runs) > 0
    return has if cases is None else has & cases


class Estimate(NamedTuple):
    """One subject's estimate: ``theta`` and ``lam`` (one per control: :attr:`CaseSums.controls`) exact, ``labels``
    the human values used, ``standard_error`` √V(λ) and ``effective`` = labels · V(0) / V(λ), the human grades it
    is worth (inf when V(λ) = 0 < V(0))."""

    theta: Fraction
    lam: tuple[Fraction, ...]
    labels: int
    standard_error: float
    effective: float


def estimate(sums: CaseSums, cases: np.ndarray | None = None) -> Estimate | None:
    """The estimate of the mean of y over the subject's runs (on the cases of the mask ``cases``: a pair's shared
    ones; None: all), exactly; None without a human value there. Not clipped to y's range (it may leave it by up to
    Σ λ_j |Mf_j − Hf_j|); λ = 0 and theta = Hy for π = 1 everywhere or a constant judge."""
    on = _cases(sums, cases)
    labels = sums.labels_in(on)
    if not labels:
        return None
    solution = solved(sums.moments.total(on), sums.moments.centre)
    theta, variance, human_only = (Fraction(v[0]) for v in (solution.theta, solution.variance, solution.human_only))
    lam = tuple(Fraction(v) for v in solution.lam[0])
    effective = (labels * float(human_only / variance) if variance else
                 float("inf") if human_only else float(labels))
    return Estimate(theta, lam, labels, float(variance) ** 0.5, effective)


def expanded_confidence(confidence: Fraction, parts: Sequence[Part], resamples: int) -> Fraction:
    """Hesterberg's expanded level c' = 2 Φ(t_{ν, (1+c)/2} · s) − 1 for a bootstrap variance summing independent
    ``parts`` (:func:`variance_parts`; ν and s: docs/judge_assisted.md, "Interval"), parts of no variance left out
    (all: the first counts). At most 1 − 1/B (B = ``resamples``), which a part of K <= 3 reaches, and any of K <= 1."""
    from scipy.special import ndtr, stdtrit  # imported here: scipy's import costs time (as in .pairwise)
    cap = 1 - Fraction(1, resamples)
    if min(k for k, _ in parts) < 2:   # a part of one unit: no df, even where its influence happens to be 0
        return cap
    counted = [(k, v) for k, v in parts if v > 0] or [(parts[0][0], 1.0)]
    total = sum(v for _, v in counted)
    df = total * total / sum(v * v / (k - 1) for k, v in counted)
    shortfall = sum(v * k / (k - 1) for k, v in counted) / total
    t = float(stdtrit(df, float((1 + confidence) / 2)))
    return min(Fraction(2 * float(ndtr(t * math.sqrt(shortfall))) - 1), cap)


def labelled_cases(sums: CaseSums) -> int:
    """K_L: the cases with at least one human value."""
    return sum(1 for n in sums.labelled if n)


def variance_parts(sums: CaseSums, cases: np.ndarray | None = None) -> list[Part]:
    """[(K_L, V_L), (K_U, V_U)] for :func:`expanded_confidence`: theta's V(λ) = Σ u_c² (:func:`influence`, float) on
    the cases with a human value and on the K_U others (on the cases of the mask ``cases``; None: all); one part
    [(K_L, V(λ))] with fewer than two others."""
    on = _cases(sums, cases)
    u = influence(sums, on[None, :].astype(np.float64))[0]
    has = (np.asarray(sums.labelled) > 0) & on
    rest = on & ~has
    known, others = int(has.sum()), int(rest.sum())
    labelled, unlabelled = float(np.sum(u[has] ** 2)), float(np.sum(u[rest] ** 2))
    return [(known, labelled + unlabelled)] if others < 2 else [(known, labelled), (others, unlabelled)]


def replicated(sums: CaseSums, counts: np.ndarray, cases: np.ndarray | None = None,
               drawn: np.ndarray | None = None) -> np.ndarray:
    """Theta's replicates over the case draw ``counts`` (B x K, the sums' cases), on the cases of the mask
    ``cases`` (None: all the subject's), in float, λ re-estimated in each (NaN where a replicate drew no human
    value; the estimate itself is :func:`estimate`'s, exact). All from the :class:`Moments`'
    column sums, those of the cases left out subtracted; ``drawn`` = counts @ moments.floats when the caller keeps
    it (a board, for every pair of a subject). ValueError when ``counts`` has not one column per case."""
    if counts.ndim != 2 or counts.shape[1] != len(sums.case_ids):
        raise ValueError(f"the draw has shape {counts.shape}, not one column for each of the {len(sums.case_ids)} cases")
    mom = sums.moments
    on = _cases(sums, cases)
    left = (np.asarray(sums.runs) > 0) & ~on
    drawn = counts @ mom.floats if drawn is None else drawn
    if left.any():
        drawn = drawn - counts[:, left] @ mom.floats[left]
    return solved(drawn, mom.centre).theta


def interval(sums: CaseSums, counts: np.ndarray, confidence: Fraction, replicates: np.ndarray | None = None
             ) -> Interval | None:
    """The case-bootstrap percentile interval of theta over the draw ``counts`` (B x K), λ re-estimated in each
    replicate (one without a human value left out), at :func:`expanded_confidence`, from its :func:`replicated`
    ``replicates`` (computed here if not given); None without a human value; one case: the point. Why the percentile,
    not BCa: docs/interval_check.md."""
    if not sums.labels:
        return None
    replicates = replicated(sums, counts) if replicates is None else replicates
    return percentile_bounds(replicates, expanded_confidence(confidence, variance_parts(sums), len(counts)))


def shared(first: CaseSums, second: CaseSums) -> tuple[CaseSums, CaseSums, np.ndarray]:
    """(first, second, the mask of the cases both have runs in) on one list of cases: theirs when they have one (a
    board lists every subject on all its cases), else the cases both have (sorted by id)."""
    if first.case_ids != second.case_ids:
        common = tuple(sorted(set(first.case_ids) & set(second.case_ids)))
        first, second = (s if s.case_ids == common else s.restricted(common) for s in (first, second))
    return first, second, (np.asarray(first.runs) > 0) & (np.asarray(second.runs) > 0)


def difference(first: CaseSums, second: CaseSums) -> Fraction | None:
    """theta(first) − theta(second) on the cases they share, each with its own λ, exactly; None when either has no
    human value there."""
    a, b, on = shared(first, second)
    ea, eb = estimate(a, on), estimate(b, on)
    return None if ea is None or eb is None else ea.theta - eb.theta


def difference_values(first: CaseSums, second: CaseSums, counts: np.ndarray,
                      drawn: tuple[np.ndarray | None, np.ndarray | None] = (None, None)) -> np.ndarray | None:
    """The bootstrap replicates of :func:`difference` over the case draw ``counts`` (B x the cases of
    :func:`shared`'s list): each subject's :func:`replicated` on the cases they share (``drawn``: each one's, if
    kept), differenced; None when either has no human value there."""
    a, b, on = shared(first, second)
    if not (a.labels_in(on) and b.labels_in(on)):
        return None
    reps_a, reps_b = (replicated(s, counts, on, d) for s, d in zip((a, b), drawn))
    return reps_a - reps_b


def difference_interval(first: CaseSums, second: CaseSums, counts: np.ndarray, confidence: Fraction,
                        replicates: np.ndarray | None = None) -> Interval | None:
    """The percentile interval of :func:`difference` from its :func:`difference_values` over the case draw ``counts``
    (given as ``replicates``, or computed here), λ re-estimated per subject, at the higher of the two subjects'
    :func:`expanded_confidence` on the cases they share; None when either has no human value there."""
    replicates = difference_values(first, second, counts) if replicates is None else replicates
    if replicates is None:
        return None
    a, b, on = shared(first, second)
    level = max(expanded_confidence(confidence, variance_parts(s, on), len(counts)) for s in (a, b))
    return percentile_bounds(replicates, level)


def largest_remainder(sizes: Mapping[K, int], minimums: Mapping[K, int], total: int) -> dict[K, int]:
    """``total`` shared between the keys of ``sizes`` in proportion to their sizes by largest remainder, exactly: each
    takes the floor of its quota total · size / Σ sizes, raised to its minimum; while short, the largest remainders one
    more each (never above a size); while over, the key furthest above its quota one less (never below its minimum);
    ties: the earlier key in ``sizes``. ValueError when ``total`` is below Σ minimums or above Σ sizes."""
    whole = sum(sizes.values())
    if not sum(minimums.values()) <= total <= whole:
        raise ValueError(f"cannot share {total} between sizes {dict(sizes)} with minimums {dict(minimums)}")
    keys = list(sizes)
    quota = {k: Fraction(total * sizes[k], whole) for k in keys}
    take = {k: min(sizes[k], max(minimums[k], math.floor(quota[k]))) for k in keys}
    by_remainder = sorted(keys, key=lambda k: math.floor(quota[k]) - quota[k])   # stable: ties keep the keys' order
    while sum(take.values()) < total:
        k = next(k for k in by_remainder if take[k] < sizes[k])
        take[k] += 1
        by_remainder.remove(k)
        by_remainder.append(k)
    while sum(take.values()) > total:
        k = max((k for k in keys if take[k] > minimums[k]), key=lambda k: take[k] - quota[k])   # the first of ties
        take[k] -= 1
    return take


def stratified_draw(strata: Sequence[Hashable], size: int, rng: np.random.Generator) -> tuple[list[bool], list[Fraction]]:
    """(drawn, probability) per unit: ``size`` units drawn by :func:`drawn_within` in the ``strata`` (a label per unit),
    allocated by :func:`largest_remainder` with at least one per stratum: π = n_h / N_h > 0, exactly. The units' order
    must be canonical (not by run label or file). ValueError when ``size`` is below the strata or above the units."""
    sizes = Counter(strata)
    if not len(sizes) <= size <= len(strata):
        raise ValueError(f"cannot draw {size} of {len(strata)} units with at least one in each of {len(sizes)} strata")
    take = largest_remainder({k: sizes[k] for k in sorted(sizes, key=repr)}, dict.fromkeys(sizes, 1), size)
    return drawn_within(strata, take, rng), [Fraction(take[h], sizes[h]) for h in strata]


def drawn_within(strata: Sequence[K], take: Mapping[K, int], rng: np.random.Generator) -> list[bool]:
    """Per unit, whether it is drawn: ``take[h]`` of the units of each stratum h (a label of ``strata``) without
    replacement, the strata in the order of their repr, each by one ``rng.choice`` over its units in their order."""
    groups: dict[K, list[int]] = {}
    for i, label in enumerate(strata):
        groups.setdefault(label, []).append(i)
    drawn = [False] * len(strata)
    for k in sorted(groups, key=repr):
        for i in rng.choice(len(groups[k]), size=take[k], replace=False).tolist():
            drawn[groups[k][i]] = True
    return drawn


def draw_generator(seed: int, label: str, units: Sequence[tuple[str, Number]]) -> np.random.Generator:
    """The stream ``judge-draw`` over the digest of ``["judge-draw", seed, label, units]``: ``label`` a draw's part
    (``draw <k>: <subject_id>``), ``units`` its (case id, judge value) pairs in canonical order (parsed values only)."""
    return generator("judge-draw", [data_digest(["judge-draw", seed, label, [list(u) for u in units]])])

"""A grading budget: how many more human grades a judge-assisted figure needs for a target interval half-width,
or for a pair of subjects' order to be decided (issue 28's `rgbench plan`; docs/judge_assisted.md, "The grading
budget", has the method and its references). The variance splits as V = V_full + T: V_full with every run
human-graded (only more cases shrink it), T what the human draws add (today's T₀: :func:`phase_two_variance`;
after one further draw: :meth:`Phase.term`). Pure functions, on floats but for the configured confidence.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from fractions import Fraction
from statistics import NormalDist
from typing import NamedTuple

import numpy as np

from .judge_assisted import Part, Run, case_sums, estimate, expanded_confidence, labelled_cases, lambda_cap, variance_parts
from .wilson import wilson_interval


class Need(NamedTuple):
    """A subject's budget: ``needed`` further human grades for the target (0 when it is met; None when a further
    draw of every run would not reach it: more cases are needed) and ``half_width_all``, the half-width after that
    draw (the narrowest grading alone can reach)."""

    needed: int | None
    half_width_all: float


class PairNeed(NamedTuple):
    """A pair's budget to decide its order: further human grades of each subject (``first``, ``second``; 0 when
    the order is decided now), None when a further draw of every run left of both would not decide it."""

    first: int | None
    second: int | None


class Phase(NamedTuple):
    """One subject's variance parts: ``s2`` = S²_e, ``labels`` n₀, the runs with a human value and a weight,
    ``cases`` the runs of each of its cases (their sum is N), ``labelled`` K_L, the cases with a human value now,
    ``now`` T₀, the phase-two variance of today's weights (:func:`phase_two_variance`), ``precision`` H, the sum
    of its draws' precisions v_b (:func:`rgbench.load.draws.draw_precision`; inf after a census), and ``split`` the
    board's :func:`.judge_assisted.variance_parts` today (empty: the interval rests on the K_L cases alone)."""

    s2: float
    labels: int
    cases: tuple[int, ...]
    labelled: int
    now: float
    precision: float
    split: tuple[Part, ...] = ()

    @property
    def runs(self) -> int:
        """N, the subject's runs."""
        return sum(self.cases)

    def term(self, labels: float) -> float:
        """T at n = ``labels``: today's n₀ and one further uniform draw of m = n − n₀ over the R = N − n₀ runs not
        drawn yet (as `rgbench assign` draws), its share c = v / (H + v), v = m / (R (R − m)), as
        :meth:`rgbench.load.draws.HumanDraws.weight` pools draws: (1 − c)² T₀ + c² (1/m − 1/R) R² S²_e / N²; 0 at a
        draw of every run left (c = 1), T₀ at m <= 0. After one uniform draw of n₀ it is (1/n − 1/N) S²_e, one
        uniform draw of n."""
        further, left = labels - self.labels, self.runs - self.labels
        if further <= 0 or math.isinf(self.precision):
            return self.now
        if further >= left:
            return 0.0
        v = further / (left * (left - further))
        share = v / (self.precision + v)
        return (1 - share) ** 2 * self.now + share ** 2 * (1 / further - 1 / left) * left ** 2 / self.runs ** 2 * self.s2

    def labelled_at(self, labels: int) -> int:
        """K_L at n = ``labels`` distinct graded runs: :func:`expected_labelled` of n, rounded, never below today's K_L
        (the cases labelled now stay labelled). Non-decreasing in ``labels``; every case at n = N."""
        return max(self.labelled, math.floor(expected_labelled(self.cases, labels) + 0.5))

    def parts(self, labels: int | None = None) -> list[Part]:
        """The variance parts (:func:`.judge_assisted.expanded_confidence`): today's ``split`` at ``labels`` None; at
        n = ``labels``, the :meth:`labelled_at` cases and the others, each keeping today's mean V_U / K_U, the labelled
        the rest of V − T₀ + T(n) (:meth:`term`), at least that mean each (a labelled case keeps its judge part).
        Without a ``split``: [(K_L(n), 1)], K_L's level alone."""
        if labels is None or not self.split:
            return list(self.split) or [(self.labelled if labels is None else self.labelled_at(labels), 1.0)]
        known = self.labelled_at(labels)
        others = len(self.cases) - known
        each = self.split[1][1] / self.split[1][0] if len(self.split) > 1 else 0.0
        total = max(sum(v for _, v in self.split) - self.now + self.term(labels), 0.0)
        if others < 2:
            return [(known, total)]
        return [(known, max(total - each * others, each * known)), (others, each * others)]


def phase(runs: Sequence[Run], precision: float, cases: Collection[str] | None = None) -> Phase:
    """A subject's :class:`Phase` from its runs, only those of ``cases`` if given (a pair's shared cases, which its
    difference and interval are computed on), S²_e and T₀ at the λ of its estimate there (0 without a human
    value), ``precision`` H its draws' over all its runs (:meth:`rgbench.load.draws.HumanDraws.precision`; a pair's
    shared cases take it as it is, exact when the two share every case)."""
    kept = [r for r in runs if cases is None or r.case_id in cases]
    sums = case_sums(kept)
    lam = (0.0,) if (est := estimate(sums)) is None else tuple(map(float, est.lam))
    labelled = [(float(r.human), tuple(map(float, r.controls)), float(r.weight)) for r in kept
                if r.human is not None and r.weight]
    return Phase(residual_variance(labelled, lam), sums.labels, sums.runs, labelled_cases(sums),
                 phase_two_variance(labelled, lam, sum(sums.runs)), precision,
                 tuple(variance_parts(sums)) if sums.labels else ())


def expected_labelled(cases: Sequence[int], labels: float) -> float:
    """The expected number of cases with at least one of ``labels`` runs drawn at random (without replacement)
    from N = Σ r_c, ``cases`` the runs r_c of each case: Σ_c 1 − C(N − r_c, n)/C(N, n), the ratio being
    Π_{i<r_c} (N − n − i)/(N − i) (0 once n > N − r_c). 0 at n = 0, every case at n = N, increasing between."""
    total = sum(cases)
    missed = (math.prod(max(total - labels - i, 0) / (total - i) for i in range(r)) for r in cases)
    return sum(1 - m for m in missed)


def quantile(confidence: Fraction, parts: Sequence[Part], resamples: int) -> float:
    """q: the standard errors each side of the estimate a judge-assisted interval of ``confidence`` whose variance
    has the ``parts`` (:meth:`Phase.parts`) spans, Φ⁻¹((1 + c')/2) at its :func:`.judge_assisted.expanded_confidence`
    c'. One part of K cases: non-increasing in K, at 0.95 2.1474 at 20, 1.9942 at 100, towards 1.96; 3.4808 at 3 or
    fewer with 2,000 replicates (c' capped at 1 − 1/B)."""
    level = float(expanded_confidence(confidence, parts, resamples))
    return NormalDist().inv_cdf((1 + level) / 2)


def fitted(lam: Sequence[float]) -> list[int]:
    """The controls e = y − λ·f is fitted with on the graded runs besides ē: those whose λ_j was tuned strictly
    inside its range (0 to :func:`.judge_assisted.lambda_cap`; at a bound it was clipped, not fitted)."""
    return [j for j, x in enumerate(lam) if 0 < x < lambda_cap(len(lam))]


Labelled = Sequence[tuple[float, Sequence[float], float]]   # graded runs: (y, the judge's controls f, weight w)


def residual_variance(labelled: Labelled, lam: Sequence[float]) -> float:
    """S²_e: the variance of e = y − λ·f over the graded runs ``labelled`` (y, f, w; f the judge's controls,
    :attr:`.judge_assisted.CaseSums.controls`, λ one per control), w the run's inverse-probability weight:
    Σ w (e − ē)² / Σ w g, ē = Σ w e / Σ w and g = :func:`leverage` (equal weights: Σ (e − ē)² / (n − d), a
    regression's residual variance, d the quantities fitted). 0 without residual freedom (:func:`leverage`)."""
    centred, g = _centred(labelled, lam), leverage(labelled, lam)
    return _ratio([w for _, w in centred], centred, g)


def phase_two_variance(labelled: Labelled, lam: Sequence[float], runs: int) -> float:
    """T₀: the variance the human draws add to the estimate today, Σ a (e − ē)² / N² · Σ a / Σ a g with a =
    w (w − 1), over the graded runs ``labelled`` (y, f, w), N = ``runs``, e, ē and g as :func:`residual_variance`'s.
    Why: the estimate's draw error is Σ_r (w_r − 1) e_r / N over every run, of variance Σ_r Var(w_r) e_r² / N² (the
    draws independent of e), and E[w] = 1 makes w (w − 1) an unbiased estimate of Var(w) on the runs with a weight,
    so this needs no run's inclusion probabilities: it holds for stratified and active draws and for several draws
    pooled. One uniform draw of n (w = N/n): (1/n − 1/N) S²_e exactly. 0 without residual freedom."""
    centred, g = _centred(labelled, lam), leverage(labelled, lam)
    a = [w * (w - 1) for _, w in centred]
    return _ratio(a, centred, g) * sum(a) / runs ** 2 if centred else 0.0


def leverage(labelled: Labelled, lam: Sequence[float]) -> list[float]:
    """g_i per graded run: the share of e_i's variance that e_i − ē keeps when ē and the :func:`fitted` λ_j are
    estimated on the same runs by least squares weighted by w, residuals independent with one variance σ²:
    g = diag((I − H)(I − H)ᵀ) = 1 − 2 H_ii + Σ_j H_ij², H = X (Xᵀ W X)⁺ Xᵀ W, X the columns 1 and the fitted
    controls' f. So E[Σ a (e − ē)²] = σ² Σ a g for any a (Seber and Lee, *Linear Regression Analysis*, 2003, §3.3,
    with weights): with equal weights g = 1 − h_ii and Σ g = n − d, the regression's n − d; unequal weights (an
    active draw, draws pooled) leave fewer (docs/judge_assisted.md, "The grading budget"). Empty when the runs are
    no more than X's rank (no residual freedom)."""
    if not labelled:
        return []
    inside = fitted(lam)
    x = np.array([[1.0, *(f[j] for j in inside)] for _, f, _ in labelled])
    w = np.array([w for _, _, w in labelled])
    if len(x) <= np.linalg.matrix_rank(x):
        return []
    m = x @ np.linalg.pinv((x * w[:, None]).T @ x)              # X (Xᵀ W X)⁺
    h = w * np.einsum("ij,ij->i", m, x)                           # H_ii
    squares = np.einsum("ij,jk,ik->i", m, (x * (w * w)[:, None]).T @ x, m)   # Σ_j H_ij² = m_i (Xᵀ W² X) m_iᵀ
    return (1 - 2 * h + squares).tolist()


def _ratio(a: Sequence[float], centred: Sequence[tuple[float, float]], g: Sequence[float]) -> float:
    """Σ a (e − ē)² / Σ a g; 0 without residual freedom (no g) or where Σ a g is 0."""
    below = sum(x * y for x, y in zip(a, g))
    return sum(x * e * e for x, (e, _) in zip(a, centred)) / below if g and below > 0 else 0.0


def _centred(labelled: Labelled, lam: Sequence[float]) -> list[tuple[float, float]]:
    """(e − ē, w) of each graded run, e = y − λ·f, ē = Σ w e / Σ w."""
    if not labelled:
        return []
    residuals = [(y - sum(x * v for x, v in zip(lam, f)), w) for y, f, w in labelled]
    mean = sum(e * w for e, w in residuals) / sum(w for _, w in residuals)
    return [(e - mean, w) for e, w in residuals]


def smallest(low: int, high: int, fits: Callable[[int], bool]) -> int | None:
    """The smallest n in [low, high] with ``fits(n)``, by bisection (``fits`` false then true as n grows); None
    when ``fits(high)`` is false."""
    if not fits(high):
        return None
    while low < high:
        middle = (low + high) // 2
        low, high = (low, middle) if fits(middle) else (middle + 1, high)
    return low


def search(spread: float, phases: Sequence[Phase], half_width: float, confidence: Fraction, resamples: int,
           shares: Callable[[int], Sequence[int]]) -> tuple[int | None, float]:
    """(n, floor) for an interval (one subject's figure, or the difference of two) whose bootstrap replicates have
    the SD ``spread`` today: n the smallest total of human values, from one more than now to N (a further draw of
    every run left), that ``shares`` divides between the subjects of ``phases`` with q · √(V_full + Σ term_i(n_i))
    <= ``half_width`` (:meth:`Phase.term`; by bisection: a term rises at most once, over a small further draw, and q
    nearly never rises; None when none does), floor that half-width after a further draw of every run (the
    narrowest grading can reach without more cases). q is the largest of the subjects' quantiles at their
    :meth:`Phase.parts`; V_full is the current variance, ``spread``², less each subject's T₀, floored at 0 (read
    from the replicates, not from the half-width, so that the interval's shape at few grades does not land in the
    part no grading lowers: docs/judge_assisted.md, "The grading budget")."""
    full = max(spread ** 2 - sum(p.term(p.labels) for p in phases), 0.0)

    def width(total: int) -> float:
        labels = shares(total)
        q = max(quantile(confidence, p.parts(n), resamples) for p, n in zip(phases, labels))
        return q * math.sqrt(sum((p.term(n) for p, n in zip(phases, labels)), full))
    now, every = sum(p.labels for p in phases), sum(p.runs for p in phases)
    return smallest(min(now + 1, every), every, lambda n: width(n) <= half_width), width(every)


def grades_for_half_width(half_width_now: float, spread: float, phase: Phase, half_width: float, confidence: Fraction,
                          resamples: int, wilson: bool = False, min_cases: int = 0) -> Need:
    """Further human grades for the figure's interval, of half-width ``half_width_now`` today and its bootstrap
    replicates' SD ``spread`` (the board's :attr:`.judge_assisted_board.Figure.spread`), to reach
    ``half_width`` (:func:`search`): 0 when the target is met now; None when even a further draw of every run misses
    it (V_full alone is too wide). ``wilson``: a P of 0 or 1, whose interval is Wilson's over its K_L labelled
    cases at ``confidence`` (:func:`.judge_assisted_board.proportion_figure`; half-width z²/(2(K_L + z²))): n is
    the smallest whose K_L(n) gives :func:`.wilson.wilson_interval` a half-width <= ``half_width``, if every further
    grade keeps P there (one that does not makes the interval the bootstrap's, which this cannot foresee).
    ``min_cases``: the target also needs that many cases with a human grade (:meth:`Phase.labelled_at`; the board's
    reliability_min_cases, below which it labels a judge-assisted figure indicative whatever its half-width): n is
    at least the smallest whose K_L(n) reaches it, and None when every run graded does not."""
    every = phase.runs
    first = min(phase.labels + 1, every)   # the counts searched: one more grade than now to every run
    if wilson:
        def width(labels: int) -> float:
            bounds = wilson_interval(0, phase.labelled_at(labels), confidence)
            assert bounds is not None   # K_L >= 1: a P of 0 or 1 rests on a labelled case
            return (bounds[1] - bounds[0]) / 2
        total, floor = smallest(first, every, lambda n: width(n) <= half_width), width(every)
    else:
        total, floor = search(spread, [phase], half_width, confidence, resamples, lambda n: (n,))
    if half_width_now <= half_width and phase.labelled >= min_cases:
        return Need(0, floor)
    enough = smallest(first, every, lambda n: phase.labelled_at(n) >= min_cases)
    return Need(None if total is None or enough is None else max(total, enough) - phase.labels, floor)


def split(total: int, first: Phase, second: Phase) -> tuple[int, int]:
    """``total`` human values shared between two subjects where they narrow a difference most: n_i ∝ S_i (the
    split minimising Σ S_i²/n_i at n₁ + n₂ = total, by Lagrange; half each when both S are 0), the first's share
    rounded, and within [n now, N] for each (a subject graded beyond its share keeps its n; a further draw takes
    at most every run left). ``total`` from n₁ + n₂ now to N₁ + N₂; both counts are non-decreasing in it."""
    spread = (math.sqrt(first.s2), math.sqrt(second.s2)) if first.s2 + second.s2 else (1.0, 1.0)
    share = math.floor(total * spread[0] / sum(spread) + 0.5)
    low = max(first.labels, total - second.runs)
    high = min(first.runs, total - second.labels)
    labels = min(max(share, low), high)
    return labels, total - labels


def pair_grades_for_half_width(half_width_now: float, spread: float, first: Phase, second: Phase, half_width: float,
                               confidence: Fraction, resamples: int) -> PairNeed:
    """Further human grades of each subject for a difference's interval, of half-width ``half_width_now`` today and
    its bootstrap replicates' SD ``spread``, to reach ``half_width`` (the difference's size decides its order): the
    smallest total n₁ + n₂, shared by :func:`split` (:func:`search`). (0, 0) when met now; (None, None) when a
    further draw of every run of both would not."""
    if half_width_now <= half_width:
        return PairNeed(0, 0)
    shares = lambda n: split(n, first, second)
    total, _ = search(spread, [first, second], half_width, confidence, resamples, shares)
    if total is None:
        return PairNeed(None, None)
    a, b = split(total, first, second)
    return PairNeed(a - first.labels, b - second.labels)

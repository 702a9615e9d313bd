"""A grading budget: how many more human grades a judge-assisted figure needs for a target interval half-width,
or for a pair of subjects' order to be decided (issue 28's `rgbench plan`; docs/judge_assisted.md).

The judge-assisted estimate is a two-phase (double) sample: phase one is the benchmark's runs, every one graded
by the judge; phase two the runs a human grades. Its variance splits into the two phases' (Cochran, *Sampling
Techniques*, 3rd ed. 1977, §12.6-12.7, double sampling for the difference and regression estimators; Särndal,
Swensson and Wretman, *Model Assisted Survey Sampling*, 1992, ch. 9):

    V(n) = V_full + (1/n − 1/N) · S²_e

V_full is the variance the figure would have with every one of the N runs human-graded (it shrinks only with
more cases); (1/n − 1/N) · S²_e is what grading n of the N runs leaves, S²_e being the variance over runs of the
residual e = y − λ f (human value minus λ times the judge's). Both are estimated from the current data: S²_e
from the graded runs (:func:`residual_variance`), V_full as the current variance less the current phase-two
term (:func:`full_variance`, floored at 0). The prediction treats the human draw as a simple random sample of
runs; a draw stratified by the judge's grade has the within-stratum S²_e, smaller, so the counts here err on the
side of asking for more grades. bench/plan_check.py measures the predictions against simulated ones.

Every function is pure, on floats (a budget is a planning figure, not a published result).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import NamedTuple


class Need(NamedTuple):
    """A subject's budget: ``labels`` human values now, ``needed`` further human grades for the target (0 when
    it is met; None when grading every run would not reach it: more cases are needed), ``half_width_now`` and
    ``half_width_all`` (every run graded: the narrowest grading alone can reach) on the figure's scale."""

    labels: int
    needed: int | None
    half_width_now: float
    half_width_all: float


class PairNeed(NamedTuple):
    """A pair's budget to decide its order: further human grades of each subject (``first``, ``second``; 0 when
    the order is decided now), None when grading every run of both would not decide it."""

    first: int | None
    second: int | None


class Phase(NamedTuple):
    """One subject's variance parts: ``s2`` = S²_e, ``labels`` n, ``runs`` N."""

    s2: float
    labels: int
    runs: int

    def term(self, labels: float) -> float:
        """(1/n − 1/N) · S²_e at ``labels`` human values (0 when every run is graded)."""
        return max(1 / labels - 1 / self.runs, 0.0) * self.s2


def z_value(confidence: float) -> float:
    """The two-sided normal quantile of ``confidence`` (1.96 at 0.95)."""
    return NormalDist().inv_cdf((1 + confidence) / 2)


def residual_variance(labelled: Sequence[tuple[float, float, float]], lam: float) -> float:
    """S²_e: the weighted variance of e = y − λ f over the graded runs ``labelled`` (y, f, w), w the run's
    inverse-probability weight: Σ w (e − ē)² / Σ w · n / (n − 1), ē = Σ w e / Σ w. 0 with fewer than two runs."""
    n = len(labelled)
    if n < 2:
        return 0.0
    total = sum(w for _, _, w in labelled)
    residuals = [(y - lam * f, w) for y, f, w in labelled]
    mean = sum(e * w for e, w in residuals) / total
    return sum(w * (e - mean) ** 2 for e, w in residuals) / total * n / (n - 1)


def full_variance(variance_now: float, phases: Sequence[Phase]) -> float:
    """V_full: ``variance_now`` (the figure's, or a difference's, current variance) less the phase-two term of
    each subject in it, floored at 0."""
    return max(variance_now - sum(p.term(p.labels) for p in phases), 0.0)


def grades_for_half_width(variance_now: float, phase: Phase, half_width: float, confidence: float) -> Need:
    """Further human grades for the half-width z·√V(n) to reach ``half_width``: the smallest n with
    V_full + (1/n − 1/N) S²_e <= (half_width / z)², i.e. 1/n >= ((half_width / z)² − V_full) / S²_e + 1/N.
    0 when the target is met now; None when even n = N misses it (V_full alone is too wide)."""
    z = z_value(confidence)
    full = full_variance(variance_now, [phase])
    now, floor = z * math.sqrt(variance_now), z * math.sqrt(full)
    target = (half_width / z) ** 2
    if variance_now <= target:
        return Need(phase.labels, 0, now, floor)
    if full >= target or phase.s2 == 0:
        return Need(phase.labels, None, now, floor)
    labels = math.ceil(1 / ((target - full) / phase.s2 + 1 / phase.runs) - 1e-9)
    return Need(phase.labels, max(min(labels, phase.runs) - phase.labels, 0), now, floor)


def grades_to_order(difference: float, variance_now: float, first: Phase, second: Phase,
                    confidence: float) -> PairNeed:
    """Further human grades of each subject for the difference's interval to exclude 0 at its current estimate
    ``difference``: :func:`pair_grades_for_half_width` with the half-width |difference|. (0, 0) when decided now;
    (None, None) when all runs graded would not decide it (the two are too close for the cases there are)."""
    return pair_grades_for_half_width(variance_now, first, second, abs(difference), confidence)


def pair_grades_for_half_width(variance_now: float, first: Phase, second: Phase, half_width: float,
                               confidence: float) -> PairNeed:
    """Further human grades of each subject for a difference's half-width z·√V to reach ``half_width``:
    V_full + (1/n₁ − 1/N₁) S₁² + (1/n₂ − 1/N₂) S₂² <= (half_width / z)². The grades go where they narrow most:
    n_i ∝ S_i (the split minimising n₁ + n₂ under the constraint, by Lagrange), a subject already above its share
    keeping its n. (0, 0) when met now; (None, None) when grading every run of both would not reach it."""
    z = z_value(confidence)
    full = full_variance(variance_now, [first, second])
    target = (half_width / z) ** 2
    if variance_now <= target:
        return PairNeed(0, 0)
    budget = target - full + first.s2 / first.runs + second.s2 / second.runs   # Σ S_i² / n_i must stay within it
    if budget <= 0:
        return PairNeed(None, None)
    phases = (first, second)
    spread = math.sqrt(first.s2) + math.sqrt(second.s2)
    wanted = [math.sqrt(p.s2) * spread / budget for p in phases]
    above = [w < p.labels for w, p in zip(wanted, phases)]
    if all(above):
        return PairNeed(0, 0)
    for keep in (0, 1):
        if above[keep]:   # graded beyond its share already: it keeps its n, the other alone closes the gap
            other = 1 - keep
            left = budget - phases[keep].s2 / phases[keep].labels
            wanted[keep] = phases[keep].labels
            wanted[other] = phases[other].s2 / left if left > 0 else math.inf
    if any(math.isinf(w) for w in wanted):
        return PairNeed(None, None)
    counts = [math.ceil(w - 1e-9) for w in wanted]
    if any(c > p.runs for c, p in zip(counts, phases)):
        return PairNeed(None, None)
    return PairNeed(max(counts[0] - first.labels, 0), max(counts[1] - second.labels, 0))

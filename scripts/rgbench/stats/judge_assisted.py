"""Judge-assisted, human-anchored means (issue 28): the inverse-probability-weighted PPI++ estimate theta = Hy +
λ (Mf − Hf) with the case as the unit, its case-bootstrap intervals, and the stratified draw of runs for a human.
Method, formulas, references and degenerate cases: docs/judge_assisted.md; the board: :mod:`.judge_assisted_board`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, fields
from fractions import Fraction
from typing import NamedTuple, TypeVar

import numpy as np

from .bootstrap import Interval, bca_bounds, bootstrap_values, jackknife_acceleration, numbers_like
from .seeds import data_digest, generator

Number = int | Fraction
K = TypeVar("K")
Part = tuple[int, float]   # (units K_g, their share V_g of the estimate's variance)


class Run(NamedTuple):
    """One run of a subject: its case, the judge's value, the human's (None without one) and its weight w (1/π for
    one draw, :meth:`rgbench.load.draws.HumanDraws.weight` over several; 0 outside every draw: never counted here)."""

    case_id: str
    judge: Number
    human: Number | None = None
    weight: Number = 1


@dataclass(frozen=True)
class CaseSums:
    """Per-case sums over a case's runs, exact, cases in ``case_ids`` order (f, y: a run's judge and human value; ξ/π
    its weight, ξ = 1 when drawn): ``runs`` n_c, ``labelled`` the runs with a human value, ``drawn`` m_c = Σ ξ/π,
    ``human`` Y_c = Σ ξ y/π, ``judge`` F_c = Σ f, ``judge_drawn`` G_c = Σ ξ f/π."""

    case_ids: tuple[str, ...]
    runs: tuple[int, ...]
    labelled: tuple[int, ...]
    drawn: tuple[Fraction, ...]
    human: tuple[Fraction, ...]
    judge: tuple[Fraction, ...]
    judge_drawn: tuple[Fraction, ...]

    @property
    def labels(self) -> int:
        """The human values used (runs drawn and graded)."""
        return sum(self.labelled)

    def restricted(self, case_ids: Sequence[str]) -> CaseSums:
        """The sums on the cases ``case_ids``, in that order; a case this subject lacks is all 0 (adds to no sum)."""
        index = {c: i for i, c in enumerate(self.case_ids)}
        def col(values: tuple) -> tuple:
            return tuple(values[index[c]] if c in index else 0 for c in case_ids)
        return CaseSums(tuple(case_ids), *(col(getattr(self, f.name)) for f in fields(self)[1:]))   # every sum


def case_sums(runs: Sequence[Run]) -> CaseSums:
    """The per-case sums of one subject's runs, cases sorted by id; a run with a human value and w > 0 is labelled.
    ValueError on a negative weight."""
    by_case: dict[str, list[Fraction]] = {}
    for run in runs:
        w = Fraction(0 if run.human is None else run.weight)
        if w < 0:
            raise ValueError(f"case {run.case_id}: a labelled run has weight {w}, below 0 "
                             "(a weight is an inverse probability: 0 for a run no draw listed)")
        f = Fraction(run.judge)
        adds = (Fraction(1), Fraction(w != 0), w, Fraction(run.human or 0) * w, f, f * w)   # n, labelled, m, Y, F, G
        by_case[run.case_id] = [s + v for s, v in zip(by_case.get(run.case_id, [Fraction(0)] * 6), adds)]
    ids = tuple(sorted(by_case))
    columns = [tuple(by_case[c][j] for c in ids) for j in range(6)]
    return CaseSums(ids, tuple(map(int, columns[0])), tuple(map(int, columns[1])), *columns[2:])


class Fit(NamedTuple):
    """Per row of case weights: theta, λ, V(λ) = Σ w (a + λ b)² and V(0) = Σ w a² (the linearised variances of theta
    and of Hy), and ``influence`` u = a + λ b (R x K), each case's on theta."""

    theta: np.ndarray
    lam: np.ndarray
    variance: np.ndarray
    human_only: np.ndarray
    influence: np.ndarray


def fit(sums: CaseSums, w: np.ndarray) -> Fit:
    """:class:`Fit` per row of the case weights ``w`` (R x K; 1 for the data, a replicate's bootstrap counts), every
    sum of docs/judge_assisted.md over cases weighted by w (λ = 0 where Σ w b² = 0), in w's arithmetic: exact for an
    object array, else float64. NaN (but in ``influence``) where M = 0."""
    n, m, y, f, g = (numbers_like(w, v) for v in (sums.runs, sums.drawn, sums.human, sums.judge, sums.judge_drawn))
    big_n, big_m = w @ n, w @ m
    anchored = big_m != 0
    big_n = np.where(big_n != 0, big_n, 1)[:, None]
    big_m = np.where(anchored, big_m, 1)[:, None]
    hy, hf, mf = (w @ y)[:, None] / big_m, (w @ g)[:, None] / big_m, (w @ f)[:, None] / big_n
    a = (y - hy * m) / big_m
    b = (f - mf * n) / big_n - (g - hf * m) / big_m
    saa, sab, sbb = (w * a * a).sum(axis=1), (w * a * b).sum(axis=1), (w * b * b).sum(axis=1)
    tuned = sbb != 0
    lam = np.minimum(np.maximum(np.where(tuned, -sab / np.where(tuned, sbb, 1), 0), 0), 1)
    theta = hy[:, 0] + lam * (mf - hf)[:, 0]
    variance = saa + 2 * lam * sab + lam * lam * sbb
    influence = a + lam[:, None] * b
    theta, lam, variance, saa = (np.where(anchored, v, np.nan) for v in (theta, lam, variance, saa))
    return Fit(theta, lam, variance, saa, influence)


class Estimate(NamedTuple):
    """One subject's estimate: ``theta`` and ``lam`` exact, ``labels`` the human values used, ``standard_error``
    √V(λ) and ``effective`` = labels · V(0) / V(λ), the human grades it is worth (inf when V(λ) = 0 < V(0))."""

    theta: Fraction
    lam: Fraction
    labels: int
    standard_error: float
    effective: float


def estimate(sums: CaseSums) -> Estimate | None:
    """The estimate of the mean of y over the subject's runs, exactly; None without a human value. Not clipped to
    y's range (it may leave it by up to λ |Mf − Hf|); λ = 0 and theta = Hy for π = 1 everywhere or a constant judge."""
    if not sums.labels:
        return None
    one = fit(sums, np.full((1, len(sums.case_ids)), Fraction(1), dtype=object))
    theta, lam, variance, human_only = (Fraction(v[0]) for v in one[:4])
    effective = (sums.labels * float(human_only / variance) if variance else
                 float("inf") if human_only else float(sums.labels))
    return Estimate(theta, lam, sums.labels, float(variance) ** 0.5, effective)


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


def variance_parts(sums: CaseSums) -> list[Part]:
    """[(K_L, V_L), (K_U, V_U)] for :func:`expanded_confidence`: theta's V(λ) = Σ u_c² (u: :class:`Fit`'s influence,
    float) on the cases with a human value and on the K_U others; one part [(K_L, V(λ))] with fewer than two others."""
    u = fit(sums, np.ones((1, len(sums.case_ids)))).influence[0]
    has = np.asarray(sums.labelled) > 0
    known, others = int(has.sum()), int((~has).sum())
    labelled, rest = float(np.sum(u[has] ** 2)), float(np.sum(u[~has] ** 2))
    return [(known, labelled + rest)] if others < 2 else [(known, labelled), (others, rest)]


def interval(sums: CaseSums, counts: np.ndarray, confidence: Fraction) -> Interval | None:
    """The case-bootstrap BCa interval of theta over the draw ``counts`` (B x K), λ re-estimated in each replicate (one
    without a human value left out), at :func:`expanded_confidence`; None without a human value; one case: the point."""
    if not sums.labels:
        return None
    point, jackknife, replicates = replicated(sums, counts)
    level = expanded_confidence(confidence, variance_parts(sums), len(counts))
    return bca_bounds(point, replicates, jackknife_acceleration(jackknife), level)


def shared(first: CaseSums, second: CaseSums) -> tuple[CaseSums, CaseSums]:
    """Both subjects restricted to the cases they share (sorted by id): the cases a paired difference uses; a subject
    whose cases are those already is returned as it is."""
    common = tuple(sorted(set(first.case_ids) & set(second.case_ids)))
    a, b = (s if s.case_ids == common else s.restricted(common) for s in (first, second))
    return a, b


def difference(first: CaseSums, second: CaseSums, estimated: Callable[[CaseSums], Estimate | None] = estimate
               ) -> Fraction | None:
    """theta(first) − theta(second) on the cases they share, each with its own λ, exactly; None when either has no
    human value there. ``estimated``: :func:`estimate`, or a memo of it (a board compares each subject with every
    other)."""
    a, b = (estimated(s) for s in shared(first, second))
    return None if a is None or b is None else a.theta - b.theta


Values = tuple[float, np.ndarray, np.ndarray]   # :func:`.bootstrap.bootstrap_values` of theta


def replicated(sums: CaseSums, counts: np.ndarray) -> Values:
    """theta's bootstrap values over the case draw ``counts`` (:func:`.bootstrap.bootstrap_values`: its estimate,
    leave-one-case-out values and replicates, in float), λ re-estimated in each."""
    return bootstrap_values(lambda w: fit(sums, w).theta, len(sums.case_ids), counts)


def difference_interval(first: CaseSums, second: CaseSums, counts: np.ndarray, confidence: Fraction,
                        values: Callable[[CaseSums, np.ndarray], Values] = replicated) -> Interval | None:
    """The BCa interval of :func:`difference` over the case draw ``counts`` (B x the shared cases), λ re-estimated per
    subject, at the higher of the two subjects' :func:`expanded_confidence` on those cases: each subject's
    ``values`` (:func:`replicated`, or a memo of it), differenced."""
    a, b = shared(first, second)
    if not a.labels or not b.labels:
        return None
    level = max(expanded_confidence(confidence, variance_parts(s), len(counts)) for s in (a, b))
    (point_a, jack_a, reps_a), (point_b, jack_b, reps_b) = values(a, counts), values(b, counts)
    return bca_bounds(point_a - point_b, reps_a - reps_b, jackknife_acceleration(jack_a - jack_b), level)


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

#!/usr/bin/env python3
"""How close `rgbench plan`'s predicted human-grade counts come to simulated ones: docs/plan_check.md.

    .venv/bin/python bench/plan_check.py --quick            # a few replications, to stdout
    .venv/bin/python bench/plan_check.py --jobs 2           # the study (about 12 min on two cores): docs/plan_check.md

Not a timed test. The model and the human draw are bench/judge_assisted_check.py's (two subjects on shared
cases, a judge of latent correlation rho with the human, the draw stratified by the judge's pass). For each
design and figure (Q_final of subject A; the A - B difference of Q_final):

- simulated: the mean half-width of the percentile interval at the expanded level (the toolkit's interval, 2,000
  case resamples) over --reps benchmarks at each of a grid of human-sample sizes n, each benchmark's grades a
  stratified pilot of n0 and one further stratified draw of n − n0 over the runs the pilot did not list, pooled as
  ``HumanDraws.weight`` pools draws (as a user adds grades with `rgbench assign`); the n at which
  it reaches the target half-width, by linear interpolation in 1/n (the half-width is about linear in 1/√n, its
  square in 1/n);
- predicted: on each of --reps benchmarks at the starting sample n0, the PRODUCTION functions
  ``rgbench.stats.grading_plan.grades_for_half_width`` (the subject) and ``pair_grades_for_half_width`` (the
  difference: both subjects' grades, split in proportion to S_e) from that benchmark's own interval and graded
  runs, as `rgbench plan` computes them; the median over benchmarks is the prediction.

Target half-width: 0.75 of the simulated half-width at n0 (asking for about 1.8 times the grades when the
judge adds nothing). The issue's target: predicted within 10% of simulated. Streams are fixed (--seed).

**Further grades drawn by `rgbench assign --next`** (``ACTIVE_DESIGNS``, after the designs above, their streams
their own): the model, judges and draws of bench/active_check.py, every draw the PRODUCTION one
(:func:`rgbench.stats.judge_assisted_draw.stratified`, :func:`~rgbench.stats.judge_assisted_draw.active` with
:func:`~rgbench.stats.judge_assisted_draw.spreads` of the grades of every earlier draw) and every weight
:meth:`rgbench.load.draws.HumanDraws.weight`'s. The n0 grades at the start are a stratified pilot (`--draw n0`)
over the subjects drawn over, or for a subject A that joins two graded ones (120 grades each, stratified) a first
`--next n0 --subjects A`; a benchmark at n has one further `--next n − n0` over the same subjects' runs not drawn yet
(n: the human grades, as `rgbench plan` counts them). Simulated: as above over a grid of n, with the further grades
drawn by `--next` and, separately, by one stratified `--draw n − n0` (what `rgbench plan` models); predicted:
`rgbench plan`'s count at n0. For these designs the report also gives, by n, the mean half-width over q(K_L) times
the bootstrap SD (the interval's shape, which `rgbench plan` takes as 1). Every design has its own stream: the
report is the same whatever --jobs.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, replace
from fractions import Fraction
from multiprocessing import Pool
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "bench"))

import active_check  # noqa: E402
from judge_assisted_check import (  # noqa: E402
    CONFIDENCE,
    MUS,
    RESAMPLES,
    RHO_07,
    SD,
    graded,
    q_parts,
    sample_size_at,
    study_main,
    sums_of,
)

from rgbench.load.draws import STRATIFIED, Covered, Draw, DrawnRun, HumanDraws, draw_precision  # noqa: E402
from rgbench.stats.bootstrap import case_counts  # noqa: E402
from rgbench.stats.grading_plan import (  # noqa: E402
    Phase,
    grades_for_half_width,
    pair_grades_for_half_width,
    phase,
    phase_two_variance,
    quantile,
    residual_variance,
)
from rgbench.stats.judge_assisted import (  # noqa: E402
    Run,
    difference_interval,
    difference_values,
    estimate,
    interval,
    labelled_cases,
    replicated,
    shared,
    stratified_draw,
    variance_parts,
)
from rgbench.stats.judge_assisted_board import spread  # noqa: E402
from rgbench.stats.judge_assisted_draw import active, population, spreads, stratified, undrawn  # noqa: E402

OUT = REPO / "docs" / "plan_check.md"
SHRINK = 0.75
Q = 2   # Q_final's index in graded()


@dataclass(frozen=True)
class Design:
    name: str
    cases: int
    runs: int
    rho: float
    start: int                 # n0, human grades per subject at the start
    grid: tuple[int, ...]      # human-sample sizes simulated
    bias: tuple[float, float] = (0.0, 0.0)


DESIGNS = (
    Design("100 cases x 3 runs, rho_Q 0.7", 100, 3, RHO_07, 40, (40, 60, 80, 100, 130, 160, 200)),
    Design("100 cases x 3 runs, judge uncorrelated", 100, 3, 0.0, 40, (40, 60, 80, 100, 130, 160)),
    Design("100 cases x 3 runs, judge +1.5 on B", 100, 3, RHO_07, 40, (40, 60, 80, 100, 130, 160, 200),
           (0.0, 1.5)),
    Design("30 cases x 3 runs, rho_Q 0.7", 30, 3, RHO_07, 20, (20, 26, 32, 40, 50, 60, 75, 90)),
)


@dataclass(frozen=True)
class ActiveDesign:
    """Further grades by `rgbench assign --next`: ``model`` active_check's design (its cases, runs, judges and,
    ``before`` > 0, A joining subjects graded first), ``start`` n0 (a stratified pilot, or A's first --next when it
    joins) and ``grid`` the draws' total sizes n simulated; the figure A's Q_final, or A − B with two subjects."""

    name: str
    model: active_check.Design
    start: int
    grid: tuple[int, ...]


def _model(cases: int, judges: tuple, before: int = 0) -> active_check.Design:
    return active_check.Design("", cases, 3, judges, 0, 0, (), before)


ON_PASSES = active_check.ON_PASSES
HOMOSCEDASTIC = active_check.Judge(9.0, RHO_07)   # active_check's homoscedastic judge at rho_Q 0.7
ACTIVE_DESIGNS = (
    ActiveDesign("100 cases x 3 runs, one subject", _model(100, (ON_PASSES,)), 30,
                 (30, 40, 50, 60, 75, 95, 120, 150)),
    ActiveDesign("A joins B, C graded", _model(
        100, (ON_PASSES, replace(ON_PASSES, mu=7.6), replace(ON_PASSES, mu=9.0)), 120), 20,
        (20, 30, 40, 50, 60, 75, 95, 120)),
    ActiveDesign("A, B, draws over both", _model(
        100, (ON_PASSES, replace(ON_PASSES, mu=7.6))), 60, (60, 80, 100, 120, 150, 190, 240)),
    ActiveDesign("100 cases x 3 runs, one subject, homoscedastic rho_Q 0.7", _model(100, (HOMOSCEDASTIC,)), 30,
                 (30, 40, 50, 60, 75, 95, 120, 150)),
    ActiveDesign("A joins B, C graded, homoscedastic rho_Q 0.7", _model(
        100, (HOMOSCEDASTIC, replace(HOMOSCEDASTIC, mu=7.6), replace(HOMOSCEDASTIC, mu=9.6)), 120), 20,
        (20, 30, 40, 50, 60, 75, 95, 120)),
)


def active_draws(design: ActiveDesign, at: active_check.Setting, n: int, seed: int, by: str = "next") -> HumanDraws:
    """The draws of one benchmark at n: the earlier subjects' (A joins), the n0 at the start (a stratified pilot,
    or a --next over A when it joins) and, n > n0, one --next of n − n0 over the same subjects (``by`` "draw": a
    stratified --draw, for comparison)."""
    made = list(at.earlier)
    def next_draw(size: int, over: dict):
        basis = frozenset(r.key for d in made for r in d.runs)
        return active(len(made) + 1, seed, over, size, spreads(at.everyone, basis, tuple(at.everyone)))
    over = undrawn(at.runs, made)
    first = next_draw(design.start, over) if at.earlier else stratified(1, seed, over, design.start)
    made.append(replace(first, population=population(over, tuple(over))))
    if n > design.start:
        over = undrawn(at.runs, made)   # as rgbench assign draws: over the runs no earlier draw lists
        further = (next_draw(n - design.start, over) if by == "next" else
                   stratified(len(made) + 1, seed, over, n - design.start))
        made.append(replace(further, population=population(over, tuple(over))))
    return HumanDraws("judge", tuple(made))


def active_half(design: ActiveDesign, ys, fs, draws: HumanDraws, rng: np.random.Generator
                ) -> tuple[float, float, float]:
    """(the toolkit's half-width of the figure, A's Q_final or A − B, from the draws' weights; that half-width
    over q times the bootstrap SD, q the largest of the subjects' at their variance parts: 1 when the interval is the
    multiple of the SD; the bootstrap SD, from which `rgbench plan` reads today's variance)."""
    weights = {key: float(draws.weight(key)) for key in draws.drawn() if key[0] in ys}
    _, _, sd, width, _ = active_check.figure(design.model, ys, fs, weights, rng)
    sums = [active_check.case_sums(design.model, label, ys[label], fs[label], weights) for label in ys]
    q = max(quantile(CONFIDENCE, variance_parts(x), RESAMPLES) for x in (shared(*sums)[:2] if len(sums) == 2 else sums))
    return width / 2, width / 2 / (q * sd), sd


def active_row(design: ActiveDesign, index: int, reps: int, seed: int) -> dict:
    """Simulated mean half-width at each n of the grid, the further grades by --next and by --draw, and the median
    n that `rgbench plan` predicts at n0."""
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, index])))
    pair = len(design.model.judges) == 2
    def one(n: int, by: str = "next"):
        everyone, ys, fs = active_check.benchmark(design.model, rng)
        at = active_check.setting(design.model, everyone, rng)
        shown = ({"A": ys["A"]}, {"A": fs["A"]}) if design.model.before else (ys, fs)
        draws = active_draws(design, at, n, int(rng.integers(2 ** 31)), by)
        return everyone, at, shown, draws, active_half(design, shown[0], shown[1], draws, rng)
    curve = {n: float(np.mean([one(n)[4][0] for _ in range(reps)])) for n in design.grid}
    target = SHRINK * curve[design.start]
    sim = sample_size_at(curve, target)
    each = {n: np.array([one(n, "draw")[4] for _ in range(reps)]) for n in design.grid}   # reps x (hw, shape, sd)
    drawn = {n: rows.mean(axis=0) for n, rows in each.items()}
    by_draw = {n: float(h) for n, (h, _, _) in drawn.items()}
    predicted: list[float] = []
    for _ in range(reps):
        everyone, at, shown, draws, (hw, _, sd) = one(design.start)
        basis = frozenset(r.key for d in draws.draws for r in d.runs)
        phases = []
        for label in shown[0]:
            items = sorted(everyone[label], key=lambda r: r.key)
            phases.append(phase([Run(r.key[1], r.judge, r.human if r.key in basis else None, draws.weight(r.key),
                                     (Fraction(r.grade == "Pass", 2), r.total / 24)) for r in items],
                                draws.precision(label)))
        if pair:
            first, second = phases
            need = pair_grades_for_half_width(hw, sd, first, second, target, CONFIDENCE, RESAMPLES)
            predicted.append(math.inf if need.first is None or need.second is None else
                             design.start + need.first + need.second)
        else:
            more = grades_for_half_width(hw, sd, phases[0], target, CONFIDENCE, RESAMPLES)
            predicted.append(math.inf if more.needed is None else design.start + more.needed)
    mc = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, index, 1])))   # the SEs' own stream
    return {"design": design, "curve": curve, "target": target, "simulated": sim,
            "uniform": float(np.median(predicted)), "by_draw": by_draw,
            "se_draw": ratio_se({n: rows[:, 0] for n, rows in each.items()}, predicted, target, 1, mc),
            "simulated_draw": sample_size_at(by_draw, target),
            "shape": {n: float(r) for n, (_, r, _) in drawn.items()}}


def benchmark(design: Design, rng: np.random.Generator):
    """Per subject: (human Q values, judge Q values, the judge's pass, the judge's Q parts), K x r."""
    k, r = design.cases, design.runs
    case = rng.normal(0, 1.2, k)
    out = []
    for s, mu in enumerate(MUS):
        z = mu + case[:, None] + rng.normal(0, 1.0, k)[:, None] + rng.normal(0, 1.5, (k, r))
        zj = mu + design.bias[s] + design.rho * (z - mu) + math.sqrt(1 - design.rho ** 2) * SD * rng.normal(size=(k, r))
        judge = graded(zj)
        out.append((graded(z)[Q], judge[Q], judge[0], q_parts(judge[0], judge[1])))
    return out


def further(draws: tuple[Draw, ...], keys: list, strata: list, size: int, rng: np.random.Generator
            ) -> tuple[Draw, ...]:
    """``draws`` and one more stratified draw of ``size`` over the runs none of them lists (as `rgbench assign`)."""
    listed = {run.key for draw in draws for run in draw.runs}
    left = [i for i, key in enumerate(keys) if key not in listed]
    picked, pi = stratified_draw([strata[i] for i in left], size, rng)
    runs = tuple(DrawnRun(keys[i], p, None) for i, d, p in zip(left, picked, pi) if d)
    return (*draws, Draw(len(draws) + 1, STRATIFIED, 0, runs,
                         population=(Covered("s", tuple(keys[i][1:] for i in left), ""),)))


def pooled(draws: tuple[Draw, ...], keys: list, y: np.ndarray, f: np.ndarray, parts: tuple[np.ndarray, ...]):
    """(CaseSums, labelled (y, the judge's parts, w)) of one subject's runs ``keys`` under ``draws``, each w the
    PRODUCTION :meth:`rgbench.load.draws.HumanDraws.weight`; ``parts`` the judge's Q_final parts (its controls)."""
    pool = HumanDraws("judge", draws)
    w = np.array([float(pool.weight(key)) for key in keys])
    drawn = (w > 0).reshape(y.shape)
    pi = np.where(w > 0, 1 / np.where(w > 0, w, 1), 1.0).reshape(y.shape)
    controls = np.stack([x.ravel() for x in parts], axis=1)
    labelled = [(float(a), tuple(map(float, c)), float(x)) for a, c, x in zip(y.ravel(), controls, w) if x > 0]
    return sums_of(y, f, drawn, pi, parts), labelled


def keys_of(k: int, r: int) -> list:
    """The run keys of one subject of k cases x r runs, in the value arrays' order."""
    return [("s", f"c{c:04d}", f"r{j}") for c in range(k) for j in range(r)]


def drawn_sums(values, n: int, rng: np.random.Generator, start: int | None = None):
    """(CaseSums, labelled (y, f, w) list) of one subject with n human grades stratified by the judge's pass: one
    draw of n, or (``start`` below n) a pilot of ``start`` and a further draw of n − ``start`` over the runs the
    pilot did not list (as `rgbench assign` draws; :func:`further`, :func:`pooled`)."""
    y, f, strata, parts = values
    keys = keys_of(*y.shape)
    draws: tuple[Draw, ...] = ()
    for size in (n,) if start is None or start >= n else (start, n - start):
        draws = further(draws, keys, strata.ravel().tolist(), size, rng)
    return pooled(draws, keys, y, f, parts)


def half(bounds) -> float:
    return float("nan") if bounds is None else (bounds[1] - bounds[0]) / 2


def simulated(design: Design, reps: int, rng: np.random.Generator) -> dict[int, np.ndarray]:
    """n -> each of ``reps`` benchmarks' (half-width of A's Q_final, of the A - B difference): reps x 2."""
    out = {}
    for n in design.grid:
        rows = []
        for _ in range(reps):
            a, b = benchmark(design, rng)
            (sa, _), (sb, _) = drawn_sums(a, n, rng, design.start), drawn_sums(b, n, rng, design.start)
            counts = case_counts(rng, design.cases, RESAMPLES)
            rows.append((half(interval(sa, counts, CONFIDENCE)), half(difference_interval(sa, sb, counts, CONFIDENCE))))
        out[n] = np.array(rows, dtype=np.float64)
    return out


MC_RESAMPLES = 400   # bootstrap resamples of the benchmarks for a ratio's Monte-Carlo SE


def ratio_se(halves: dict[int, np.ndarray], predictions: list[float], target: float, scale: float,
             rng: np.random.Generator) -> float:
    """The Monte-Carlo SE of median(predictions) / (``scale`` x the n at which the mean of ``halves`` (n -> each
    benchmark's half-width) reaches ``target``): the SD over MC_RESAMPLES bootstrap resamples of the benchmarks
    (each grid point's, and the predictions', resampled apart: they are independent benchmarks), the target held
    (it is the figure both aim at). NaN when fewer than half the resamples give a finite ratio."""
    values = []
    for _ in range(MC_RESAMPLES):
        curve = {n: float(np.nanmean(h[rng.integers(len(h), size=len(h))])) for n, h in halves.items()}
        picked = np.asarray(predictions)[rng.integers(len(predictions), size=len(predictions))]
        values.append(float(np.median(picked)) / (scale * sample_size_at(curve, target)))
    finite = [v for v in values if math.isfinite(v) and v > 0]
    return float(np.std(finite, ddof=1)) if len(finite) >= MC_RESAMPLES / 2 else math.nan


def plan_phase(sums, graded_runs, est) -> Phase:
    """`rgbench plan`'s :class:`Phase` of a subject after one stratified draw of n0 (its precision
    :func:`rgbench.load.draws.draw_precision` of n0 of N)."""
    n0, runs = est.labels, sum(sums.runs)
    v = draw_precision(n0, runs)
    lam = tuple(map(float, est.lam))
    return Phase(residual_variance(graded_runs, lam), n0, sums.runs, labelled_cases(sums),
                 phase_two_variance(graded_runs, lam, runs), math.inf if v is None else float(v),
                 tuple(variance_parts(sums)))


def predicted(design: Design, reps: int, targets: tuple[float, float], rng: np.random.Generator):
    """Median over ``reps`` benchmarks at n0 of the predicted total human grades (A's figure; both subjects'
    for the difference)."""
    subject, pair = [], []
    for _ in range(reps):
        a, b = benchmark(design, rng)
        (sa, la), (sb, lb) = drawn_sums(a, design.start, rng), drawn_sums(b, design.start, rng)
        counts = case_counts(rng, design.cases, RESAMPLES)
        ea, eb = estimate(sa), estimate(sb)
        assert ea is not None and eb is not None
        pa, pb = (plan_phase(s, graded_runs, e) for s, graded_runs, e in ((sa, la, ea), (sb, lb, eb)))
        values, paired = replicated(sa, counts), difference_values(sa, sb, counts)
        sd, sd_pair = spread(values), spread(paired)
        assert sd is not None and sd_pair is not None
        hw = half(interval(sa, counts, CONFIDENCE, values))
        need = grades_for_half_width(hw, sd, pa, targets[0], CONFIDENCE, RESAMPLES).needed
        subject.append(math.inf if need is None else design.start + need)
        hw_pair = half(difference_interval(sa, sb, counts, CONFIDENCE, paired))
        more = pair_grades_for_half_width(hw_pair, sd_pair, pa, pb, targets[1], CONFIDENCE, RESAMPLES)
        pair.append(math.inf if more.first is None or more.second is None else
                    2 * design.start + more.first + more.second)
    return (float(np.median(subject)), float(np.median(pair))), (subject, pair)


def design_row(index: int, reps: int, seed: int) -> dict:
    """One design of ``DESIGNS`` (its own stream): the mean half-widths over the grid, the targets, and the
    simulated and predicted counts of A's Q_final and the A - B difference."""
    design = DESIGNS[index]
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, index])))
    halves = simulated(design, reps, rng)
    curve = {n: (float(np.nanmean(h[:, 0])), float(np.nanmean(h[:, 1]))) for n, h in halves.items()}
    targets = (SHRINK * curve[design.start][0], SHRINK * curve[design.start][1])
    sim = (sample_size_at({n: h[0] for n, h in curve.items()}, targets[0]),
           2 * sample_size_at({n: h[1] for n, h in curve.items()}, targets[1]))
    pred, lists = predicted(design, reps, targets, rng)
    mc = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, index, 1])))   # the SEs' own stream
    se = tuple(ratio_se({n: h[:, i] for n, h in halves.items()}, lists[i], targets[i], 1 + i, mc) for i in (0, 1))
    return {"design": design, "curve": curve, "targets": targets, "simulated": sim, "predicted": pred, "se": se}


def row(task: tuple[int, int, int]) -> dict:
    """The row of design ``index`` (``DESIGNS``, then ``ACTIVE_DESIGNS``) at ``reps`` and ``seed``."""
    index, reps, seed = task
    if index < len(DESIGNS):
        return design_row(index, reps, seed)
    return active_row(ACTIVE_DESIGNS[index - len(DESIGNS)], index, reps, seed)


def write(reps: int, seed: int, jobs: int) -> str:
    """The report, every design on its own stream (the same bytes whatever ``jobs``)."""
    tasks = [(i, reps, seed) for i in range(len(DESIGNS) + len(ACTIVE_DESIGNS))]
    with Pool(jobs) as pool:
        rows = pool.map(row, tasks, chunksize=1)
    return report(rows[:len(DESIGNS)], reps, seed) + report_active(rows[len(DESIGNS):])


def report(rows: list[dict], reps: int, seed: int) -> str:
    lines = ["# How close `rgbench plan`'s grade counts come to simulated ones", "",
             f"Generated by `bench/plan_check.py --reps {reps} --seed {seed} --jobs 2` (the model and draw of "
             "bench/judge_assisted_check.py; 95% percentile interval over 2,000 case "
             "resamples at the expanded level, as the board reads it). Figures: Q_final of subject A, and "
             "the A - B difference of Q_final (its grades counted over both subjects, an equal split simulated). "
             f"Target half-width: {SHRINK} of the mean half-width at the starting sample n0. Simulated: the human "
             "sample at which the mean half-width reaches the target (interpolated in 1/n over the grid), each "
             "benchmark's grades a stratified pilot of n0 and one further stratified draw of n - n0 over the runs "
             "the pilot did not list, pooled as the board pools draws. Predicted: "
             "the median over benchmarks at n0 of `rgbench.stats.grading_plan`'s count from that benchmark's own "
             "interval and graded runs. Issue 28's target: within 10%.", "",
             "| design | figure | n0 | target half-width | simulated n | predicted n | predicted / simulated |",
             "|---|---|---:|---:|---:|---:|---:|"]
    ses = []
    for row in rows:
        d = row["design"]
        for i, figure in enumerate(("Q_final of A", "A - B")):
            start = d.start * (1 if i == 0 else 2)
            sim, pred = row["simulated"][i], row["predicted"][i]
            ratio = pred / sim if math.isfinite(sim) and math.isfinite(pred) else float("nan")
            ses.append((ratio, row["se"][i]))
            lines.append(f"| {d.name} | {figure} | {start} | {row['targets'][i]:.4f} | {sim:.1f} | {pred:.1f} | "
                         f"{ratio:.3f} ± {row['se'][i]:.3f} |")
    ratios = [r for r, _ in ses]
    inside = sum(1 for r in ratios if abs(r - 1) <= 0.10)
    lines += ["", f"Within 10% of the simulated count: {inside} of {len(ratios)} figures (predicted / simulated "
              f"{min(ratios):.3f} to {max(ratios):.3f}; {beyond(ses)}). ± is the ratio's Monte-Carlo SE (the "
              f"benchmarks resampled {MC_RESAMPLES} times, the target held).", "",
              "Mean half-widths by human sample (per subject), A's Q_final / the difference:", ""]
    for row in rows:
        cells = ", ".join(f"{n}: {h[0]:.4f} / {h[1]:.4f}" for n, h in sorted(row["curve"].items()))
        lines.append(f"- {row['design'].name}: {cells}")
    return "\n".join(lines) + "\n"


def beyond(ses: list[tuple[float, float]]) -> str:
    """How many ratios lie more than 2 Monte-Carlo SEs outside 0.9-1.1: those the study shows outside 10%."""
    out = sum(1 for r, se in ses if math.isfinite(r) and (r - 1.1 > 2 * se or 0.9 - r > 2 * se))
    return f"{out} more than 2 Monte-Carlo SEs outside 10%"


def report_active(rows: list[dict]) -> str:
    """The section of the designs whose further grades are drawn by `rgbench assign --next` (or, to compare, by
    one stratified `--draw`)."""
    lines = ["", "## Further grades by `rgbench assign --next` or `--draw`", "",
             "The model, judges and production draws of bench/active_check.py (the script's docstring; the judge is "
             "sure of a fail and noisy above it, so the residual's spread differs by judge grade, or in the last "
             "two designs homoscedastic at rho_Q 0.7): n0 grades at "
             "the start (a stratified pilot; when A joins B and C, graded first with 120 each, a first `--next n0 "
             "--subjects A`), then one `--next n - n0` over the same subjects, or one stratified `--draw n - n0` "
             "(the draw `rgbench plan` models), n the draws' total size. Figure: A's Q_final, or A - B (its grades "
             "over both). Simulated: the n at which the mean half-width reaches the target; predicted: the median "
             "over benchmarks at n0 of `rgbench plan`'s count; saved by --next: 1 - (--next's n) / (--draw's n).",
             "",
             "| design | figure | n0 | target half-width | simulated n, --draw | simulated n, --next | plan n | "
             "plan / --draw's | plan / --next's | saved by --next |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    def ratio(pred: float, sim: float) -> float:
        return pred / sim if math.isfinite(sim) and math.isfinite(pred) else float("nan")
    for row in rows:
        d = row["design"]
        figure = "A - B" if len(d.model.judges) == 2 else "Q_final of A"
        lines.append(f"| {d.name} | {figure} | {d.start} | {row['target']:.4f} | {row['simulated_draw']:.1f} | "
                     f"{row['simulated']:.1f} | {row['uniform']:.1f} | "
                     f"{ratio(row['uniform'], row['simulated_draw']):.3f} ± {row['se_draw']:.3f} | "
                     f"{ratio(row['uniform'], row['simulated']):.3f} | "
                     f"{100 * (1 - ratio(row['simulated'], row['simulated_draw'])):.1f}% |")
    ratios = [r for r in (ratio(row["uniform"], row["simulated_draw"]) for row in rows) if math.isfinite(r)] or [math.nan]
    inside = sum(1 for r in ratios if abs(r - 1) <= 0.10)
    nexts = [r for r in (ratio(row["uniform"], row["simulated"]) for row in rows) if math.isfinite(r)] or [math.nan]
    ses = [(ratio(row["uniform"], row["simulated_draw"]), row["se_draw"]) for row in rows]
    lines += ["", f"`rgbench plan` within 10% of the simulated count for a further `--draw`: {inside} of "
              f"{len(ratios)} figures (predicted / simulated {min(ratios):.3f} to {max(ratios):.3f}; ± its "
              f"Monte-Carlo SE; {beyond(ses)}); for a further "
              f"`--next`: {sum(1 for r in nexts if abs(r - 1) <= 0.10)} of {len(nexts)} ({min(nexts):.3f} to "
              f"{max(nexts):.3f}).", "",
              "Mean half-widths by n, further grades by --next / by --draw:", ""]
    for row in rows:
        lines.append(f"- {row['design'].name}: " + ", ".join(f"{n}: {h:.4f} / {row['by_draw'][n]:.4f}"
                                                              for n, h in sorted(row["curve"].items())))
    lines += ["", "The interval's shape: the mean over benchmarks of the half-width / (q(K_L) x the bootstrap SD), "
              "further grades by --draw (`rgbench plan` reads the half-width as q(K_L) x the SD, a ratio of 1 at "
              "every n; a ratio that rises with n makes the half-width fall more slowly than it predicts):", ""]
    for row in rows:
        lines.append(f"- {row['design'].name}: " + ", ".join(f"{n}: {r:.3f}" for n, r in sorted(row["shape"].items())))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    return study_main(__doc__ or "", write, OUT, 600, 20, argv, jobs=True)


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""Human grades saved by active selection (`rgbench assign --next`) against a uniform sample: docs/active_check.md.

    .venv/bin/python bench/active_check.py --quick       # a few replications, to stdout
    .venv/bin/python bench/active_check.py               # the study (a few minutes, one core)

Not a timed test. The model is bench/judge_assisted_check.py's (a judge of latent correlation rho with the human;
per run, Q_final's value 0.5 · pass + 0.5 · score / 12). One subject; every interval is the toolkit's (95% BCa of
the PRODUCTION estimator :func:`rgbench.stats.judge_assisted.interval`, 2,000 case resamples). Three ways of
spending n human grades on a subject's T runs:

- **uniform**: a simple random sample of n runs (π = n / T), the plain alternative;
- **stratified**: `rgbench assign --draw n`, stratified by the judge's class (Pass, Conditional, Fail) in
  proportion (:func:`rgbench.stats.judge_assisted.stratified_draw`);
- **active**: `rgbench assign --draw n/2` then `rgbench assign --next n/2`: the second draw's probabilities from
  the PRODUCTION :func:`rgbench.stats.judge_assisted_draw.active_probabilities`, proportional to each judge
  class's spread of human − judge measured on the first draw's grades (floored at a fifth of the uniform
  chance), Poisson sampling; both draws enter with w = Σ 1/π (a run picked twice reuses its grade).

Grades saved at equal width: the uniform sample size at which uniform's mean width equals the method's (linear
interpolation in 1/n of the squared width over a grid of uniform sizes), against the method's n (for active,
the grades actually spent: distinct runs graded). Streams fixed by --seed.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "bench"))

from judge_assisted_check import (  # noqa: E402
    CONFIDENCE,
    RESAMPLES,
    RHO_07,
    RHO_09,
    SD,
    graded,
    sample_size_at,
    study_main,
)

from rgbench.stats.bootstrap import case_counts  # noqa: E402
from rgbench.stats.judge_assisted import CaseSums, interval, stratified_draw  # noqa: E402
from rgbench.stats.judge_assisted_draw import active_probabilities  # noqa: E402

OUT = REPO / "docs" / "active_check.md"
MU = 9.0


@dataclass(frozen=True)
class Design:
    name: str
    cases: int
    runs: int
    rho: float
    n: int
    grid: tuple[int, ...]


DESIGNS = (
    Design("100 cases x 3 runs, rho_Q 0.7, n 60", 100, 3, RHO_07, 60, (50, 60, 70, 80, 95, 110)),
    Design("100 cases x 3 runs, rho_Q 0.9, n 60", 100, 3, RHO_09, 60, (50, 60, 70, 80, 95, 110)),
    Design("100 cases x 3 runs, rho_Q 0.7, n 120", 100, 3, RHO_07, 120, (100, 120, 140, 160, 190)),
    Design("30 cases x 3 runs, rho_Q 0.7, n 30", 30, 3, RHO_07, 30, (24, 30, 36, 44, 54)),
)


def subject(design: Design, rng: np.random.Generator):
    """(human Q, judge Q, judge class) of one subject's runs, flattened in case order, and each run's case."""
    k, r = design.cases, design.runs
    z = MU + rng.normal(0, 1.2, k)[:, None] + rng.normal(0, 1.0, k)[:, None] + rng.normal(0, 1.5, (k, r))
    zj = MU + design.rho * (z - MU) + math.sqrt(1 - design.rho ** 2) * SD * rng.normal(size=(k, r))
    human, judge = graded(z), graded(zj)
    grade = np.where(judge[1] >= 10, 2, np.where(judge[1] >= 7, 1, 0))
    return human[2].ravel(), judge[2].ravel(), grade.ravel(), np.repeat(np.arange(k), r)


def sums(y, f, cases, weight, k: int) -> CaseSums:
    """CaseSums from per-run inverse-probability weights (0: not drawn): float sums, the study's shortcut."""
    labelled = weight > 0
    def per_case(values):
        return np.bincount(cases, weights=values, minlength=k)
    columns: list[Any] = [np.bincount(cases, minlength=k), np.bincount(cases, weights=labelled, minlength=k).astype(int),
                          per_case(weight), per_case(weight * y), per_case(f), per_case(weight * f)]
    return CaseSums(tuple(f"c{c}" for c in range(k)), *columns)


def uniform(design, y, f, grade, cases, n, rng):
    weight = np.zeros(y.size)
    weight[rng.choice(y.size, size=n, replace=False)] = y.size / n
    return sums(y, f, cases, weight, design.cases), n


def stratified(design, y, f, grade, cases, n, rng):
    drawn, pi = stratified_draw(grade.tolist(), n, rng)
    weight = np.array([1 / float(p) if d else 0.0 for d, p in zip(drawn, pi)])
    return sums(y, f, cases, weight, design.cases), n


def active(design, y, f, grade, cases, n, rng):
    first, pi = stratified_draw(grade.tolist(), n // 2, rng)
    weight = np.array([1 / float(p) if d else 0.0 for d, p in zip(first, pi)])
    spread = {}
    for g in np.unique(grade):
        graded_here = np.array(first) & (grade == g)
        errors = (y - f)[graded_here]
        spread[g] = Fraction(max(round(float(np.sqrt(np.mean(errors ** 2))) * 1000), 1), 1000) if errors.size else \
            Fraction(1)
    probability = active_probabilities([spread[g] for g in grade], n - n // 2)
    pi2 = np.array([float(p) for p in probability])
    second = rng.random(y.size) < pi2
    weight = weight + np.where(second, 1 / pi2, 0.0)
    return sums(y, f, cases, weight, design.cases), int(np.count_nonzero(weight))


def mean_width(design, method, n, reps, rng) -> tuple[float, float]:
    """(mean width of Q_final's interval, mean grades spent) over ``reps`` subjects."""
    widths, spent = [], []
    for _ in range(reps):
        y, f, grade, cases = subject(design, rng)
        s, used = method(design, y, f, grade, cases, n, rng)
        bounds = interval(s, case_counts(rng, design.cases, RESAMPLES), CONFIDENCE)
        if bounds is not None:
            widths.append(bounds[1] - bounds[0])
            spent.append(used)
    return float(np.mean(widths)), float(np.mean(spent))


def run(reps: int, seed: int) -> list[dict]:
    rows = []
    for index, design in enumerate(DESIGNS):
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, index])))
        curve = {n: mean_width(design, uniform, n, reps, rng)[0] for n in design.grid}
        row = {"design": design, "curve": curve}
        for name, method in (("stratified", stratified), ("active", active)):
            width, spent = mean_width(design, method, design.n, reps, rng)
            row[name] = (width, spent, sample_size_at(curve, width))
        rows.append(row)
    return rows


def report(rows: list[dict], reps: int, seed: int) -> str:
    lines = ["# Human grades saved by active selection", "",
             f"Generated by `bench/active_check.py --reps {reps} --seed {seed}` (the model of "
             "bench/judge_assisted_check.py; one subject; Q_final's 95% BCa interval, 2,000 case resamples). "
             "Saved: 1 − (grades spent) / (the uniform sample with the same mean width). Issue 28's target: active "
             "selection >= 20% fewer human grades than uniform at equal width.", "",
             "| design | uniform width at n | stratified: width, saved | active: width, grades spent, saved |",
             "|---|---:|---:|---:|"]
    def saved(spent: float, equal: float, smallest: int) -> str:
        return (f"{100 * (1 - spent / equal):.1f}%" if math.isfinite(equal) else
                f"below 1 − {spent:.1f}/{smallest}: wider than uniform's smallest n")
    for row in rows:
        d = row["design"]
        sw, _, sn = row["stratified"]
        aw, spent, an = row["active"]
        lines.append(f"| {d.name} | {row['curve'][d.n]:.4f} | {sw:.4f}, {saved(d.n, sn, d.grid[0])} | "
                     f"{aw:.4f}, {spent:.1f}, {saved(spent, an, d.grid[0])} |")
    lines += ["", "Uniform's mean width by n:", ""]
    for row in rows:
        lines.append(f"- {row['design'].name}: " + ", ".join(f"{n}: {w:.4f}" for n, w in sorted(row["curve"].items())))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    return study_main(__doc__ or "", lambda reps, seed: report(run(reps, seed), reps, seed), OUT, 400, 20, argv)


if __name__ == "__main__":
    raise SystemExit(main())

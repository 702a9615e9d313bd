#!/usr/bin/env python3
"""How close `rgbench plan`'s predicted human-grade counts come to simulated ones: docs/plan_check.md.

    .venv/bin/python bench/plan_check.py --quick        # a few replications, to stdout
    .venv/bin/python bench/plan_check.py                # the study (a few minutes, one core): docs/plan_check.md

Not a timed test. The model and the human draw are bench/judge_assisted_check.py's (two subjects on shared
cases, a judge of latent correlation rho with the human, the draw stratified by the judge's pass). For each
design and figure (Q_final of subject A; the A - B difference of Q_final):

- simulated: the mean BCa half-width (the toolkit's interval, 2,000 case resamples) over --reps benchmarks at
  each of a grid of human-sample sizes n; the n at which it reaches the target half-width, by linear
  interpolation in 1/n (the half-width is about linear in 1/√n, its square in 1/n);
- predicted: on each of --reps benchmarks at the starting sample n0, the PRODUCTION functions
  ``rgbench.stats.grading_plan.grades_for_half_width`` (the subject) and ``pair_grades_for_half_width`` (the
  difference: both subjects' grades, split in proportion to S_e) from that benchmark's own interval and graded
  runs, as `rgbench plan` computes them; the median over benchmarks is the prediction.

Target half-width: 0.75 of the simulated half-width at n0 (asking for about 1.8 times the grades when the
judge adds nothing). The issue's target: predicted within 10% of simulated. Streams are fixed (--seed).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "bench"))

from judge_assisted_check import (  # noqa: E402
    CONFIDENCE,
    MUS,
    RESAMPLES,
    RHO_07,
    SD,
    graded,
    sample_size_at,
    study_main,
    sums_of,
)

from rgbench.stats.bootstrap import case_counts  # noqa: E402
from rgbench.stats.grading_plan import (  # noqa: E402
    Phase,
    grades_for_half_width,
    pair_grades_for_half_width,
    residual_variance,
)
from rgbench.stats.judge_assisted import (  # noqa: E402
    difference_interval,
    estimate,
    interval,
    labelled_cases,
    stratified_draw,
)

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


def benchmark(design: Design, rng: np.random.Generator):
    """Per subject: (human Q values, judge Q values), K x r."""
    k, r = design.cases, design.runs
    case = rng.normal(0, 1.2, k)
    out = []
    for s, mu in enumerate(MUS):
        z = mu + case[:, None] + rng.normal(0, 1.0, k)[:, None] + rng.normal(0, 1.5, (k, r))
        zj = mu + design.bias[s] + design.rho * (z - mu) + math.sqrt(1 - design.rho ** 2) * SD * rng.normal(size=(k, r))
        out.append((graded(z)[Q], graded(zj)[Q], graded(zj)[0]))
    return out


def drawn_sums(values, n: int, rng: np.random.Generator):
    """(CaseSums, labelled (y, f, w) list) of one subject with n human grades stratified by the judge's pass."""
    y, f, strata = values
    k, r = y.shape
    drawn_list, pi_list = stratified_draw(strata.ravel().tolist(), n, rng)
    drawn = np.array(drawn_list).reshape(k, r)
    pi = np.array([float(p) for p in pi_list]).reshape(k, r)
    labelled = [(float(a), float(b), 1 / p) for a, b, p, d in zip(y.ravel(), f.ravel(), pi.ravel(), drawn.ravel()) if d]
    return sums_of(y, f, drawn, pi), labelled


def half(bounds) -> float:
    return float("nan") if bounds is None else (bounds[1] - bounds[0]) / 2


def simulated(design: Design, reps: int, rng: np.random.Generator) -> dict[int, tuple[float, float]]:
    """n -> (mean half-width of A's Q_final, of the A - B difference) over ``reps`` benchmarks."""
    out = {}
    for n in design.grid:
        rows = []
        for _ in range(reps):
            a, b = benchmark(design, rng)
            (sa, _), (sb, _) = drawn_sums(a, n, rng), drawn_sums(b, n, rng)
            counts = case_counts(rng, design.cases, RESAMPLES)
            rows.append((half(interval(sa, counts, CONFIDENCE)), half(difference_interval(sa, sb, counts, CONFIDENCE))))
        out[n] = (float(np.nanmean([row[0] for row in rows])), float(np.nanmean([row[1] for row in rows])))
    return out


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
        pa = Phase(residual_variance(la, float(ea.lam)), ea.labels, sa.runs, labelled_cases(sa))
        pb = Phase(residual_variance(lb, float(eb.lam)), eb.labels, sb.runs, labelled_cases(sb))
        hw = half(interval(sa, counts, CONFIDENCE))
        need = grades_for_half_width(hw, pa, targets[0], CONFIDENCE, RESAMPLES).needed
        subject.append(math.inf if need is None else design.start + need)
        hw_pair = half(difference_interval(sa, sb, counts, CONFIDENCE))
        more = pair_grades_for_half_width(hw_pair, pa, pb, targets[1], CONFIDENCE, RESAMPLES)
        pair.append(math.inf if more.first is None or more.second is None else
                    2 * design.start + more.first + more.second)
    return float(np.median(subject)), float(np.median(pair))


def run(reps: int, seed: int) -> list[dict]:
    rows = []
    for index, design in enumerate(DESIGNS):
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, index])))
        curve = simulated(design, reps, rng)
        targets = (SHRINK * curve[design.start][0], SHRINK * curve[design.start][1])
        sim = (sample_size_at({n: h[0] for n, h in curve.items()}, targets[0]),
               2 * sample_size_at({n: h[1] for n, h in curve.items()}, targets[1]))
        pred = predicted(design, reps, targets, rng)
        rows.append({"design": design, "curve": curve, "targets": targets, "simulated": sim, "predicted": pred})
    return rows


def report(rows: list[dict], reps: int, seed: int) -> str:
    lines = ["# How close `rgbench plan`'s grade counts come to simulated ones", "",
             f"Generated by `bench/plan_check.py --reps {reps} --seed {seed}` (the model and draw of "
             "bench/judge_assisted_check.py; 95% BCa over 2,000 case resamples). Figures: Q_final of subject A, and "
             "the A - B difference of Q_final (its grades counted over both subjects, an equal split simulated). "
             f"Target half-width: {SHRINK} of the mean half-width at the starting sample n0. Simulated: the human "
             "sample at which the mean half-width reaches the target (interpolated in 1/n over the grid). Predicted: "
             "the median over benchmarks at n0 of `rgbench.stats.grading_plan`'s count from that benchmark's own "
             "interval and graded runs. Issue 28's target: within 10%.", "",
             "| design | figure | n0 | target half-width | simulated n | predicted n | predicted / simulated |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for row in rows:
        d = row["design"]
        for i, figure in enumerate(("Q_final of A", "A - B")):
            start = d.start * (1 if i == 0 else 2)
            sim, pred = row["simulated"][i], row["predicted"][i]
            ratio = pred / sim if math.isfinite(sim) and math.isfinite(pred) else float("nan")
            lines.append(f"| {d.name} | {figure} | {start} | {row['targets'][i]:.4f} | {sim:.1f} | {pred:.1f} | "
                         f"{ratio:.3f} |")
    ratios = [row["predicted"][i] / row["simulated"][i] for row in rows for i in (0, 1)]
    inside = sum(1 for r in ratios if abs(r - 1) <= 0.10)
    lines += ["", f"Within 10% of the simulated count: {inside} of {len(ratios)} figures (predicted / simulated "
              f"{min(ratios):.3f} to {max(ratios):.3f}).", "",
              "Mean half-widths by human sample (per subject), A's Q_final / the difference:", ""]
    for row in rows:
        cells = ", ".join(f"{n}: {h[0]:.4f} / {h[1]:.4f}" for n, h in sorted(row["curve"].items()))
        lines.append(f"- {row['design'].name}: {cells}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    return study_main(__doc__ or "", lambda reps, seed: report(run(reps, seed), reps, seed), OUT, 200, 20, argv)


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""Why the judge-assisted intervals cover what they cover: docs/interval_check.md.

    .venv/bin/python bench/interval_check.py --quick            # a few replications, to stdout
    .venv/bin/python bench/interval_check.py --reps 400 --jobs 2    # the study (~10 min on two cores)

Not a timed test. The model, the designs (8 of them, and the three with a strong judge and 20 to 43 human grades)
and the draw (stratified by the judge's pass) are bench/judge_assisted_check.py's; the estimator is the PRODUCTION
``rgbench.stats.judge_assisted.fit`` on the study's sums. For one subject per design (B where the judge is biased
on B, else A) and the figures P and Q_final, each replication computes the estimate, its 2,000 case-bootstrap
replicates (λ re-estimated in each) and, from the same replicates, seven 95% intervals: normal (estimate ± 1.96 ·
the replicates' SD), normal at Hesterberg's expanded level of its variance parts (± Φ⁻¹((1 + c')/2) · the SD),
percentile, percentile at the expanded level (``expanded_confidence`` of the variance parts, as every expanded
column; the board's since 2026-12-05), BCa at the nominal level, BCa at the expanded level (the board's before),
and the bootstrap-t (each replicate studentised by its own linearised variance, the V(λ) ``fit`` returns); a P of
exactly 0 or 1 takes Wilson's interval over its K_L labelled cases in every column, as the board does
(``proportion_figure``). Beside them: the replicates' SD over the estimate's true SD (its SD over the
replications), and the same ratio for the human-only estimate (λ = 0), plainly resampled as the board does and
with each replicate's draw weights recalibrated to the replicate's stratum sizes (every labelled run of stratum h
weighted N*_h / M*_h, its runs over its drawn weight in the replicate: the post-stratified bootstrap, which
respects that the draw took fixed numbers per stratum), and the plain human-only replicates' SD over the true SD
of the mean of a uniform draw of as many runs from the same benchmark (1: the plain interval is about the one a
draw without the judge's strata would give). Streams are fixed (``--seed``, one per design): the report reproduces
bit for bit whatever ``--jobs``.
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from multiprocessing import Pool
from pathlib import Path
from statistics import NormalDist

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "bench"))

from judge_assisted_check import DESIGNS, MUS, SD, SD_CASE, SD_INTER, SD_RUN, graded, q_parts, study_main, truth  # noqa: E402

from rgbench.stats.bootstrap import (  # noqa: E402
    bca_bounds,
    case_counts,
    jackknife_acceleration,
    leave_one_out_weights,
)
from rgbench.stats.judge_assisted import CaseSums, expanded_confidence, fit, stratified_draw, variance_parts  # noqa: E402
from rgbench.stats.wilson import wilson_interval  # noqa: E402

CONFIDENCE = Fraction(95, 100)
RESAMPLES = 2000
OUT = REPO / "docs" / "interval_check.md"
CHOSEN = ("base", "rho_Q 0.9", "pool 10x", "judge +1.5 on B only", "judge +1.5 on B only, pool 10x",
          "100 cases x 1 run", "30 cases x 3 runs", "30 cases x 1 run",
          "rho_Q 0.9, pool 14x", "rho_Q 0.9, pool 9x", "rho_Q 0.9, pool 6x")
FIGURES = (("P", 0), ("Q_final", 2))
METHODS = ("normal", "normal expanded", "percentile", "percentile expanded", "BCa", "BCa expanded", "bootstrap-t")


def stratum_sums(y: np.ndarray, f: np.ndarray, weight: np.ndarray, stratum: np.ndarray,
                 controls: tuple[np.ndarray, ...] = ()) -> list[np.ndarray]:
    """Per stratum (the judge's pass 0 and 1), the per-case (n, m, Y, F, G) of :class:`CaseSums`, then F and G of
    each of the judge's ``controls`` (its parts, K x r each; (5 + 2 · controls) x K)."""
    def sums(x: np.ndarray, h: float) -> list[np.ndarray]:
        return [(x * (stratum == h)).sum(1), (weight * x * (stratum == h)).sum(1)]
    return [np.stack([(stratum == h).sum(1), (weight * (stratum == h)).sum(1), (weight * y * (stratum == h)).sum(1),
                      *sums(f, h), *(v for x in controls for v in sums(x, h))]).astype(np.float64)
            for h in (0.0, 1.0)]


def sums_of(parts: list[np.ndarray], judge: bool = True) -> CaseSums:
    """The :class:`CaseSums` of the strata ``parts`` together (a judge of 0 for the human-only estimate)."""
    n, m, y, f, g, *controls = np.sum(parts, axis=0)
    zero = np.zeros_like(f)
    return CaseSums(tuple(map(str, range(len(n)))), n, (m > 0).astype(int), m, y,
                    f if judge else zero, g if judge else zero,
                    tuple(zip(controls[::2], controls[1::2])) if judge else ())


def calibrated_human_only(parts: list[np.ndarray], w: np.ndarray) -> np.ndarray:
    """The human-only estimate per row of case weights ``w`` with each stratum's drawn weights scaled to its runs
    in the row, Σ_h (N*_h / M*_h) Y*_h / N* (a stratum without a labelled run in the row counts nothing)."""
    total = np.zeros(len(w))
    for n, m, y, *_ in parts:
        runs, drawn = w @ n, w @ m
        total += np.where(drawn > 0, runs * (w @ y) / np.where(drawn > 0, drawn, 1), 0.0)
    covered = sum(np.where(w @ m > 0, w @ n, 0.0) for n, m, *_ in parts)
    with np.errstate(invalid="ignore"):   # a row with no labelled run at all: NaN, left out by nanstd
        return total / covered


def intervals(sums: CaseSums, counts: np.ndarray, level: Fraction) -> tuple[float, float, list[tuple | None]]:
    """(estimate, replicates' SD, the bounds of each of METHODS) of the judge-assisted estimate of ``sums``; the
    bootstrap-t's t* = (theta* − theta) / √V*(λ*) of each replicate, V the linearised variance ``fit`` returns
    (a replicate with V* = 0 left out)."""
    k = len(sums.case_ids)
    data, replicates = fit(sums, np.ones((1, k))), fit(sums, counts)
    estimate, se = float(data.theta[0]), math.sqrt(float(data.variance[0]))
    finite = np.isfinite(replicates.theta)
    reps = replicates.theta[finite]
    sd = float(reps.std(ddof=1))
    acceleration = jackknife_acceleration(fit(sums, leave_one_out_weights(k, 0, k)).theta)
    z = 1.959963984540054
    q = NormalDist().inv_cdf((1 + float(level)) / 2)
    low, high = np.quantile(reps, [0.025, 0.975])
    wide = np.quantile(reps, [(1 - float(level)) / 2, (1 + float(level)) / 2])
    studentised = finite & (replicates.variance > 0)
    t = (replicates.theta[studentised] - estimate) / np.sqrt(replicates.variance[studentised])
    t_low, t_high = np.quantile(t, [0.025, 0.975]) if t.size else (0.0, 0.0)   # no spread: the point
    return estimate, sd, [(estimate - z * sd, estimate + z * sd), (estimate - q * sd, estimate + q * sd),
                          (float(low), float(high)),
                          (float(wide[0]), float(wide[1])),
                          bca_bounds(estimate, reps, acceleration, CONFIDENCE),
                          bca_bounds(estimate, reps, acceleration, level),
                          (estimate - t_high * se, estimate - t_low * se)]


def replicate(design, subject: int, rng: np.random.Generator) -> dict:
    """One benchmark of ``design``: per figure, the judge-assisted estimate, SD and bounds, and the human-only
    estimate with its plain and calibrated replicates' SD."""
    k, r = design.cases, design.runs
    n = max(2, round(k * r / (1 + design.ratio)))
    mu = MUS[subject]
    z = mu + rng.normal(0, SD_CASE, k)[:, None] + rng.normal(0, SD_INTER, k)[:, None] + rng.normal(0, SD_RUN, (k, r))
    zj = (mu + design.bias[subject] + design.rho * (z - mu)
          + math.sqrt(1 - design.rho ** 2) * SD * rng.normal(size=(k, r)))
    human, judge = graded(z), graded(zj)
    drawn, pi = stratified_draw(judge[0].ravel().tolist(), n, rng)
    weight = np.where(np.array(drawn).reshape(k, r), 1 / np.array([float(p) for p in pi]).reshape(k, r), 0.0)
    counts = case_counts(rng, k, RESAMPLES).astype(np.float64)
    uniform = np.array(stratified_draw([0] * (k * r), n, rng)[0]).reshape(k, r)   # a uniform draw of as many
    out = {}
    for name, m in FIGURES:
        parts = stratum_sums(human[m], judge[m], weight, judge[0], q_parts(judge[0], judge[1]) if name == "Q_final" else ())
        assisted, alone = sums_of(parts), sums_of(parts, judge=False)
        labelled = int((np.array(drawn).reshape(k, r).sum(1) > 0).sum())
        level = expanded_confidence(CONFIDENCE, variance_parts(assisted), RESAMPLES)
        estimate, sd, bounds = intervals(assisted, counts, level)
        if name == "P" and estimate in (0.0, 1.0):   # the board's rule for a P of 0 or 1 (proportion_figure)
            bounds = [wilson_interval(round(estimate) * labelled, labelled, CONFIDENCE)] * len(METHODS)
        human_estimate = float(fit(alone, np.ones((1, k))).theta[0])
        plain = float(np.nanstd(fit(alone, counts).theta, ddof=1))
        calibrated = float(np.nanstd(calibrated_human_only(parts, counts), ddof=1))
        out[name] = (estimate, sd, bounds, human_estimate, plain, calibrated, float(human[m][uniform].mean()))
    return out


def run_design(name: str, reps: int, seed: int) -> dict:
    index = next(i for i, d in enumerate(DESIGNS) if d.name == name)
    design = DESIGNS[index]
    subject = 1 if design.bias[1] else 0
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, index])))
    rows = [replicate(design, subject, rng) for _ in range(reps)]
    out = {"design": design, "subject": "AB"[subject]}
    for name_, m in FIGURES:
        true = truth(MUS[subject])[m]
        est = np.array([row[name_][0] for row in rows])
        human = np.array([row[name_][3] for row in rows])
        out[name_] = {
            "sd ratio": np.mean([row[name_][1] for row in rows]) / est.std(ddof=1),
            "coverage": [np.mean([lo <= true <= hi for lo, hi in (row[name_][2][j] for row in rows)])
                         for j in range(len(METHODS))],
            "human plain": np.mean([row[name_][4] for row in rows]) / human.std(ddof=1),
            "human calibrated": np.mean([row[name_][5] for row in rows]) / human.std(ddof=1),
            "uniform": np.mean([row[name_][4] for row in rows]) / np.std([row[name_][6] for row in rows], ddof=1)}
    return out


def report(results: list[dict], reps: int, seed: int) -> str:
    se = 100 * math.sqrt(0.95 * 0.05 / reps)
    lines = ["# Why the judge-assisted intervals cover what they cover", "",
             f"Written by `.venv/bin/python bench/interval_check.py --reps {reps} --seed {seed} --jobs 2` (the model "
             "and designs of bench/judge_assisted_check.py; the method: its docstring). "
             f"{reps} replications per design; Monte-Carlo SE of a coverage near 95%: {se:.1f} points. "
             "SD ratio: the mean SD of the 2,000 case-bootstrap replicates over the estimate's SD across the "
             "replications (1: the bootstrap measures the estimate's spread right).", "",
             "| design | subject | figure | SD ratio | " + " | ".join(METHODS) + " | human-only SD ratio, "
             "plain | human-only, post-stratified | human-only plain SD / a uniform draw's true SD |",
             "|---|---|---|---:|" + "---:|" * len(METHODS) + "---:|---:|---:|"]
    for res in results:
        for name, _ in FIGURES:
            cell = res[name]
            lines.append(f"| {res['design'].name} | {res['subject']} | {name} | {cell['sd ratio']:.3f} | "
                         + " | ".join(f"{100 * c:.1f}" for c in cell["coverage"])
                         + f" | {cell['human plain']:.3f} | {cell['human calibrated']:.3f} | {cell['uniform']:.3f} |")
    lines += ["", "In 93.5-96.5% (the target), of the figures above:", ""]
    for j, method in enumerate(METHODS):
        cells = [100 * res[name]["coverage"][j] for res in results for name, _ in FIGURES]
        inside = sum(93.5 <= c <= 96.5 for c in cells)
        lines.append(f"- {method}: {inside} of {len(cells)} (range {min(cells):.1f}-{max(cells):.1f}%; "
                     f"{sum(c < 93.5 for c in cells)} below, {sum(c > 96.5 for c in cells)} above)")
    for key, label in (("sd ratio", "judge-assisted replicates' SD / true SD"),
                       ("human plain", "human-only, plain"), ("human calibrated", "human-only, post-stratified"),
                       ("uniform", "human-only plain SD / a uniform draw's true SD")):
        values = [res[name][key] for res in results for name, _ in FIGURES]
        lines.append(f"- {label}: {min(values):.3f}-{max(values):.3f}")
    return "\n".join(lines) + "\n"


def write(reps: int, seed: int, jobs: int) -> str:
    with Pool(jobs) as pool:
        results = pool.starmap(run_design, [(name, reps, seed) for name in CHOSEN], chunksize=1)
    return report(results, reps, seed)


def main(argv: list[str] | None = None) -> int:
    return study_main(__doc__ or "", write, OUT, 400, 8, argv, seed=28, jobs=True)


if __name__ == "__main__":
    raise SystemExit(main())

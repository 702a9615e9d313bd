#!/usr/bin/env python3
"""What a further draw sized from the data does to the pooled estimate: docs/adaptive_size_check.md.

    .venv/bin/python bench/adaptive_size_check.py --quick     # a few replications, to stdout
    .venv/bin/python bench/adaptive_size_check.py             # the study (about a minute)

Not a timed test. One subject of N = 300 one-run cases and its residuals e (a fixed population per design: binary
at rates 0.2 and 0.05, a Q_final-like mix of a small spread and a rare jump, and a normal control). A uniform pilot
of n1 runs, then a further uniform draw over the runs left whose size follows `rgbench plan`'s rule for this case:
the smallest total n with (1/n − 1/N) s² <= h², s² the pilot's residual variance and h the target, 0.75 or 1 times
the pilot's expected half-width (at a fixed quantile: one-run cases, no judge-carried part). Rules (:data:`RULES`):
plan's count, none when the pilot meets the target; the same raised to at least n1 more; a further draw always
made, at least n1 more (a second draw decided before the pilot); and the total fixed in advance (the mean of the
first rule's totals, rounded), unbiased by construction. Two uniform draws pool to w = N/(n1 + n2) on every drawn
run (``HumanDraws.weight``; tests/test_human_draws.py), so the estimate is the mean of the drawn residuals.
Reported: its bias in units of its SD over the replications (Monte-Carlo SE 1/√reps), the mean total grades, the
share of replications that stop after the pilot, and the coverage of the 95% interval mean ± t_{n−1} · √((1/n −
1/N) s²_n). Streams fixed by --seed.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
from scipy.stats import t as student

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

from judge_assisted_check import study_main  # noqa: E402

OUT = REPO / "docs" / "adaptive_size_check.md"
N = 300
TARGETS = (0.75, 1.0)
CHUNK = 5000
# rule -> (further draws at least this many times n1 when one is made, a further draw made even when the pilot
# meets the target)
RULES = {"plan's count": (0, False), "plan's count, at least the pilot, none when met": (1, False),
         "always a further draw, at least the pilot": (1, True)}


def populations(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"binary, rate 0.2": (rng.random(N) < 0.2).astype(float),
            "binary, rate 0.05": (rng.random(N) < 0.05).astype(float),
            "Q_final-like (spread 0.1, a jump of 0.5 at rate 0.15)":
                np.round(rng.normal(0, 0.1, N) + 0.5 * (rng.random(N) < 0.15), 3),
            "normal (control)": rng.normal(0, 1, N)}


def sizes(pilot: np.ndarray, n1: int, target2: float, floor: int, always: bool = False) -> np.ndarray:
    """The total n plan's rule asks for after each pilot row, at most N: n1 when the pilot meets the target (s² of
    0 included) unless ``always``; otherwise at least n1 + ``floor``."""
    s2 = pilot.var(axis=1, ddof=1)
    with np.errstate(divide="ignore"):
        wanted = np.where(s2 > 0, np.ceil(1 / (target2 / np.where(s2 > 0, s2, 1) + 1 / N)), n1)
    further = np.maximum(wanted, n1 + floor)
    return np.minimum(np.where(always | (wanted > n1), further, n1), N).astype(int)


def cell(pop: np.ndarray, n1: int, shrink: float, rule: tuple[int, bool], reps: int,
         rng: np.random.Generator) -> dict:
    truth, s2_pop = pop.mean(), pop.var(ddof=1)
    target2 = shrink ** 2 * (1 / n1 - 1 / N) * s2_pop
    est, total, covered = [], [], []
    for start in range(0, reps, CHUNK):
        order = np.argsort(rng.random((min(CHUNK, reps - start), N)), axis=1)
        values = pop[order]
        n = sizes(values[:, :n1], n1, target2, rule[0] * n1, rule[1])
        taken = np.arange(N)[None, :] < n[:, None]
        mean = (values * taken).sum(1) / n
        s2 = ((values - mean[:, None]) ** 2 * taken).sum(1) / (n - 1)
        half = student.ppf(0.975, n - 1) * np.sqrt((1 / n - 1 / N) * s2)
        est.append(mean)
        total.append(n)
        covered.append(np.abs(mean - truth) <= half)
    est_a, total_a = np.concatenate(est), np.concatenate(total)
    return {"bias": (est_a.mean() - truth) / est_a.std(), "n": float(total_a.mean()),
            "stop": float((total_a == n1).mean()), "coverage": float(np.concatenate(covered).mean())}


def fixed(pop: np.ndarray, n: int, reps: int, rng: np.random.Generator) -> dict:
    """The same estimate and interval with the total n fixed before the pilot."""
    truth = pop.mean()
    est, covered = [], []
    for start in range(0, reps, CHUNK):
        values = pop[np.argsort(rng.random((min(CHUNK, reps - start), N)), axis=1)][:, :n]
        mean = values.mean(1)
        half = student.ppf(0.975, n - 1) * np.sqrt((1 / n - 1 / N) * values.var(axis=1, ddof=1))
        est.append(mean)
        covered.append(np.abs(mean - truth) <= half)
    est_a = np.concatenate(est)
    return {"bias": (est_a.mean() - truth) / est_a.std(), "n": float(n), "stop": 0.0,
            "coverage": float(np.concatenate(covered).mean())}


def write(reps: int, seed: int) -> str:
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed])))
    lines = ["# A further draw sized from the data", "",
             f"Generated by `bench/adaptive_size_check.py --reps {reps} --seed {seed}` (the model and the rules: its "
             f"docstring). {reps:,} replications per row; Monte-Carlo SE of a bias {1 / math.sqrt(reps):.3f} SD, of a "
             f"coverage near 95% {100 * math.sqrt(0.95 * 0.05 / reps):.2f} points. N = {N} one-run cases; target: the "
             "half-width as a share of the pilot's; stop: the share of replications with no further draw.", "",
             "| residuals | pilot | target | further draw | mean total n | stop | bias (SD) | coverage |",
             "|---|---:|---:|---|---:|---:|---:|---:|"]
    for name, pop in populations(rng).items():
        for n1 in (20, 40):
            for shrink in TARGETS:
                results = {label: cell(pop, n1, shrink, rule, reps, rng) for label, rule in RULES.items()}
                results["fixed in advance"] = fixed(pop, round(results["plan's count"]["n"]), reps, rng)
                for label, res in results.items():
                    lines.append(f"| {name} | {n1} | {shrink:g} | {label} | {res['n']:.1f} | "
                                 f"{100 * res['stop']:.0f}% | {res['bias']:+.3f} | {100 * res['coverage']:.1f}% |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    return study_main(__doc__ or "", write, OUT, 50_000, 2_000, argv)


if __name__ == "__main__":
    raise SystemExit(main())

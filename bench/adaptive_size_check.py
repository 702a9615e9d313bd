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

**On the board** (:func:`board_rows`, at --reps / 10 replications): the same question with every piece the
production one. The model and human draws of bench/plan_check.py (bench/judge_assisted_check.py's benchmarks:
subject A's Q_final, a judge of latent correlation rho, draws stratified by the judge's pass, each further draw
over the runs not drawn yet and the draws pooled by :meth:`rgbench.load.draws.HumanDraws.weight`); the further
draw's size from :func:`rgbench.stats.grading_plan.grades_for_half_width` on the pilot's estimate and interval
(:func:`rgbench.stats.judge_assisted.interval`), as `rgbench plan` counts it (None, a target grading cannot reach:
every run left); the interval the board's. Target: 0.75 or 1 times the mean pilot half-width. Bias: the mean of
theta − the benchmark's own mean of A's runs, in units of the SD of theta − the truth (the error the interval
covers); coverage of the truth (the normal law's mean).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
from scipy.stats import t as student

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

sys.path.insert(0, str(REPO / "scripts"))

import plan_check  # noqa: E402
from judge_assisted_check import CONFIDENCE, MUS, RESAMPLES, study_main, truth  # noqa: E402

from rgbench.stats.bootstrap import case_counts  # noqa: E402
from rgbench.stats.grading_plan import grades_for_half_width  # noqa: E402
from rgbench.stats.judge_assisted import estimate, interval, replicated  # noqa: E402
from rgbench.stats.judge_assisted_board import spread  # noqa: E402

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


# (name, plan_check design index, pilot n0) of the board part
BOARD_DESIGNS = (("100 cases x 3 runs, rho_Q 0.7", 0, 40), ("100 cases x 3 runs, judge uncorrelated", 1, 40),
                 ("30 cases x 3 runs, rho_Q 0.7", 3, 20))


def board_rows(name: str, index: int, n0: int, reps: int, seed: int) -> list[str]:
    """The board part's rows of one design (its own stream): per target and rule, the table row."""
    design = plan_check.DESIGNS[index]
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, 28, index])))
    total, t = design.cases * design.runs, truth(MUS[0])[2]
    keys = plan_check.keys_of(design.cases, design.runs)
    pilots = []
    for _ in range(reps):
        y, f, passed, parts = plan_check.benchmark(design, rng)[0]
        strata = passed.ravel().tolist()
        draws = plan_check.further((), keys, strata, n0, rng)
        # kept for the further draw's interval: as bytes (a case's count in a resample stays far below 256), so
        # 5,000 benchmarks of 100 cases hold 1 GB, not 8; the products with them are the same floats
        counts = case_counts(rng, design.cases, RESAMPLES)
        assert counts.max() < 256
        counts = counts.astype(np.uint8)
        sums, labelled = plan_check.pooled(draws, keys, y, f, parts)
        values = replicated(sums, counts)
        bounds = interval(sums, counts, CONFIDENCE, values)
        est, sd = estimate(sums), spread(values)
        assert bounds is not None and est is not None and sd is not None
        pilots.append((y, f, parts, strata, draws, counts, plan_check.plan_phase(sums, labelled, est),
                       (bounds[1] - bounds[0]) / 2, sd))
    mean_half = float(np.mean([p[-2] for p in pilots]))
    lines = []
    for shrink in TARGETS:
        counts_wanted = []
        for *_, phase_now, half, sd in pilots:
            need = grades_for_half_width(half, sd, phase_now, shrink * mean_half, CONFIDENCE, RESAMPLES).needed
            counts_wanted.append(total - n0 if need is None else need)
        fixed_more = round(float(np.mean(counts_wanted)))
        rules = {"plan's count": counts_wanted,
                 "always a further draw, at least the pilot": [max(c, n0) for c in counts_wanted],
                 "fixed in advance": [fixed_more] * reps}
        for label, sizes_of in rules.items():
            errors, drift, covered = [], [], []
            for (y, f, parts, strata, draws, counts, *_), more in zip(pilots, sizes_of):
                more = min(max(more, 2), total - n0) if more else 0   # a stratified draw takes one per stratum
                final = plan_check.further(draws, keys, strata, more, rng) if more else draws
                sums, _ = plan_check.pooled(final, keys, y, f, parts)
                est, bounds = estimate(sums), interval(sums, counts, CONFIDENCE)
                assert est is not None and bounds is not None
                errors.append(float(est.theta) - t)
                drift.append(float(est.theta) - float(y.mean()))
                covered.append(bounds[0] <= t <= bounds[1])
            mean_n = n0 + float(np.mean([min(max(m, 2), total - n0) if m else 0 for m in sizes_of]))
            stop = float(np.mean(np.array(sizes_of) == 0))
            lines.append(f"| {name} | {n0} | {shrink:g} | {label} | {mean_n:.1f} | {100 * stop:.0f}% | "
                         f"{np.mean(drift) / np.std(errors):+.3f} | {100 * np.mean(covered):.1f}% |")
    return lines


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
    board = max(reps // 10, 2)
    lines += ["", "## On the board", "",
              f"Every piece the production one (the docstring's second part): {board:,} replications per design, "
              f"each benchmark's pilot shared by the rules; Monte-Carlo SE of a bias about {1 / math.sqrt(board):.3f} "
              f"SD, of a coverage near 95% {100 * math.sqrt(0.95 * 0.05 / board):.1f} points. Subject A's Q_final; "
              "bias: theta less the benchmark's own mean, in SDs of theta less the truth.", "",
              "| design | pilot | target | further draw | mean total n | stop | bias (SD) | coverage |",
              "|---|---:|---:|---|---:|---:|---:|---:|"]
    for name, index, n0 in BOARD_DESIGNS:
        lines += board_rows(name, index, n0, board, seed)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    return study_main(__doc__ or "", write, OUT, 50_000, 2_000, argv)


if __name__ == "__main__":
    raise SystemExit(main())

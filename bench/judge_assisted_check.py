#!/usr/bin/env python3
"""The simulation study of the judge-assisted estimator (issue 28, part 1): docs/judge_assisted_check.md.

    .venv/bin/python bench/judge_assisted_check.py --quick          # a few replications, to stdout
    .venv/bin/python bench/judge_assisted_check.py --reps 2000 --jobs 2   # the study (about an hour on two cores)

Not a timed test. It draws benchmarks with a known truth, runs the PRODUCTION functions on them (the board's
``figure`` and ``proportion_figure`` of ``rgbench.stats.judge_assisted_board``, which call
``rgbench.stats.judge_assisted.interval`` on the judge-assisted and the human-only sums, with the Wilson rule for
a P of 0 or 1; :func:`difference_interval`; the draw through :func:`stratified_draw`), and reports coverage, width
against human-only on the same human sample, and the human grades saved, each with its Monte-Carlo SE. Every
stream is fixed (``--seed``, one per design), so the report reproduces bit for bit with the same numpy whatever
``--jobs``; it holds no timing.

The model (the shape of bench/stats_check.py's): a run's latent score is z = mu_s + b_c + u_sc + e_r (case,
subject x case and run effects, SD 1.2, 1.0 and 1.5); the human's clipped score is clip(round(z), 0, 12), Pass
when it is at least 10, and Q_final's per-run value 0.5 · pass + 0.5 · score / 12 (alpha 0.5 on a 0-12 scale).
The judge sees z_j = mu_s + bias_s + rho · (z − mu_s) + √(1 − rho²) · sd · e (e a fresh normal per run, sd the
SD of z), scored and passed by the same rule: rho is the latent judge-human correlation (the measured
correlation of the per-run Q_final values, smaller after rounding and the pass threshold, is printed beside
it) and bias_s a bias in points on the judge's view of subject s. Two subjects, mu 9.0 (A) and 8.2 (B), on the
same cases. The truth (the population mean of pass, score and Q_final) is exact from the normal law.

Each replication: the judge grades every run; the human draw takes n = round(T / (1 + ratio)) of a subject's T
runs, stratified by the judge's pass (at least one per stratum, proportional allocation, inclusion
probability n_h / N_h), ratio being the judge-only runs per human-graded run (N/n of the issue). Intervals:
95% percentile intervals over 2,000 case resamples (the toolkit's default) at Hesterberg's expanded level (each
estimate's own: the judge-assisted one's from its variance parts), human-only = the same
estimator with lambda = 0 (the inverse-probability-weighted mean of the drawn runs) on the same draw and the same
resamples. Grades saved (designs at rho_Q 0.7 with a pool of 4x or more, no bias): human-only intervals of
Q_final on further stratified draws of GRID times n from the same benchmark, and the n' at which their mean width
reaches the judge-assisted one (:func:`sample_size_at`); saved = 1 − n / n'. Beside it the finite-sample cost:
the mean K_L (cases with a human grade) and expanded quantile at n and at n', and the saving were both read at
the same quantile. The two 300-case designs come after the first eleven in DESIGNS, and the three with a strong
judge (rho_Q 0.9) and 20, 30 or 43 human grades after them, then three with 10 to 12 human grades (30 cases x 1
run at pool 2x, 60 x 1 and 20 x 3 at 4x), so that the others keep their streams.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from multiprocessing import Pool
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

from rgbench.stats.bootstrap import case_counts  # noqa: E402
from rgbench.stats.grading_plan import quantile  # noqa: E402
from rgbench.stats.judge_assisted import (  # noqa: E402
    CaseSums,
    difference_interval,
    interval,
    labelled_cases,
    stratified_draw,
    variance_parts,
)
from rgbench.stats.judge_assisted_board import figure, human_only, proportion_figure  # noqa: E402

CONFIDENCE = Fraction(95, 100)
RESAMPLES = 2000
SD_CASE, SD_INTER, SD_RUN = 1.2, 1.0, 1.5
SD = math.sqrt(SD_CASE ** 2 + SD_INTER ** 2 + SD_RUN ** 2)
MUS = (9.0, 8.2)
METRICS = ("P", "s_bar", "Q_final")
TARGET = (0.935, 0.965)
GRID = (1.25, 1.5, 1.75, 2.0)   # human-only sample sizes, times n, for the grades saved
OUT = REPO / "docs" / "judge_assisted_check.md"


@dataclass(frozen=True)
class Design:
    name: str
    cases: int
    runs: int
    rho: float
    ratio: int
    bias: tuple[float, float] = (0.0, 0.0)


# Latent rho 0.63, 0.83 and 0.98 give a measured rho_Q (the correlation of the per-run Q_final values) of about
# 0.5, 0.7 and 0.9 for subject A (bisection over 200,000 runs; each design's own is measured and printed).
RHO_05, RHO_07, RHO_09 = 0.63, 0.83, 0.98
DESIGNS = (
    Design("base", 100, 3, RHO_07, 4),
    Design("rho 0 (judge uncorrelated)", 100, 3, 0.0, 4),
    Design("rho_Q 0.5", 100, 3, RHO_05, 4),
    Design("rho_Q 0.9", 100, 3, RHO_09, 4),
    Design("pool 1x", 100, 3, RHO_07, 1),
    Design("pool 10x", 100, 3, RHO_07, 10),
    Design("judge +1.5 on B only", 100, 3, RHO_07, 4, (0.0, 1.5)),
    Design("judge +1.5 on B only, pool 10x", 100, 3, RHO_07, 10, (0.0, 1.5)),
    Design("100 cases x 1 run", 100, 1, RHO_07, 4),
    Design("30 cases x 3 runs", 30, 3, RHO_07, 4),
    Design("30 cases x 1 run", 30, 1, RHO_07, 4),
    # appended, so the designs above keep their streams (a design's stream is keyed by its index)
    Design("300 cases x 3 runs, pool 10x", 300, 3, RHO_07, 10),
    Design("300 cases x 3 runs", 300, 3, RHO_07, 4),
    # appended likewise: a strong judge with few human grades, the least favourable case found (2026-12-05)
    Design("rho_Q 0.9, pool 14x", 100, 3, RHO_09, 14),
    Design("rho_Q 0.9, pool 9x", 100, 3, RHO_09, 9),
    Design("rho_Q 0.9, pool 6x", 100, 3, RHO_09, 6),
    # appended likewise: 10 to 12 human grades per subject, about the board's reliability_min_cases of 10 labelled
    # cases, below which a judge-assisted figure is labelled indicative (2026-12-05, fifteenth session)
    Design("30 cases x 1 run, pool 2x", 30, 1, RHO_07, 2),
    Design("60 cases x 1 run", 60, 1, RHO_07, 4),
    Design("20 cases x 3 runs", 20, 3, RHO_07, 4),
)


def truth(mu: float) -> tuple[float, float, float]:
    """The population mean of pass, clipped score and Q_final's per-run value for a subject of latent mean mu."""
    def cdf(x: float) -> float:
        return 0.5 * (1 + math.erf((x - mu) / (SD * math.sqrt(2))))
    probs = [cdf(k + 0.5) - (cdf(k - 0.5) if k else 0.0) for k in range(12)] + [1 - cdf(11.5)]
    passed = sum(probs[10:])
    score = sum(k * p for k, p in enumerate(probs))
    return passed, score, 0.5 * passed + 0.5 * score / 12


def graded(z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(pass, score, Q_final's per-run value) of latent scores z."""
    score = np.clip(np.rint(z), 0, 12)
    passed = (score >= 10).astype(np.float64)
    return passed, score, 0.5 * passed + 0.5 * score / 12


def q_parts(passed: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Q_final's per-run value split as the board splits the judge's (its two controls): the pass part 0.5 · pass and
    the score part 0.5 · score / 12."""
    return 0.5 * passed, 0.5 * score / 12


def sums_of(y: np.ndarray, f: np.ndarray, drawn: np.ndarray, pi: np.ndarray, parts: Sequence[np.ndarray] = ()
            ) -> CaseSums:
    """:class:`CaseSums` of one subject's K x r values (float arrays: the study's shortcut for the exact sums), with
    the judge's ``parts`` (K x r each, summing to f) as its controls if given."""
    k, r = y.shape
    w = np.where(drawn, 1 / pi, 0.0)
    return CaseSums(tuple(f"c{c}" for c in range(k)), np.full(k, r), drawn.sum(1),   # type: ignore[arg-type]
                    w.sum(1), (w * y).sum(1), f.sum(1), (w * f).sum(1),
                    tuple((x.sum(1), (w * x).sum(1)) for x in parts))


def covers(bounds, value: float) -> bool:
    return bounds is not None and bounds[0] <= value <= bounds[1]


def width(bounds) -> float:
    return float("nan") if bounds is None else bounds[1] - bounds[0]


def human_sample(human: tuple, judge: tuple, size: int, rng: np.random.Generator) -> tuple[list[CaseSums], int]:
    """(One subject's sums of each metric, the drawn runs where the human's pass is not the judge's) for a human
    draw of ``size`` runs stratified by the judge's pass."""
    drawn_list, pi_list = stratified_draw(judge[0].ravel().tolist(), size, rng)
    drawn = np.array(drawn_list).reshape(judge[0].shape)
    pi = np.array([float(p) for p in pi_list]).reshape(judge[0].shape)
    parts = [(), (), q_parts(judge[0], judge[1])]   # Q_final: the judge's pass and score parts
    return ([sums_of(human[m], judge[m], drawn, pi, parts[m]) for m in range(3)],
            int(((human[0] != judge[0]) & drawn).sum()))


def saves(design: Design) -> bool:
    """Whether the study measures the human grades saved in ``design`` (rho_Q 0.7, a pool of 4x or more, no bias)."""
    return design.rho == RHO_07 and design.ratio >= 4 and design.bias == (0.0, 0.0)


def replicate(design: Design, rng: np.random.Generator, truths) -> dict[str, tuple[float, ...]]:
    """One benchmark: per figure (subject x metric, and the paired differences), (PPI covers, human-only covers,
    PPI width, human-only width); in a design that :func:`saves`, per Q_final figure and GRID point g the
    human-only width at g · n grades (key ``Q_final <figure> @<grades>``)."""
    k, r = design.cases, design.runs
    n = max(2, round(k * r / (1 + design.ratio)))
    case = rng.normal(0, SD_CASE, k)
    values, graded_runs, disagree = [], [], []
    for s, mu in enumerate(MUS):
        z = mu + case[:, None] + rng.normal(0, SD_INTER, k)[:, None] + rng.normal(0, SD_RUN, (k, r))
        zj = mu + design.bias[s] + design.rho * (z - mu) + math.sqrt(1 - design.rho ** 2) * SD * rng.normal(size=(k, r))
        graded_runs.append((graded(z), graded(zj)))
        sample, disagreements = human_sample(*graded_runs[-1], n, rng)
        values.append(sample)
        disagree.append(disagreements)
    counts = case_counts(rng, k, RESAMPLES)
    out: dict[str, tuple[float, ...]] = {}
    for m, metric in enumerate(METRICS):
        for s, label in enumerate("AB"):
            fig = (proportion_figure if metric == "P" else figure)(values[s][m], counts, CONFIDENCE)
            t = truths[s][m]
            out[f"{metric} {label}"] = (covers(fig.interval, t), covers(fig.human_only, t),
                                        width(fig.interval), width(fig.human_only), disagree[s])
        a, b = values[0][m], values[1][m]
        ppi = difference_interval(a, b, counts, CONFIDENCE)
        ho = difference_interval(human_only(a), human_only(b), counts, CONFIDENCE)
        t = truths[0][m] - truths[1][m]
        out[f"{metric} A-B"] = (covers(ppi, t), covers(ho, t), width(ppi), width(ho))
    if saves(design):
        out.update(quantiles(values[0][2], values[1][2], n))
    for size in sorted({min(k * r, round(g * n)) for g in GRID}) if saves(design) else ():
        a, b = (human_only(human_sample(*graded_runs[s], size, rng)[0][2]) for s in range(2))
        out[f"Q_final A @{size}"] = (width(interval(a, counts, CONFIDENCE)),)
        out[f"Q_final B @{size}"] = (width(interval(b, counts, CONFIDENCE)),)
        out[f"Q_final A-B @{size}"] = (width(difference_interval(a, b, counts, CONFIDENCE)),)
        out.update(quantiles(a, b, size))
    return out


def quantiles(a: CaseSums, b: CaseSums, size: int) -> dict[str, tuple[float, ...]]:
    """Per Q_final figure (A, B, A-B) of a draw of ``size`` grades per subject, (K_L, the normal quantile its
    interval is read at, ``grading_plan.quantile`` of its ``variance_parts``); A-B's K_L the fewer of the two and its
    quantile the larger (as :func:`difference_interval` reads it); key ``K_L <figure> @<size>``."""
    qa, qb = (quantile(CONFIDENCE, variance_parts(x), RESAMPLES) for x in (a, b))
    ka, kb = labelled_cases(a), labelled_cases(b)
    return {f"K_L {s} @{size}": (k, q) for s, k, q in (("A", ka, qa), ("B", kb, qb), ("A-B", min(ka, kb), max(qa, qb)))}


def measured_rho(design: Design, rng: np.random.Generator) -> tuple[float, float]:
    """(rho_Q, R²) of subject A over 200,000 runs: the correlation of the human's and the judge's per-run Q_final
    values, and the R² of the human's on the judge's two parts (least squares with an intercept), the share of its
    variance the board's two controls can take."""
    z = MUS[0] + rng.normal(0, SD, 200_000)
    zj = MUS[0] + design.rho * (z - MUS[0]) + math.sqrt(1 - design.rho ** 2) * SD * rng.normal(size=z.size)
    human, judge = graded(z)[2], graded(zj)
    x = np.column_stack([np.ones(z.size), *q_parts(judge[0], judge[1])])
    residual = human - x @ np.linalg.lstsq(x, human, rcond=None)[0]
    return float(np.corrcoef(human, judge[2])[0, 1]), float(1 - residual.var() / human.var())


def ratio_of_means(first: np.ndarray, second: np.ndarray) -> tuple[float, float]:
    """(mean(first) / mean(second), its Monte-Carlo SE by the delta method), over the replications (rows where both
    are finite)."""
    both = np.isfinite(first) & np.isfinite(second)
    x, y = first[both], second[both]
    ratio = x.mean() / y.mean()
    spread = np.var(x - ratio * y, ddof=1) / len(x)
    return float(ratio), float(math.sqrt(spread) / y.mean())


def run_design(design: Design, index: int, reps: int, seed: int) -> dict:
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, index])))
    truths = [truth(mu) for mu in MUS]
    rows = [replicate(design, rng, truths) for _ in range(reps)]
    n = max(2, round(design.cases * design.runs / (1 + design.ratio)))
    figures, saved, cost, split = {}, {}, {}, {}
    for key in (k for k in rows[0] if "@" not in k):
        cells = np.array([row[key] for row in rows], dtype=np.float64)
        if key in ("P A", "P B"):   # P's coverage by the drawn runs where the human's pass is not the judge's
            split[key] = {group: (float(cells[inside, 0].mean()) if inside.any() else math.nan, int(inside.sum()))
                          for group, inside in by_disagreements(cells[:, 4]).items()}
        figures[key] = {"ppi": cells[:, 0].mean(), "human": cells[:, 1].mean(),
                        "ratio": ratio_of_means(cells[:, 2], cells[:, 3])}
        if saves(design) and key.startswith("Q_final"):
            curve = {n: float(np.nanmean(cells[:, 3]))}
            for size in {min(design.cases * design.runs, round(g * n)) for g in GRID}:
                curve[size] = float(np.nanmean([row[f"{key} @{size}"][0] for row in rows]))
            needed = sample_size_at(curve, float(np.nanmean(cells[:, 2])))
            saved[key] = 1 - n / needed if math.isfinite(needed) else math.nan   # NaN: outside the grid
            # the mean K_L and quantile at each size, read at n' linearly between the sizes around it
            sizes = sorted(curve)
            kl, z = (np.array([[row[f"K_L {key[8:]} @{m}"][i] for row in rows] for m in sizes]).mean(1) for i in (0, 1))
            cost[key] = {"needed": needed, "K_L": (kl[0], np.interp(needed, sizes, kl)),
                         "z": (z[0], np.interp(needed, sizes, z))}
    return {"design": design, "figures": figures, "saved": saved, "cost": cost, "n": n, "split": split,
            **dict(zip(("rho_q", "r2"), measured_rho(design, rng)))}


def by_disagreements(counts: np.ndarray) -> dict[str, np.ndarray]:
    """The replications by the disagreements in their draw: none, 1 to 3, 4 or more."""
    return {"0": counts == 0, "1-3": (counts >= 1) & (counts <= 3), "4+": counts >= 4}


def pct(x: float) -> str:
    return f"{100 * x:.1f}"


def report(results: list[dict], reps: int, seed: int, jobs: int) -> str:
    se = math.sqrt(0.95 * 0.05 / reps)
    keys = [f"{m} {s}" for m in METRICS for s in ("A", "B", "A-B")]
    ratio_se = max(f["ratio"][1] for res in results for f in res["figures"].values())
    lines = [
        "# The judge-assisted estimator: simulation study",
        "",
        "Written by `nice -n 10 .venv/bin/python bench/judge_assisted_check.py --reps "
        f"{reps} --seed {seed} --jobs {jobs}` (bench/judge_assisted_check.py holds the model; docs/judge_assisted.md the "
        f"method). {reps} replications per design, each interval the 95% percentile one over {RESAMPLES:,} case "
        "resamples at "
        "Hesterberg's expanded level of its variance parts (`judge_assisted.expanded_confidence`), the "
        "human-only one likewise (its level the labelled cases') on the same human sample, a P of 0 or 1 by "
        "Wilson's rule (the board's "
        f"`proportion_figure`). Monte-Carlo SE of a coverage near 95%: {pct(se)} points (at most "
        f"{pct(math.sqrt(0.25 / reps))}); of a width ratio: at most {ratio_se:.3f}. Coverage target "
        f"{pct(TARGET[0])}-{pct(TARGET[1])}%.",
        "",
        "n: human grades per subject; ratio: judge-only runs per human-graded run; rho: the judge's latent "
        "correlation with the human (model), rho_Q the measured correlation of the per-run Q_final values.",
        "",
        "## Coverage (%), judge-assisted (PPI++) intervals",
        "",
        "| design | cases x runs | n | ratio | rho | rho_Q | " + " | ".join(keys) + " |",
        "|---|---|---:|---:|---:|---:|" + "---:|" * len(keys),
    ]
    for res in results:
        d = res["design"]
        cells = [pct(res["figures"][k]["ppi"]) for k in keys]
        lines.append(f"| {d.name} | {d.cases} x {d.runs} | {res['n']} | {d.ratio} | {d.rho} | {res['rho_q']:.2f} | "
                     + " | ".join(cells) + " |")
    lines += ["", "## Coverage (%), human-only intervals on the same human sample", "",
              "| design | " + " | ".join(keys) + " |", "|---|" + "---:|" * len(keys)]
    for res in results:
        lines.append(f"| {res['design'].name} | " + " | ".join(pct(res["figures"][k]["human"]) for k in keys) + " |")
    lines += ["", "## Width: mean judge-assisted width / mean human-only width, same human sample", "",
              "| design | " + " | ".join(keys) + " |", "|---|" + "---:|" * len(keys)]
    for res in results:
        lines.append(f"| {res['design'].name} | "
                     + " | ".join(f"{res['figures'][k]['ratio'][0]:.3f}" for k in keys) + " |")
    lines += ["", "## Human grades saved for the same Q_final interval width", "",
              "Measured: 1 − n / n', n' the human grades at which the human-only interval's mean width (on draws of "
              f"{', '.join(f'{g:g}' for g in GRID)} times n, stratified alike, same benchmarks) reaches the "
              "judge-assisted one at n (linear in 1/n between grid points). 1 − R² beside it (R the width ratio "
              "above: what the saving would be if width fell as 1/√n), with its Monte-Carlo SE 2 R SE(R). Ceiling: "
              "R²_Q · ratio / (1 + ratio), R²_Q that of the human's Q_final on the judge's pass and score parts (the "
              "board's two controls; over 200,000 runs); one control: rho_Q² · ratio / (1 + ratio), the saving of a "
              "judge's Q_final used linearly (issue 28's formula).", "",
              "| design | n | ratio | rho_Q | R²_Q | measured A | measured B | measured A-B | 1 − R² A | 1 − R² B | "
              "1 − R² A-B | ceiling | one control |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for res in results:
        if not res["saved"]:
            continue
        d = res["design"]
        measured = [pct(x) if math.isfinite(x := res["saved"][f"Q_final {s}"]) else "off grid" for s in ("A", "B", "A-B")]
        approx = [f"{pct(1 - r ** 2)} ± {pct(2 * r * e)}"
                  for r, e in (res["figures"][f"Q_final {s}"]["ratio"] for s in ("A", "B", "A-B"))]
        lines.append(f"| {d.name} | {res['n']} | {d.ratio} | {res['rho_q']:.2f} | {res['r2']:.3f} | "
                     + " | ".join(measured + approx) + f" | {pct(ceiling(res))} | {pct(ceiling(res, linear=True))} |")
    lines += ["", "The finite-sample cost: both intervals are read at an expanded level, the judge-assisted one at n "
              "at its variance parts' (fewer labelled cases, some of the variance on the cases the judge carries), "
              "the human-only one at n' at its K_L labelled cases', so their normal quantiles z' differ (mean K_L "
              "and z' over the replications; at n' read linearly between the grid "
              "points). If width went as z'/√n, the human-only grades for equal width at equal z' would be n' · "
              "(z'(n) / z'(n'))²: saved, quantile cost removed = 1 − (n / n') · (z'(n') / z'(n))².", "",
              "| design | figure | n | n' | K_L at n | K_L at n' | z' at n | z' at n' | z' ratio | measured | "
              "quantile cost removed | ceiling |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for res in results:
        for key, c in res["cost"].items():
            if not math.isfinite(c["needed"]):
                continue
            (k0, k1), (z0, z1) = c["K_L"], c["z"]
            lines.append(f"| {res['design'].name} | {key} | {res['n']} | {c['needed']:.1f} | {k0:.1f} | {k1:.1f} | "
                         f"{z0:.4f} | {z1:.4f} | {z0 / z1:.4f} | {pct(res['saved'][key])} | "
                         f"{pct(1 - res['n'] / c['needed'] * (z1 / z0) ** 2)} | {pct(ceiling(res))} |")
    lines += ["", "## P's coverage (%) by the disagreements in the draw", "",
              "The drawn runs of a subject where the human's pass is not the judge's: the judge's correction of P rests on "
              "them. Coverage of P's judge-assisted interval among the replications whose draw held 0, 1 to 3, or 4 "
              "or more of them (the replications beside it; Monte-Carlo SE about √(0.05 · 0.95 / replications)).", "",
              "| design | n | P A: 0 | 1-3 | 4+ | P B: 0 | 1-3 | 4+ |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for res in results:
        cells = [f"{pct(c)} ({k})" if k else "-" for key in ("P A", "P B") for c, k in res["split"][key].values()]
        lines.append(f"| {res['design'].name} | {res['n']} | " + " | ".join(cells) + " |")
    lines += ["", "## Against the targets", ""] + verdicts(results, se)
    return "\n".join(lines) + "\n"


def ceiling(res: dict, linear: bool = False) -> float:
    """R² · N / (n + N): the share of human grades the judge's two parts as controls save (rho_Q² with ``linear``:
    its Q_final value as the one control, issue 28's formula)."""
    return (res["rho_q"] ** 2 if linear else res["r2"]) * res["design"].ratio / (1 + res["design"].ratio)


def verdicts(results: list[dict], se: float) -> list[str]:
    """The targets of issue 28, each checked on the figures above (no sentence stronger than the table)."""
    out = []
    inside = [(res["design"].name, k, f["ppi"]) for res in results for k, f in res["figures"].items()]
    missed = [f"{d}: {k} {pct(c)}%" for d, k, c in inside if not TARGET[0] <= c <= TARGET[1]]
    low = min(c for _, _, c in inside)
    high = max(c for _, _, c in inside)
    out.append(f"- Coverage in {pct(TARGET[0])}-{pct(TARGET[1])}%: {len(inside) - len(missed)} of {len(inside)} "
               f"figures (range {pct(low)}-{pct(high)}%; SE {pct(se)} points). "
               + ("Outside: " + "; ".join(missed) + "." if missed else "All inside."))
    ratios = [(res["design"].name, k, f["ratio"][0]) for res in results for k, f in res["figures"].items()]
    wide = [f"{d}: {k} {r:.3f}" for d, k, r in ratios if r > 1.02]
    out.append(f"- Mean width at most 2% wider than human-only: {len(ratios) - len(wide)} of {len(ratios)} figures "
               f"(largest ratio {max(r for _, _, r in ratios):.3f}). "
               + ("Wider: " + "; ".join(wide) + "." if wide else "None wider."))
    for res in results:
        if res["saved"]:
            d = res["design"]
            saved = [res["saved"][f"Q_final {s}"] for s in ("A", "B", "A-B")]
            met = "met" if all(x >= 0.40 for x in saved) else "met for " + str(sum(x >= 0.40 for x in saved)) + " of 3"
            out.append(f"- Saved at rho_Q {res['rho_q']:.2f}, pool {d.ratio}x, {d.name} (n {res['n']}): "
                       + ", ".join(f"{pct(x)}%" for x in saved) + f" for Q_final A, B and A-B (target 40%: {met}; "
                       f"ceiling with the judge's two parts {pct(ceiling(res))}%, with its Q_final alone "
                       f"{pct(ceiling(res, linear=True))}%"
                       + (", below 40%: this design cannot reach the target)." if ceiling(res) < 0.40 else ")."))
    return out


def sample_size_at(curve: dict[int, float], width: float) -> float:
    """The sample size n at which a mean interval width (or half-width) ``curve`` (n -> width, falling in n)
    reaches ``width``: linear interpolation in 1/n of the squared width between the grid points around it (the
    width is about linear in 1/√n); inf when no two points bracket it. Used by the studies of the grading budget
    and of active selection (bench/plan_check.py, bench/active_check.py)."""
    points = sorted(curve.items())
    for (n0, w0), (n1, w1) in zip(points, points[1:]):
        if w0 >= width >= w1:
            x = 1 / n0 + (1 / n1 - 1 / n0) * (w0 ** 2 - width ** 2) / (w0 ** 2 - w1 ** 2)
            return 1 / x
    return math.inf


def study_main(doc: str, write: Callable[..., str], out: Path, reps: int, quick: int, argv: list[str] | None,
               *, seed: int = 20261204, jobs: bool = False) -> int:
    """The command line of a study: ``--reps`` (default ``reps``), ``--seed`` (default ``seed``), ``--quick``
    (``quick`` replications, the report to stdout), and with ``jobs`` ``--jobs`` (designs run in parallel, the
    report the same); otherwise the report ``write(reps, seed)`` (with ``jobs``: ``write(reps, seed, jobs)``) goes
    to ``out``."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--reps", type=int, default=reps)
    parser.add_argument("--seed", type=int, default=seed)
    parser.add_argument("--quick", action="store_true", help=f"{quick} replications, report to stdout")
    if jobs:
        parser.add_argument("--jobs", type=int, default=1, help="designs run in parallel (the report is the same)")
    args = parser.parse_args(argv)
    text = write(quick if args.quick else args.reps, args.seed, *((args.jobs,) if jobs else ()))
    if args.quick:
        sys.stdout.write(text)
    else:
        out.write_text(text, encoding="utf-8")
        print(f"wrote {out.relative_to(REPO)}")
    return 0


def write(reps: int, seed: int, jobs: int) -> str:
    """The report of every design at ``reps`` replications (its designs on ``jobs`` processes)."""
    with Pool(jobs) as pool:
        results = pool.starmap(run_design, [(d, i, reps, seed) for i, d in enumerate(DESIGNS)], chunksize=1)
    return report(results, reps, seed, jobs)


def main(argv: list[str] | None = None) -> int:
    return study_main(__doc__ or "", write, OUT, 2000, 8, argv, seed=28, jobs=True)


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""`make stats-check`: a simulation study of the statistics production computes (issues 11 and 25).

Not a timed test: it draws benchmarks from a model fitted to the sample suite, runs the PRODUCTION functions
of ``rgbench.stats`` on each (every call goes through :class:`Production`, the one place that names them), and
reports how often they err, written to docs/statistics_check.md. Every rate is printed with its Monte-Carlo
standard error and its target; the study's streams are fixed (``--seed``), so it reproduces bit for bit
(the report holds no timing; designs run in parallel, each on its own stream).

The model (fitted to results/per_run.csv of the sample suite by method of moments, :func:`fit_model`):
a run's latent score is z = mu_s + b_c + u_sc + e_r, with b_c ~ N(0, sd_case²) the case's difficulty shared
by every subject, u_sc ~ N(0, sd_interaction²) the subject x case interaction and e_r ~ N(0, sd_run²) the
run's own noise; clipped_score = clip(round(z), 0, 12); Pass when clipped ≥ 10, Conditional 7-9, else Fail;
correctness 1 from 9, 1/2 from 5 to 8, else 0. A subject's confidence is 100 · E[correctness | its case's
latent mean] plus its bias and noise (rounded, clipped to 0..100). The ICC (share of a run's latent variance
that its case carries, (sd_case² + sd_interaction²) / total) is varied at a fixed total variance.

Blocks (each over the designs 30 and 100 cases x 1 and 3 runs per case, 3 runs at ICC 0.2, the fitted one and
0.75; with one run the ICC changes nothing the statistics see):

- coverage of the P, s_bar, BS, Q_final and ECE intervals of a sample-like board of four and two perfectly
  calibrated subjects, the simultaneous rank sets of the four, the calibration call;
- equal subjects (4 tied): the pairwise test's type-I error, the family-wise error through the board's
  adjustment, the rank sets' simultaneous coverage in the least favourable case (all tied);
- the power sentence: a pair whose true difference is the printed figure, measured at the level the figure
  is computed for and through Holm on a 5-subject board (and the figure printed before issue 25);
- ties: 8 tied subjects; boards of 20 and 100 subjects (spread: power of pairs 10 ranks apart; tied: the
  family-wise error);
- seed invariance: small trees run through scripts/metrics.py before and after edits that change no data.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path

import numpy as np
from scipy.special import ndtr, ndtri

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

from rgbench.compute.derive import CONDITIONAL, FAIL, PASS, RunRow  # noqa: E402
from rgbench.compute.metrics import mean_clipped_score, pass_rate, q_final  # noqa: E402
from rgbench.load.scale import default_scale  # noqa: E402
from rgbench.stats.run_columns import RunColumns  # noqa: E402

ALPHA = Fraction(1, 2)
MAX_SCORE = 12
BINS = 10
LEVEL = Fraction(5, 100)
CONFIDENCE = Fraction(95, 100)
POWER = Fraction(8, 10)
OUTPUT = REPO / "docs/statistics_check.md"
Runs = Mapping[str, Sequence[RunRow]]
Interval = tuple[float, float] | None
FIGURES = ("P", "s_bar", "BS", "Q_final", "ECE")
COVERAGE_TARGET = 0.93        # every interval
SIMULTANEOUS_TARGET = 0.95    # the simultaneous rank sets, less one Monte-Carlo SE
FWER_TARGET = 0.05            # family-wise error through the board's adjustment
POWER_TOLERANCE = 0.03        # the power sentence's "at least 80%" within 3 points of the measurement

# What the same study measured before (bench/stats_check.py at commit 82bed02 and 4b77702).
BEFORE = ("Before issue 11, the run-level methods (McNemar on runs paired by label, Wilson over runs, percentile "
          "bootstrap) measured here: pairwise type-I error 4.0-14.5%, family-wise error 4.5-31.0%, coverage of P "
          "74.0-87.0%. Before issue 25 this study had no ties, no board over 4 subjects, no s_bar or BS coverage, no "
          "100-case design, no check of the power sentence and no seed invariance (the issue measured: rank sets "
          "91.3 ± 1.1% with 4 and 87.3 ± 1.4% with 8 tied subjects at 30 cases; BS intervals 91.7-95.4%; the power "
          "sentence's 80% measured 74.6% and 76.4% at 30 and 100 cases, 49% and 63% through Holm). Until 2026-12-04 "
          "(commit aecb002) BS's interval was the bootstrap-t (87.8-90.0% for `calibrated-shared` in three designs, "
          "at 0.21-0.74 times the mean width of today's) and the calibration rule studentised the L1 distance of the "
          "bin gaps, not their length (false alarms 2.8-8.0%; 8.0% ± 1.4% for `calibrated` at 100 cases x 3 runs).")


# --- the model ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Subject:
    """One simulated subject: latent mean score, confidence bias (points) and confidence noise (SD, points).

    ``knows_case`` False: confidence is 100 · E[correctness | mu_s + b_c] (the interaction u_sc averaged out), so a
    subject with bias 0 and noise 0 is still perfectly calibrated while its runs of one case are correlated given
    their confidence (they share u_sc): the case for a cluster-aware calibration check.
    """

    name: str
    mu: float
    bias: float = 0.0
    noise: float = 0.0
    knows_case: bool = True      # False: the confidence knows the case's shared difficulty, not the interaction


@dataclass(frozen=True)
class Model:
    sd_case: float
    sd_interaction: float
    sd_run: float

    @property
    def icc(self) -> float:
        """The share of a run's latent variance its case carries: (sd_case² + sd_interaction²) / total."""
        case = self.sd_case ** 2 + self.sd_interaction ** 2
        return case / (case + self.sd_run ** 2)

    def with_icc(self, icc: float) -> Model:
        """The model with that ICC at the same total variance (sd_case : sd_interaction kept)."""
        case = self.sd_case ** 2 + self.sd_interaction ** 2
        total = case + self.sd_run ** 2
        share = self.sd_case ** 2 / case
        return Model(math.sqrt(icc * total * share), math.sqrt(icc * total * (1 - share)),
                     math.sqrt((1 - icc) * total))


def fit_model(per_run_csv: Path) -> tuple[Model, dict[str, float]]:
    """Method of moments on clipped_score: sd_run² = mean within-(subject, case) variance; sd_case² = mean
    covariance across cases of two subjects' case means (shared difficulty; floored at 0.5² because the
    sample's estimate, near 0, is noise on 30 cases); sd_interaction² = mean variance of a subject's case
    means minus sd_case² and sd_run²/runs. Also each subject's mean clipped score."""
    import csv

    with per_run_csv.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    cells: dict[tuple[str, str], list[int]] = {}
    for r in rows:
        cells.setdefault((r["subject_id"], r["case_id"]), []).append(int(r["clipped_score"]))
    within = [float(np.var(v, ddof=1)) for v in cells.values() if len(v) > 1]
    sd_run2 = float(np.mean(within))
    subjects = sorted({s for s, _ in cells})
    cases = sorted({c for _, c in cells})
    means = {s: {c: float(np.mean(cells[(s, c)])) for c in cases if (s, c) in cells} for s in subjects}
    covs = []
    for a, b in itertools.combinations(subjects, 2):
        shared = [c for c in cases if c in means[a] and c in means[b]]
        covs.append(float(np.cov([means[a][c] for c in shared], [means[b][c] for c in shared])[0, 1]))
    sd_case2 = max(float(np.mean(covs)), 0.25)
    inter = []
    for s in subjects:
        runs = np.mean([len(cells[(s, c)]) for c in means[s]])
        inter.append(float(np.var(list(means[s].values()), ddof=1)) - sd_case2 - sd_run2 / runs)
    sd_int2 = max(float(np.mean(inter)), 0.0)
    mean_clipped = {s: float(np.mean([v for (t, _), vs in cells.items() if t == s for v in vs])) for s in subjects}
    return Model(math.sqrt(sd_case2), math.sqrt(sd_int2), math.sqrt(sd_run2)), mean_clipped


def expected_correctness(m: np.ndarray, sd_run: float) -> np.ndarray:
    """E[correctness | latent cell mean m]: P(round(z) ≥ 9) + ½ P(5 ≤ round(z) ≤ 8), z ~ N(m, sd_run²)."""
    upper = 1 - ndtr((8.5 - m) / sd_run)
    middle = ndtr((8.5 - m) / sd_run) - ndtr((4.5 - m) / sd_run)
    return upper + middle / 2


def stated_confidence(model: Model, subject: Subject, shared: np.ndarray, m: np.ndarray) -> np.ndarray:
    """100 · E[correctness | what the subject knows] + its bias: the cell mean m, or only mu_s + b_c (``shared``)."""
    if subject.knows_case:
        return 100 * expected_correctness(m, model.sd_run) + subject.bias
    return 100 * expected_correctness(shared, math.hypot(model.sd_interaction, model.sd_run)) + subject.bias


def simulate(model: Model, subjects: Sequence[Subject], n_cases: int, n_runs: int,
             rng: np.random.Generator) -> dict[str, list[RunRow]]:
    """One benchmark: every subject answers every case ``n_runs`` times."""
    b = rng.normal(0, model.sd_case, n_cases)
    out: dict[str, list[RunRow]] = {}
    for s in subjects:
        m = s.mu + b + rng.normal(0, model.sd_interaction, n_cases)
        conf_case = stated_confidence(model, s, s.mu + b, m)
        rows = []
        for c in range(n_cases):
            z = m[c] + rng.normal(0, model.sd_run, n_runs)
            clipped = np.clip(np.rint(z), 0, MAX_SCORE).astype(int)
            confidence = np.clip(np.rint(conf_case[c] + rng.normal(0, s.noise, n_runs) if s.noise else
                                         np.full(n_runs, conf_case[c])), 0, 100).astype(int)
            for r in range(n_runs):
                k = int(clipped[r])
                cls = PASS if k >= 10 else CONDITIONAL if k >= 7 else FAIL
                corr = Fraction(1) if k >= 9 else Fraction(1, 2) if k >= 5 else Fraction(0)
                rows.append(RunRow(s.name, "1", f"RO-SIMU-{c + 1:03d}", f"r{r + 1}", "rev", "SIMU", k, 0, 12, k,
                                   False, False, cls, int(confidence[r]), Fraction(int(confidence[r]), 100), corr))
        out[s.name] = rows
    return out


def population_truth(model: Model, subject: Subject, rng: np.random.Generator, n: int = 400_000) -> dict[str, float]:
    """P, s_bar, BS, Q_final and ECE of the subject over the population of cases and runs (one large simulation)."""
    shared = subject.mu + rng.normal(0, model.sd_case, n)
    m = shared + rng.normal(0, model.sd_interaction, n)
    z = m + rng.normal(0, model.sd_run, n)
    clipped = np.clip(np.rint(z), 0, MAX_SCORE)
    conf = stated_confidence(model, subject, shared, m)
    if subject.noise:
        conf = conf + rng.normal(0, subject.noise, n)
    conf = np.clip(np.rint(conf), 0, 100).astype(int)
    corr = np.where(clipped >= 9, 1.0, np.where(clipped >= 5, 0.5, 0.0))
    p = float(np.mean(clipped >= 10))
    q = float(ALPHA) * p + (1 - float(ALPHA)) * float(np.mean(clipped)) / MAX_SCORE
    bins = np.minimum(conf * BINS // 100, BINS - 1)
    gap = conf / 100 - corr
    ece = float(sum(abs(gap[bins == i].sum()) for i in range(BINS)) / n)
    return {"P": p, "s_bar": float(np.mean(clipped)), "BS": float(np.mean(gap * gap)), "Q_final": q, "ECE": ece}


def true_q_final(model: Model, mu: float, n: int = 400_000) -> float:
    """Q_final over the population of cases and runs of a subject of latent mean mu (its confidence plays no
    part), on one fixed stream: subjects of the same mu get the same value (exact ties)."""
    z = mu + np.random.default_rng(20261203).normal(0, math.sqrt(model.sd_case ** 2 + model.sd_interaction ** 2
                                                                  + model.sd_run ** 2), n)
    clipped = np.clip(np.rint(z), 0, MAX_SCORE)
    return float(ALPHA) * float(np.mean(clipped >= 10)) + (1 - float(ALPHA)) * float(np.mean(clipped)) / MAX_SCORE


# --- the production functions: every call the study makes goes through here ------------------------

@dataclass(frozen=True)
class Production:
    """The production functions under test, in one place (swap a method here when a function changes).

    ``resamples``: bootstrap resamples per statistic (config.yaml's bootstrap_resamples; the sign-flip test draws
    nothing);
    ``correction``: config.yaml's pairwise_correction (``holm`` or ``benjamini-hochberg``).
    """

    resamples: int
    correction: str = "holm"

    def summaries(self, runs: Runs) -> dict:
        from rgbench.stats.case_summary import case_summaries
        return case_summaries(RunColumns.of(runs), alpha=ALPHA, scale=default_scale(MAX_SCORE), bins=BINS)

    def pairwise(self, runs: Runs, seed: int) -> list:
        """pairwise.csv's rows of a board whose subjects are all ranked (the adjustment's family: its pairs)."""
        from rgbench.stats.pairwise import pairwise_table
        return pairwise_table(self.summaries(runs), f"study-{seed}", resamples=self.resamples,
                              confidence=CONFIDENCE, level=LEVEL, ranked=sorted(runs))

    def p_value(self, row) -> float:
        """The unadjusted p-value of a row (the sign-flip test of the per-case Q_final differences)."""
        assert row.p_value is not None   # simulated subjects share every case
        return float(row.p_value)

    def significant(self, rows) -> set[tuple[str, str]]:
        """The (better, worse) pairs the page calls "significantly above" (the adjusted p below the level)."""
        from rgbench.stats.pairwise import significantly_better
        out = set()
        for row in rows:
            better = significantly_better(row, LEVEL, self.correction)
            if better is not None:
                out.add((better, row.subject_b if better == row.subject_a else row.subject_a))
        return out

    def mde(self, sd: float, n: int, pairs: int) -> float:
        """The power sentence's figure for one pair (``pairs`` = the pairs of ranked subjects, m)."""
        from rgbench.stats.pairwise import minimum_detectable_difference
        value = minimum_detectable_difference(sd, n, LEVEL, pairs=pairs)
        assert value is not None
        return value

    def intervals(self, runs: Runs, sid: str, seed: int) -> dict[str, Interval]:
        from rgbench.stats.intervals import subject_intervals
        found = subject_intervals(self.summaries({sid: runs[sid]})[sid], np.random.default_rng(seed),
                                  self.resamples, CONFIDENCE)
        return {"P": found.p, "s_bar": found.s_bar, "BS": found.bs, "Q_final": found.q_final, "ECE": found.ece}

    def rank_sets(self, runs: Runs, seed: int) -> dict[str, tuple[int, int]]:
        """Each subject's simultaneous rank set (rank_sets.csv's rank_low, rank_high)."""
        from rgbench.stats.rank_sets import joint_draw, rank_confidence_sets
        s = self.summaries(runs)
        ids = sorted(s)
        estimates = []
        for i in ids:
            value = q_final(pass_rate(runs[i]), mean_clipped_score(runs[i]), ALPHA, default_scale(MAX_SCORE))
            assert value is not None   # every simulated subject has runs
            estimates.append(float(value))
        draw = joint_draw([s[i] for i in ids], np.random.default_rng(seed), self.resamples)
        return dict(zip(ids, rank_confidence_sets(estimates, draw, CONFIDENCE)[0]))

    def calibration_call(self, ece: Interval | None) -> bool:
        """True when the page calls the subject distinguishable from perfect calibration: its ECE interval
        excludes 0 (rgbench.leaderboard.calibration_text.distinguishable)."""
        from rgbench.leaderboard.calibration_text import distinguishable
        return ece is not None and distinguishable(Fraction(ece[0]))

    def results(self, root: Path) -> dict[str, bytes]:
        """Every results/*.csv of ``root`` after ``scripts/metrics.py --root root``."""
        env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
        done = subprocess.run([sys.executable, str(REPO / "scripts/metrics.py"), "--root", str(root)],
                              capture_output=True, text=True, env=env, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"metrics.py failed on {root}: {done.stderr[-2000:]}")
        return {p.name: p.read_bytes() for p in sorted((root / "results").glob("*.csv"))}


# --- designs and blocks ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Design:
    """cases x runs per case at an ICC (None: the fitted model's)."""

    cases: int
    runs: int
    icc: float | None = None

    def model(self, fitted: Model) -> Model:
        return fitted if self.icc is None else fitted.with_icc(self.icc)

    def label(self, fitted: Model) -> str:
        runs = f"{self.runs} run{'s' if self.runs > 1 else ''}"
        icc = "" if self.runs == 1 else f", ICC {self.model(fitted).icc:.2f}"
        return f"{self.cases} cases x {runs}{icc}"


DESIGNS = tuple(Design(cases, runs, icc) for cases in (30, 100)
                for runs, icc in ((1, None), (3, 0.2), (3, None), (3, 0.75)))
# a sample-like board: two strong subjects close together, one middle, one weak; confidence over- and under-stated
BOARD = (Subject("strong-a", 11.4, bias=-5, noise=8), Subject("strong-b", 11.0, bias=8, noise=10),
         Subject("middle", 9.6, bias=-8, noise=10), Subject("weak", 7.3, bias=-15, noise=12))
CALIBRATED = (Subject("calibrated", 9.8), Subject("calibrated-shared", 9.8, knows_case=False))
TIED_MU = 9.8
TRUTH_CASES = 400_000    # cases of the one large simulation that gives each true value (--quick: fewer)
MOMENT_CASES = 100_000   # cases of the simulation of a pair's per-case differences (power sentence)
EIGHT_TIED = (Design(30, 3), Design(100, 3))   # the designs of the 8-tied boards
POWER_BOARD = 5          # the power sentence's board: subjects a (above) and b, c, d, e tied
SPREAD = (11.6, 6.0)     # mu of the first and last subject of a spread board
APART = 10               # "every pair 10 ranks apart is significantly ordered"


def tied(k: int) -> list[Subject]:
    return [Subject(f"tied-{i:03d}", TIED_MU, noise=10) for i in range(1, k + 1)]


def spread(k: int) -> list[Subject]:
    top, bottom = SPREAD
    return [Subject(f"s-{i:03d}", top - (top - bottom) * i / (k - 1), noise=10) for i in range(k)]


def covers(interval: Interval, value: float) -> bool:
    return interval is not None and interval[0] - 1e-9 <= value <= interval[1] + 1e-9


def rank_sets_cover(sets: Mapping[str, tuple[int, int]], truth: Mapping[str, float]) -> bool:
    """Every subject's set holds every rank its true value allows: [1 + #{θ_k > θ_j}, p − #{θ_k < θ_j}] (a
    tied block may be ordered any way: a set covers when it orders no two tied subjects and no pair wrongly)."""
    p = len(truth)
    for j, (low, high) in sets.items():
        above = sum(v > truth[j] for v in truth.values())
        below = sum(v < truth[j] for v in truth.values())
        if not (low <= 1 + above and high >= p - below):
            return False
    return True


def false_claims(claims: set[tuple[str, str]], truth: Mapping[str, float]) -> int:
    """Claims "better above worse" whose true values do not order them so."""
    return sum(truth[better] <= truth[worse] for better, worse in claims)


def stream(seed: int, *key: object) -> np.random.Generator:
    """The study's stream of one task: its seed and the task's key (text), hashed; fixed across runs."""
    digest = hashlib.sha256(repr((seed, key)).encode("utf-8")).digest()
    return np.random.default_rng(np.frombuffer(digest, dtype=">u4").astype(np.uint32).tolist())


def coverage_block(prod: Production, fitted: Model, design: Design, reps: int, seed: int) -> dict[str, float]:
    """Counts over ``reps`` sample-like boards: interval coverage, rank sets, ECE_low > 0, calibration calls."""
    model = design.model(fitted)
    rng = stream(seed, "coverage", design)
    subjects = [*BOARD, *CALIBRATED]
    truth = {s.name: population_truth(model, s, stream(seed, "truth", design, s.name), TRUTH_CASES) for s in subjects}
    qtruth = {s.name: truth[s.name]["Q_final"] for s in BOARD}
    out: dict[str, float] = {"reps": reps, "rank_cover": 0, "rank_size": 0.0}
    for s in subjects:
        for m in FIGURES:
            out[f"cover:{s.name}:{m}"] = 0
            out[f"truth:{s.name}:{m}"] = truth[s.name][m]
        out[f"calib_call:{s.name}"] = 0
    for rep in range(reps):
        runs = simulate(model, subjects, design.cases, design.runs, rng)
        for s in subjects:
            got = prod.intervals(runs, s.name, rep)
            for m in FIGURES:
                out[f"cover:{s.name}:{m}"] += covers(got[m], truth[s.name][m])
            out[f"calib_call:{s.name}"] += prod.calibration_call(got["ECE"])
        sets = prod.rank_sets({s.name: runs[s.name] for s in BOARD}, rep)
        out["rank_cover"] += rank_sets_cover(sets, qtruth)
        out["rank_size"] += sum(high - low + 1 for low, high in sets.values()) / len(sets)
    return out


def tied_block(prod: Production, fitted: Model, design: Design, k: int, reps: int, seed: int) -> dict[str, float]:
    """Counts over ``reps`` boards of k tied subjects: the first pair's p < level (type-I error), any claim
    (family-wise error), the simultaneous rank sets covering (no two tied subjects ordered)."""
    model = design.model(fitted)
    rng = stream(seed, "tied", design, k)
    subjects = tied(k)
    truth = {s.name: TIED_MU for s in subjects}
    out: dict[str, float] = {"reps": reps, "type1": 0, "fwer": 0, "rank_cover": 0, "rank_size": 0.0}
    for rep in range(reps):
        runs = simulate(model, subjects, design.cases, design.runs, rng)
        rows = prod.pairwise(runs, rep)
        first = next(r for r in rows if (r.subject_a, r.subject_b) == (subjects[0].name, subjects[1].name))
        out["type1"] += prod.p_value(first) < float(LEVEL)
        out["fwer"] += bool(prod.significant(rows))
        sets = prod.rank_sets(runs, rep)
        out["rank_cover"] += rank_sets_cover(sets, truth)
        out["rank_size"] += sum(high - low + 1 for low, high in sets.values()) / len(sets)
    return out


def pair_moments(model: Model, mu_a: float, mu_b: float, runs: int) -> tuple[float, float]:
    """(true mean, SD) of a case's difference a − b of the per-case mean Q_final contribution, over the
    population of cases (one fixed stream: common random numbers, so the root finding below is smooth)."""
    n = MOMENT_CASES    # 100,000: the SD's own error is about 0.3%
    rng = np.random.default_rng(20261204)
    b = rng.normal(0, model.sd_case, n)

    def contribution(mu: float) -> np.ndarray:
        z = (mu + b + rng.normal(0, model.sd_interaction, n))[:, None] + rng.normal(0, model.sd_run, (n, runs))
        clipped = np.clip(np.rint(z), 0, MAX_SCORE)
        return (float(ALPHA) * (clipped >= 10) + (1 - float(ALPHA)) * clipped / MAX_SCORE).mean(axis=1)
    d = contribution(mu_a) - contribution(mu_b)     # a's and b's own draws; the same ones at every mu_a
    return float(d.mean()), float(d.std(ddof=1))


def mu_at(model: Model, mu_b: float, runs: int, target: Callable[[float], float]) -> tuple[float, float, float]:
    """(mu_a, true difference, its SD) with true difference = target(SD): bisection on mu_a above mu_b."""
    low, high = mu_b, mu_b + 6
    for _ in range(24):     # 6 / 2**24: far below the SD's own error
        mid = (low + high) / 2
        diff, sd = pair_moments(model, mid, mu_b, runs)
        low, high = (mid, high) if diff < target(sd) else (low, mid)
    diff, sd = pair_moments(model, low, mu_b, runs)
    return low, diff, sd


def old_figure(sd: float, n: int) -> float:
    """The power figure printed before issue 25: (z_{1−level/2} + z_0.8) · sd / √n, level alone."""
    return float(ndtri(1 - float(LEVEL) / 2) + ndtri(float(POWER))) * sd / math.sqrt(n)


def power_block(prod: Production, fitted: Model, design: Design, reps: int, seed: int) -> dict[str, float]:
    """The power sentence: on a board of ``POWER_BOARD`` subjects (a above b, c, d, e tied; m pairs), a's true
    Q_final difference from b set to the figure the page prints (the production MDE at the population SD of the
    per-case differences, m = the pairs of ranked subjects), and to the figure printed before. Counts: the
    pair's p below level/m (the figure's own claim), below level, and a above b through the board's adjustment."""
    model = design.model(fitted)
    rng = stream(seed, "power", design)
    m = POWER_BOARD * (POWER_BOARD - 1) // 2
    figures = {"new": lambda sd: prod.mde(sd, design.cases, m), "old": lambda sd: old_figure(sd, design.cases)}
    out: dict[str, float] = {"reps": reps, "pairs": m}
    boards = {}
    for key, figure in figures.items():
        mu_a, diff, sd = mu_at(model, TIED_MU, design.runs, figure)
        out[f"{key}:difference"], out[f"{key}:sd"], out[f"{key}:mu_a"] = diff, sd, mu_a
        boards[key] = [Subject("a", mu_a, noise=10), *[Subject(f"tied-{i}", TIED_MU, noise=10) for i in range(1, 5)]]
        for what in ("at_step", "at_level", "adjusted"):
            out[f"{key}:{what}"] = 0
    for rep in range(reps):
        for key, subjects in boards.items():
            runs = simulate(model, subjects, design.cases, design.runs, rng)
            rows = prod.pairwise(runs, rep)
            row = next(r for r in rows if (r.subject_a, r.subject_b) == ("a", "tied-1"))
            p = prod.p_value(row)
            out[f"{key}:at_step"] += p < float(LEVEL) / m
            out[f"{key}:at_level"] += p < float(LEVEL)
            out[f"{key}:adjusted"] += ("a", "tied-1") in prod.significant(rows)
    return out


def board_block(prod: Production, fitted: Model, design: Design, k: int, kind: str, reps: int,
                seed: int) -> dict[str, float]:
    """Counts over ``reps`` boards of k subjects, spread (mu evenly from SPREAD[0] to SPREAD[1]) or tied: the
    rank sets' simultaneous coverage and size, false claims (family-wise error), and on spread boards the share
    of pairs at least ``APART`` ranks apart found significant, and how often all of them are."""
    model = design.model(fitted)
    rng = stream(seed, "board", design, k, kind)
    subjects = spread(k) if kind == "spread" else tied(k)
    values = {mu: true_q_final(model, mu, TRUTH_CASES) for mu in {s.mu for s in subjects}}
    truth = {s.name: values[s.mu] for s in subjects}
    order = sorted(truth, key=lambda sid: -truth[sid])
    far = {(order[i], order[j]) for i in range(k) for j in range(i + APART, k)}
    out: dict[str, float] = {"reps": reps, "rank_cover": 0, "rank_size": 0.0, "fwer": 0, "far_found": 0.0,
                             "far_all": 0, "far_pairs": len(far)}
    for rep in range(reps):
        runs = simulate(model, subjects, design.cases, design.runs, rng)
        rows = prod.pairwise(runs, rep)
        claims = prod.significant(rows)
        out["fwer"] += false_claims(claims, truth) > 0
        if far:
            found = len(far & claims)
            out["far_found"] += found / len(far)
            out["far_all"] += found == len(far)
        sets = prod.rank_sets(runs, rep)
        out["rank_cover"] += rank_sets_cover(sets, truth)
        out["rank_size"] += sum(high - low + 1 for low, high in sets.values()) / len(sets)
    return out


# --- seed invariance: edits that change no data -----------------------------------------------------

TREE_SUBJECTS, TREE_CASES, TREE_RUNS = ("alpha", "beta", "gamma"), 20, 2


def build_tree(root: Path, order: int = 1) -> None:
    """A small tree (3 subjects x 20 cases x 2 runs: past the exact sign-flip enumeration of 16 cases, so every
    statistic draws from a stream), with a prose file in system/; files written in ``order`` (1 or -1)."""
    sys.path.insert(0, str(REPO / "tests"))
    from treebuilder import MiniTree

    staging = Path(tempfile.mkdtemp(prefix="stats-check-tree-"))
    tree = MiniTree(staging / "tree")
    tree.write("system/metrics/v1.0/notes.md", "# Notes\n\nHow the reviewers read the rubric.\n")
    rng = np.random.default_rng(20261205)
    for sid in TREE_SUBJECTS:
        tree.add_subject(sid)
    cases = [f"RO-FOUL-{c:03d}" for c in range(1, TREE_CASES + 1)]
    for case in cases:
        tree.add_gold(case)
    for s, sid in enumerate(TREE_SUBJECTS):
        for case in cases:
            for r in range(1, TREE_RUNS + 1):
                raw = int(np.clip(round(rng.normal(10 - 1.5 * s, 2)), 0, 12))
                tree.add_run(sid, case, f"r{r}", confidence=int(rng.integers(40, 100)), raw=raw,
                             correctness=1 if raw >= 9 else 0.5 if raw >= 5 else 0)
    files = sorted(p for p in (staging / "tree").rglob("*") if p.is_file())
    for path in files[::order]:
        target = root / path.relative_to(staging / "tree")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    shutil.rmtree(staging)


def _reformat_json(root: Path) -> None:
    path = sorted((root / "scoring").rglob("*.json"))[0]
    document = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps(dict(reversed(list(document.items()))), indent=4) + "\n", encoding="utf-8")


def _relabel_runs(root: Path) -> None:
    """Swap the labels r1 and r2 of every case of the first subject (file names, run_id, the scorings' pins)."""
    sid = TREE_SUBJECTS[0]
    swap = {"r1": "r2", "r2": "r1"}

    def read(folder: str) -> dict[Path, dict]:
        out: dict[Path, dict] = {}
        for path in sorted((root / folder / "v1.0" / sid).glob("*.json")):
            document = json.loads(path.read_text(encoding="utf-8"))
            document["run_id"] = swap[document["run_id"]]
            out[path.with_name(path.name.replace(f"__{swap[document['run_id']]}", f"__{document['run_id']}"))] = document
            path.unlink()
        return out
    responses, scorings = read("responses"), read("scoring")
    for path, document in [*responses.items(), *scorings.items()]:    # responses first: the scorings pin them
        if path in scorings:
            response = root / "responses" / "v1.0" / sid / (path.name.split("__eval")[0] + ".json")
            document["response_sha256"] = hashlib.sha256(response.read_bytes()).hexdigest()
        path.write_text(json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")


def _append(rel: str, text: str) -> Callable[[Path], None]:
    def edit(root: Path) -> None:
        with (root / rel).open("a", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    return edit


EDITS: tuple[tuple[str, Callable[[Path], None] | None], ...] = (
    ("a sentence appended to a documentation file of system/ (system/metrics/v1.0/notes.md)",
     _append("system/metrics/v1.0/notes.md", "\nA sentence added to the notes.\n")),
    ("a comment appended to the rubric (system/rubric/v1.0/automatic_fails.yaml; same parsed value)",
     _append("system/rubric/v1.0/automatic_fails.yaml", "# a reviewer's note\n")),
    ("one scoring re-formatted (indent 4, keys reversed; same JSON value)", _reformat_json),
    ("every file written in the reverse order (another directory order)", None),
    ("run labels r1 and r2 swapped in every case of one subject (per-run files aside)", _relabel_runs),
)


def seeds_block(prod: Production) -> list[tuple[str, list[str]]]:
    """For each edit of :data:`EDITS`: the results CSVs whose bytes differ from the unedited tree's (per-run files,
    which list run labels, left out of the run-label check). Every list should be empty."""
    out: list[tuple[str, list[str]]] = []
    with tempfile.TemporaryDirectory(prefix="stats-check-seeds-") as tmp:
        base = Path(tmp) / "base"
        build_tree(base)
        reference = prod.results(base)
        for name, edit in EDITS:
            root = Path(tmp) / f"edit-{len(out)}"
            if edit is None:
                build_tree(root, order=-1)
            else:
                shutil.copytree(base, root, ignore=shutil.ignore_patterns("results"))
                edit(root)
            got = prod.results(root)
            relabelled = "run labels" in name
            moved = sorted(f for f in set(reference) | set(got) if reference.get(f) != got.get(f)
                           and not (relabelled and b"run_id" in reference.get(f, b"").split(b"\n", 1)[0]))
            out.append((name, moved))
            shutil.rmtree(root)
    return out


# --- running the study ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Sizes:
    """Replications per block (``--quick``: a smoke run for tests, seconds; not a measurement)."""

    coverage: int = 400
    tied: int = 1000
    power: int = 800
    boards: int = 100
    big_boards: int = 20
    resamples: int = 1000
    designs: tuple[Design, ...] = DESIGNS


QUICK = Sizes(coverage=3, tied=4, power=4, boards=1, big_boards=1, resamples=200, designs=(Design(30, 3),))


def tasks(sizes: Sizes, seed: int, big: bool) -> list[tuple]:
    """Every (block, arguments) of the study, in the report's order."""
    out: list[tuple] = []
    for d in sizes.designs:
        out.append(("coverage", d, sizes.coverage, seed))
        out.append(("tied", d, 4, sizes.tied, seed))
        out.append(("power", d, sizes.power, seed))
    for d in EIGHT_TIED:
        if d in sizes.designs:
            out.append(("tied", d, 8, sizes.tied, seed))
    out.append(("board", Design(100, 1), 20, "spread", sizes.boards, seed))
    out.append(("board", Design(100, 1), 20, "tied", sizes.boards, seed))
    if big:
        out.append(("board", Design(100, 1), 100, "spread", sizes.big_boards, seed))
        out.append(("board", Design(100, 1), 100, "tied", sizes.big_boards, seed))
    return out


_STATE: dict = {}


def run_task(task: tuple) -> tuple[tuple, dict[str, float], float]:
    prod, fitted = _STATE["prod"], _STATE["fitted"]
    block, *args = task
    start = time.perf_counter()
    blocks: dict[str, Callable[..., dict[str, float]]] = {
        "coverage": coverage_block, "tied": tied_block, "power": power_block, "board": board_block}
    result = blocks[block](prod, fitted, *args)
    elapsed = time.perf_counter() - start
    print(f"{block} {args[:-2]}: {elapsed:.0f} s", file=sys.stderr, flush=True)
    return task, result, elapsed


def run_all(prod: Production, fitted: Model, todo: Sequence[tuple], jobs: int) -> list[tuple]:
    """Every task, on ``jobs`` processes (fork), the longest first; results in ``todo``'s order."""
    _STATE.update(prod=prod, fitted=fitted)
    weight = {"board": 50, "coverage": 10, "power": 3, "tied": 1}
    order = sorted(range(len(todo)), key=lambda i: -weight[todo[i][0]] * todo[i][1].cases * todo[i][1].runs)
    if jobs < 2 or "fork" not in multiprocessing.get_all_start_methods():
        done = [run_task(todo[i]) for i in order]
    else:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            done = pool.map(run_task, [todo[i] for i in order], chunksize=1)
    by_task = {repr(task): (task, result, elapsed) for task, result, elapsed in done}
    return [by_task[repr(task)] for task in todo]


# --- the report ---------------------------------------------------------------------------------------

def binomial_se(p: float, n: int) -> float:
    """Monte-Carlo SE of a rate p over n replications (at least that of one event in n)."""
    return math.sqrt(max(p * (1 - p), 1 / n) / n)


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def rate(x: float, n: int) -> str:
    return f"{pct(x)} ± {pct(binomial_se(x, n))}"


@dataclass
class Verdicts:
    """Every figure's verdict, for the summary: (what, figure, target, verdict)."""

    rows: list[tuple[str, str, str, str]]

    def judge(self, what: str, x: float, n: int, target: str) -> str:
        """``target``: ``coverage`` (>= 93%), ``simultaneous`` (>= 95% less 1 SE), ``fwer`` (<= 5%),
        ``power`` (80% within 3 points). Returns the cell: the rate, its SE and the verdict."""
        se = binomial_se(x, n)
        if target == "coverage":
            ok, goal, near = x >= COVERAGE_TARGET, ">= 93%", COVERAGE_TARGET - x <= 2 * se
        elif target == "simultaneous":
            ok, goal, near = x >= SIMULTANEOUS_TARGET - se, ">= 95% less 1 SE", SIMULTANEOUS_TARGET - x <= 2 * se
        elif target == "fwer":
            ok, goal, near = x <= FWER_TARGET, "<= 5%", x - FWER_TARGET <= 2 * se
        else:
            floor = float(POWER) - POWER_TOLERANCE
            ok, goal, near = x >= floor, ">= 80% less 3 points", floor - x <= 2 * se
        verdict = "meets" if ok else "misses, within 2 SE" if near else "**misses**"
        if not ok:
            self.rows.append((what, rate(x, n), goal, verdict))
        return f"{rate(x, n)} ({verdict})"


def report(results: Sequence[tuple], seeds: list[tuple[str, list[str]]] | None, fitted: Model,
           sample_means: Mapping[str, float], prod: Production, sizes: Sizes, seed: int, quick: bool) -> str:
    v = Verdicts([])
    got = {repr(task): result for task, result, _ in results}

    def find(block: str, *args: object) -> dict[str, float] | None:
        for task, result, _ in results:
            if task[0] == block and tuple(task[1:1 + len(args)]) == args:
                return result
        return None
    del got
    lines = [
        "# Statistics check (`make stats-check`)", "",
        "<!-- Generated by bench/stats_check.py; do not edit by hand. -->", "",
        "A simulation study of the statistics production computes (issues 11 and 25): benchmarks are drawn from a "
        "model fitted to the sample suite with known truth, and the production functions are run on each "
        "(bench/stats_check.py, class `Production`, names every call). Targets, printed with each figure: every "
        "interval covers its true value at least 93% of the time; the simultaneous rank sets cover every true rank "
        "at once at least 95% of the time less one Monte-Carlo standard error (SE); the family-wise error (any false "
        "\"significantly above\" on a board) is at most 5%; the power sentence's 80% is within 3 points of the "
        "measured power. A figure that misses its target by less than 2 SE is marked \"misses, within 2 SE\".", "",
        f"Replications: {sizes.coverage} per design for coverage and calibration (SE near 95%: "
        f"{pct(binomial_se(0.95, sizes.coverage))}), {sizes.tied} for tied boards (SE near 5%: "
        f"{pct(binomial_se(0.05, sizes.tied))}), {sizes.power} for the power sentence (SE near 80%: "
        f"{pct(binomial_se(0.8, sizes.power))}), {sizes.boards} for boards of 20 subjects and {sizes.big_boards} for "
        f"boards of 100; bootstrap resamples per statistic: {prod.resamples}; confidence level "
        f"{float(CONFIDENCE):.2f}, significance level {float(LEVEL):.2f}, pairwise correction {prod.correction}; "
        f"study seed {seed}. Each rate is shown as rate ± its Monte-Carlo SE.",
    ]
    if quick:
        lines += ["", "**Quick run (`--quick`): a smoke test of the study, not a measurement.**"]
    lines += ["", BEFORE, "", "## What each interval covers", "",
              "- P, s_bar, BS, Q_final (aggregate_metrics.md §17): the subject's value over the population of cases "
              "the benchmark's cases stand for, each case answered with the runs the design gives it (the case is "
              "the unit: a case's runs are one cluster); true values from one simulation of "
              f"{TRUTH_CASES:,} cases.",
              "- ECE (§18): the population ECE of the same 10 fixed confidence bins.",
              "- Rank sets (§21, simultaneous): every ranked subject's true rank by Q_final at once. With ties a "
              "subject's true rank is any rank its tied block allows, so a set covers when it holds "
              "[1 + #{above}, p − #{below}]: no two tied subjects ordered, no pair ordered wrongly.",
              "- Pairwise (§20): the sign-flip test of the per-case Q_final differences, adjusted over the pairs of "
              "the board (all subjects ranked here); a false claim is \"a above b\" when a's true Q_final is not "
              "above b's.",
              "", "## Model", "",
              "Latent score z = mu_s + b_c + u_sc + e_r (clipped_score = clip(round(z), 0, 12); Pass from 10, "
              "Conditional 7-9; correctness 1 from 9, 1/2 from 5 to 8, else 0), fitted to the sample suite's "
              f"per_run.csv by method of moments: sd_case (shared difficulty) {fitted.sd_case:.2f} (floored at 0.5), "
              f"sd_interaction (subject x case) {fitted.sd_interaction:.2f}, sd_run {fitted.sd_run:.2f} points: ICC "
              f"{fitted.icc:.2f}. The designs at ICC 0.2 and 0.75 keep the total variance and the ratio sd_case : "
              "sd_interaction. Sample mean clipped scores: "
              + ", ".join(f"{k} {x:.2f}" for k, x in sorted(sample_means.items())) + ". Confidence: 100 · "
              "E[correctness | mu_s + b_c + u_sc] plus a bias and noise per subject; `calibrated-shared` states "
              "100 · E[correctness | mu_s + b_c]: perfectly calibrated, its runs of one case correlated given their "
              "confidence. Tied subjects have mu 9.8; spread boards mu evenly from 11.6 to 6.0.", "",
              "Truth at the fitted model, 30 cases x 3 runs (the truth of each design is in the design's own "
              "simulation):", "",
              "| subject | mu | confidence bias | confidence noise | true P | true s_bar | true BS | true Q_final | "
              "true ECE |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    fitted_cov = find("coverage", Design(30, 3))
    for s in [*BOARD, *CALIBRATED]:
        t = {m: fitted_cov[f"truth:{s.name}:{m}"] for m in FIGURES} if fitted_cov else {}
        lines.append(f"| {s.name} | {s.mu:.2f} | {s.bias:+.0f} | {s.noise:.0f} | "
                     + " | ".join(f"{t[m]:.3f}" if t else "" for m in FIGURES) + " |")

    lines += ["", "## Coverage of the 95% intervals", "",
              "Share of replications whose interval contains the true value.", "",
              "| design | subject | " + " | ".join(FIGURES) + " |", "|---|---|" + "---:|" * len(FIGURES)]
    for d in DESIGNS:
        r = find("coverage", d)
        if r is None:
            continue
        for s in [*BOARD, *CALIBRATED]:
            n = int(r["reps"])
            cells = [v.judge(f"{m} coverage, {s.name}, {d.label(fitted)}", r[f"cover:{s.name}:{m}"] / n, n, "coverage")
                     for m in FIGURES]
            lines.append(f"| {d.label(fitted)} | {s.name} | " + " | ".join(cells) + " |")

    lines += ["", "## Pairwise test, family-wise error and rank sets", "",
              "Equal subjects: 4 tied (every design) and 8 tied. Type-I error: the first pair's unadjusted p < 0.05 "
              "(the test's own level, target 5%). Family-wise error: any \"significantly above\" after the "
              "adjustment. Rank sets: simultaneous coverage on the tied board (the least favourable case) and on "
              "the sample-like board of four (distinct true values), with the mean set size (of 4 or 8).", "",
              "| design | tied | pairwise type-I | family-wise error | rank sets, tied | mean size | "
              "rank sets, sample-like board | mean size (of 4) |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for d, k in [*((d, 4) for d in DESIGNS), *((d, 8) for d in EIGHT_TIED)]:
        r = find("tied", d, k)
        if r is None:
            continue
        n, label = int(r["reps"]), d.label(fitted)
        c = find("coverage", d) if k == 4 else None
        board = (v.judge(f"rank sets, sample-like board, {label}", c["rank_cover"] / c["reps"], int(c["reps"]),
                         "simultaneous") + f" | {c['rank_size'] / c['reps']:.2f}") if c else " | "
        type1 = v.judge(f"pairwise type-I, {k} tied, {label}", r["type1"] / n, n, "fwer")
        fwer = v.judge(f"family-wise error, {k} tied, {label}", r["fwer"] / n, n, "fwer")
        sets = v.judge(f"rank sets, {k} tied, {label}", r["rank_cover"] / n, n, "simultaneous")
        lines.append(f"| {label} | {k} | {type1} | {fwer} | {sets} | {r['rank_size'] / n:.2f} | {board} |")

    lines += ["", "## Boards of 20 and 100 subjects", "",
              f"Spread: mu evenly from {SPREAD[0]} to {SPREAD[1]} (all true values distinct); tied: every subject "
              f"mu {TIED_MU}. Family-wise error: any false claim. Pairs {APART} ranks apart: the share of them "
              "found significantly ordered (mean over replications) and the share of replications in which all of "
              "them are (issue 25: \"every pair 10 ranks apart is significantly ordered\"; no target here: the "
              "spread is the same as the 100-subject board's, so 10 ranks apart is 2.9 points of mu on the 20-subject "
              "board and 0.57 on the 100-subject one).", "",
              "| board | design | family-wise error | rank sets (simultaneous) | mean size | pairs 10 ranks apart "
              "found | all of them found |", "|---|---|---:|---:|---:|---:|---:|"]
    for k in (20, 100):
        for kind in ("spread", "tied"):
            r = find("board", Design(100, 1), k, kind)
            if r is None:
                continue
            n = int(r["reps"])
            far = (f"{pct(r['far_found'] / n)} | {rate(r['far_all'] / n, n)}" if r["far_pairs"] else "- | -")
            lines.append(f"| {k} {kind} | {Design(100, 1).label(fitted)} | "
                         f"{v.judge(f'family-wise error, {k} {kind}', r['fwer'] / n, n, 'fwer')} | "
                         f"{v.judge(f'rank sets, {k} {kind}', r['rank_cover'] / n, n, 'simultaneous')} | "
                         f"{r['rank_size'] / n:.2f} | {far} |")

    lines += ["", "## The power sentence", "",
              f"A board of {POWER_BOARD} subjects (m = {POWER_BOARD * (POWER_BOARD - 1) // 2} pairs): a above four "
              "tied subjects, a's true Q_final difference from each set to the figure the page prints for the pair "
              "(the production `minimum_detectable_difference` at the population SD of the per-case differences, "
              "m = the pairs of ranked subjects). The sentence claims \"at least 80%\" through the adjustment, computed "
              "at level 0.05/m (the strictest step of Holm's adjustment, which it equals when the other pairs are "
              "null): both are judged against 80% less 3 points. \"Before\": the figure printed before issue 25, "
              "(z_0.975 + z_0.8)·SD/√n, which claimed 80% by a test at level 0.05.", "",
              "| design | printed difference | SD of d_c | power at level/m | through the adjustment | "
              "before: difference | before: power at 0.05 (claim 80%) | before: through the adjustment |",
              "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for d in DESIGNS:
        r = find("power", d)
        if r is None:
            continue
        n = int(r["reps"])
        lines.append(f"| {d.label(fitted)} | {r['new:difference']:.4f} | {r['new:sd']:.4f} | "
                     f"{v.judge(f'power sentence at level/m, {d.label(fitted)}', r['new:at_step'] / n, n, 'power')} | "
                     f"{v.judge(f'power sentence, adjusted, {d.label(fitted)}', r['new:adjusted'] / n, n, 'power')} | "
                     f"{r['old:difference']:.4f} | "
                     f"{rate(r['old:at_level'] / n, n)} | {rate(r['old:adjusted'] / n, n)} |")

    lines += ["", "## Calibration", "",
              "Share of replications in which the page calls a subject distinguishable from perfect calibration (its "
              "ECE interval excludes 0, ECE_low > 0: the one calibration rule). For `calibrated` and "
              "`calibrated-shared` (true ECE 0 up to rounding) it is a false alarm, judged against at most 5%; for the "
              "board it is power (true ECE in the model table).", "",
              "| design | " + " | ".join(s.name for s in [*BOARD, *CALIBRATED]) + " |",
              "|---|" + "---:|" * (len(BOARD) + len(CALIBRATED))]
    for d in DESIGNS:
        r = find("coverage", d)
        if r is None:
            continue
        n = int(r["reps"])
        cells = [rate(r[f"calib_call:{s.name}"] / n, n) for s in BOARD]
        cells += [v.judge(f"calibration false alarm, {s.name}, {d.label(fitted)}", r[f"calib_call:{s.name}"] / n, n,
                          "fwer") for s in CALIBRATED]
        lines.append(f"| {d.label(fitted)} | " + " | ".join(cells) + " |")

    lines += ["", "## Seed invariance", ""]
    if seeds is None:
        lines.append("Not run (`--no-trees`).")
    else:
        lines += ["A tree of 3 subjects x 20 cases x 2 runs is run through scripts/metrics.py, then a copy after each "
                  "edit that changes no data; target: no results CSV changes a byte.", "",
                  "| edit | results CSVs that changed | verdict |", "|---|---|---|"]
        for name, moved in seeds:
            verdict = "meets" if not moved else "**misses**"
            if moved:
                v.rows.append((f"seed invariance: {name}", f"{len(moved)} files changed", "no byte", verdict))
            lines.append(f"| {name} | {', '.join(moved) if moved else 'none'} | {verdict} |")

    lines += ["", "## Targets missed", ""]
    clear = [row for row in v.rows if row[3] == "**misses**"]
    near = [row for row in v.rows if row[3] != "**misses**"]
    if clear:
        lines += ["By more than 2 Monte-Carlo SE:", "", "| figure | measured | target |", "|---|---|---|"]
        lines += [f"| {what} | {x} | {goal} |" for what, x, goal, _ in clear]
    else:
        lines.append("No figure misses its target by more than 2 Monte-Carlo SE.")
    if near:
        lines += ["", f"Within 2 SE of the target ({len(near)} figures; not distinguishable from meeting it at these "
                  "replications): " + "; ".join(f"{what} {x}" for what, x, _, _ in near) + "."]
    lines += ["", "Regenerate with `make stats-check` (options: `.venv/bin/python bench/stats_check.py --help`; "
              "`REPLICATIONS=n` scales every block).", ""]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=None,
                        help="replications per design for coverage (default 400); the other blocks scale with it")
    parser.add_argument("--resamples", type=int, default=None, help="bootstrap resamples per statistic (default 1000)")
    parser.add_argument("--quick", action="store_true", help="a few replications of every block: a smoke test")
    parser.add_argument("--no-trees", action="store_true", help="leave out the seed-invariance check")
    parser.add_argument("--no-big-boards", action="store_true", help="leave out the boards of 100 subjects")
    parser.add_argument("--jobs", type=int, default=0, help="processes (default: every usable core)")
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--output", type=Path, default=None,
                        help=f"where the report goes (default {OUTPUT.relative_to(REPO)}; with --quick, standard output: a "
                             "smoke test never overwrites the committed report)")
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else Sizes()
    if args.quick:   # a smoke test: small truth simulations, no board of 100
        global TRUTH_CASES, MOMENT_CASES
        TRUTH_CASES, MOMENT_CASES = 20_000, 5_000
    if args.replications is not None:
        f = args.replications / Sizes().coverage
        sizes = replace(sizes, coverage=args.replications, tied=max(1, round(Sizes.tied * f)),
                        power=max(1, round(Sizes.power * f)), boards=max(1, round(Sizes.boards * f)),
                        big_boards=max(1, round(Sizes.big_boards * f)))
    if args.resamples is not None:
        sizes = replace(sizes, resamples=args.resamples)
    fitted, sample_means = fit_model(REPO / "results/per_run.csv")
    prod = Production(sizes.resamples)
    from rgbench.load.parallel import usable_cores
    jobs = args.jobs or usable_cores()
    start = time.perf_counter()
    results = run_all(prod, fitted, tasks(sizes, args.seed, not (args.no_big_boards or args.quick)), jobs)
    seeds = None if args.no_trees else seeds_block(prod)
    text = report(results, seeds, fitted, sample_means, prod, sizes, args.seed, args.quick)
    output = args.output if args.output is not None or not args.quick else None
    if output is None and not args.quick:
        output = OUTPUT
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")
    print(f"-> {output or 'standard output'} ({time.perf_counter() - start:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

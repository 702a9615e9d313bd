"""Do the gold difficulty labels mean something? One case-level trend test and the easiest-hardest separation.

The unit is the case: each case contributes one number, its pass rate over every scored run of it (all
subjects pooled). Per-subject, per-level flags (the earlier ``monotone_violation``) fire by chance about as
often as they did on the sample suite even when the labels are right; one test over the cases does not.

- Trend: Kendall's tau-b between gold difficulty and per-case pass rate (Kendall 1945, "The treatment of
  ties in ranking problems", Biometrika 33), with the two-sided p-value of ``scipy.stats.kendalltau``:
  exact when there are no ties and at most 33 cases, otherwise the normal approximation with the
  tie-corrected variance (Kendall and Gibbons 1990, "Rank Correlation Methods", ch. 4). Labels that work
  give tau-b < 0 (harder cases are passed less often).
- Separation (seed 000's calibration check, "Score(1) − Score(7) ≥ 0.5"): mean per-case pass rate at the
  easiest level present minus at the hardest level present, with the BCa interval
  (:func:`rgbench.stats.bootstrap.bca_interval`, float bounds) of a bootstrap that resamples cases within
  each of the two levels (:func:`separation_statistic` of the case weights; the acceleration from
  leave-one-case-out over both levels, Efron and Tibshirani's two-sample acceleration up to factors
  n/(n − 1)), on the stream :func:`rgbench.stats.seeds.generator` ``separation`` over
  :func:`separation_digest` of the declared seed and the data it resamples.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..compute.numfmt import fmt_fixed
from .bootstrap import Statistic, bca_interval, case_counts, mean_statistic
from .run_columns import RunColumns
from .seeds import DEFAULT_SEED, generator

SEPARATION_TARGET = Fraction(1, 2)   # seed 000: the easiest level passes at least 50 points more often


@dataclass(frozen=True)
class DifficultyTrend:
    """The one row of difficulty_trend.csv. Floats (tau-b, p) come from scipy; the separation is exact, its
    bootstrap bounds are floats.

    ``tau_b`` in [-1, 1] (negative: harder cases are passed less often) and ``p_value`` in [0, 1] are None
    with fewer than two cases, one difficulty level, or every case at the same pass rate. The separation and
    its interval are None with fewer than two levels.
    """

    n_cases: int
    n_levels: int
    tau_b: float | None
    p_value: float | None
    easiest: int | None
    hardest: int | None
    n_easiest: int
    n_hardest: int
    separation: Fraction | None
    separation_low: float | None
    separation_high: float | None


def _mean(values: Sequence[Fraction]) -> Fraction:
    return sum(values, Fraction(0)) / len(values)


def difficulty_trend(difficulty: Sequence[int], rate: Sequence[Fraction], rng: np.random.Generator,
                     resamples: int, confidence: Fraction) -> DifficultyTrend:
    """The trend test and separation from one (difficulty, pass rate) pair per case (any order of cases)."""
    n = len(difficulty)
    levels = sorted(set(difficulty))
    tau = p = None
    if n >= 2 and len(levels) >= 2 and len(set(rate)) >= 2:
        from scipy.stats import kendalltau  # imported here: scipy's import costs seconds, and only this test needs it

        result = kendalltau(np.array(difficulty, dtype=float), np.array([float(r) for r in rate]), variant="b")
        if not math.isnan(result.statistic):
            tau, p = float(result.statistic), float(result.pvalue)
    if len(levels) < 2:
        return DifficultyTrend(n, len(levels), tau, p, None, None, 0, 0, None, None, None)
    easy = sorted(r for d, r in zip(difficulty, rate) if d == levels[0])
    hard = sorted(r for d, r in zip(difficulty, rate) if d == levels[-1])
    separation = _mean(easy) - _mean(hard)
    weights = np.hstack([case_counts(rng, len(easy), resamples), case_counts(rng, len(hard), resamples)])
    interval = bca_interval(separation_statistic(easy, hard), len(easy) + len(hard), weights, confidence)
    low, high = (None, None) if interval is None else interval
    return DifficultyTrend(n, len(levels), tau, p, levels[0], levels[-1], len(easy), len(hard), separation, low, high)


def separation_statistic(easy: Sequence[Fraction], hard: Sequence[Fraction]) -> Statistic:
    """W -> (W_e @ easy) / ΣW_e − (W_h @ hard) / ΣW_h, W's first len(easy) columns weighting the easiest level's
    cases and the rest the hardest's; NaN where a level has no weight (a leave-one-out of a one-case level)."""
    n_easy = len(easy)
    easy_mean = mean_statistic(np.array(easy, dtype=np.float64))
    hard_mean = mean_statistic(np.array(hard, dtype=np.float64))

    def statistic(weights: np.ndarray) -> np.ndarray:
        w = np.asarray(weights, dtype=np.float64)
        return easy_mean(w[:, :n_easy]) - hard_mean(w[:, n_easy:])
    return statistic


def separation_digest(difficulty: Sequence[int], rate: Sequence[Fraction], seed: int = DEFAULT_SEED) -> str:
    """Hex sha256 of the (difficulty, pass rate) pairs it resamples, in case order, then (when the declared
    ``seed`` is not 0) a line ``seed <seed>``: the separation's stream is ``generator("separation", [this])``,
    so it follows the declared seed and the data it resamples (seed 0 keeps the digest of before)."""
    text = "".join(f"{d} {r}\n" for d, r in zip(difficulty, rate)) + (f"seed {seed}\n" if seed else "")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def difficulty_trend_from_columns(columns: RunColumns, difficulty_of: Mapping[str, int], resamples: int,
                                  confidence: Fraction, *, seed: int = DEFAULT_SEED) -> DifficultyTrend:
    """:func:`difficulty_trend` of every case with a scored run: its pass rate over all subjects' runs.

    Cases are taken in ``columns.cases`` order (sorted); the stream is seeded by :func:`separation_digest`.
    """
    runs = np.bincount(columns.case, minlength=len(columns.cases)).tolist()
    passes = np.bincount(columns.case, weights=columns.passed, minlength=len(columns.cases)).astype(np.int64).tolist()
    present = [i for i, r in enumerate(runs) if r]
    difficulty = [difficulty_of[columns.cases[i]] for i in present]
    rate = [Fraction(passes[i], runs[i]) for i in present]
    rng = generator("separation", [separation_digest(difficulty, rate, seed)])
    return difficulty_trend(difficulty, rate, rng, resamples, confidence)


def labels_order_cases(tau_b: float | Fraction, p_value: float | Fraction, level: Fraction) -> bool:
    """The labels work: harder cases are passed less often (tau-b < 0) at the significance ``level`` (p < level)."""
    return tau_b < 0 and p_value < level


def trend_warnings(trend: DifficultyTrend, level: Fraction) -> list[str]:
    """A message when the labels show no significant decreasing trend, or the separation misses seed 000's 0.5."""
    messages = []
    if trend.tau_b is not None and trend.p_value is not None and not labels_order_cases(trend.tau_b, trend.p_value,
                                                                                          level):
        messages.append(f"gold difficulty does not predict lower pass rates over the {trend.n_cases} cases "
                        f"(Kendall tau-b {trend.tau_b:.3f}, p = {trend.p_value:.3f}); review the difficulty labels")
    if trend.separation is not None and trend.separation < SEPARATION_TARGET:
        messages.append(f"pass rate at difficulty {trend.easiest} minus at difficulty {trend.hardest} is "
                        f"{fmt_fixed(trend.separation, 3)}, less than the separation target of "
                        f"{fmt_fixed(SEPARATION_TARGET, 1)}; the hardest cases may not be hard enough")
    return messages

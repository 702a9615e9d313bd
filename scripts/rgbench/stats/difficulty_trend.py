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
  easiest level present minus at the hardest level present, with Welch's t interval over the cases of the two
  levels (Welch 1947, "The generalization of 'Student's' problem when several different population variances
  are involved", Biometrika 34; Satterthwaite 1946, "An approximate distribution of estimates of variance
  components", Biometrics Bulletin 2): each case one observation, its own level's sample variance, the
  Welch-Satterthwaite degrees of freedom. It replaces a BCa case bootstrap that, with 2 + 2 cases (the sample
  suite), covered 60-68% (a bootstrap over two cases sees at most three distinct means); Welch's interval
  covers 96-100% there and 93-97% from 3 + 3 to 10 + 10 cases in bench/stats_check.py's model
  (bench/separation_check.py, 400 replications per design; aggregate_metrics.md §23a).
  No interval below two cases at either end level (no variance to estimate) or when every case of both
  levels has its level's pass rate (a spread of 0 measured on few cases is not a known 0).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..numfmt import fmt_fixed
from .run_columns import RunColumns

SEPARATION_TARGET = Fraction(1, 2)   # seed 000: the easiest level passes at least 50 points more often
MIN_LEVEL_CASES = 2                  # cases at each end level for an interval (one case has no variance)


@dataclass(frozen=True)
class DifficultyTrend:
    """The one row of difficulty_trend.csv. Floats (tau-b, p) come from scipy; the separation is exact, its
    Welch bounds are floats in [-1, 1].

    ``tau_b`` in [-1, 1] (negative: harder cases are passed less often) and ``p_value`` in [0, 1] are None
    with fewer than two cases, one difficulty level, or every case at the same pass rate. The separation is
    None with fewer than two levels; its interval also with fewer than :data:`MIN_LEVEL_CASES` cases at an end
    level or no spread within both end levels (:func:`separation_interval`).
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


def difficulty_trend(difficulty: Sequence[int], rate: Sequence[Fraction], confidence: Fraction) -> DifficultyTrend:
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
    interval = separation_interval(easy, hard, confidence)
    low, high = (None, None) if interval is None else interval
    return DifficultyTrend(n, len(levels), tau, p, levels[0], levels[-1], len(easy), len(hard), separation, low, high)


def separation_interval(easy: Sequence[Fraction], hard: Sequence[Fraction],
                        confidence: Fraction) -> tuple[float, float] | None:
    """Welch's t interval of mean(easy) − mean(hard), each case one observation, clipped to [-1, 1].

    With d the difference of the means, v_e = s_e² / n_e and v_h = s_h² / n_h (s² the sample variance, n − 1 in
    the denominator, exact), se = sqrt(v_e + v_h) and the Welch-Satterthwaite degrees of freedom
    ν = (v_e + v_h)² / (v_e² / (n_e − 1) + v_h² / (n_h − 1)) (so min(n_e, n_h) − 1 ≤ ν ≤ n_e + n_h − 2), the
    interval is d ∓ t_{ν, (1 + confidence)/2} · se (scipy's Student t quantile at a real ν). None with fewer than
    :data:`MIN_LEVEL_CASES` cases at either level, or when both levels have no spread (se = 0).
    """
    if min(len(easy), len(hard)) < MIN_LEVEL_CASES:
        return None
    parts = [_sample_variance(values) / len(values) for values in (easy, hard)]
    total = parts[0] + parts[1]
    if total == 0:
        return None
    df = total * total / sum(v * v / (len(values) - 1) for v, values in zip(parts, (easy, hard)))
    from scipy.stats import t as student_t  # as kendalltau: imported only where it is used

    half = float(student_t.ppf(float((1 + confidence) / 2), float(df))) * math.sqrt(total)
    d = float(_mean(easy) - _mean(hard))
    return max(-1.0, d - half), min(1.0, d + half)


def _sample_variance(values: Sequence[Fraction]) -> Fraction:
    mean = _mean(values)
    return sum(((v - mean) ** 2 for v in values), Fraction(0)) / (len(values) - 1)


def difficulty_trend_from_columns(columns: RunColumns, difficulty_of: Mapping[str, int],
                                  confidence: Fraction) -> DifficultyTrend:
    """:func:`difficulty_trend` of every case with a scored run: its pass rate over all subjects' runs
    (cases in ``columns.cases`` order, sorted; nothing is drawn)."""
    runs = np.bincount(columns.case, minlength=len(columns.cases)).tolist()
    passes = np.bincount(columns.case, weights=columns.passed, minlength=len(columns.cases)).astype(np.int64).tolist()
    present = [i for i, r in enumerate(runs) if r]
    difficulty = [difficulty_of[columns.cases[i]] for i in present]
    rate = [Fraction(passes[i], runs[i]) for i in present]
    return difficulty_trend(difficulty, rate, confidence)


def labels_order_cases(tau_b: float | Fraction, p_value: float | Fraction, level: Fraction) -> bool:
    """The labels work: harder cases are passed less often (tau-b < 0) at the significance ``level`` (p < level)."""
    return tau_b < 0 and p_value < level


def separation_advice(trend: DifficultyTrend) -> str:
    """What a maintainer should do about a separation below :data:`SEPARATION_TARGET` ("" when it is not below).

    Below with its whole interval: the hardest level is not hard enough (harden or relabel its cases). Otherwise
    (an interval that reaches the target, or none) the end levels hold too few cases to tell: add cases there.
    """
    if trend.separation is None or trend.separation >= SEPARATION_TARGET:
        return ""
    if trend.separation_high is not None and trend.separation_high < SEPARATION_TARGET:
        return (f"the hardest cases are not hard enough: make the difficulty-{trend.hardest} cases harder or "
                "relabel them")
    return (f"{trend.n_easiest} + {trend.n_hardest} cases cannot tell whether the target is missed: add cases "
            f"at difficulty {trend.easiest} and {trend.hardest}")


def trend_warnings(trend: DifficultyTrend, level: Fraction) -> list[str]:
    """A message when the labels show no significant decreasing trend, or the separation misses seed 000's 0.5
    (with :func:`separation_advice`: harden the hardest level, or add cases to the end levels)."""
    messages = []
    if trend.tau_b is not None and trend.p_value is not None and not labels_order_cases(trend.tau_b, trend.p_value,
                                                                                          level):
        messages.append(f"gold difficulty does not predict lower pass rates over the {trend.n_cases} cases "
                        f"(Kendall tau-b {trend.tau_b:.3f}, p = {trend.p_value:.3f}); review the difficulty labels")
    if trend.separation is not None and trend.separation < SEPARATION_TARGET:
        interval = ("no interval" if trend.separation_low is None or trend.separation_high is None else
                    f"interval {fmt_fixed(Fraction(trend.separation_low), 3)} to "
                    f"{fmt_fixed(Fraction(trend.separation_high), 3)}")
        messages.append(f"pass rate at difficulty {trend.easiest} minus at difficulty {trend.hardest} is "
                        f"{fmt_fixed(trend.separation, 3)} ({interval}), less than the separation target of "
                        f"{fmt_fixed(SEPARATION_TARGET, 1)}; {separation_advice(trend)}")
    return messages

"""The sentence that says whether the gold difficulty labels order the cases (issue 11, item 6).

From difficulty_trend.csv (aggregate_metrics.md §23a): Kendall's tau-b between gold difficulty and each
case's pass rate (all subjects' runs pooled, the case as the unit) with its p-value, and the separation
between the easiest and the hardest level present, with its Welch interval, against the 0.5 of seed 000's
calibration check, and what a maintainer should do when it is not met (harden the hardest level, or add
cases at the two end levels when their interval cannot tell). Shared by the Markdown and the page, like
:mod:`.calibration_text`: ``esc`` escapes the text for the writer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from ..numfmt import counted
from ..stats.difficulty_trend import MIN_LEVEL_CASES, SEPARATION_TARGET, labels_order_cases
from .display import short_decimal, shown


@dataclass(frozen=True)
class DifficultyTrendRow:
    """The one row of difficulty_trend.csv as read back (exact 6-decimal values; None where the cell is empty)."""

    n_cases: int
    n_levels: int
    tau_b: Fraction | None
    p_value: Fraction | None
    easiest: int | None
    hardest: int | None
    n_easiest: int
    n_hardest: int
    separation: Fraction | None
    separation_low: Fraction | None
    separation_high: Fraction | None


def difficulty_reading(trend: DifficultyTrendRow | None, level: Fraction, confidence: Fraction | None,
                       esc: Callable[[str], str]) -> str:
    """One paragraph, or ``""`` without the file or with fewer than two difficulty levels (nothing to test)."""
    if trend is None or trend.n_levels < 2 or trend.tau_b is None or trend.p_value is None:
        return ""
    tau, p = shown(trend.tau_b, 3), shown(trend.p_value, 3)
    test = f"Kendall's tau-b {tau} between gold difficulty and each case's pass rate, p = {p}"
    if labels_order_cases(trend.tau_b, trend.p_value, level):
        head = (f"Difficulty labels: over the {trend.n_cases} cases ({trend.n_levels} levels) harder cases are "
                f"passed less often ({test}).")
    else:
        head = (f"Difficulty labels: over the {trend.n_cases} cases ({trend.n_levels} levels) gold difficulty "
                f"does not predict a lower pass rate at the {short_decimal(level)} level ({test}); read the "
                "per-difficulty figures as labels, not as measured difficulty.")
    if trend.separation is None:
        return esc(head)
    target = short_decimal(SEPARATION_TARGET)
    low, high = trend.separation_low, trend.separation_high
    ends = f"difficulty {trend.easiest} and {trend.hardest}"
    # Signed, so that a negative separation reads right (never "passed -0.167 more often").
    gap = (f" The pass rate of the easiest level ({trend.easiest}, {counted(trend.n_easiest, 'case')}) minus that of "
           f"the hardest ({trend.hardest}, {counted(trend.n_hardest, 'case')}) is {shown(trend.separation, 3)}")
    if low is None or high is None:
        why = (f"fewer than {MIN_LEVEL_CASES} cases at an end level" if min(trend.n_easiest, trend.n_hardest)
               < MIN_LEVEL_CASES else "every case of each end level has the same pass rate, so the spread is unknown")
        side = "at least" if trend.separation >= SEPARATION_TARGET else "less than"
        return esc(head + gap + f" ({side} the separation target of {target} on these cases; no interval: {why}); "
                   f"add cases at {ends} to measure it.")
    what = f"{short_decimal(100 * confidence)}% interval" if confidence is not None else "interval"
    gap += f" ({what} {shown(low, 3)} to {shown(high, 3)}, Welch t over the cases)"
    if low >= SEPARATION_TARGET:
        verdict = f", at least the separation target of {target} over the whole interval."
    elif high < SEPARATION_TARGET:
        verdict = (f", less than the separation target of {target} over the whole interval: the hardest cases are "
                   f"not hard enough; make the difficulty-{trend.hardest} cases harder or relabel them.")
    else:
        side = "at least" if trend.separation >= SEPARATION_TARGET else "less than"
        verdict = (f", {side} the separation target of {target}, but the interval includes it: "
                   f"{trend.n_easiest} + {trend.n_hardest} cases cannot tell; add cases at {ends} to narrow it.")
    return esc(head + gap + verdict)

"""The sentence that says whether the gold difficulty labels order the cases (issue 11, item 6).

From difficulty_trend.csv (aggregate_metrics.md §23a): Kendall's tau-b between gold difficulty and each
case's pass rate (all subjects' runs pooled, the case as the unit) with its p-value, and the separation
between the easiest and the hardest level present, with its interval, against the 0.5 of seed 000's
calibration check. Shared by the Markdown and the page, like :mod:`.calibration_text`: ``esc`` escapes
the text for the writer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from ..compute.numfmt import counted
from ..stats.difficulty_trend import SEPARATION_TARGET, labels_order_cases
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
    interval = ""
    if trend.separation_low is not None and trend.separation_high is not None:
        what = f"{short_decimal(100 * confidence)}% interval" if confidence is not None else "interval"
        interval = f" ({what} {shown(trend.separation_low, 3)} to {shown(trend.separation_high, 3)})"
    # Signed, so that a negative separation reads right (never "passed -0.167 more often").
    gap = (f" The pass rate of the easiest level ({trend.easiest}, {counted(trend.n_easiest, 'case')}) minus that of "
           f"the hardest ({trend.hardest}, {counted(trend.n_hardest, 'case')}) is {shown(trend.separation, 3)}{interval}")
    target = short_decimal(SEPARATION_TARGET)
    verdict = (f", at least the separation target of {target}." if trend.separation >= SEPARATION_TARGET else
               f", less than the separation target of {target}: the hardest cases may not be hard enough.")
    return esc(head + gap + verdict)

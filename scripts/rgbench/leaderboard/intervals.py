"""Uncertainty intervals, when compute_metrics' statistics provide them.

metrics_per_subject.csv may carry, after its required columns, an interval per
metric (a case-bootstrap BCa interval for P, s_bar and Q_final, Wilson for P
at 0 or 1, the bounded score interval for BS, the projected studentised bin-gap interval for ECE) and metrics_per_family.csv
one for P_family. This module
turns those optional cells into ``(low, high)`` pairs, says what is wrong with
them (one bound without the other, low above high), and describes the method
for readers from the manifest's ``statistics`` record. Results without them are
valid: the leaderboard then shows no intervals.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, NamedTuple

from ..numfmt import fmt_fixed
from .absent import Shown
from .display import short_decimal
from .results_tables import FAMILY_INTERVAL, SUBJECT_INTERVALS


class Bounds(NamedTuple):
    """An interval as committed: its low and high bound."""

    low: Fraction
    high: Fraction


def _pair(extras: dict[str, Any], low: str, high: str) -> tuple[Bounds | None, str | None]:
    """(bounds, None), (None, None) when both cells are absent or empty, or (None, message)."""
    lo, hi = extras.get(low), extras.get(high)
    if lo is None and hi is None:
        return None, None
    if lo is None or hi is None:
        return None, f"{low} and {high} must both be given or both be empty"
    if lo > hi:
        return None, f"{low} {fmt_fixed(lo)} is above {high} {fmt_fixed(hi)}"
    return Bounds(lo, hi), None


def subject_interval_cells(extras: dict[str, Any]) -> dict[str, Bounds]:
    """Metric name (P, s_bar, Q_final, BS, ECE) -> interval, for the metrics whose bounds are present and valid."""
    pairs = {metric: _pair(extras, *columns)[0] for metric, columns in SUBJECT_INTERVALS.items()}
    return {metric: bounds for metric, bounds in pairs.items() if bounds is not None}


def family_interval_cell(extras: dict[str, Any]) -> Bounds | None:
    """The interval of P_family, when present and valid."""
    return _pair(extras, *FAMILY_INTERVAL)[0]


def method_note(confidence_level: str | None, resamples: int | None, shown: Shown | None = None) -> str:
    """One sentence saying what the intervals are, from the manifest's statistics record; it names only the
    figures ``shown`` has (no P without a pass rule, no BS or ECE without calibration)."""
    level = f"{short_decimal(Fraction(confidence_level) * 100)}%" if confidence_level else "The"  # 0.975000: 97.5%
    method = f"a bootstrap over cases ({resamples} resamples)" if resamples else "a bootstrap over cases"
    passes, calibration = (True, True) if shown is None else (shown.pass_rule, shown.calibration)
    figures = ", ".join(name for name, kept in (("P", passes), ("s\u0304", True)) if kept)
    wilson = " (a P of 0 or 1 takes the Wilson interval over the cases)" if passes else ""
    ece = ("; for BS, no bootstrap but Wilson's score interval extended to a mean of values in [0, 1], which allows "
           "for large errors the cases did not show, so it is wide over few cases (docs/statistics_check.md); for "
           "ECE, the studentised bootstrap of its bin gaps projected onto ECE, not centred on ECE, which is biased "
           "upward (above 0: miscalibration distinguishable from chance)"
           if calibration else "")
    meaning = ("They say how far the figure could move on another sample of cases like these; over a single case a "
               "bootstrap interval is a point: its spread is unknown, not zero.")
    if shown is not None and shown.judge_assisted:
        wilson = " (a P of 0 or 1 takes the Wilson interval over the cases with a human grade)" if passes else ""
        return (f"{level} intervals: {method}, each case counting once with all its runs and which of them a human "
                f"graded, \u03bb re-estimated in each: for {figures} and Q_final the percentile interval at "
                f"Hesterberg's expanded level, wider where fewer human grades carry the estimate{wilson} "
                f"(aggregate_metrics.md \u00a735). They say how far the figure could move on another sample of cases "
                "like these and another draw of the answers humans grade; over a single case a bootstrap interval is a "
                "point: its spread is unknown, not zero.")
    return (f"{level} intervals: {method}, each case counting once with all its runs: bias-corrected and accelerated "
            f"(BCa) for {figures} and Q_final{wilson}{ece} (aggregate_metrics.md \u00a718). {meaning}")

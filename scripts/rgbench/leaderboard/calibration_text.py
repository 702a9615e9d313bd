"""The sentence that says which subjects' ECE is distinguishable from perfect calibration (issues 11 and 25).

One rule, aggregate_metrics.md §19a: a subject's miscalibration is distinguishable from chance exactly when
the low end of its ECE interval (metrics_per_subject.csv's ``ECE_low``, §18) is above 0; the interval is the
test of perfect calibration inverted, so the sentence, the interval beside it and the reliability diagram's
label read the same two numbers and cannot disagree. A subject whose interval reaches 0 is *not shown*
miscalibrated, which is not evidence that it is calibrated: the sentence gives its interval's upper
half-width (ECE_high − ECE), the ECE above which it would have been flagged however its gaps spread over the
bins (a smaller ECE is flagged only when concentrated in few bins), and claims no power beyond that.
Shared by the Markdown and the page, like :mod:`.significance_text`:
``name`` gives an escaped display name, ``esc`` escapes the fixed text.
"""

from __future__ import annotations

from fractions import Fraction

from .board import Board, BoardEntry
from .display import short_decimal, shown
from .long_lists import capped
from .significance_text import Text

CHECK_WHERE = "results/metrics_per_subject.csv, columns ECE, ECE_low and ECE_high"


def distinguishable(low: Fraction) -> bool:
    """The calibration rule (§19a): miscalibration is distinguishable from chance when ECE_low > 0."""
    return low > 0


def calibration_reading(board: Board, name: Text, esc: Text) -> str:
    """One paragraph, or ``""`` when no scored subject has an ECE and its interval (no statistics, no calibration)."""
    checked = [(e, e.intervals["ECE"]) for e in board.scored if "ECE" in e.intervals and e.metrics.ece is not None]
    if not checked:
        return ""
    confidence = board.confidence_level
    level = f"{short_decimal(100 * confidence)}% " if confidence is not None else ""
    test_level = f" at the {short_decimal(1 - confidence)} level" if confidence is not None else ""

    def flagged(entry: BoardEntry, low: Fraction, high: Fraction) -> str:
        return name(entry.name) + esc(f" (ECE {shown(entry.metrics.ece, 3)}, interval {shown(low, 3)} to "
                                      f"{shown(high, 3)})")

    def not_flagged(entry: BoardEntry, low: Fraction, high: Fraction) -> str:
        ece = entry.metrics.ece
        assert ece is not None   # checked above
        reach = ("its interval reaches 1: too few cases to tell" if high >= 1 else
                 f"flagged for certain only above about {shown(high - ece, 3)}")
        return name(entry.name) + esc(f" (ECE {shown(ece, 3)}, interval {shown(low, 3)} to {shown(high, 3)}; "
                                      f"{reach})")

    above = [flagged(e, *bounds) for e, bounds in checked if distinguishable(bounds.low)]
    within = [not_flagged(e, *bounds) for e, bounds in checked if not distinguishable(bounds.low)]
    parts = [esc(f"Calibration read against chance (aggregate_metrics.md \u00a719a): ECE is biased upward with few "
                 f"runs per bin, so a subject's miscalibration counts as distinguishable from chance only when its "
                 f"{level}ECE interval excludes 0, a test of perfect calibration{test_level} over cases (its false alarms "
                 "on perfectly calibrated subjects are measured in docs/statistics_check.md; the interval is a studentised "
                 "case bootstrap of the length of the signed bin gaps; the same interval is printed beside ECE). ")]

    def listed(items: list[str]) -> str:
        return capped(items, esc("; ").join, noun="subject", where=CHECK_WHERE, esc=esc)
    if above:
        parts.append(esc("Miscalibration distinguishable from chance (interval above 0): ") + listed(above) + esc(". "))
    if within:
        parts.append(esc("Not shown miscalibrated (the interval reaches 0; with these cases an ECE below about its "
                         "interval's upper half-width may not be told from chance, so this is not evidence of good "
                         "calibration): ") + listed(within) + esc("."))
    return "".join(parts).rstrip()

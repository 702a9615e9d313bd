"""The sentence that says which subjects' ECE is distinguishable from perfect calibration (issue 11, item 5).

From metrics_per_subject.csv's ``ECE_calibrated_mean`` (the ECE a perfectly calibrated subject with the
same confidences shows on average) and ``ECE_calibrated_share`` (the share of calibrated resamples at or
above the observed ECE), aggregate_metrics.md §19a. Shared by the Markdown and the page, like
:mod:`.significance_text`: ``name`` gives an escaped display name, ``esc`` escapes the fixed text.
"""

from __future__ import annotations

from fractions import Fraction

from .board import Board, BoardEntry
from .display import short_decimal, shown
from .long_lists import capped
from .significance_text import Text

CHECK_WHERE = "results/metrics_per_subject.csv, columns ECE_calibrated_mean and ECE_calibrated_share"


def calibration_reading(board: Board, name: Text, esc: Text) -> str:
    """One paragraph, or ``""`` when the results carry no calibration check (older results); a share below the
    board's significance level is miscalibration distinguishable from chance."""
    level = board.significance_level
    checked = [(e, e.calibration_check) for e in board.scored if e.calibration_check is not None]
    if not checked:
        return ""

    def item(entry: BoardEntry, expected: Fraction, share: Fraction) -> str:
        return name(entry.name) + esc(f" (ECE {shown(entry.metrics.ece, 3)}; perfectly calibrated "
                                      f"{shown(expected, 3)}; share {shown(share, 3)})")

    above = [item(e, *check) for e, check in checked if check[1] < level]
    within = [item(e, *check) for e, check in checked if check[1] >= level]
    parts = [esc("Calibration read against chance: ECE is biased upward with few runs per bin, so each subject's "
                 "ECE is set against the ECE of the same confidences with outcomes redrawn perfectly calibrated "
                 "(Bernoulli(confidence), one draw per case that all its runs share, consistency resampling; the mean "
                 "is the ECE a perfectly calibrated subject would show, the share how often it reaches the "
                 "observed ECE). ")]
    lv = short_decimal(level)

    def listed(items: list[str]) -> str:
        return capped(items, esc("; ").join, noun="subject", where=CHECK_WHERE, esc=esc)
    if above:
        parts.append(esc(f"Miscalibration distinguishable from chance (share below {lv}): ") + listed(above) + esc(". "))
    if within:
        parts.append(esc(f"Not distinguishable from perfect calibration (share {lv} or more; the gap may be "
                         "sampling noise): ") + listed(within) + esc("."))
    return "".join(parts).rstrip()

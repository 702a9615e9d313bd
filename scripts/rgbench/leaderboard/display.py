"""Numbers for human readers (HTML and Markdown): as few decimals as honesty allows.

The CSV keeps the committed six decimals. The page and the Markdown table show
three, unless two different values of a column would then look equal, in which
case they show as many as are needed to tell them apart (at most six, the
committed precision). So a reader never sees two rows that look tied on
Q_final but carry different ranks.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from ..compute.metrics import SubjectMetrics
from ..load.scale import ScoreScale
from ..numfmt import DECIMALS, fmt_fixed
from .absent import Shown

MIN_DECIMALS = 3
# The metrics of the Markdown and HTML tables: (heading, SubjectMetrics attribute, reliability key, higher is better).
METRIC_COLUMNS = (
    ("Q_final", "q_final", "Q_final", True),
    ("P", "p", "P", True),
    ("s\u0304", "s_bar", "s_bar", True),
    ("BS", "bs", "BS", False),
    ("ECE", "ece", "ECE", False),
)


def score_heading(scale: ScoreScale) -> str:
    """How the tables head s_bar: ``s̄`` on the seed's kind of scale, else the benchmark's score_name (or s̄)
    with its direction, e.g. ``MQM-style penalty (lower is better)``."""
    return scale.label if scale.is_default else f"{scale.label} ({scale.direction_text})"


def metric_columns(scale: ScoreScale, shown: Shown) -> tuple[tuple[str, str, str, bool], ...]:
    """The METRIC_COLUMNS the board shows, s_bar headed by :func:`score_heading` and sorted in the scale's
    direction: without a pass rule no P, without calibration no BS and ECE."""
    absent = ({"p"} if not shown.pass_rule else set()) | ({"bs", "ece"} if not shown.calibration else set())
    return tuple((score_heading(scale), attr, key, scale.higher_is_better) if attr == "s_bar" else column
                 for column in METRIC_COLUMNS for _, attr, key, _ in (column,) if attr not in absent)


def display_decimals(values: Iterable[Fraction | None]) -> int:
    """The fewest decimals (MIN_DECIMALS..6) at which the distinct 6-decimal values stay distinct.

    ``None`` values are ignored. E.g. {0.741000, 0.742000} -> 3; {0.7421, 0.7424} -> 4.
    """
    committed = {fmt_fixed(v) for v in values if v is not None}
    for decimals in range(MIN_DECIMALS, DECIMALS):
        if len({fmt_fixed(Fraction(text), decimals) for text in committed}) == len(committed):
            return decimals
    return DECIMALS


def shown(value: Fraction | None, decimals: int) -> str:
    """``value`` rounded (half to even, from its committed 6-decimal form) to ``decimals``; ``""`` for None."""
    if value is None:
        return ""
    return fmt_fixed(Fraction(fmt_fixed(value)), decimals)


def column_decimals(rows: Iterable[SubjectMetrics]) -> dict[str, int]:
    """Decimals to show per metric (by attribute) so that its distinct values over ``rows`` (the metrics of the
    board's scored entries) stay distinct."""
    metrics = tuple(rows)
    return {attr: display_decimals(getattr(row, attr) for row in metrics) for _, attr, _, _ in METRIC_COLUMNS}


def interval_text(interval: tuple | None, decimals: int) -> str:
    """``low–high`` at the column's display precision, or ``""``."""
    if interval is None:
        return ""
    return f"{shown(interval[0], decimals)}\u2013{shown(interval[1], decimals)}"


def short_decimal(value: Fraction) -> str:
    """An exact value with at most six decimals and no trailing zeros: 0.05, 0.1, 0, 1."""
    return fmt_fixed(value).rstrip("0").rstrip(".")

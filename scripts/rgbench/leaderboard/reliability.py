"""Reliability labels: how much weight a figure can bear, from the half-width of its interval (issue 11).

A figure's label says how far it could move on another sample of cases like these: with h the half-width
of its 95% interval on the 0-1 scale (s_bar's divided by the width of its range, score_max − score_min: 12 on
the seed's 0-12 scale) and the thresholds of config.yaml's
``reliability_half_widths`` (default robust 0.02, stable 0.05, reasonable 0.10):

* ``robust`` when h < 0.02, ``stable`` when h < 0.05, ``reasonable`` when h < 0.10, ``indicative`` otherwise;
* ``indicative`` whatever h when the figure rests on fewer than ``reliability_min_cases`` (10) distinct cases:
  a bootstrap over so few cases is itself too narrow (judge-assisted figures: the cases with a human grade,
  judge_assisted.csv's ``labelled_cases``, on which the judge's correction rests);
* ``indicative`` when the interval is a point: every case gave the same value (a subject that failed every
  case has s_bar 0 and Q_final 0 in every replicate), so the bootstrap measured no spread, not a zero one;
* ``""`` (no label) when the figure is undefined or the results carry no interval for it.

Counted in distinct cases, not runs: repeated runs of one case are not independent evidence.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..load.config import DEFAULT_HALF_WIDTHS, DEFAULT_RELIABILITY_MIN_CASES, RELIABILITY_LABELS
from ..load.scale import ScoreScale, score_text

INDICATIVE, REASONABLE, STABLE, ROBUST = "indicative", "reasonable", "stable", "robust"
LABELS = (INDICATIVE, REASONABLE, STABLE, ROBUST)
assert RELIABILITY_LABELS == (ROBUST, STABLE, REASONABLE)

# The subject-level figures that carry a reliability column, in the CSV's order.
SUBJECT_FIGURES = ("P", "s_bar", "Q_final", "BS", "ECE")

# One sentence per label, for the page footer and the Markdown notes.
EXPLANATIONS = {
    INDICATIVE: "a hint, not a measurement: another sample of similar cases could move it a lot (or it rests on "
                "too few cases to say).",
    REASONABLE: "a usable estimate, but differences of a few points between subjects are within sampling noise.",
    STABLE: "another sample of similar cases would move it little.",
    ROBUST: "fine enough for close comparisons between subjects.",
}


@dataclass(frozen=True)
class Thresholds:
    """Half-widths (robust, stable, reasonable), increasing, and the fewest cases a label above indicative needs."""

    half_widths: tuple[Fraction, ...] = DEFAULT_HALF_WIDTHS
    min_cases: int = DEFAULT_RELIABILITY_MIN_CASES

    def label(self, interval: tuple[Fraction, Fraction] | None, n_cases: int, scale: Fraction = Fraction(1)) -> str:
        """The label of a figure with this interval over ``n_cases`` cases; ``scale`` maps it to 0-1 (the width of
        s_bar's range for s_bar). ``""`` without an interval or a case."""
        if interval is None or n_cases <= 0:
            return ""
        if n_cases < self.min_cases or interval[0] == interval[1]:
            return INDICATIVE
        half = (Fraction(interval[1]) - Fraction(interval[0])) / 2 / scale
        for label, bound in zip((ROBUST, STABLE, REASONABLE), self.half_widths):
            if half < bound:
                return label
        return INDICATIVE

    def describe(self, scale: ScoreScale | None = None, assisted: bool = False) -> str:
        """E.g. ``robust below a half-width of 0.02, stable below 0.05, reasonable below 0.1, indicative above or
        under 10 cases``. ``scale``: s_bar's (how it is put on 0-1 is said; the seed's wording on a 0-max scale);
        ``assisted``: judge-assisted figures, whose cases counted are those with a human grade (the judge's
        correction rests on them alone)."""
        robust, stable, reasonable = (f"{float(b):g}" for b in self.half_widths)
        with_human = " with a human grade" if assisted else ""
        how = ("s\u0304 divided by the maximum score" if scale is None or scale.low == 0 else
               f"s\u0304 divided by the width of its range, {score_text(scale.span)}")
        return (f"from each figure's 95% interval half-width on the 0-1 scale ({how}): "
                f"robust below {robust}, stable below {stable}, reasonable below {reasonable}, indicative "
                f"above, or whenever the figure rests on fewer than {self.min_cases} cases{with_human} or its interval is a "
                "point (every case the same: no spread measured)")


def subject_labels(intervals: dict, n_cases: int, thresholds: Thresholds, scale: ScoreScale) -> dict[str, str]:
    """Label of each subject-level figure (SUBJECT_FIGURES) from its interval (``intervals``: figure -> bounds);
    s_bar's half-width is divided by the width of its range (``scale.span``)."""
    return {figure: thresholds.label(intervals.get(figure), n_cases, scale.span if figure == "s_bar" else Fraction(1))
            for figure in SUBJECT_FIGURES}

"""The score scale (DESIGN D3): what a run's total means on the domain's own scale.

A benchmark's criteria share one range ``criterion_min..criterion_max`` (integers or decimals, read exactly
from ``system/benchmark.yaml``); a run's **total** is their sum (``score_total: sum``, the default) or their
mean (``score_total: mean``), so it lies in ``[score_min, score_max]``: ``n·min..n·max`` for a sum,
``min..max`` for a mean. ``score_direction`` says which end is good (``higher_is_better``, the default, or
``lower_is_better`` for penalties such as MQM error points); ``score_name`` is the name the board gives the
mean total s_bar (``""``: the board writes s̄, as the seed did).

Everything that puts s_bar on the 0-1 scale of P goes through :meth:`ScoreScale.norm`:

    norm(s) = (s − score_min) / (score_max − score_min)      higher is better
    norm(s) = (score_max − s) / (score_max − score_min)      lower is better

so 1 is always the best total and 0 the worst (the seed's 0-12 scale: norm(s) = s / 12, unchanged).
The numpy statistics work on integers: a score times :func:`score_unit` (the lcm of the denominators
involved), as the correctness values are (``rgbench.compute.metrics._correctness_scale``).

**Direction everywhere a score is compared.** With lower is better, a run passes when its total is at or
below ``pass_threshold`` (Conditional at or below ``conditional_threshold``, which is then above it);
a gold's ``rubric_ceiling`` is the best total the case can credit (a total better than it counts as the
ceiling: ``max(raw, ceiling)`` for penalties) and its ``rubric_floor`` the worst total it tolerates (a
clipped total worse than the floor is a Fail): both read in the direction of quality, so with lower is
better the ceiling is numerically at or below the floor.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from ..numfmt import fmt_exact, parse_exact

SUM, MEAN = "sum", "mean"
TOTALS = (SUM, MEAN)
HIGHER_IS_BETTER, LOWER_IS_BETTER = "higher_is_better", "lower_is_better"
DIRECTIONS = (HIGHER_IS_BETTER, LOWER_IS_BETTER)
SYMBOL = "s\u0304"   # s̄, how the board writes the mean total when the benchmark gives it no name

Score = int | Fraction   # a criterion score, a total, a floor or ceiling: exact, an int when integral input


@dataclass(frozen=True)
class ScoreScale:
    """The range, direction, aggregation and display name of a run's total (see the module docstring).

    ``low`` < ``high`` always (the system check refuses an empty range). ``criteria`` is the number of
    criteria the total aggregates (a mean divides by it).
    """

    low: Fraction
    high: Fraction
    higher_is_better: bool = True
    total: str = SUM
    name: str = ""
    criteria: int = 1

    @property
    def span(self) -> Fraction:
        """score_max − score_min, > 0: the width every normalisation divides by."""
        return self.high - self.low

    def total_of(self, scores: Iterable[Score]) -> Score:
        """A run's total of its criterion scores: their sum, or their mean (exact). A sum of ints stays an int."""
        total: Score = 0
        for score in scores:
            total += score
        return Fraction(total, self.criteria) if self.total == MEAN else total

    def credit(self, score: Score) -> Fraction | int:
        """norm(score) times the span: score − score_min (higher is better) or score_max − score (lower is
        better), in [0, span] for a score in range. Linear, so a mean of credits is the credit of the mean."""
        return score - self.low if self.higher_is_better else self.high - score

    def norm(self, score: Score) -> Fraction:
        """The score on [0, 1], 1 the best: credit / span (the module docstring's formula)."""
        return Fraction(self.credit(score)) / self.span

    def at_least(self, score: Score, threshold: Score) -> bool:
        """True when ``score`` is as good as ``threshold`` or better (>= when higher is better, <= otherwise)."""
        return score >= threshold if self.higher_is_better else score <= threshold

    def clip(self, raw: Score, ceiling: Score) -> Score:
        """The total a case credits: ``raw``, or ``ceiling`` when raw is better than it (min for higher is
        better, max for lower is better)."""
        if self.higher_is_better:
            return raw if raw < ceiling else ceiling
        return raw if raw > ceiling else ceiling

    @property
    def is_default(self) -> bool:
        """True for the seed's kind of scale (0..max, higher is better, no name): the board's wording is then
        the seed's, word for word (``s̄ / 12``)."""
        return self.low == 0 and self.higher_is_better and not self.name

    @property
    def direction_text(self) -> str:
        return "higher is better" if self.higher_is_better else "lower is better"

    @property
    def label(self) -> str:
        """How the board heads the mean total: ``s̄``, or the benchmark's ``score_name``."""
        return self.name or SYMBOL

    def norm_text(self, symbol: str = SYMBOL) -> str:
        """The normalisation as the board writes it inside Q_final: ``s̄ / 12``, ``(s̄ − 6) / 24``,
        ``(100 − s̄) / 100``."""
        low, high, span = (score_text(v) for v in (self.low, self.high, self.span))
        if self.higher_is_better:
            return f"{symbol} / {high}" if self.low == 0 else f"({symbol} \u2212 {low}) / {span}"
        return f"({high} \u2212 {symbol}) / {span}"

    def describe(self) -> str:
        """One sentence on the score: name, what it aggregates, range, direction; ``""`` for the default scale.

        E.g. ``s̄ (MQM-style penalty) is the mean over runs of each run's total: the sum of its 4 criteria
        (0–100; lower is better).``
        """
        if self.is_default:
            return ""
        what = "sum" if self.total == SUM else "mean"
        named = f" ({self.name})" if self.name else ""
        return (f"{SYMBOL}{named} is the mean over runs of each run's total: the {what} of its {self.criteria} "
                f"criteria ({score_text(self.low)}\u2013{score_text(self.high)}; {self.direction_text}).")


def total_range(low: Fraction, high: Fraction, criteria: int, total: str = SUM) -> tuple[Fraction, Fraction]:
    """The lowest and highest total of ``criteria`` scores in low..high: n·low..n·high for a sum, low..high
    for a mean."""
    times = criteria if total == SUM else 1
    return low * times, high * times


def default_scale(max_score: int = 12) -> ScoreScale:
    """The seed's scale, 0..max_score, higher is better, summed (tests and hand-built values use it)."""
    return ScoreScale(Fraction(0), Fraction(max_score))


def score_unit(values: Iterable[Score], unit: int = 1) -> int:
    """U, the lcm of ``unit`` and the denominators of ``values``: every one of them times U is an integer
    (:func:`in_units`), so the numpy statistics sum scores as integers, exactly (1 for integer scores)."""
    return math.lcm(unit, *{value.denominator for value in values})


def in_units(value: Score, unit: int) -> int:
    """``value`` times ``unit`` as an int, exact: ``unit`` a :func:`score_unit` of it (ValueError otherwise)."""
    whole = Fraction(value) * unit
    if whole.denominator != 1:
        raise ValueError(f"{value} times {unit} is not an integer")
    return whole.numerator


# --- writing and reading a score ---------------------------------------------------------------



def score_text(value: Score) -> str:
    """A score as result files and messages write it, exactly and the same way every time
    (:func:`rgbench.numfmt.fmt_exact`, the one writer of exact per-run values): an integer as an integer
    (``7``: the seed's files are unchanged); a terminating decimal as its shortest decimal (``12.3``, ``-1.5``);
    any other rational (a mean of criteria or of graders: 23/6) as ``numerator/denominator``, so a file that
    holds it can be read back exactly (:func:`parse_score`)."""
    return fmt_exact(value)


def parse_score(text: str) -> Score:
    """The exact value of a :func:`score_text` cell (int when it is an integer); ValueError otherwise."""
    value = parse_exact(text)
    if value is None or score_text(value) != text:
        raise ValueError(f"{text!r} is not a score as the results write it")
    return value


def json_score(value: Score) -> int | float:
    """A score as a JSON number that reads back as exactly the same value (an int, or the float whose shortest
    repr is the decimal: 12.3); ValueError for a value no JSON decimal holds exactly (1/3)."""
    if type(value) is int or value.denominator == 1:
        return int(value)
    number = float(value)
    if Fraction(repr(number)) != value:
        raise ValueError(f"{score_text(value)} has no exact decimal form a JSON file can hold")
    return number


def difference_text(value: Fraction | float, digits: int = 2) -> str:
    """A difference (or a distance on a scale) for a sentence: at least two decimals, and as many more as it
    takes to show ``digits`` significant digits, so a difference that is not zero never reads 0.00
    (0.15 -> ``0.15``, 0.0042 -> ``0.0042``, 3.5 -> ``3.50``, 1490.88 -> ``1490.88``; 0 -> ``0.00``)."""
    number = float(value)
    if number == 0 or not math.isfinite(number):
        return f"{number:.2f}"
    decimals = max(2, digits - 1 - math.floor(math.log10(abs(number))))
    text = f"{number:.{decimals}f}"
    if float(text) == 0:   # rounding crossed a power of ten downwards: one more decimal
        text = f"{number:.{decimals + 1}f}"
    return text

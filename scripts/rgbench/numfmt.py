"""Fixed-format numbers for result files: the only place where values are rounded."""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

DECIMALS = 6


def fmt_fixed(value: Fraction | int | None, decimals: int = DECIMALS) -> str:
    """Format an exact value with exactly ``decimals`` decimals, rounding half to even.

    ``None`` (an undefined metric) becomes the empty string. The rounding is
    done on the exact rational value, so 0.0000005 -> "0.000000" and
    0.0000015 -> "0.000002" regardless of binary floating point.
    """
    if value is None:
        return ""
    kind = type(value)
    if kind is Fraction:  # the common case first: ~2x faster than going through isinstance
        numerator, denominator = value.numerator, value.denominator
    elif isinstance(value, float):
        raise TypeError("fmt_fixed takes exact values (int or Fraction), not float")
    elif isinstance(value, (int, Fraction)):
        numerator, denominator = value.numerator, value.denominator
    else:
        exact = Fraction(value)
        numerator, denominator = exact.numerator, exact.denominator
    # round half to even on integers (what Fraction.__round__ does, without building Fractions)
    units, remainder = divmod(numerator * _SCALE[decimals], denominator)
    twice = remainder + remainder
    if twice > denominator or (twice == denominator and units & 1):
        units += 1
    if units < 0:
        sign, units = "-", -units
    else:
        sign = ""
    digits = str(units)
    if not decimals:
        return sign + digits
    if len(digits) <= decimals:
        digits = digits.rjust(decimals + 1, "0")
    return f"{sign}{digits[:-decimals]}.{digits[-decimals:]}"


_SCALE = tuple(10**d for d in range(19))


def fmt_signed(value: Fraction | int, decimals: int = DECIMALS) -> str:
    """:func:`fmt_fixed` with a sign always shown: "+0.050000", "-0.012000" (a change, or a bias)."""
    text = fmt_fixed(value, decimals)
    return text if text.startswith("-") else "+" + text


def _terminates(denominator: int) -> int | None:
    """The number of decimals of 1/denominator when its decimal expansion ends (1/8: 3), else None (1/3)."""
    twos = fives = 0
    while denominator % 2 == 0:
        denominator, twos = denominator // 2, twos + 1
    while denominator % 5 == 0:
        denominator, fives = denominator // 5, fives + 1
    return max(twos, fives) if denominator == 1 else None


MAX_EXACT_DECIMALS = 18   # a terminating decimal longer than this is written numerator/denominator


def fmt_exact(value: Fraction | int, decimals: int | None = None) -> str:
    """A per-run value written exactly: an integer as digits (``10``), a value whose decimal ends as that
    decimal (``4.5``), with at least ``decimals`` decimals when given (``0.500000``; the 6-decimal columns keep
    their form), and any other rational as ``numerator/denominator`` (the mean of 4, 4 and 5 is ``13/3``), which
    :func:`parse_exact` reads back; a consolidated mean (aggregate_metrics.md §26) leaves the integer scale."""
    value = Fraction(value)
    places = _terminates(value.denominator)
    if places is None or places > MAX_EXACT_DECIMALS:
        return f"{value.numerator}/{value.denominator}"
    if decimals is not None:
        places = max(places, decimals)
    if value.denominator == 1 and decimals is None:
        return str(value.numerator)
    return fmt_fixed(value, places)


_EXACT = re.compile(r"^-?(?:(?:0|[1-9][0-9]{0,17})(?:\.[0-9]{1,18})?|(?:0|[1-9][0-9]{0,17})/[1-9][0-9]{0,17})$")


def parse_exact(cell: str) -> Fraction | int | None:
    """The value :func:`fmt_exact` wrote (an int for plain digits), or None when ``cell`` is not one."""
    if not _EXACT.match(cell):
        return None
    if "/" not in cell and "." not in cell:
        return int(cell)
    return Fraction(cell)


def fmt_optional(value: Any, fmt: Callable[[Any], str] = str) -> str:
    """A cell written by ``fmt`` (``str``: an integer or text); empty for a value the benchmark does not record
    (None)."""
    return "" if value is None else fmt(value)


def fmt_bool(value: bool) -> str:
    """Booleans are written ``true``/``false``."""
    return "true" if value else "false"


def counted(n: int | str, noun: str) -> str:
    """``1 case``, ``2 cases``: ``n`` (an int or its decimal text) with ``noun``, plural unless n is 1."""
    return f"{n} {noun}" + ("" if int(n) == 1 else "s")

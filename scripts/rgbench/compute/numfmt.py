"""Fixed-format numbers for result files: the only place where values are rounded."""

from __future__ import annotations

from fractions import Fraction

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


def fmt_bool(value: bool) -> str:
    """Booleans are written ``true``/``false``."""
    return "true" if value else "false"


def counted(n: int | str, noun: str) -> str:
    """``1 case``, ``2 cases``: ``n`` (an int or its decimal text) with ``noun``, plural unless n is 1."""
    return f"{n} {noun}" + ("" if int(n) == 1 else "s")

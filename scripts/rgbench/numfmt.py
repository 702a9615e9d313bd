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
    if isinstance(value, float):
        raise TypeError("fmt_fixed takes exact values (int or Fraction), not float")
    if isinstance(value, Fraction):
        numerator, denominator = value.numerator, value.denominator
    elif isinstance(value, int):
        numerator, denominator = value, 1
    else:
        exact = Fraction(value)
        numerator, denominator = exact.numerator, exact.denominator
    # round half to even on integers (what Fraction.__round__ does, without building Fractions)
    units, remainder = divmod(numerator * 10**decimals, denominator)
    if 2 * remainder > denominator or (2 * remainder == denominator and units % 2):
        units += 1
    sign = "-" if units < 0 else ""
    digits = str(abs(units)).rjust(decimals + 1, "0")
    return f"{sign}{digits[:-decimals]}.{digits[-decimals:]}" if decimals else f"{sign}{digits}"


def fmt_bool(value: bool) -> str:
    """Booleans are written ``true``/``false``."""
    return "true" if value else "false"

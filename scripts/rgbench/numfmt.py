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
    units = round(Fraction(value) * 10**decimals)  # an int; Fraction.__round__ rounds half to even
    sign = "-" if units < 0 else ""
    digits = str(abs(units)).rjust(decimals + 1, "0")
    return f"{sign}{digits[:-decimals]}.{digits[-decimals:]}" if decimals else f"{sign}{digits}"


def fmt_bool(value: bool) -> str:
    """Booleans are written ``true``/``false``."""
    return "true" if value else "false"

"""Fixed-format numbers for result files: the only place where values are rounded."""

from __future__ import annotations

from decimal import Decimal
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
    rounded = round(Fraction(value), decimals)  # Fraction rounds half to even
    scaled = rounded * 10**decimals
    if scaled.denominator != 1:  # pragma: no cover - round() guarantees this
        raise AssertionError("rounding did not give a whole number of units")
    text = str(Decimal(scaled.numerator).scaleb(-decimals).quantize(Decimal(1).scaleb(-decimals)))
    return "0." + "0" * decimals if text.startswith("-") and Fraction(text) == 0 else text


def fmt_bool(value: bool) -> str:
    """Booleans are written ``true``/``false``."""
    return "true" if value else "false"

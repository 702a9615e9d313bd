"""Read committed result CSVs back (for diffs and history): strict about the header, values kept as text.

Fractional cells are turned into exact ``Fraction``s only where arithmetic is
needed (:func:`exact`), so "0.750000" compares and subtracts exactly.
"""

from __future__ import annotations

import csv
import io
from fractions import Fraction
from typing import Sequence

from .parsing import ParseError, decode_utf8


class TableError(ValueError):
    """A result table that cannot be read; ``str(error)`` is the user-facing message."""


def read_table(data: bytes, required: Sequence[str], key: str = "subject_id") -> dict[str, dict[str, str]]:
    """Rows of a result CSV by ``key``; TableError when a required column is missing or a key repeats.

    Extra columns are kept (a later toolkit may add some); rows are dicts of
    column -> text.
    """
    try:
        text = decode_utf8(data)
    except ParseError as exc:
        raise TableError(str(exc)) from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = reader.fieldnames or []
    missing = [column for column in required if column not in header]
    if missing:
        raise TableError(f"header lacks column(s) {', '.join(missing)} (is it a result file of this toolkit?)")
    rows: dict[str, dict[str, str]] = {}
    for line, row in enumerate(reader, start=2):
        if None in row or any(value is None for value in row.values()):
            raise TableError(f"line {line}: wrong number of cells")
        name = row[key]
        if name in rows:
            raise TableError(f"line {line}: {key} {name!r} appears twice")
        rows[name] = dict(row)
    return rows


def exact(cell: str | None) -> Fraction | None:
    """The exact value of a numeric cell; None for an empty (undefined) cell; TableError otherwise."""
    if cell is None or cell == "":
        return None
    try:
        return Fraction(cell)
    except (ValueError, ZeroDivisionError):
        raise TableError(f"{cell!r} is not a number") from None

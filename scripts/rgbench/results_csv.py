"""The one reader of committed result CSVs: the csv module in strict mode, one record at a time.

:func:`csv_records` gives the records with their line numbers and says which
ones are wrong (a record whose width is not the header's, malformed CSV). The
leaderboard parses typed cells on top of it (:mod:`rgbench.leaderboard.results_tables`);
the diff and the history keep cells as text (:func:`read_keyed_table`) and turn
a numeric cell into an exact ``Fraction`` only where arithmetic is needed
(:func:`exact`), so "0.750000" compares and subtracts exactly.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import NamedTuple

from .load.parsing import ParseError, decode_utf8, exact_decimal


class TableError(ValueError):
    """A result table that cannot be read; ``str(error)`` is the user-facing message."""


class CsvRecord(NamedTuple):
    """One record: its line (the header is line 1), its cells, and what is wrong with it (None: nothing)."""

    line: int
    cells: list[str]
    problem: str | None = None


def csv_records(text: str) -> Iterator[CsvRecord]:
    """The header record, then each data record, in file order.

    A record with another width than the header's comes with a problem
    (``line N: K fields, expected M``) and so does malformed CSV, which ends the reading.
    """
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    width = None
    try:
        for cells in reader:
            line = reader.line_num
            if width is not None and len(cells) != width:
                yield CsvRecord(line, cells, f"line {line}: {len(cells)} fields, expected {width}")
                continue
            width = len(cells) if width is None else width
            yield CsvRecord(line, cells)
    except csv.Error as exc:
        yield CsvRecord(reader.line_num, [], f"line {reader.line_num}: malformed CSV ({exc})")


def read_keyed_table(data: bytes, required: Sequence[str], key: str = "subject_id") -> dict[str, dict[str, str]]:
    """Rows of a result CSV by ``key``, each a dict of column -> text; TableError when the bytes are not
    UTF-8, a required column is missing, a record is wrong (:func:`csv_records`) or a key repeats.

    Extra columns are kept (a later toolkit may add some).
    """
    try:
        text = decode_utf8(data)
    except ParseError as exc:
        raise TableError(str(exc)) from None
    records = csv_records(text)
    first = next(records, None)
    if first is not None and first.problem:
        raise TableError(first.problem)
    header = first.cells if first is not None else []
    missing = [column for column in required if column not in header]
    if missing:
        raise TableError(f"header lacks column(s) {', '.join(missing)} (is it a result file of this toolkit?)")
    rows: dict[str, dict[str, str]] = {}
    for record in records:
        if record.problem:
            raise TableError(record.problem)
        row = dict(zip(header, record.cells))
        if row[key] in rows:
            raise TableError(f"line {record.line}: {key} {row[key]!r} appears twice")
        rows[row[key]] = row
    return rows


def exact(cell: str | None) -> Fraction | None:
    """The exact value of a numeric cell; None for an empty (undefined) cell; TableError otherwise."""
    if cell is None or cell == "":
        return None
    try:
        return exact_decimal(cell)  # bounded: a cell 1e-99999999 is refused, not expanded
    except ValueError:
        shown = cell if len(cell) <= 40 else cell[:40] + "..."
        raise TableError(f"{shown!r} is not a number (a decimal of at most 40 characters)") from None

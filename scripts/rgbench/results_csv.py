"""Result CSVs: how a cell is written (:func:`csv_line`) and the one reader (:func:`csv_records`).

A result file is opened in spreadsheets, so no cell may start a formula (OWASP's "CSV Injection"), whatever
text a pull request put in a comment, a registry field, a gold's title or tags. The rule, for every cell
(:func:`csv_line`):

- an empty cell, or a plain decimal number (:data:`NUMBER`: ``12``, ``-0.034``, ``0.750000``), is written as
  it is: a spreadsheet reads a number, never a formula;
- every other cell is text and is *neutralised*: at its start, and after every ``;``, line feed or carriage
  return inside it, a character that could start a formula or a quoted field (``= + - @``, tab, carriage
  return, the ``'`` itself and ``"``) gets one ``'`` put before it (:func:`neutralised`);
- a cell holding a ``,``, ``;``, ``"`` or a line break is quoted (``"..."``, a ``"`` doubled), so that it stays
  one field whether the spreadsheet's list separator is ``,`` or ``;``.

After ``;`` and line breaks too, because a spreadsheet whose list separator is ``;`` (most of continental
Europe) splits ``a;=1+1`` into ``a`` and ``=1+1`` wherever it did not see the field quoted (any field but a
row's first), and ends the row at a line break there: each piece starts a cell. ``'`` is in the list so the
rule reverses exactly: in a written cell, a ``'`` at the start or after ``;``, LF or CR is always one that was
put there, and :func:`restored` (applied by :func:`csv_records` to every cell) takes exactly those away, so
every text reads back as written (tests/test_csv_cells.py: any text, written then read, is itself). A reader
of the files that does not use this module sees ``'=1+1`` for the text ``=1+1``: that is the point.

Quoting is not what stops a formula (a spreadsheet evaluates a quoted ``"=1+1"`` all the same): the ``'`` does.
So a cell is quoted only when quotes keep it whole, not every text cell: that would move every byte of every
result file and of every test and document quoting one, and protect nothing more.

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
import re
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import NamedTuple

from .load.parsing import ParseError, decode_utf8, exact_decimal

NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?\Z")   # a plain decimal: written bare, never neutralised
FORMULA_START = "=+-@\t\r"   # what starts a formula in a spreadsheet's cell (OWASP)
_PIECE_START = r"(?:\A|(?<=[;\r\n]))"   # the start of a cell, or of a piece a ';' or a line break begins
_NEUTRALISE = re.compile(_PIECE_START + r"(?=[=+\-@\t\r'\"])")
_NEUTRALISED = re.compile(_PIECE_START + "'")
_NEEDS_QUOTES = re.compile('[,;"\r\n]')


def neutralised(text: str) -> str:
    """``text`` as a cell that starts no formula: unchanged when it is a plain decimal (:data:`NUMBER`), else
    with a ``'`` before each ``= + - @ TAB CR ' "`` that starts it or follows a ``;``, LF or CR in it (the
    module docstring's rule)."""
    return text if NUMBER.match(text) else _NEUTRALISE.sub("'", text)


def restored(cell: str) -> str:
    """The text :func:`neutralised` was given: each ``'`` that starts ``cell`` or follows a ``;``, LF or CR
    taken away (exactly the ones it put there)."""
    return _NEUTRALISED.sub("", cell) if "'" in cell else cell


def csv_line(cells: Sequence[str]) -> str:
    """One row of a result CSV, ``\n`` ended: each cell :func:`neutralised`, and quoted when it holds a
    ``,``, ``;``, ``"`` or a line break (module docstring)."""
    return ",".join(_quoted(neutralised(cell)) for cell in cells) + "\n"


def _quoted(cell: str) -> str:
    return '"' + cell.replace('"', '""') + '"' if _NEEDS_QUOTES.search(cell) else cell


Cells = tuple[str, ...]
Table = tuple[Cells, tuple[Cells, ...]]
"""A result table as written: its header and its rows, each a tuple of cells (text, before :func:`csv_line`)."""


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
    (``line N: K fields, expected M``) and so does malformed CSV, which ends the reading. Every cell comes
    :func:`restored`: the text the writer was given.
    """
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    width = None
    try:
        for written in reader:
            line = reader.line_num
            cells = [restored(cell) for cell in written]
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

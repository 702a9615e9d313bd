"""Read the three result tables written by compute_metrics back into exact records.

The CSVs are the committed values, so they are parsed strictly: the header must
start with the columns issue 2 fixes (``rgbench.tables.*_COLUMNS``), integers
are plain digits, fractions have exactly six decimals (parsed to ``Fraction``,
so ties compare the committed values exactly), booleans are ``true``/``false``.
Columns after those are allowed (the statistics add some); the ones the
leaderboard shows (intervals, ``n_cases``) are parsed as strictly, the others
are ignored. Every problem of every file is returned; nothing is raised.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from itertools import repeat
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Callable

from ..derive import RunRow
from ..metrics import FamilyMetrics, SubjectMetrics
from ..parsing import ParseError, decode_utf8
from ..problems import Problem
from ..safe_read import read_single_file
from ..tables import FAMILY_COLUMNS, FAMILY_FILE, PER_RUN_COLUMNS, PER_RUN_FILE, SUBJECT_COLUMNS, SUBJECT_FILE

RESULTS_DIR = "results"
PER_RUN_PATH = f"{RESULTS_DIR}/{PER_RUN_FILE}"
SUBJECT_PATH = f"{RESULTS_DIR}/{SUBJECT_FILE}"
FAMILY_PATH = f"{RESULTS_DIR}/{FAMILY_FILE}"
_REGENERATE = "run `make metrics` to regenerate it"

_INT = re.compile(r"^(0|[1-9][0-9]*)$")
_FIXED = re.compile(r"^-?[0-9]+\.[0-9]{6}$")
_MILLION = 10 ** 6


class _Bad(ValueError):
    """A cell that does not parse; the message says what was expected."""


def _text(cell: str) -> str:
    if not cell:
        raise _Bad("is empty")
    return cell


def _int(cell: str) -> int:
    if not _INT.match(cell):
        raise _Bad(f"{cell!r} is not a non-negative integer")
    return int(cell)


def _fixed(cell: str) -> Fraction:
    if not _FIXED.match(cell):
        raise _Bad(f"{cell!r} is not a number with exactly 6 decimals (e.g. 0.500000)")
    return Fraction(int(cell.replace(".", "", 1)), _MILLION)  # = Fraction(cell), three times faster


def _fixed_or_empty(cell: str) -> Fraction | None:
    return None if cell == "" else _fixed(cell)


def _bool(cell: str) -> bool:
    if cell not in ("true", "false"):
        raise _Bad(f"{cell!r} is not a boolean (true or false)")
    return cell == "true"


Parser = Callable[[str], object]

PER_RUN_TYPES: dict[str, Parser] = {
    "subject_id": _text, "subject_version": _text, "case_id": _text, "run_id": _text,
    "reviewer_id": _text, "family": _text, "raw_score": _int, "rubric_floor": _int,
    "rubric_ceiling": _int, "clipped_score": _int, "has_critical_fail": _bool,
    "has_recoverable_fail": _bool, "classification": _text, "reported_confidence": _int,
    "confidence_unit": _fixed, "correctness": _fixed,
}
SUBJECT_TYPES: dict[str, Parser] = {
    "subject_id": _text, "subject_version": _text, "N": _int, "n_unscored": _int,
    "P": _fixed_or_empty, "s_bar": _fixed_or_empty, "BS": _fixed_or_empty, "ECE": _fixed_or_empty,
    "Q_final": _fixed_or_empty, "alpha": _fixed, "disqualified": _bool, "n_critical": _int,
}
FAMILY_TYPES: dict[str, Parser] = {
    "subject_id": _text, "subject_version": _text, "family": _text, "n_family": _int,
    "P_family": _fixed, "s_bar_family": _fixed,
}

assert set(PER_RUN_TYPES) == set(PER_RUN_COLUMNS) == set(RunRow._fields), "per_run.csv's columns are RunRow's fields"

# Optional columns after the required ones that the leaderboard uses when present:
# metric -> (low column, high column) of its interval, as compute_metrics' statistics write them.
SUBJECT_INTERVALS = {
    "P": ("P_wilson_low", "P_wilson_high"), "s_bar": ("s_bar_low", "s_bar_high"),
    "Q_final": ("Q_final_low", "Q_final_high"), "BS": ("BS_low", "BS_high"), "ECE": ("ECE_low", "ECE_high"),
}
FAMILY_INTERVAL = ("P_family_wilson_low", "P_family_wilson_high")
SUBJECT_EXTRA_TYPES: dict[str, Parser] = {
    **{column: _fixed_or_empty for pair in SUBJECT_INTERVALS.values() for column in pair}, "n_cases": _int,
}
FAMILY_EXTRA_TYPES: dict[str, Parser] = {column: _fixed_or_empty for column in FAMILY_INTERVAL}


@dataclass(frozen=True)
class Row:
    """One parsed data row: its line number (header = line 1), required values and known extra values."""

    line: int
    values: dict[str, object]
    extras: dict[str, object]


@dataclass(frozen=True)
class Table:
    """A parsed CSV by column: ``lines[i]`` is row i's line; ``values[name][i]`` its parsed cell.

    ``required`` names the required columns, ``extras`` the known extra columns present (header order).
    Only rows without a bad cell are held.
    """

    lines: list[int]
    required: tuple[str, ...]
    extras: tuple[str, ...]
    values: dict[str, list]

    def rows(self) -> list[Row]:
        """The same rows as :class:`Row` objects."""
        required = [(name, self.values[name]) for name in self.required]
        extras = [(name, self.values[name]) for name in self.extras]
        return [Row(line, {name: column[i] for name, column in required}, {name: column[i] for name, column in extras})
                for i, line in enumerate(self.lines)]

    @staticmethod
    def empty(required: tuple[str, ...]) -> "Table":
        return Table([], required, (), {name: [] for name in required})

    @staticmethod
    def of_rows(rows: list[Row], required: tuple[str, ...], extras: tuple[str, ...]) -> "Table":
        return Table([row.line for row in rows], required, extras,
                     {**{name: [row.values[name] for row in rows] for name in required},
                      **{name: [row.extras[name] for row in rows] for name in extras}})


def _header_problem(rel: str, header: list[str], columns: tuple[str, ...]) -> Problem | None:
    if tuple(header[: len(columns)]) != columns or len(set(header)) != len(header):
        return Problem(rel, f"line 1: header is {','.join(header)!r}, expected it to start with "
                            f"{','.join(columns)!r} (and name each column once); {_REGENERATE}")
    return None


def _parse_by_row(rel: str, text: str, columns: tuple[str, ...], types: dict[str, Parser],
                  extra_types: dict[str, Parser]) -> tuple[list[Row], tuple[str, ...], list[Problem]]:
    """The reference reading, one record and one cell at a time: every problem, in file order."""
    problems: list[Problem] = []
    rows: list[Row] = []
    extras: tuple[str, ...] = ()
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader)
        problem = _header_problem(rel, header, columns)
        if problem is not None:
            return [], (), [problem]
        extras = tuple(name for name in header[len(columns):] if name in extra_types)
        for record in reader:
            line = reader.line_num
            if len(record) != len(header):
                problems.append(Problem(rel, f"line {line}: {len(record)} fields, expected {len(header)}"))
                continue
            values: dict[str, object] = {}
            extra_values: dict[str, object] = {}
            bad = False
            for name, cell in zip(header, record):
                parser = types[name] if name in columns else extra_types.get(name)
                if parser is None:
                    continue
                try:
                    (values if name in columns else extra_values)[name] = parser(cell)
                except _Bad as exc:
                    problems.append(Problem(rel, f"line {line}: {name}: {exc}"))
                    bad = True
            if not bad:
                rows.append(Row(line, values, extra_values))
    except csv.Error as exc:
        problems.append(Problem(rel, f"line {reader.line_num}: malformed CSV ({exc})"))
    return rows, extras, problems


def _parse_by_column(text: str, columns: tuple[str, ...], types: dict[str, Parser],
                     extra_types: dict[str, Parser]) -> Table | None:
    """The same Table as :func:`_parse_by_row` for a file without any problem, or None (then read it by row).

    Only text without quotes and carriage returns is taken: the CSV reader then splits each line at
    every comma and nowhere else, so a record is a line (row i is on line i + 2) and its fields are
    ``line.split(",")``; lines longer than the reader's field size limit are left to the reader. The
    table is returned only when every record has the header's width and every cell parses; each
    distinct cell of a column is parsed once (the parsers are pure, the values immutable).
    """
    if '"' in text or "\r" in text:
        return None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the final newline ends the last record
    if not lines or max(map(len, lines)) > csv.field_size_limit():
        return None
    header = lines[0].split(",")
    if _header_problem("", header, columns) is not None:
        return None
    body = list(map(str.split, lines[1:], repeat(",")))
    width = len(header)
    if any(len(record) != width for record in body):
        return None
    cells = list(zip(*body)) if body else [()] * width
    values: dict[str, list] = {}
    for name, column in zip(header, cells):
        parser = types[name] if name in columns else extra_types.get(name)
        if parser is None:
            continue
        parsed = dict.fromkeys(column)
        try:
            for cell in parsed:
                parsed[cell] = parser(cell)
        except _Bad:
            return None
        values[name] = list(map(parsed.__getitem__, column))
    extras = tuple(name for name in header[len(columns):] if name in extra_types)
    return Table(list(range(2, len(body) + 2)), columns, extras, values)


def parse_table(rel: str, text: str, columns: tuple[str, ...], types: dict[str, Parser],
                extra_types: dict[str, Parser] | None = None) -> tuple[Table, list[Problem]]:
    """Parse ``text`` as a CSV whose header starts with ``columns``; every bad cell is a problem.

    Columns after ``columns`` are parsed with ``extra_types`` when named there, else ignored.
    A file without problems is read column by column (fast); any other is read row by row, which
    finds every problem in file order. Both give the same Table for the same text.
    """
    extra_types = extra_types or {}
    if not text:
        return Table.empty(columns), [
            Problem(rel, f"empty file (expected a header row: {','.join(columns)}); {_REGENERATE}")]
    table = _parse_by_column(text, columns, types, extra_types)
    if table is not None:
        return table, []
    rows, extras, problems = _parse_by_row(rel, text, columns, types, extra_types)
    return Table.of_rows(rows, columns, extras), problems


def parse_csv(rel: str, text: str, columns: tuple[str, ...], types: dict[str, Parser],
              extra_types: dict[str, Parser] | None = None) -> tuple[list[Row], list[Problem]]:
    """:func:`parse_table`'s rows as :class:`Row` objects."""
    table, problems = parse_table(rel, text, columns, types, extra_types)
    return table.rows(), problems


def read_table(root: Path, rel: str, columns: tuple[str, ...], types: dict[str, Parser],
               extra_types: dict[str, Parser] | None = None, digests: dict[str, str] | None = None
               ) -> tuple[Table, list[Problem]]:
    """Read ``root/rel`` safely (no symlinks, strict UTF-8) and parse it with :func:`parse_table`.

    The sha256 of the bytes read is stored in ``digests[rel]`` when a dict is given.
    """
    empty = Table.empty(columns)
    data, problems = read_single_file(root, rel)
    if data is None:
        return empty, [Problem(p.path, f"{p.message}; {_REGENERATE}") for p in problems]
    if digests is not None:
        digests[rel] = hashlib.sha256(data).hexdigest()
    try:
        text = decode_utf8(data)
    except ParseError as exc:
        return empty, [Problem(rel, str(exc))]
    return parse_table(rel, text, columns, types, extra_types)


def read_csv(root: Path, rel: str, columns: tuple[str, ...], types: dict[str, Parser],
             extra_types: dict[str, Parser] | None = None, digests: dict[str, str] | None = None
             ) -> tuple[list[Row], list[Problem]]:
    """:func:`read_table`'s rows as :class:`Row` objects."""
    table, problems = read_table(root, rel, columns, types, extra_types, digests)
    return table.rows(), problems


def run_rows(table: Table) -> list[RunRow]:
    """per_run.csv's rows as RunRow records (its required columns are RunRow's fields)."""
    if not table.lines:
        return []
    return list(map(RunRow._make, zip(*(table.values[name] for name in RunRow._fields))))


def _subject_row(values: dict[str, object]) -> SubjectMetrics:
    v = values
    return SubjectMetrics(
        subject_id=v["subject_id"], subject_version=v["subject_version"], n=v["N"],
        n_unscored=v["n_unscored"], p=v["P"], s_bar=v["s_bar"], bs=v["BS"], ece=v["ECE"],
        q_final=v["Q_final"], alpha=v["alpha"], disqualified=v["disqualified"], n_critical=v["n_critical"],
    )  # type: ignore[arg-type]


def _family_row(values: dict[str, object]) -> FamilyMetrics:
    v = values
    return FamilyMetrics(
        subject_id=v["subject_id"], subject_version=v["subject_version"], family=v["family"],
        n_family=v["n_family"], p_family=v["P_family"], s_bar_family=v["s_bar_family"],
    )  # type: ignore[arg-type]


@dataclass(frozen=True)
class ResultTables:
    """The three tables, exact; ``*_lines`` map a row's key to its line for messages.

    ``subject_extras`` / ``family_extras`` hold the optional columns that were
    present (see SUBJECT_EXTRA_TYPES, FAMILY_EXTRA_TYPES), by subject_id and by
    (subject_id, family).
    """

    runs: list[RunRow]
    subjects: list[SubjectMetrics]
    families: list[FamilyMetrics]
    subject_lines: dict[str, int]
    family_lines: dict[tuple[str, str], int]
    subject_extras: dict[str, dict[str, object]]
    family_extras: dict[tuple[str, str], dict[str, object]]
    digests: dict[str, str]


def read_result_tables(root: Path) -> tuple[ResultTables | None, list[Problem]]:
    """Read per_run.csv, metrics_per_subject.csv and metrics_per_family.csv under ``root/results``.

    Returns (tables, []) or (None, problems). Duplicate keys (a subject twice,
    a (subject, family) pair twice) are problems too.
    """
    digests: dict[str, str] = {}
    runs, problems = read_table(root, PER_RUN_PATH, PER_RUN_COLUMNS, PER_RUN_TYPES, digests=digests)
    subject_rows, more = read_csv(root, SUBJECT_PATH, SUBJECT_COLUMNS, SUBJECT_TYPES, SUBJECT_EXTRA_TYPES, digests)
    problems += more
    family_rows, more = read_csv(root, FAMILY_PATH, FAMILY_COLUMNS, FAMILY_TYPES, FAMILY_EXTRA_TYPES, digests)
    problems += more

    subject_lines: dict[str, int] = {}
    for row in subject_rows:
        sid = str(row.values["subject_id"])
        if sid in subject_lines:
            problems.append(Problem(SUBJECT_PATH, f"line {row.line}: subject {sid!r} repeats line {subject_lines[sid]}"))
        else:
            subject_lines[sid] = row.line
    family_lines: dict[tuple[str, str], int] = {}
    for row in family_rows:
        key = (str(row.values["subject_id"]), str(row.values["family"]))
        if key in family_lines:
            problems.append(Problem(FAMILY_PATH, f"line {row.line}: ({key[0]}, {key[1]}) repeats line {family_lines[key]}"))
        else:
            family_lines[key] = row.line
    if problems:
        return None, problems
    return ResultTables(
        runs=run_rows(runs),
        subjects=[_subject_row(r.values) for r in subject_rows],
        families=[_family_row(r.values) for r in family_rows],
        subject_lines=subject_lines,
        family_lines=family_lines,
        subject_extras={str(r.values["subject_id"]): r.extras for r in subject_rows},
        family_extras={(str(r.values["subject_id"]), str(r.values["family"])): r.extras for r in family_rows},
        digests=digests,
    ), []

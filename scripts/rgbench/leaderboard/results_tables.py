"""Read the result tables written by compute_metrics back into exact records.

The CSVs are the committed values, so they are parsed strictly, record by record
(:func:`rgbench.results_csv.csv_records`), cell by cell: the header must
start with the columns issue 2 fixes (``rgbench.results.tables.*_COLUMNS``), integers
are plain digits, fractions have exactly six decimals (parsed to ``Fraction``,
so ties compare the committed values exactly), booleans are ``true``/``false``.
Columns after those are allowed (the statistics add some); the ones the
leaderboard shows (intervals, ``n_cases``) are parsed as strictly, the others
are ignored. A key (a subject, a (subject, family), a pair, a (subject, alpha))
appears once. Every problem of every file is returned; nothing is raised.
The statistics tables are required when the manifest lists them (older results
carry none: no rank ranges, no alpha statement). Whether the values are *right*
is :mod:`.consistency`'s business.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

from ..compute.derive import RunRow
from ..compute.metrics import FamilyMetrics, SubjectMetrics
from ..load.parsing import ParseError, decode_utf8
from ..load.safe_read import read_result_file
from ..load.scale import parse_score
from ..numfmt import fmt_fixed, parse_exact
from ..problems import Problem
from ..results.tables import FAMILY_COLUMNS, FAMILY_FILE, PER_RUN_COLUMNS, PER_RUN_FILE, SUBJECT_COLUMNS, SUBJECT_FILE
from ..results_csv import csv_records
from ..stats.outputs import (
    ALPHA_COLUMNS,
    ALPHA_FILE,
    DIFFICULTY_TREND_COLUMNS,
    DIFFICULTY_TREND_FILE,
    PAIRWISE_COLUMNS,
    PAIRWISE_FILE,
    RANK_SETS_COLUMNS,
    RANK_SETS_FILE,
    RANK_STABILITY_COLUMNS,
    RANK_STABILITY_FILE,
)
from .difficulty_text import DifficultyTrendRow
from .manifest import Manifest

RESULTS_DIR = "results"
PER_RUN_PATH = f"{RESULTS_DIR}/{PER_RUN_FILE}"
PAIRWISE_PATH = f"{RESULTS_DIR}/{PAIRWISE_FILE}"
ALPHA_PATH = f"{RESULTS_DIR}/{ALPHA_FILE}"
RANK_SETS_PATH = f"{RESULTS_DIR}/{RANK_SETS_FILE}"
RANK_STABILITY_PATH = f"{RESULTS_DIR}/{RANK_STABILITY_FILE}"
DIFFICULTY_TREND_PATH = f"{RESULTS_DIR}/{DIFFICULTY_TREND_FILE}"
SUBJECT_PATH = f"{RESULTS_DIR}/{SUBJECT_FILE}"
FAMILY_PATH = f"{RESULTS_DIR}/{FAMILY_FILE}"
REGENERATE = "run `make metrics` to regenerate it"

_INT = re.compile(r"^(0|[1-9][0-9]{0,17})$")           # bounded: a 5,000-digit cell is refused, not parsed
_FIXED = re.compile(r"^-?[0-9]{1,18}\.[0-9]{6}$")


class _Bad(ValueError):
    """A cell that does not parse; the message says what was expected."""


def _shown(cell: str) -> str:
    """A refused cell as a message quotes it: at most 40 characters (a 1 MB cell is not echoed)."""
    return repr(cell if len(cell) <= 40 else cell[:40] + "...")


def _text(cell: str) -> str:
    if not cell:
        raise _Bad("is empty")
    return cell


@cache  # result tables repeat a few distinct cells many times
def _int(cell: str) -> int:
    if not _INT.match(cell):
        raise _Bad(f"{_shown(cell)} is not a non-negative integer")
    return int(cell)


@cache
def _exact(cell: str) -> Fraction | int:
    """A per-run score or correctness as :func:`rgbench.numfmt.fmt_exact` writes it (``10``, ``4.5``,
    ``0.500000``, or ``13/3`` for a consolidated mean)."""
    value = parse_exact(cell)
    if value is None or value < 0:
        raise _Bad(f"{_shown(cell)} is not a non-negative number (digits, a decimal, or numerator/denominator)")
    return value


def _exact_or_empty(cell: str) -> Fraction | int | None:
    """:func:`_exact`, or None for an empty cell (a correctness the benchmark does not record)."""
    return None if cell == "" else _exact(cell)


@cache
def _fixed(cell: str) -> Fraction:
    if not _FIXED.match(cell):
        raise _Bad(f"{_shown(cell)} is not a number with exactly 6 decimals (e.g. 0.500000)")
    return Fraction(cell)


@cache
def _score(cell: str) -> int | Fraction:
    """A score cell (per_run.csv's raw, clipped, floor and ceiling): an integer, a decimal or n/d, exactly as
    rgbench.load.scale.score_text writes it (so the recomputed figures are exact)."""
    if _INT.match(cell):
        return int(cell)
    try:
        if len(cell) <= 80:
            return parse_score(cell)
    except (ValueError, ZeroDivisionError):
        pass
    raise _Bad(f"{_shown(cell)} is not a score (an integer, a decimal such as 12.5, or a fraction such as 23/6)")


def _fixed_or_empty(cell: str) -> Fraction | None:
    return None if cell == "" else _fixed(cell)


def _int_or_empty(cell: str) -> int | None:
    return None if cell == "" else _int(cell)


def _score_or_empty(cell: str) -> int | Fraction | None:
    """:func:`_score`, or None for an empty cell (a floor or ceiling the benchmark does not record)."""
    return None if cell == "" else _score(cell)


def _text_or_none(cell: str) -> str | None:
    return cell or None


def _bool(cell: str) -> bool:
    if cell not in ("true", "false"):
        raise _Bad(f"{_shown(cell)} is not a boolean (true or false)")
    return cell == "true"


Parser = Callable[[str], Any]  # a cell's text -> its value, of the type the column's field has

# The cells of a field a benchmark may not record (issue 23) may be empty; consistency.check_runs holds them
# to what system/ declares.
PER_RUN_TYPES: dict[str, Parser] = {
    "subject_id": _text, "subject_version": _text, "case_id": _text, "run_id": _text,
    "reviewer_id": _text, "family": _text, "raw_score": _score, "rubric_floor": _score_or_empty,
    "rubric_ceiling": _score_or_empty, "clipped_score": _score, "has_critical_fail": _bool,
    "has_recoverable_fail": _bool, "classification": _text_or_none, "reported_confidence": _int_or_empty,
    "confidence_unit": _fixed_or_empty, "correctness": _exact_or_empty,
}
SUBJECT_TYPES: dict[str, Parser] = {
    "subject_id": _text, "subject_version": _text, "N": _int, "n_unscored": _int,
    "P": _fixed_or_empty, "s_bar": _fixed_or_empty, "BS": _fixed_or_empty, "ECE": _fixed_or_empty,
    "Q_final": _fixed_or_empty, "alpha": _fixed, "disqualified": _bool, "n_critical": _int,
}
FAMILY_TYPES: dict[str, Parser] = {
    "subject_id": _text, "subject_version": _text, "family": _text, "n_family": _int,
    "P_family": _fixed_or_empty, "s_bar_family": _fixed,
}

assert set(PER_RUN_TYPES) == set(PER_RUN_COLUMNS) == set(RunRow._fields), "per_run.csv's columns are RunRow's fields"

# Optional columns after the required ones that the leaderboard uses when present:
# metric -> (low column, high column) of its interval, as compute_metrics' statistics write them.
SUBJECT_INTERVALS = {
    "P": ("P_low", "P_high"), "s_bar": ("s_bar_low", "s_bar_high"),
    "Q_final": ("Q_final_low", "Q_final_high"), "BS": ("BS_low", "BS_high"), "ECE": ("ECE_low", "ECE_high"),
}
FAMILY_INTERVAL = ("P_family_low", "P_family_high")
SUBJECT_EXTRA_TYPES: dict[str, Parser] = {
    **{column: _fixed_or_empty for pair in SUBJECT_INTERVALS.values() for column in pair}, "n_cases": _int,
    "n_cases_missing": _int, "missing_cases": str,
}
FAMILY_EXTRA_TYPES: dict[str, Parser] = {column: _fixed_or_empty for column in FAMILY_INTERVAL}


class Row(NamedTuple):
    """One parsed data row: its line number (header = line 1), required values and known extra values."""

    line: int
    values: dict[str, Any]
    extras: dict[str, Any]


def parse_csv(rel: str, text: str, columns: tuple[str, ...], types: dict[str, Parser],
              extra_types: dict[str, Parser] | None = None) -> tuple[list[Row], list[Problem]]:
    """Parse ``text`` as a CSV whose header starts with ``columns``; every bad record or cell is a problem,
    in file order. Columns after ``columns`` are parsed with ``extra_types`` when named there, else ignored.
    Only rows without a bad cell are returned."""
    extra_types = extra_types or {}
    if not text:
        return [], [Problem(rel, f"empty file (expected a header row: {','.join(columns)}); {REGENERATE}")]
    records = csv_records(text)
    header = next(records)
    if header.problem:
        return [], [Problem(rel, f"{header.problem}; {REGENERATE}")]
    names = header.cells
    if tuple(names[: len(columns)]) != columns or len(set(names)) != len(names):
        return [], [Problem(rel, f"line 1: header is {','.join(names)!r}, expected it to start with "
                                 f"{','.join(columns)!r} (and name each column once); {REGENERATE}")]
    parsers = [(name, types[name] if name in columns else extra_types.get(name), name in columns) for name in names]
    problems: list[Problem] = []
    rows: list[Row] = []
    for line, cells, problem in records:
        if problem:
            problems.append(Problem(rel, f"{problem}; {REGENERATE}"))
            continue
        values: dict[str, Any] = {}
        extras: dict[str, Any] = {}
        bad = False
        for (name, parser, required), cell in zip(parsers, cells):
            if parser is None:
                continue
            try:
                (values if required else extras)[name] = parser(cell)
            except _Bad as exc:
                problems.append(Problem(rel, f"line {line}: {name}: {exc}; {REGENERATE}"))
                bad = True
        if not bad:
            rows.append(Row(line, values, extras))
    return rows, problems


def read_csv(root: Path, rel: str, digests: dict[str, str], columns: tuple[str, ...], types: dict[str, Parser],
             extra_types: dict[str, Parser] | None = None) -> tuple[list[Row], list[Problem]]:
    """Read ``root/rel`` safely (no symlinks, strict UTF-8) and parse it with :func:`parse_csv`; the sha256
    of the bytes read is stored in ``digests[rel]``."""
    data, problems = read_result_file(root, rel)
    if data is None:
        return [], [Problem(p.path, f"{p.message}; {REGENERATE}") for p in problems]
    digests[rel] = hashlib.sha256(data).hexdigest()
    text, problems = decode_result(rel, data)
    if text is None:
        return [], problems
    return parse_csv(rel, text, columns, types, extra_types)


def decode_result(rel: str, data: bytes) -> tuple[str | None, list[Problem]]:
    """The text of a result file ``rel`` (strict UTF-8), or None and the problem, which says to regenerate it
    (a result file is never edited by hand)."""
    try:
        return decode_utf8(data), []
    except ParseError as exc:
        return None, [Problem(rel, f"{str(exc).partition(' (')[0]}; {REGENERATE}")]


def _keyed(rel: str, rows: list[Row], key_columns: tuple[str, ...], describe: Callable[[tuple], str]
           ) -> tuple[dict[tuple, Row], list[Problem]]:
    """Rows by the values of ``key_columns``; a repeated key is a problem naming both lines."""
    keyed: dict[tuple, Row] = {}
    problems = []
    for row in rows:
        key = tuple(row.values[column] for column in key_columns)
        if key in keyed:
            problems.append(Problem(rel, f"line {row.line}: {describe(key)} repeats line {keyed[key].line}"))
        else:
            keyed[key] = row
    return keyed, problems


def _subject_key(key: tuple) -> str:
    return f"subject {key[0]!r}"


def _pair_key(key: tuple) -> str:
    return f"pair ({key[0]}, {key[1]})"


def _alpha_key(key: tuple) -> str:
    return f"({key[0]}, alpha {fmt_fixed(key[1])})"


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
    subject_extras: dict[str, dict[str, Any]]
    family_extras: dict[tuple[str, str], dict[str, Any]]
    digests: dict[str, str]


def read_result_tables(root: Path) -> tuple[ResultTables | None, list[Problem]]:
    """Read per_run.csv, metrics_per_subject.csv and metrics_per_family.csv under ``root/results``.

    Returns (tables, []) or (None, problems). Duplicate keys (a subject twice,
    a (subject, family) pair twice) are problems too.
    """
    digests: dict[str, str] = {}
    runs, problems = read_csv(root, PER_RUN_PATH, digests, PER_RUN_COLUMNS, PER_RUN_TYPES)
    subject_rows, more = read_csv(root, SUBJECT_PATH, digests, SUBJECT_COLUMNS, SUBJECT_TYPES, SUBJECT_EXTRA_TYPES)
    problems += more
    family_rows, more = read_csv(root, FAMILY_PATH, digests, FAMILY_COLUMNS, FAMILY_TYPES, FAMILY_EXTRA_TYPES)
    problems += more

    subjects, repeated = _keyed(SUBJECT_PATH, subject_rows, ("subject_id",), _subject_key)
    families, more = _keyed(FAMILY_PATH, family_rows, ("subject_id", "family"), lambda key: f"({key[0]}, {key[1]})")
    problems += repeated + more
    if problems:
        return None, problems
    return ResultTables(
        # PER_RUN_TYPES parses every column (RunRow's fields, asserted above) to its field's type.
        runs=[RunRow(**row.values) for row in runs],
        # SUBJECT_COLUMNS and FAMILY_COLUMNS are SubjectMetrics' and FamilyMetrics' fields, in order.
        subjects=[SubjectMetrics(*(r.values[c] for c in SUBJECT_COLUMNS)) for r in subject_rows],
        families=[FamilyMetrics(*(r.values[c] for c in FAMILY_COLUMNS)) for r in family_rows],
        subject_lines={sid: row.line for (sid,), row in subjects.items()},
        family_lines={key: row.line for key, row in families.items()},
        subject_extras={sid: row.extras for (sid,), row in subjects.items()},
        family_extras={key: row.extras for key, row in families.items()},
        digests=digests,
    ), []


PAIRWISE_TYPES: dict[str, Parser] = {
    "subject_a": _text, "subject_b": _text, "n_cases": _int, "q_diff": _fixed_or_empty,
    "q_diff_low": _fixed_or_empty, "q_diff_high": _fixed_or_empty, "p_diff": _fixed_or_empty,
    "p_diff_low": _fixed_or_empty, "p_diff_high": _fixed_or_empty, "p_value": _fixed_or_empty, "test": str,
    "p_holm": _fixed_or_empty, "significantly_better": str,  # a subject_id or empty
    "q_diff_sd": _fixed_or_empty, "p_diff_sd": _fixed_or_empty, "q_mde": _fixed_or_empty, "p_mde": _fixed_or_empty,
    "p_bh": _fixed_or_empty, "p_min": _fixed_or_empty, "family": str,  # ranked or apart
}
RANK_SETS_TYPES: dict[str, Parser] = {
    "subject_id": _text, "rank": _int, "rank_low": _int, "rank_high": _int, "rank_low_marginal": _int,
    "rank_high_marginal": _int,
}
ALPHA_TYPES: dict[str, Parser] = {
    "subject_id": _text, "subject_version": _text, "alpha": _fixed, "Q_final": _fixed_or_empty,
    "rank": _int_or_empty,
}
RANK_STABILITY_TYPES: dict[str, Parser] = {
    "subject_a": _text, "subject_b": _text, "rank_a": _int, "rank_b": _int, "adjacent": _bool,
    "alpha_crossing": _fixed_or_empty, "swap_share": _fixed_or_empty,
}
DIFFICULTY_TREND_TYPES: dict[str, Parser] = {
    "n_cases": _int, "n_levels": _int, "kendall_tau_b": _fixed_or_empty, "kendall_p": _fixed_or_empty,
    "easiest": _int_or_empty, "hardest": _int_or_empty, "n_easiest": _int, "n_hardest": _int,
    "separation": _fixed_or_empty, "separation_low": _fixed_or_empty, "separation_high": _fixed_or_empty,
}
# Every column compute_metrics writes to these tables (rgbench.stats.outputs) has its parser here.
assert tuple(PAIRWISE_TYPES) == PAIRWISE_COLUMNS and tuple(ALPHA_TYPES) == ALPHA_COLUMNS
assert tuple(RANK_SETS_TYPES) == RANK_SETS_COLUMNS and tuple(RANK_STABILITY_TYPES) == RANK_STABILITY_COLUMNS
assert tuple(DIFFICULTY_TREND_TYPES) == DIFFICULTY_TREND_COLUMNS


@dataclass(frozen=True)
class StatsTables:
    """The parsed rows (each with its line number), keyed as in :data:`_KEYED_STATS`; a table is None when its
    file is absent and the manifest does not list it."""

    digests: dict[str, str]
    pairwise: dict[tuple, Row] | None = None
    alpha: dict[tuple, Row] | None = None
    rank_sets: dict[tuple, Row] | None = None
    rank_stability: dict[tuple, Row] | None = None
    difficulty_trend: DifficultyTrendRow | None = None


# StatsTables field -> (path, columns, parsers, key columns, how a key is named in a problem), in reading order.
_KEYED_STATS = {
    "rank_stability": (RANK_STABILITY_PATH, RANK_STABILITY_COLUMNS, RANK_STABILITY_TYPES, ("subject_a", "subject_b"),
                       _pair_key),
    "rank_sets": (RANK_SETS_PATH, RANK_SETS_COLUMNS, RANK_SETS_TYPES, ("subject_id",), _subject_key),
    "pairwise": (PAIRWISE_PATH, PAIRWISE_COLUMNS, PAIRWISE_TYPES, ("subject_a", "subject_b"), _pair_key),
    "alpha": (ALPHA_PATH, ALPHA_COLUMNS, ALPHA_TYPES, ("subject_id", "alpha"), _alpha_key),
}


def _wanted(root: Path, rel: str, manifest: Manifest) -> bool:
    """Read the file when the manifest lists it (then it must exist) or when it is there anyway."""
    return rel.removeprefix(f"{RESULTS_DIR}/") in manifest.outputs or os.path.lexists(Path(root) / rel)


def read_stats_tables(root: Path, manifest: Manifest) -> tuple[StatsTables | None, list[Problem]]:
    """Read difficulty_trend.csv and the :data:`_KEYED_STATS` tables under ``root/results``; (tables, []) or
    (None, problems)."""
    digests: dict[str, str] = {}
    problems: list[Problem] = []
    trend = None
    if _wanted(root, DIFFICULTY_TREND_PATH, manifest):
        rows, more = read_csv(root, DIFFICULTY_TREND_PATH, digests, DIFFICULTY_TREND_COLUMNS, DIFFICULTY_TREND_TYPES)
        problems += more
        if not more and len(rows) > 1:   # none without a scored run
            problems.append(Problem(DIFFICULTY_TREND_PATH, f"expected at most one row, found {len(rows)} "
                                                           "(run `make metrics`)"))
        elif not more and rows:
            trend = DifficultyTrendRow(*(rows[0].values[c] for c in DIFFICULTY_TREND_COLUMNS))
    keyed: dict[str, dict[tuple, Row]] = {}
    for field, (rel, columns, types, key_columns, describe) in _KEYED_STATS.items():
        if _wanted(root, rel, manifest):
            rows, more = read_csv(root, rel, digests, columns, types)
            keyed[field], repeated = _keyed(rel, rows, key_columns, describe)
            problems += more + repeated
    if problems:
        return None, problems
    return StatsTables(digests, difficulty_trend=trend, **keyed), []

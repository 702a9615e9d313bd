"""The one reader of result CSVs: results/ read back into the same :class:`~rgbench.results.tables.Published`
set ``make metrics`` holds in memory, and the typed cells the leaderboard takes from it.

``make metrics`` renders the leaderboard from the set it has just computed and reads no result file; only
``make leaderboard`` alone (and a published page) reads results/ (:func:`read_published`): manifest.json, every
CSV it lists (each must have the sha256 it records: a file edited by hand or left from another run is refused),
and reviewers.csv / judge_agreement.csv when they are there. The cells are parsed strictly (:func:`typed_rows`):
integers are plain digits, fractions exactly six decimals (parsed to ``Fraction``), booleans ``true``/``false``,
so that no text, NaN or 5,000-digit number reaches the page. Every problem is returned; nothing is raised.
Whether the inputs still are what the results were computed from is the manifest's (:mod:`.manifest`);
whether the values are right is ``make check``'s (it recomputes everything on a copy).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

from ..compute.derive import RunRow
from ..load.parsing import ParseError, decode_utf8
from ..load.safe_read import read_result_file
from ..load.scale import parse_score
from ..numfmt import parse_exact
from ..problems import Problem
from ..results.tables import MANIFEST_FILE, PER_RUN_COLUMNS, Published
from ..results_csv import Table, csv_records
from ..stats.judge_agreement import JUDGE_FILE
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
from ..stats.reviewer_report import REVIEWERS_FILE
from .manifest import read_manifest_document

RESULTS_DIR = "results"
MANIFEST_PATH = f"{RESULTS_DIR}/{MANIFEST_FILE}"
AGREEMENT_TABLES = (REVIEWERS_FILE, JUDGE_FILE)   # written by `make agreement`, outside the manifest
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

# The cells of a field a benchmark may not record (issue 23) are empty.
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


def table_of(rel: str, data: bytes) -> tuple[Table | None, list[Problem]]:
    """The cells of the result CSV ``rel`` (header, rows), or None and every bad record, each saying to
    regenerate the file."""
    text, problems = decode_result(rel, data)
    if text is None:
        return None, problems
    records = csv_records(text)
    header = next(records, None)
    if header is None or header.problem:
        return None, [Problem(rel, f"{header.problem if header else 'empty file (expected a header row)'}; {REGENERATE}")]
    rows = []
    for record in records:
        if record.problem:
            problems.append(Problem(rel, f"{record.problem}; {REGENERATE}"))
        else:
            rows.append(tuple(record.cells))
    return (None, problems) if problems else ((tuple(header.cells), tuple(rows)), [])


def decode_result(rel: str, data: bytes) -> tuple[str | None, list[Problem]]:
    """The text of a result file ``rel`` (strict UTF-8), or None and the problem, which says to regenerate it
    (a result file is never edited by hand)."""
    try:
        return decode_utf8(data), []
    except ParseError as exc:
        return None, [Problem(rel, f"{str(exc).partition(' (')[0]}; {REGENERATE}")]


def read_published(root: Path) -> tuple[Published | None, list[Problem]]:
    """results/ under ``root`` as the set ``make metrics`` wrote: manifest.json, every CSV it lists (each with
    the sha256 it records) and the reviewer tables when present; (set, []) or (None, every problem)."""
    root = Path(root)
    data, document, problems = read_manifest_document(root)
    if data is None:
        return None, problems
    if not isinstance(document, dict):
        return None, [Problem(MANIFEST_PATH, f"expected a JSON object ({REGENERATE})")]
    listed = document.get("outputs")
    if not isinstance(listed, dict) or not listed:
        return None, [Problem(MANIFEST_PATH, f"$.outputs: lists no result file (written by an older toolkit, or by "
                                             f"hand; {REGENERATE})")]
    names = sorted(name for name in listed if name.endswith(".csv"))
    names += [name for name in AGREEMENT_TABLES if name not in names and os.path.lexists(root / RESULTS_DIR / name)]
    files: dict[str, bytes] = {MANIFEST_FILE: data}
    tables: dict[str, Table] = {}
    for name in names:
        rel = f"{RESULTS_DIR}/{name}"
        data, more = read_result_file(root, rel)
        if data is None:
            problems += [Problem(p.path, f"{p.message}; {REGENERATE}") for p in more]
            continue
        if name in listed and listed[name] != hashlib.sha256(data).hexdigest():
            problems.append(Problem(rel, f"differs from the file compute_metrics wrote ({MANIFEST_PATH} records "
                                         f"another sha256; do not edit results by hand, {REGENERATE})"))
            continue
        table, more = table_of(rel, data)
        problems += more
        if table is not None:
            files[name], tables[name] = data, table
    return (None, problems) if problems else (Published(tables, document, files), [])


def typed_rows(rel: str, table: Table, columns: tuple[str, ...], types: dict[str, Parser],
               extra_types: dict[str, Parser] | None = None) -> tuple[list[dict[str, Any]], list[Problem]]:
    """The rows of ``table`` (the cells of the file ``rel``) as column -> value, each cell parsed by its
    column's parser (``types`` for ``columns``, which the header must start with; ``extra_types`` for known
    columns after them; other columns are left out); every bad cell is a problem, and its row is left out."""
    header, cells = table
    if tuple(header[: len(columns)]) != columns:
        return [], [Problem(rel, f"line 1: header is {','.join(header)!r}, expected it to start with "
                                 f"{','.join(columns)!r}; {REGENERATE}")]
    parsers = [(name, types[name] if name in columns else (extra_types or {}).get(name)) for name in header]
    problems: list[Problem] = []
    rows: list[dict[str, Any]] = []
    for line, row in enumerate(cells, start=2):
        values: dict[str, Any] = {}
        for (name, parser), cell in zip(parsers, row):
            if parser is not None:
                try:
                    values[name] = parser(cell)
                except _Bad as exc:
                    problems.append(Problem(rel, f"line {line}: {name}: {exc}; {REGENERATE}"))
        if len(values) == sum(1 for _, parser in parsers if parser is not None):
            rows.append(values)
    return rows, problems


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

# file -> (columns, parsers) of the statistics tables the page reads
STATS_TYPES: dict[str, tuple[tuple[str, ...], dict[str, Parser]]] = {
    PAIRWISE_FILE: (PAIRWISE_COLUMNS, PAIRWISE_TYPES), RANK_SETS_FILE: (RANK_SETS_COLUMNS, RANK_SETS_TYPES),
    ALPHA_FILE: (ALPHA_COLUMNS, ALPHA_TYPES), RANK_STABILITY_FILE: (RANK_STABILITY_COLUMNS, RANK_STABILITY_TYPES),
    DIFFICULTY_TREND_FILE: (DIFFICULTY_TREND_COLUMNS, DIFFICULTY_TREND_TYPES),
}

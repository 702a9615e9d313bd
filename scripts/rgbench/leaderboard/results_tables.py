"""The one reader of result CSVs: results/ read back into the same :class:`~rgbench.results.tables.Published`
set ``make metrics`` holds in memory, and the typed cells the leaderboard takes from it.

``make metrics`` renders the leaderboard from the set it has just computed and reads no result file; only
``make leaderboard`` alone (and a published page) reads results/ (:func:`read_published`): manifest.json, every
CSV it lists (each must have the sha256 it records: a file edited by hand or left from another run is refused),
and reviewers.csv / judge_agreement.csv when they are there. The cells are parsed strictly (:func:`typed_rows`):
integers are plain digits, fractions exactly six decimals (parsed to ``Fraction``), booleans ``true``/``false``,
as the column registry says (:mod:`rgbench.result_columns`), so that no text, NaN or 5,000-digit number
reaches the page. Every problem is returned; nothing is raised.
Whether the inputs still are what the results were computed from is the manifest's (:mod:`.manifest`);
whether the values are right is ``make check``'s (it recomputes everything on a copy).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from ..load.parsing import ParseError, decode_utf8
from ..load.safe_read import read_result_file
from ..problems import Problem
from ..result_columns import CellError, parse_cell
from ..results.tables import MANIFEST_FILE, Published
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
from .manifest import parse_manifest, read_manifest_document, stale_outputs

RESULTS_DIR = "results"
MANIFEST_PATH = f"{RESULTS_DIR}/{MANIFEST_FILE}"
AGREEMENT_TABLES = (REVIEWERS_FILE, JUDGE_FILE)   # written by `make agreement`, outside the manifest
REGENERATE = "run `make metrics` to regenerate it"

# Optional columns after the required ones that the leaderboard uses when present:
# metric -> (low column, high column) of its interval, as compute_metrics' statistics write them.
SUBJECT_INTERVALS = {
    "P": ("P_low", "P_high"), "s_bar": ("s_bar_low", "s_bar_high"),
    "Q_final": ("Q_final_low", "Q_final_high"), "BS": ("BS_low", "BS_high"), "ECE": ("ECE_low", "ECE_high"),
}
FAMILY_INTERVAL = ("P_family_low", "P_family_high")
SUBJECT_EXTRAS = (*(column for pair in SUBJECT_INTERVALS.values() for column in pair), "n_cases", "n_cases_missing",
                  "missing_cases")
FAMILY_EXTRAS = FAMILY_INTERVAL


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
    manifest, messages = parse_manifest(document)
    if manifest is None:
        return None, [Problem(MANIFEST_PATH, message) for message in messages]
    assert isinstance(document, dict)   # parse_manifest accepts only an object
    if not manifest.outputs:
        return None, [Problem(MANIFEST_PATH, f"$.outputs: lists no result file (written by an older toolkit, or by "
                                             f"hand; {REGENERATE})")]
    names = sorted(name for name in manifest.outputs if name.endswith(".csv"))
    names += [name for name in AGREEMENT_TABLES if name not in names and os.path.lexists(root / RESULTS_DIR / name)]
    files: dict[str, bytes] = {MANIFEST_FILE: data}
    for name in names:
        data, more = read_result_file(root, f"{RESULTS_DIR}/{name}")
        problems += [Problem(p.path, f"{p.message}; {REGENERATE}") for p in more]
        if data is not None:
            files[name] = data
    # a file another run left beside the others, or edited by hand, is refused before its cells are read
    problems += stale_outputs(manifest, {f"{RESULTS_DIR}/{name}": hashlib.sha256(files[name]).hexdigest()
                                         for name in names if name in files})
    tables: dict[str, Table] = {}
    for name in (names if not problems else ()):
        table, more = table_of(f"{RESULTS_DIR}/{name}", files[name])
        problems += more
        if table is not None:
            tables[name] = table
    return (None, problems) if problems else (Published(tables, document, files), [])


def typed_rows(rel: str, table: Table, columns: tuple[str, ...], extras: tuple[str, ...] = ()
               ) -> tuple[list[dict[str, Any]], list[Problem]]:
    """The rows of ``table`` (the cells of the file ``rel``) as column -> value, each cell parsed as the column
    registry says (:func:`rgbench.result_columns.parse_cell`): ``columns``, which the header must start with,
    and the ``extras`` the header has; every bad cell is a problem, and its row is left out."""
    header, cells = table
    if tuple(header[: len(columns)]) != columns:
        return [], [Problem(rel, f"line 1: header is {','.join(header)!r}, expected it to start with "
                                 f"{','.join(columns)!r}; {REGENERATE}")]
    wanted = [(index, name) for index, name in enumerate(header) if name in columns or name in extras]
    problems: list[Problem] = []
    rows: list[dict[str, Any]] = []
    for line, row in enumerate(cells, start=2):
        values: dict[str, Any] = {}
        for index, name in wanted:
            try:
                values[name] = parse_cell(name, row[index])
            except CellError as exc:
                problems.append(Problem(rel, f"line {line}: {name}: {exc}; {REGENERATE}"))
        if len(values) == len(wanted):
            rows.append(values)
    return rows, problems


# file -> the columns of the statistics tables the page reads (each file's header starts with them)
STATS_COLUMNS: dict[str, tuple[str, ...]] = {
    PAIRWISE_FILE: PAIRWISE_COLUMNS, RANK_SETS_FILE: RANK_SETS_COLUMNS, ALPHA_FILE: ALPHA_COLUMNS,
    RANK_STABILITY_FILE: RANK_STABILITY_COLUMNS, DIFFICULTY_TREND_FILE: DIFFICULTY_TREND_COLUMNS,
}

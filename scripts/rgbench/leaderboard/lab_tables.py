"""The tables behind the page's lab views (issue 15), taken from the results set: breakdowns, cost, baseline,
run metadata, the case explorer, pass@k and the difficulty progression.

Each table is optional (results older than issue 15 carry none; the page then says so). A table that is
there must have a header that starts with the columns compute_metrics writes (its file's sha256 is checked
against the manifest when results/ is read back: :func:`.results_tables.read_published`).
Cells stay text: the page shows them (numbers re-rounded for display only) and computes nothing from them;
the numeric ones are checked to be of their registered kind (:mod:`rgbench.result_columns`), so that
none can break the page.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..problems import Problem
from ..result_columns import CellError, parse_cell
from ..results.breakdowns import (
    ADVANCED_COLUMNS,
    ADVANCED_FILE,
    BASELINE_COLUMNS,
    BASELINE_FILE,
    CASE_TYPE_COLUMNS,
    CASE_TYPE_FILE,
    CASES_COLUMNS,
    CASES_FILE,
    COST_COLUMNS,
    COST_FILE,
    CRITERION_COLUMNS,
    CRITERION_FILE,
    EXPLORER_COLUMNS,
    EXPLORER_FILE,
    METADATA_COLUMNS,
    METADATA_FILE,
    TAG_COLUMNS,
    TAG_FILE,
)
from ..results.tables import Published
from ..results_csv import Table
from ..stats.outputs import DIFFICULTY_COLUMNS, DIFFICULTY_FILE, PASS_AT_K_COLUMNS, PASS_AT_K_FILE
from .results_tables import REGENERATE

LAB_FILES: dict[str, tuple[str, ...]] = {
    CRITERION_FILE: CRITERION_COLUMNS, TAG_FILE: TAG_COLUMNS, CASE_TYPE_FILE: CASE_TYPE_COLUMNS,
    ADVANCED_FILE: ADVANCED_COLUMNS, COST_FILE: COST_COLUMNS, BASELINE_FILE: BASELINE_COLUMNS,
    METADATA_FILE: METADATA_COLUMNS, CASES_FILE: CASES_COLUMNS, EXPLORER_FILE: EXPLORER_COLUMNS,
    PASS_AT_K_FILE: PASS_AT_K_COLUMNS, DIFFICULTY_FILE: DIFFICULTY_COLUMNS,
}
LabRow = dict[str, str]


@dataclass(frozen=True)
class LabTables:
    """Rows (column -> text) of each lab file present, by file name."""

    rows: dict[str, list[LabRow]] = field(default_factory=dict)

    def get(self, name: str) -> list[LabRow]:
        return self.rows.get(name, [])

    def has(self, name: str) -> bool:
        return name in self.rows


def lab_rows(rel: str, table: Table, columns: tuple[str, ...]) -> tuple[list[LabRow], list[Problem]]:
    """The rows of one table (the cells of the file ``rel``) as dicts, or the problems that make it unusable: a
    header that does not start with ``columns``, every cell that is not of its registered kind
    (:mod:`rgbench.result_columns`), every interval (``X_low``, ``X_high``) reversed; each with the fix (regenerate the
    file)."""
    header, cells = table
    if tuple(header[:len(columns)]) != columns:
        return [], [Problem(rel, f"header must start with {', '.join(columns)} ({REGENERATE})")]
    rows: list[LabRow] = []
    problems: list[Problem] = []
    for line, record in enumerate(cells, start=2):
        row = dict(zip(header, record))
        bad = [f"line {line}: {problem}; {REGENERATE}" for problem in _cell_problems(row, columns)]
        problems += [Problem(rel, message) for message in bad]
        if not bad:
            rows.append(row)
    return rows, problems


def _cell_problems(row: LabRow, columns: tuple[str, ...]) -> list[str]:
    """Every cell of ``columns`` that is not of its registered kind (the page re-rounds, charts and sorts the
    numbers: no text, NaN, exponent, negative count or 5,000-digit number may reach it), and every interval
    (``X_low`` above ``X_high``) reversed."""
    values = {}
    problems = []
    for name in columns:
        try:
            values[name] = parse_cell(name, row[name])
        except CellError as exc:
            problems.append(f"{name}: {exc}")
    for name in columns:
        low, high = values.get(f"{name}_low"), values.get(f"{name}_high")
        if low is not None and high is not None and low > high:
            problems.append(f"{name}_low: {row[name + '_low']} is above {name}_high {row[name + '_high']}")
    return problems


def lab_tables(published: Published) -> tuple[LabTables, list[Problem]]:
    """Every lab table of the results set, checked (:func:`lab_rows`); problems for the malformed ones."""
    tables = LabTables()
    problems: list[Problem] = []
    for name, columns in LAB_FILES.items():
        if name in published.tables:
            tables.rows[name], more = lab_rows(f"results/{name}", published.tables[name], columns)
            problems += more
    return tables, problems

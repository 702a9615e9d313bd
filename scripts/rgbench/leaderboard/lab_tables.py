"""Read the tables behind the page's lab views (issue 15): breakdowns, cost, baseline, run metadata, the
case explorer, pass@k and the difficulty progression.

Each file is optional (results older than issue 15 carry none; the page then says so). A file that is
present must be a well-formed CSV whose header starts with the columns compute_metrics writes, and its
sha256 must be the one results/manifest.json records (checked by the caller through ``digests``).
Cells stay text: the page shows them (numbers re-rounded for display only) and computes nothing from them.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from ..compute.breakdowns import (
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
from ..load.parsing import ParseError, decode_utf8
from ..load.safe_read import read_result_file
from ..problems import Problem
from ..results_csv import csv_records
from ..stats.outputs import DIFFICULTY_COLUMNS, DIFFICULTY_FILE, PASS_AT_K_COLUMNS, PASS_AT_K_FILE

LAB_FILES: dict[str, tuple[str, ...]] = {
    CRITERION_FILE: CRITERION_COLUMNS, TAG_FILE: TAG_COLUMNS, CASE_TYPE_FILE: CASE_TYPE_COLUMNS,
    ADVANCED_FILE: ADVANCED_COLUMNS, COST_FILE: COST_COLUMNS, BASELINE_FILE: BASELINE_COLUMNS,
    METADATA_FILE: METADATA_COLUMNS, CASES_FILE: CASES_COLUMNS, EXPLORER_FILE: EXPLORER_COLUMNS,
    PASS_AT_K_FILE: PASS_AT_K_COLUMNS, DIFFICULTY_FILE: DIFFICULTY_COLUMNS,
}
LabRow = dict[str, str]


@dataclass(frozen=True)
class LabTables:
    """Rows (column -> text) of each lab file present, by file name; sha256 of each by ``results/<name>``."""

    rows: dict[str, list[LabRow]] = field(default_factory=dict)
    digests: dict[str, str] = field(default_factory=dict)

    def get(self, name: str) -> list[LabRow]:
        return self.rows.get(name, [])

    def has(self, name: str) -> bool:
        return name in self.rows


def parse_lab_table(rel: str, data: bytes, columns: tuple[str, ...]) -> tuple[list[LabRow], list[Problem]]:
    """The rows of one CSV as dicts, or the problems that make it unreadable."""
    try:
        text = decode_utf8(data)
    except ParseError as exc:
        return [], [Problem(rel, str(exc))]
    records = csv_records(text)
    header = next(records, None)
    if header is None or tuple(header.cells[:len(columns)]) != columns:
        return [], [Problem(rel, f"header must start with {', '.join(columns)} (run `make metrics` to regenerate it)")]
    rows, problems = [], []
    for record in records:
        if record.problem:
            problems.append(Problem(rel, record.problem))
        else:
            rows.append(dict(zip(header.cells, record.cells)))
    return rows, problems


def read_lab_tables(root: Path, listed: Collection[str] = ()) -> tuple[LabTables, list[Problem]]:
    """Every lab file present under ``root/results`` or ``listed`` (the manifest's outputs: then it must
    exist), parsed; problems for the missing and malformed ones."""
    tables = LabTables()
    problems: list[Problem] = []
    for name, columns in LAB_FILES.items():
        rel = f"results/{name}"
        if name not in listed and not os.path.lexists(Path(root) / rel):
            continue
        data, more = read_result_file(Path(root), rel)
        problems += more
        if data is None:
            continue
        rows, more = parse_lab_table(rel, data, columns)
        problems += more
        tables.rows[name] = rows
        tables.digests[rel] = hashlib.sha256(data).hexdigest()
    return tables, problems

"""The strict reading of the result CSVs (:func:`results_tables.table_of` over :func:`rgbench.results_csv.csv_records`,
then :func:`results_tables.typed_rows`).

A clean committed file reads without problems; a damaged one gives problems (``path: line N: ...``), never
an exception; an empty one says which header was expected.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rgbench.compute.derive import RunRow
from rgbench.leaderboard.results_tables import FAMILY_EXTRAS, SUBJECT_EXTRAS, table_of, typed_rows
from rgbench.results.tables import FAMILY_COLUMNS, PER_RUN_COLUMNS, SUBJECT_COLUMNS
from rgbench.stats.outputs import ALPHA_COLUMNS, PAIRWISE_COLUMNS

RESULTS = Path(__file__).parent / "fixtures" / "leaderboard" / "basic" / "tree" / "results"
TABLES = {
    "per_run.csv": (PER_RUN_COLUMNS, ()),
    "metrics_per_subject.csv": (SUBJECT_COLUMNS, SUBJECT_EXTRAS),
    "metrics_per_family.csv": (FAMILY_COLUMNS, FAMILY_EXTRAS),
    "pairwise.csv": (PAIRWISE_COLUMNS, ()),
    "alpha_sensitivity.csv": (ALPHA_COLUMNS, ()),
}


def parse(name: str, text: str):
    columns, extras = TABLES[name]
    table, problems = table_of(name, text.encode("utf-8"))
    if table is None:
        return [], [str(p) for p in problems]
    rows, problems = typed_rows(name, table, columns, extras)
    return rows, [str(p) for p in problems]


@pytest.mark.parametrize("name", sorted(TABLES))
def test_a_clean_file_has_no_problem(name):
    text = (RESULTS / name).read_text(encoding="utf-8")
    rows, problems = parse(name, text)
    assert problems == [] and len(rows) == text.count("\n") - 1
    columns, extras = TABLES[name]
    assert all(set(row) == set(columns) | (set(extras) & set(text.split("\n", 1)[0].split(","))) for row in rows)


def test_per_run_rows_are_run_rows():
    rows, _ = parse("per_run.csv", (RESULTS / "per_run.csv").read_text(encoding="utf-8"))
    assert rows and all(tuple(RunRow(**row)) == tuple(row[name] for name in RunRow._fields) for row in rows)


def damage(text: str, rng: random.Random) -> str:
    """One random change a hand edit or a broken writer could make."""
    lines = text.split("\n")
    i = rng.randrange(1, len(lines) - 1)
    cells = lines[i].split(",")
    j = rng.randrange(len(cells))
    kind = rng.choice(["cell", "empty", "blank", "ragged", "quote", "header", "minus"])
    if kind == "cell":
        cells[j] = rng.choice(["0.5", "1.0000000", "-1", "x", "true ", "1e3", "TRUE", "007"])
    elif kind == "empty":
        cells[j] = ""
    elif kind == "blank":
        lines.insert(i, "")
    elif kind == "ragged":
        cells.append("extra")
    elif kind == "quote":
        cells[j] = f'"{cells[j]}'
    elif kind == "header":
        lines[0] = lines[0].replace(",", ",,", 1)
    else:
        cells[j] = "-" + cells[j]
    lines[i] = ",".join(cells)
    return "\n".join(lines)


@pytest.mark.parametrize("name", sorted(TABLES))
def test_a_damaged_file_gives_problems_not_exceptions(name):
    text = (RESULTS / name).read_text(encoding="utf-8")
    rng = random.Random(f"leaderboard-parsing-{name}")
    for _ in range(60):
        damaged = damage(text, rng)
        _, problems = parse(name, damaged)
        assert all(p.startswith(f"{name}: line ") for p in problems), damaged


def test_an_empty_file_says_so_and_how_to_fix_it():
    assert parse("per_run.csv", "")[1] == ["per_run.csv: empty file (expected a header row); "
                                           "run `make metrics` to regenerate it"]


def test_a_bad_cell_names_its_line_and_column_and_drops_its_row():
    header = ",".join(PER_RUN_COLUMNS)
    good = (RESULTS / "per_run.csv").read_text(encoding="utf-8").split("\n")[1]
    bad = good.replace(",true,", ",yes,", 1) if ",true," in good else good.replace(",false,", ",yes,", 1)
    rows, problems = parse("per_run.csv", f"{header}\n{good}\n{bad}\n")
    assert len(rows) == 1 and len(problems) == 1
    assert problems[0].startswith("per_run.csv: line 3: has_") and "'yes' is not a boolean (true or false)" in problems[0]

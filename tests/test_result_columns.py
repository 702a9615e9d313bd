"""The column registry (rgbench/result_columns.py) holds the writers: every column a writer writes is
registered, and every cell it writes parses as its column's kind.

Checked on the committed results of this repository and of every example benchmark (whatever benchmarks they
hold), and, as a slow test, on freshly computed synthetic trees of the shapes real benchmarks have (a penalty
scale without confidence or correctness, a 1-5 scale without a pass rule, several graders and a judge).
"""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from treebuilder import REPO

from rgbench.cli import run_script
from rgbench.result_columns import KINDS, REQUIRED, CellError, parse_cell
from rgbench.results_csv import csv_records


def unregistered_or_malformed(results: Path) -> list[str]:
    """``file: column`` for every column of a result CSV under ``results`` that is not registered, and
    ``file: line: column: message`` for every cell that does not parse as its kind."""
    problems = []
    for path in sorted(results.glob("*.csv")):
        records = csv_records(path.read_text(encoding="utf-8"))
        header = next(records).cells
        problems += [f"{path.name}: {column} is not registered" for column in header if column not in KINDS]
        for record in records:
            for column, cell in zip(header, record.cells):
                try:
                    parse_cell(column, cell)
                except CellError as exc:
                    problems.append(f"{path.name}: line {record.line}: {column}: {exc}")
    return problems


COMMITTED = [REPO / "results", *sorted(p / "results" for p in (REPO / "examples").iterdir() if (p / "results").is_dir())]


@pytest.mark.parametrize("results", COMMITTED, ids=lambda p: str(p.relative_to(REPO)))
def test_every_committed_result_column_is_registered_and_every_cell_parses(results):
    assert unregistered_or_malformed(results) == []


@pytest.mark.slow
@pytest.mark.parametrize("options", [
    ["--scale", "penalty", "--no-confidence", "--no-correctness"],
    ["--scale", "likert", "--no-pass-rule", "--blank-answers", "--no-difficulty"],
    ["--graders", "3", "--policy", "mean", "--judge", "--kinds", "llm,human"],
], ids=["penalty", "likert", "graders"])
def test_the_shapes_of_real_benchmarks_write_only_registered_columns(options, tmp_path):
    tree = tmp_path / "tree"
    subprocess.run([sys.executable, str(REPO / "scripts/make_synthetic.py"), "--subjects", "4", "--cases", "8",
                    "--runs", "2", "--out", str(tree), *options], check=True, capture_output=True)
    assert run_script("metrics", ["--root", str(tree)]) == 0
    assert run_script("agreement", ["--root", str(tree)]) == 0
    assert unregistered_or_malformed(tree / "results") == []


@pytest.mark.parametrize(("column", "cell", "value"), [
    ("N", "12", 12), ("P", "0.666667", Fraction(666667, 1000000)), ("q_diff", "-0.020139", Fraction(-20139, 1000000)),
    ("value", "23", 23), ("value", "0.250000", Fraction(1, 4)), ("raw_score", "23/6", Fraction(23, 6)),
    ("raw_score", "12.5", Fraction(25, 2)), ("correctness", "0.500000", Fraction(1, 2)), ("level", "0-2.5", "0-2.5"),
    ("disqualified", "true", True), ("P", "", None), ("classification", "", ""), ("brand_new", "x", "x"),
])
def test_a_cell_reads_as_its_kind(column, cell, value):
    assert parse_cell(column, cell) == value and type(parse_cell(column, cell)) is type(value)


@pytest.mark.parametrize(("column", "cell", "message"), [
    ("N", "-1", "'-1' is not a non-negative integer"),
    ("N", "1e3", "'1e3' is not a non-negative integer"),
    ("P", "0.5", "'0.5' is not a number with exactly 6 decimals (e.g. 0.500000)"),
    ("P", "NaN", "'NaN' is not a number with exactly 6 decimals (e.g. 0.500000)"),
    ("raw_score", "1" * 19, f"'{'1' * 19}' is not a score of at most 18 digits (an integer, a decimal such as 12.5, "
                            "or a fraction such as 23/6)"),
    ("correctness", "-1", "'-1' is not a non-negative number (digits, a decimal, or numerator/denominator)"),
    ("adjacent", "True", "'True' is not a boolean (true or false)"),
    ("subject_id", "", "is empty"),
])
def test_a_cell_not_of_its_kind_says_what_was_expected(column, cell, message):
    with pytest.raises(CellError) as error:
        parse_cell(column, cell)
    assert str(error.value) == message


def test_required_columns_are_registered():
    assert REQUIRED <= KINDS.keys()

"""The leaderboard's fast readings give exactly what the reference readings give.

* CSV: :func:`results_tables.parse_table` reads a clean file column by column (each distinct cell
  parsed once); any file with a problem is read row by row, which reports every problem in order.
  Both must give the same rows, and every damaged file the same problems as the row-by-row reading.
* Manifest: the quick test of 180,000 digests decides nothing on its own; a value it doubts is
  checked by the regular expression.
"""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import pytest

from rgbench.leaderboard import results_tables
from rgbench.leaderboard.manifest import _SHA256, all_sha256
from rgbench.leaderboard.results_tables import (
    FAMILY_EXTRA_TYPES, FAMILY_TYPES, PER_RUN_TYPES, SUBJECT_EXTRA_TYPES, SUBJECT_TYPES, Table, _fixed,
    _parse_by_row, parse_table, run_rows,
)
from rgbench.leaderboard.stats_tables import ALPHA_TYPES, PAIRWISE_TYPES
from rgbench.tables import FAMILY_COLUMNS, PER_RUN_COLUMNS, SUBJECT_COLUMNS

RESULTS = Path(__file__).parent / "fixtures" / "leaderboard" / "basic" / "tree" / "results"
TABLES = {
    "per_run.csv": (PER_RUN_COLUMNS, PER_RUN_TYPES, None),
    "metrics_per_subject.csv": (SUBJECT_COLUMNS, SUBJECT_TYPES, SUBJECT_EXTRA_TYPES),
    "metrics_per_family.csv": (FAMILY_COLUMNS, FAMILY_TYPES, FAMILY_EXTRA_TYPES),
    "pairwise.csv": (tuple(PAIRWISE_TYPES), PAIRWISE_TYPES, None),
    "alpha_sensitivity.csv": (tuple(ALPHA_TYPES), ALPHA_TYPES, None),
}


def reference(name: str, text: str):
    """The row-by-row reading, as (rows, problems)."""
    columns, types, extras = TABLES[name]
    rows, extra_names, problems = _parse_by_row(name, text, columns, types, extras or {})
    return Table.of_rows(rows, columns, extra_names).rows(), [str(p) for p in problems]


def fast(name: str, text: str):
    columns, types, extras = TABLES[name]
    table, problems = parse_table(name, text, columns, types, extras)
    return table.rows(), [str(p) for p in problems]


@pytest.mark.parametrize("name", sorted(TABLES))
def test_a_clean_file_is_read_by_column_with_the_same_rows(name, monkeypatch):
    text = (RESULTS / name).read_text(encoding="utf-8")
    expected = reference(name, text)
    assert expected[1] == [] and expected[0]

    def no_row_reading(*args, **kwargs):
        raise AssertionError("a clean file must not need the row-by-row reading")

    monkeypatch.setattr(results_tables, "_parse_by_row", no_row_reading)
    assert fast(name, text) == expected


def damage(text: str, rng: random.Random) -> str:
    """One random change a hand edit or a broken writer could make."""
    lines = text.split("\n")
    i = rng.randrange(1, len(lines) - 1)
    cells = lines[i].split(",")
    j = rng.randrange(len(cells))
    kind = rng.choice(["cell", "cell", "empty", "blank", "ragged", "quote", "crlf", "header", "minus", "unicode"])
    if kind == "cell":
        cells[j] = rng.choice(["0.5", "1.0000000", "-1", "x", "true ", "1e3", "0.500000", "TRUE", "007", "12"])
    elif kind == "empty":
        cells[j] = ""
    elif kind == "blank":
        lines.insert(i, "")
    elif kind == "ragged":
        cells.append("extra")
    elif kind == "quote":
        cells[j] = f'"{cells[j]}"' if rng.random() < 0.5 else f'"{cells[j]}\n{cells[j]}"'
    elif kind == "crlf":
        return "\r\n".join(lines)
    elif kind == "header":
        lines[0] = lines[0].replace(",", ",,", 1)
    elif kind == "minus":
        cells[j] = "-" + cells[j]
    else:
        cells[j] = cells[j] + "\u00e9"
    lines[i] = ",".join(cells)
    return "\n".join(lines)


@pytest.mark.parametrize("name", sorted(TABLES))
def test_a_damaged_file_gives_the_reference_rows_and_problems(name):
    text = (RESULTS / name).read_text(encoding="utf-8")
    rng = random.Random(f"leaderboard-parsing-{name}")
    for _ in range(150):
        damaged = damage(text, rng)
        assert fast(name, damaged) == reference(name, damaged), damaged


def test_edge_texts():
    columns, types, _ = TABLES["per_run.csv"]
    header = ",".join(columns)
    row = (RESULTS / "per_run.csv").read_text(encoding="utf-8").split("\n")[1]
    texts = ["\n", header, header + "\n", header + "\n\n", "subject_id\n", header + "\nx", header + "\n\x00",
             header + "\n" + row, header + "\n" + row + "\n\n" + row + "\n", header + "\n" + ",".join([""] * 16)]
    # Characters other line splitters honour, and a field beyond the CSV reader's size limit.
    texts += [header + "\n" + row.replace("atlas", f"at{odd}las", 1) for odd in ("\u2028", "\x85", "\x0b", "\x1c", "\t", " ")]
    texts.append(header + "\n" + row.replace("atlas", "a" * 140_000, 1))
    for text in texts:
        assert fast("per_run.csv", text) == reference("per_run.csv", text), text[:300]
    assert fast("per_run.csv", "")[1] == [f"per_run.csv: empty file (expected a header row: {header}); "
                                          "run `make metrics` to regenerate it"]


def test_run_rows_are_the_named_columns():
    text = (RESULTS / "per_run.csv").read_text(encoding="utf-8")
    table, _ = parse_table("per_run.csv", text, *TABLES["per_run.csv"][:2])
    rows = run_rows(table)
    assert [row._asdict() for row in rows] == [row.values for row in table.rows()]


@pytest.mark.parametrize("cell", ["0.500000", "-0.136623", "12.000001", "-0.000000", "0000.000100", "1.000000"])
def test_fixed_is_the_exact_decimal(cell):
    assert _fixed(cell) == Fraction(cell)


def test_all_sha256_is_true_only_for_64_lowercase_hex_digits():
    good = "0123456789abcdef" * 4
    assert all_sha256([good, good]) and all_sha256([])
    for bad in (good.upper(), good[:-1], good + "0", good[:-1] + "g", good[:-1] + "\u0660", None, 7, good + "\n"):
        assert not all_sha256([good, bad]), bad
    # Where the quick test says no, the regular expression decides (it accepts a final newline).
    assert _SHA256.match(good + "\n")

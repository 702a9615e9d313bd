"""Issue 24, formula injection: no cell of a result CSV starts a spreadsheet formula, whatever text a pull request
wrote (rgbench.results_csv's rule), and every text reads back as written.

The red team's attacks: a reviewer comment ``=HYPERLINK(...)`` became a live formula in explorer_runs.csv; a
registry field ``a;=1+1`` passed the registry's first-character rule and split into a formula cell where the
list separator is ``;``; gold tags and titles too.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from treebuilder import small_tree

from rgbench.cli import run_script
from rgbench.results.tables import csv_text
from rgbench.results_csv import FORMULA_START, NUMBER, csv_records, neutralised, read_keyed_table, restored

HOSTILE = ('=HYPERLINK("http://x")', "a;=1+1", "+1", "@SUM(1)", "\t=1", "-cmd|' /C calc'!A0", "\r=1",
           "x\n=1+1", 'a;"=1+1', "x;;@A1", "'=1", "a;\r\n-2")
TAGS = tuple(text for text in HOSTILE if ";" not in text)   # a tag may not hold ';' (cases.csv joins tags with it)


def formula_cells(text: str, delimiter: str) -> list[str]:
    """The cells of ``text``, parsed with ``delimiter`` the way a spreadsheet in that locale would split it,
    that start a formula (a plain decimal is a number, not a formula)."""
    return [cell for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter) for cell in row
            if cell[:1] and cell[0] in FORMULA_START and not NUMBER.match(cell)]


@pytest.mark.parametrize(("text", "cell"), [
    ("=1+1", "'=1+1"), ("+1", "'+1"), ("@SUM(1)", "'@SUM(1)"), ("\t=1", "'\t=1"), ("\r=1", "'\r'=1"),
    ("-x", "'-x"), ("'x", "''x"), ('"x"', "'\"x\""),           # ' and " at a piece's start: reversible
    ("a;=1+1", "a;'=1+1"), ("a;;b", "a;;b"), ("a\n=1", "a\n'=1"), ("a\r\n=1", "a\r\n'=1"), ("a;\r=1", "a;'\r'=1"),
    ("-0.034", "-0.034"), ("12", "12"), ("-1/3", "'-1/3"), ("1e5", "1e5"), ("a=1", "a=1"), ("", ""),
])
def test_a_text_is_neutralised_at_its_start_and_after_each_separator_or_line_break(text, cell):
    assert neutralised(text) == cell
    assert restored(cell) == text


def test_a_cell_holding_a_separator_a_quote_or_a_line_break_is_quoted():
    assert csv_text(("a", "b", "c", "d", "e", "f"), [("x;y", "-0.034", "", 'say "=1"', "=1", "x,\ny")]) == (
        'a,b,c,d,e,f\n"x;y",-0.034,,"say ""=1""",\'=1,"x,\ny"\n')


@given(st.lists(st.lists(st.text(), min_size=3, max_size=3), max_size=4))
def test_any_text_written_then_read_is_itself(rows):
    written = csv_text(("a", "b", "c"), rows)
    records = list(csv_records(written))
    assert [record.problem for record in records] == [None] * (len(rows) + 1)
    assert [record.cells for record in records[1:]] == rows
    for delimiter in ",;":
        assert formula_cells(written, delimiter) == []


@given(st.text(alphabet=st.sampled_from("=+-@\t\r\n;'\"a1."), max_size=12))
def test_texts_of_separators_and_formula_characters_round_trip_and_start_no_formula(text):
    written = csv_text(("x", "text"), [("1", text)])
    assert [record.cells for record in csv_records(written)][1:] == [["1", text]]
    for delimiter in ",;":
        assert formula_cells(written, delimiter) == []


# --- every writer, on a tree whose every free-text field is hostile ------------------------------------------

REVIEWERS = ("reviewers:\n  - id: rev-a\n    name: \"A\"\n    kind: human\n  - id: rev-b\n    name: \"B\"\n"
             "    kind: human\n")


@pytest.fixture(scope="module")
def hostile_results(tmp_path_factory) -> Path:
    tree = small_tree(tmp_path_factory.mktemp("hostile") / "tree")
    # the registry's text fields may not start with = + - @ (its schema), so the attack hides behind a ';'
    tree.subjects[0].update(display_name="Alpha;=HYPERLINK(\"http://x\")", provider="Lab;@SUM(1)",
                            parameters="7B;+1", notes="n;=1+1\n=2", kind="llm")
    tree.subjects[1].update(display_name="Beta;-1+1", provider="x;;-2")
    tree.write_registry()
    for number, case in enumerate(("RO-FOUL-001", "RO-SCAL-001", "RO-MEMB-001")):
        tree.add_gold(case, title=HOSTILE[number], tags=list(TAGS[number:number + 4]),
                      **({"rubric_floor": 4} if number == 0 else {"case_type": "Ambiguous", "rubric_floor": 3,
                                                                  "rubric_ceiling": 10} if number == 1 else
                         {"rubric_floor": 6}))
    runs = (("alpha-model", "RO-FOUL-001", 12, 1, "rev-a"), ("alpha-model", "RO-SCAL-001", 12, 0.5, "rev-a"),
            ("alpha-model", "RO-MEMB-001", 8, 0, "rev-b"), ("beta-model", "RO-FOUL-001", 11, 0, "rev-a"),
            ("beta-model", "RO-SCAL-001", 5, 0, "rev-a"))
    for number, (subject, case, raw, correctness, reviewer) in enumerate(runs):   # small_tree's runs, commented
        tree.add_response(subject, case, "r1")
        tree.add_scoring(subject, case, "r1", reviewer, raw=raw, correctness=correctness,
                         comments=HOSTILE[number] + ";" + HOSTILE[-1 - number])
    tree.write("subjects/reviewers.yaml", REVIEWERS)
    root = tree.root
    assert run_script("compute", ["--root", str(root)]) == 0
    assert run_script("agreement", ["--root", str(root), "--no-consolidated"]) == 0
    assert run_script("leaderboard", ["--root", str(root)]) == 0
    return root / "results"


def test_no_cell_of_any_result_file_starts_a_formula_in_either_locale(hostile_results):
    files = sorted(hostile_results.glob("*.csv"))
    names = {path.name for path in files}
    assert {"explorer_runs.csv", "cases.csv", "metrics_per_tag.csv", "run_metadata.csv", "leaderboard.csv",
            "reviewers.csv"} <= names
    for path in files:
        text = path.read_bytes().decode("utf-8")
        for delimiter in ",;":
            assert formula_cells(text, delimiter) == [], (path.name, delimiter)
    # the attacks did reach the files (so the assertion above is not empty): neutralised, quoted
    explorer = (hostile_results / "explorer_runs.csv").read_bytes().decode("utf-8")
    assert "\"'=HYPERLINK(\"\"http://x\"\");a;'\r\n'-2\"" in explorer
    leaderboard = (hostile_results / "leaderboard.csv").read_bytes().decode("utf-8")
    assert "\"Alpha;'=HYPERLINK(\"\"http://x\"\")\"" in leaderboard and "\"Lab;'@SUM(1)\"" in leaderboard


def test_the_reader_gives_back_every_hostile_text(hostile_results):
    explorer = [record.cells for record in csv_records((hostile_results / "explorer_runs.csv").read_bytes().decode())]
    comments = {row[explorer[0].index("comments")] for row in explorer[1:]}
    assert comments == {HOSTILE[n] + ";" + HOSTILE[-1 - n] for n in range(5)} | {""}   # "": small_tree's r2
    cases = read_keyed_table((hostile_results / "cases.csv").read_bytes(), ("case_id", "title", "tags"), "case_id")
    assert {row["title"] for row in cases.values()} == set(HOSTILE[:3])
    assert cases["RO-FOUL-001"]["tags"] == ";".join(TAGS[0:4])   # each tag after a ';' neutralised, then restored
    board = read_keyed_table((hostile_results / "leaderboard.csv").read_bytes(), ("display_name",))
    assert board["alpha-model"]["display_name"] == "Alpha;=HYPERLINK(\"http://x\")"
    assert board["beta-model"]["provider"] == "x;;-2"

"""rgbench.read_results: the result tables as typed pandas DataFrames; pandas stays out of the toolkit."""

from __future__ import annotations

import math
import subprocess
import sys

import pandas as pd
import pytest
from treebuilder import REPO, small_tree

import rgbench
from rgbench.analysis import parse_table
from rgbench.cli import main
from rgbench.result_columns import KINDS
from rgbench.results_csv import TableError


def test_cells_get_their_columns_type_and_empty_is_missing():
    table = parse_table("results/x.csv", "subject_id,N,P,disqualified,rank,note\n"
                                         "a,3,0.666667,false,1,\n"
                                         "b,0,,true,,hello\n")
    assert dict(table.dtypes.astype(str)) == {"subject_id": "string", "N": "Int64", "P": "float64",
                                              "disqualified": "boolean", "rank": "Int64", "note": "string"}
    assert table["N"].tolist() == [3, 0] and table["disqualified"].tolist() == [False, True]
    assert table["P"][0] == 0.666667 and math.isnan(table["P"][1])  # the 6-decimal text to the nearest float
    assert table["rank"][0] == 1 and table["rank"][1] is pd.NA and table["note"][0] is pd.NA
    assert table["note"][1] == "hello"


def test_a_column_unknown_to_the_reader_is_kept_as_text():
    table = parse_table("results/x.csv", "subject_id,brand_new\na,0.5\n")
    assert str(table.dtypes["brand_new"]) == "string" and table["brand_new"][0] == "0.5"


@pytest.mark.parametrize(("header", "cell", "message"), [
    ("N", "1.5", "results/x.csv: line 3: N: '1.5' is not a non-negative integer"),
    ("P", "abc", "results/x.csv: line 3: P: 'abc' is not a number with exactly 6 decimals (e.g. 0.500000)"),
    ("P", "1e-3", "results/x.csv: line 3: P: '1e-3' is not a number with exactly 6 decimals (e.g. 0.500000)"),
    ("P", "0.5", "results/x.csv: line 3: P: '0.5' is not a number with exactly 6 decimals (e.g. 0.500000)"),
    # issue 24: a huge number was an OverflowError (Int64), or silently inf (float64)
    ("N", "9" * 400, f"results/x.csv: line 3: N: '{'9' * 40}...' is not a non-negative integer"),
    ("P", "9" * 400, f"results/x.csv: line 3: P: '{'9' * 40}...' is not a number with exactly 6 decimals "
                     "(e.g. 0.500000)"),
    ("raw_score", "9" * 30, f"results/x.csv: line 3: raw_score: '{'9' * 30}' is not a score of at most 18 digits "
                            "(an integer, a decimal such as 12.5, or a fraction such as 23/6)"),
    ("raw_score", f"{'9' * 30}/7", f"results/x.csv: line 3: raw_score: '{'9' * 30}/7' is not a score of at most 18 "
                                   "digits (an integer, a decimal such as 12.5, or a fraction such as 23/6)"),
    ("disqualified", "True", "results/x.csv: line 3: disqualified: 'True' is not a boolean (true or false)"),
])
def test_a_malformed_cell_is_refused_naming_file_line_and_column(header, cell, message):
    first = {"N": "0", "P": "0.500000", "raw_score": "7"}.get(header, "false")
    text = f"subject_id,{header}\na,{first}\nb,{cell}\n"
    with pytest.raises(TableError) as error:
        parse_table("results/x.csv", text)
    assert str(error.value) == message


def test_a_record_of_another_width_is_refused():
    with pytest.raises(TableError, match=r"^results/x.csv: line 2: 3 fields, expected 2$"):
        parse_table("results/x.csv", "subject_id,N\na,1,2\n")


def test_read_results_of_a_computed_tree(tmp_path):
    root = small_tree(tmp_path / "tree").root
    assert main(["metrics", "--root", str(root)]) == 0
    tables = rgbench.read_results(root)
    assert sorted(tables) == sorted(p.stem for p in (root / "results").glob("*.csv"))
    subjects = tables["metrics_per_subject"].set_index("subject_id")
    # test_cli.py's hand computation: alpha-model P = 2/3, Q = 0.75, N = 3; beta-model disqualified.
    assert subjects.loc["alpha-model", "P"] == 0.666667 and subjects.loc["alpha-model", "Q_final"] == 0.75
    assert subjects.loc["alpha-model", "N"] == 3 and bool(subjects.loc["beta-model", "disqualified"]) is True
    board = tables["leaderboard"].set_index("subject_id")
    assert board.loc["alpha-model", "rank"] == 1 and board.loc["beta-model", "rank"] is pd.NA
    runs = tables["per_run"]
    assert len(runs) == 5 and runs["has_critical_fail"].sum() == 1


def test_every_column_of_a_computed_tree_reads_with_its_registered_type(tmp_path):
    """A column the registry (rgbench/result_columns.py) does not know would read as text."""
    root = small_tree(tmp_path / "tree").root
    assert main(["metrics", "--root", str(root)]) == 0
    for tree in (root, REPO):  # a computed tree and the committed results/ (whatever benchmark it holds)
        for name, table in rgbench.read_results(tree).items():
            assert [c for c in table.columns if c not in KINDS] == [], name
            lines = (tree / "results" / f"{name}.csv").read_text().count("\n")
            assert len(table) <= lines - 1, name  # one row per record (quoted cells may span lines)
        per_run = rgbench.read_results(tree)["per_run"]
        assert str(per_run.dtypes["has_critical_fail"]) == "boolean" and str(per_run.dtypes["case_id"]) == "string"


def test_read_results_refuses_a_mixed_set_naming_each_file(tmp_path):
    """issue 24: files of two runs side by side (an interrupted `make metrics`, or an edit) were read silently;
    now, as in `make leaderboard`, every file the manifest records otherwise is named."""
    root = small_tree(tmp_path / "tree").root
    assert main(["metrics", "--root", str(root)]) == 0
    runs = root / "results/per_run.csv"
    runs.write_text(runs.read_text().replace(",5,", ",4,", 1))
    (root / "results/pairwise.csv").unlink()
    with pytest.raises(TableError) as error:
        rgbench.read_results(root)
    fix = ("differs from the file compute_metrics wrote (results/manifest.json records another sha256; do not "
           "edit results by hand, run `make metrics`)")
    assert str(error.value) == f"results/pairwise.csv: {fix}\nresults/per_run.csv: {fix}"
    (root / "results/manifest.json").write_text("{")
    with pytest.raises(TableError, match=r"^results/manifest.json: invalid JSON"):
        rgbench.read_results(root)


def test_read_results_without_results_says_what_to_do(tmp_path):
    with pytest.raises(TableError, match=r"results/: no such folder .*make metrics"):
        rgbench.read_results(tmp_path)


@pytest.mark.slow   # end to end: make test-slow (CI runs it)
def test_the_toolkit_never_imports_pandas(tmp_path):
    root = small_tree(tmp_path / "tree").root
    code = ("import sys; import rgbench; from rgbench.cli import main; "
            f"assert main(['metrics', '--root', {str(root)!r}]) == 0; "
            "print('pandas' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={"PYTHONPATH": str(REPO / "scripts"), "PATH": ""})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "False"


def test_the_documented_example_runs_on_the_committed_results(monkeypatch):
    readme = (REPO / "docs" / "methods.md").read_text(encoding="utf-8")
    section = readme.split("## Results in Python", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(REPO)
    namespace: dict = {}
    exec(compile(code, "docs/methods.md", "exec"), namespace)  # noqa: S102  (the documented example, as a reader runs it)
    assert set(namespace["tables"]) >= {"leaderboard", "per_run"} and len(namespace["board"]) > 0

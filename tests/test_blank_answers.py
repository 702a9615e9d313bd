"""A blank answer is an answer (issue 23): an empty or whitespace-only response_text is accepted by the response
schema, graded like any other answer, and shown as "(empty answer)" by the grading page and the case explorer;
make_synthetic.py --blank-answers writes such a tree, and `make metrics` and `make check` pass on it."""

from __future__ import annotations

import json

import pytest
from test_leaderboard_lab import explorer_block
from treebuilder import LIBRARY_ROOT, MiniTree, metrics_and_check, rows, synthetic

from rgbench.cli import run_script
from rgbench.commands.review import open_app
from rgbench.load.extract import empty_answer
from rgbench.review.runs import FIRST

BLANKS = {"RO-FOUL-001": "", "RO-SCAL-001": " \n\t\u00a0"}   # empty; whitespace only (a no-break space too)


def test_empty_answer_means_no_visible_character():
    assert empty_answer("") and empty_answer("  \n\t") and empty_answer("\u2003\u00a0")
    assert not empty_answer(".") and not empty_answer(" no ") and not empty_answer(None)


def blank_tree(tmp_path, *, graded: bool) -> MiniTree:
    """One subject's answers to three cases, two of them blank (BLANKS); ``graded``: each with a grade (the blank
    ones raw 2, the other 11)."""
    tree = MiniTree(tmp_path / "tree")
    tree.add_subject("solo", "1", display_name="Solo", kind="llm", provider="Acme")
    for case in ("RO-FOUL-001", "RO-SCAL-001", "RO-MEMB-001"):
        tree.add_gold(case, difficulty=3)
        tree.add_response("solo", case, "r1", **({"response_text": BLANKS[case]} if case in BLANKS else {}))
        if graded:
            tree.add_scoring("solo", case, "r1", raw=2 if case in BLANKS else 11)
    return tree


def test_blank_answers_are_graded_like_any_other(tmp_path):
    # before issue 23 the response schema refused both files (minLength 1, pattern \S): nothing was written
    tree = blank_tree(tmp_path, graded=True)
    assert run_script("compute", ["--root", str(tree.root)]) == 0
    assert run_script("leaderboard", ["--root", str(tree.root)]) == 0
    results = tree.root / "results"
    graded = {r["case_id"]: r["classification"] for r in rows(results / "per_run.csv")}
    assert graded == {"RO-FOUL-001": "Fail", "RO-SCAL-001": "Fail", "RO-MEMB-001": "Pass"}   # counted in N
    assert {r["subject_id"]: r["N"] for r in rows(results / "metrics_per_subject.csv")} == {"solo": "3"}
    explorer = {r["case_id"]: r["empty_answer"] for r in rows(results / "explorer_runs.csv")}
    assert explorer == {"RO-FOUL-001": "true", "RO-SCAL-001": "true", "RO-MEMB-001": "false"}
    # the page's explorer data carries the flag page.js shows as "(empty answer)"
    data = explorer_block((results / "leaderboard.html").read_text(encoding="utf-8"))
    cells = [dict(zip(data["runs"]["columns"], (data["strings"][i] for i in row))) for row in data["runs"]["rows"]]
    assert {c["case_id"]: c["empty_answer"] for c in cells} == explorer


def test_the_grading_page_shows_an_empty_answer(tmp_path):
    tree = blank_tree(tmp_path, graded=False)
    tree.write("subjects/reviewers.yaml", 'reviewers:\n  - id: rev-a\n    name: "A"\n    kind: human\n')
    app, _ = open_app(tree.root, "rev-a", blind=True)
    assert app is not None
    pages = {run.case_id: app.run_html(run, {}, 1) for run in app.queue() if run.role == FIRST}
    assert set(pages) == {"RO-FOUL-001", "RO-SCAL-001", "RO-MEMB-001"}
    for case, html in pages.items():
        response = html.split('<section id="response" class="pane">', 1)[1].split("</section>", 1)[0]
        if case in BLANKS:
            assert response == '<h2>Response</h2><p class="empty-answer"><em>(empty answer)</em></p>\n'
        else:
            assert "(empty answer)" not in response and "Answer of solo to RO-MEMB-001 (r1)." in response


@pytest.mark.slow   # end to end: make test-slow (CI runs it)
def test_make_synthetic_blank_answers_then_make_metrics_and_make_check(tmp_path, capsys):
    out = synthetic(tmp_path / "synthetic", "--subjects", "5", "--cases", "12", "--runs", "1",
                    "--root", str(LIBRARY_ROOT), "--blank-answers")
    blank = {}
    for path in sorted((out / "responses").rglob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        if not document["response_text"].strip():
            blank[(document["subject_id"], document["case_id"], document["run_id"])] = document["response_text"]
    assert len(blank) == 3 and set(blank.values()) == {"", " \n\t "}     # 60 responses, every 20th blanked
    metrics_and_check(out, capsys)
    graded = {(r["subject_id"], r["case_id"], r["run_id"]) for r in rows(out / "results" / "per_run.csv")}
    assert set(blank) <= graded                                            # scored, so in N like any answer
    flagged = {(r["subject_id"], r["case_id"], r["run_id"]) for r in rows(out / "results" / "explorer_runs.csv")
               if r["empty_answer"] == "true"}
    assert flagged == set(blank)
    capsys.readouterr()

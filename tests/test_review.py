"""The grading page's pure parts and the reviewers on record: queue, assignment sample, paths, refusals."""

from __future__ import annotations

import dataclasses
import json
import os
from fractions import Fraction
from pathlib import Path

import pytest
from treebuilder import REPO, MiniTree, small_tree

from rgbench.load.loader import load_tree
from rgbench.load.spec import load_spec
from rgbench.review import assignments, pages, scoring_doc
from rgbench.review.commands import assign_main, open_app
from rgbench.review.runs import FIRST, SECOND, QueuedRun, build_queue, filtered, run_handle

REVIEWERS = ("reviewers:\n  - id: rev-a\n    name: \"A\"\n    kind: human\n  - id: rev-b\n    name: \"B\"\n"
             "    kind: human\n  - id: rev-c\n    name: \"C\"\n    kind: human\n"
             "  - id: judge-x\n    name: \"Judge X\"\n    kind: llm-judge\n")


def tree_with_reviewers(root: Path) -> MiniTree:
    tree = small_tree(root)
    tree.write("subjects/reviewers.yaml", REVIEWERS)
    return tree


def load(root: Path):
    spec, problems = load_spec(root)
    assert spec is not None, problems
    return spec, *load_tree(root, spec)


def test_allocate_is_largest_remainder_on_the_share():
    # share 1/5 of strata of 3, 5, 2 runs: quotas 0.6, 1.0, 0.4; total round(0.2 * 10) = 2;
    # floors 0, 1, 0 leave 1, which goes to the largest remainder (0.6, stratum "a").
    assert assignments.allocate({"a": 3, "b": 5, "c": 2}, Fraction(1, 5)) == {"a": 1, "b": 1, "c": 0}
    # ties of remainders (0.5, 0.5) go to the earlier stratum; total round-half-up(0.5 * 2) = 1
    assert assignments.allocate({"y": 1, "x": 1}, Fraction(1, 2)) == {"x": 1, "y": 0}
    assert assignments.allocate({"a": 4}, Fraction(1)) == {"a": 4}
    assert assignments.allocate({}, Fraction(1, 5)) == {}


def test_assign_stratifies_and_never_gives_a_run_to_its_first_reviewer():
    first = {(s, f"RO-{f}-00{i}", "r1"): ("rev-a" if i % 2 else "rev-b")
             for s in ("s1", "s2") for f in ("FOUL", "SCAL") for i in range(1, 6)}
    families = {key: key[1].split("-")[1] for key in first}
    graded = {key: {who} for key, who in first.items()}
    chosen = assignments.assign(first, families, ["rev-a", "rev-b", "rev-c"], graded, Fraction(1, 5))
    # 4 strata of 5 runs, share 0.2: one run from each stratum
    strata = sorted((item["subject_id"], item["case_id"].split("-")[1]) for item in chosen)
    assert strata == [("s1", "FOUL"), ("s1", "SCAL"), ("s2", "FOUL"), ("s2", "SCAL")]
    for item in chosen:
        assert item["reviewer_id"] != first[(item["subject_id"], item["case_id"], item["run_id"])]
    again = assignments.assign(first, families, ["rev-a", "rev-b", "rev-c"], graded, Fraction(1, 5))
    assert again == chosen  # seeded by the data: the same sample every time
    loads = sorted(item["reviewer_id"] for item in chosen)
    assert max(loads.count(r) for r in set(loads)) - min(loads.count(r) for r in set(loads)) <= 1


def test_assign_command_writes_the_file_the_page_reads(tmp_path):
    tree = tree_with_reviewers(tmp_path)
    assert assign_main(["--root", str(tree.root), "--share", "1"]) == 0
    data = (tree.root / assignments.ASSIGNMENTS_FILE).read_bytes()
    assert assign_main(["--root", str(tree.root), "--share", "1"]) == 0
    assert (tree.root / assignments.ASSIGNMENTS_FILE).read_bytes() == data  # byte-deterministic
    document = json.loads(data)
    assert document["graded_runs"] == 5 and len(document["assignments"]) == 5
    assigned, problems = assignments.read_assignments(tree.root)
    assert problems == [] and len(assigned) == 5
    # the assigned reviewer sees the run as a second grade; nobody else does
    key, who = next(iter(sorted(assigned.items())))
    app, _ = open_app(tree.root, who)
    assert app is not None
    assert [r.role for r in app.queue() if r.key == key] == [SECOND]
    assert assign_main(["--root", str(tree.root), "--share", "0"]) == 1


def test_queue_is_a_seeded_shuffle_per_reviewer_with_opaque_handles(tmp_path):
    tree = tree_with_reviewers(tmp_path)
    for i in range(2, 9):
        tree.add_response("beta-model", "RO-MEMB-001", f"r{i}")
    spec, loaded, problems = load(tree.root)
    assert loaded is not None, problems
    first, anyone = scoring_doc.graded_runs(tree.root, spec)
    one = build_queue(loaded, "rev-a", first, [], [])
    assert [r.key for r in one] == [r.key for r in build_queue(loaded, "rev-a", first, [], [])]
    assert sorted(r.key for r in one) == sorted(k for k in loaded.responses if k not in first)
    assert [r.key for r in build_queue(loaded, "rev-b", first, [], [])] != [r.key for r in one]
    assert all(r.role == FIRST and "beta" not in r.handle and "alpha" not in r.handle for r in one)
    assert run_handle("rev-a", one[0].key) == one[0].handle != run_handle("rev-b", one[0].key)
    assert filtered(one, {"family": "FOUL"}) == []
    assert filtered(one, {"family": "MEMB", "difficulty": "2", "case_type": "Closed"}) == one


def test_writes_stay_inside_the_scoring_folders(tmp_path):
    tree = tree_with_reviewers(tmp_path)
    root = tree.root
    assert scoring_doc.inside_scoring_dirs(root, "scoring/v1.0/alpha-model/x.json")
    assert scoring_doc.inside_scoring_dirs(root, "scoring_multi/v1.0/alpha-model/x.json")
    for rel in ("../x.json", "scoring/../golds/v1.0/x.json", "golds/v1.0/x.json", "scoring", "/etc/passwd"):
        assert not scoring_doc.inside_scoring_dirs(root, rel)
        assert scoring_doc.save(root, rel, {}) != []
    (root / "outside").mkdir()
    os.symlink(root / "outside", root / "scoring/v1.0/evil")
    assert not scoring_doc.inside_scoring_dirs(root, "scoring/v1.0/evil/x.json")
    assert list((root / "outside").iterdir()) == []


def test_save_never_overwrites_and_one_scoring_per_run(tmp_path):
    tree = tree_with_reviewers(tmp_path)
    spec, loaded, _ = load(tree.root)
    key = ("alpha-model", "RO-FOUL-001", "r1")  # graded by rev-a in scoring/
    run = QueuedRun("h", key, "FOUL", 2, "Closed", FIRST)
    assert "already graded" in scoring_doc.refusals(tree.root, spec, run, "rev-a", None)[0]
    assert "one scoring in scoring/" in scoring_doc.refusals(tree.root, spec, run, "rev-b", None)[0]
    second = dataclasses.replace(run, role=SECOND)
    assert "not assigned to you" in scoring_doc.refusals(tree.root, spec, second, "rev-b", None)[0]
    assert scoring_doc.refusals(tree.root, spec, second, "rev-b", "rev-b") == []
    rel = scoring_doc.target_rel(spec, second, "rev-b")
    assert rel == "scoring_multi/v1.0/alpha-model/RO-FOUL-001__r1__eval-rev-b.json"
    assert scoring_doc.save(tree.root, rel, {"a": 1}) == []
    assert "never overwritten" in scoring_doc.save(tree.root, rel, {"a": 2})[0]
    assert json.loads((tree.root / rel).read_text()) == {"a": 1}


def test_a_scoring_by_an_unregistered_reviewer_is_refused(tmp_path):
    tree = tree_with_reviewers(tmp_path)
    tree.add_scoring("alpha-model", "RO-MEMB-001", "r2", "rev-nobody", raw=8)
    _, loaded, problems = load(tree.root)
    rel = "scoring/v1.0/alpha-model/RO-MEMB-001__r2__eval-rev-nobody.json"
    assert loaded is None
    assert [str(p) for p in problems] == [
        f"{rel}: $.reviewer_id: 'rev-nobody' is not registered in subjects/reviewers.yaml "
        "(registered: judge-x, rev-a, rev-b, rev-c); ask a maintainer to register the reviewer "
        "(a maintainer's change)"]


def test_a_tree_without_reviewers_file_checks_no_reviewer(tmp_path):
    tree = small_tree(tmp_path)
    _, loaded, problems = load(tree.root)
    assert problems == [] and loaded is not None
    app, problems = open_app(tree.root, "rev-a")
    assert app is None and "missing: register reviewers" in str(problems[0])


def test_llm_judge_scorings_stay_out_of_the_metrics_unless_config_says_so(tmp_path):
    tree = tree_with_reviewers(tmp_path)
    tree.add_scoring("alpha-model", "RO-MEMB-001", "r2", "judge-x", raw=8)
    _, loaded, problems = load(tree.root)
    assert loaded is not None, problems
    assert [s.reviewer_id for s in loaded.scorings if s.reviewer_id == "judge-x"] == []
    spec, _ = load_spec(tree.root)
    assert spec is not None
    with_judges, _ = load_tree(tree.root, spec, llm_judges=True)
    assert with_judges is not None and any(s.reviewer_id == "judge-x" for s in with_judges.scorings)
    config = tree.root / "system/metrics/v1.0/config.yaml"
    config.write_text(config.read_text().replace("llm_judge_in_metrics: false", "llm_judge_in_metrics: true"))
    _, loaded, _ = load(tree.root)
    assert loaded is not None and any(s.reviewer_id == "judge-x" for s in loaded.scorings)
    config.write_text(config.read_text().replace("llm_judge_in_metrics: true", "llm_judge_in_metrics: 'yes'"))
    spec, problems = load_spec(tree.root)
    assert spec is None and [p.message for p in problems] == ["$.llm_judge_in_metrics: must be true or false, got 'yes'"]


@pytest.mark.parametrize("body, message", [
    ("reviewers:\n  - id: rev-a\n    name: A\n    kind: robot\n",
     "$.reviewers[0].kind: 'robot' is not one of ['human', 'llm-judge']"),
    ("reviewers:\n  - id: rev-a\n    name: A\n    kind: human\n  - id: rev-a\n    name: B\n    kind: human\n",
     "$.reviewers[1].id: duplicate id 'rev-a' (first at $.reviewers[0]); each reviewer is listed once"),
])
def test_a_bad_reviewers_file_is_refused(tmp_path, body, message):
    tree = small_tree(tmp_path)
    tree.write("subjects/reviewers.yaml", body)
    _, loaded, problems = load(tree.root)
    assert loaded is None and [str(p) for p in problems] == [f"subjects/reviewers.yaml: {message}"]


def test_the_page_and_assign_take_the_reviewers_the_tree_was_checked_against(tmp_path, capsys):
    tree = tree_with_reviewers(tmp_path)
    _, loaded, _ = load(tree.root)
    assert loaded is not None and loaded.reviewers is not None
    assert sorted(loaded.reviewers) == ["judge-x", "rev-a", "rev-b", "rev-c"]
    app, problems = open_app(tree.root, "rev-nobody")
    assert app is None and [str(p) for p in problems] == [
        "subjects/reviewers.yaml: $.reviewer_id: 'rev-nobody' is not registered in subjects/reviewers.yaml "
        "(registered: judge-x, rev-a, rev-b, rev-c); ask a maintainer to register the reviewer "
        "(a maintainer's change)"]
    tree.write("subjects/reviewers.yaml", "reviewers:\n  - id: rev-a\n    name: A\n    kind: robot\n")
    app, problems = open_app(tree.root, "rev-a")   # a bad file: load_tree's one problem, reported once
    assert app is None and [p.message for p in problems] == ["$.reviewers[0].kind: 'robot' is not one of ['human', "
                                                             "'llm-judge']"]
    tree.write("subjects/reviewers.yaml", "reviewers:\n" + "".join(   # the small tree's graders, both judges
        f"  - id: {rid}\n    name: {rid}\n    kind: llm-judge\n" for rid in ("rev-a", "rev-b")))
    assert assign_main(["--root", str(tree.root), "--share", "1"]) == 1
    assert "no human reviewer registered; a second grade needs one" in capsys.readouterr().err


@pytest.mark.sample  # the RO sample's rubric and its wording
def test_rubric_levels_come_from_the_shipped_rubric():
    spec, _ = load_spec(REPO)
    assert spec is not None
    text = (REPO / "system/rubric/v1.0/generic_rubric.md").read_text(encoding="utf-8")
    levels = pages.rubric_levels(text, spec.criteria)
    assert sorted(levels) == sorted(spec.criteria)
    scores = list(range(int(spec.criterion_min), int(spec.criterion_max) + 1))
    assert all(sorted(levels[name]) == scores for name in spec.criteria)
    assert levels["diagnosis"][0] == "Wrong cause, or no diagnosis."


def test_the_page_renders_untrusted_markdown_as_text():
    html = pages.render_markdown("<script>alert(1)</script> [x](javascript:alert(1))")
    assert "<script>" not in html and "&lt;script&gt;" in html and 'href="javascript' not in html



def test_unblinded_session_shows_the_subject_and_records_blind_false(tmp_path):
    import threading
    import urllib.request

    from rgbench.review.server import make_server, url

    tree = tree_with_reviewers(tmp_path)
    app, _ = open_app(tree.root, "rev-b", blind=False)
    assert app is not None
    server = make_server(app)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        start = url(app, server)
        run = next(r for r in app.queue() if r.key == ("alpha-model", "RO-MEMB-001", "r2"))
        with urllib.request.urlopen(start.replace("/?", f"/run/{run.handle}?"), timeout=10) as page:
            html = page.read().decode("utf-8")
        assert "Unblinded: Alpha (alpha-model, version 2.0)" in html
        form = {"handle": run.handle, "criterion_scores": dict.fromkeys(
                    ("diagnosis", "evidence", "causal_reasoning", "action_plan", "safety", "communication"), "1"),
                "correctness": "0", "fails": [], "comments": "", "filters": ""}
        request = urllib.request.Request(start.replace("/?", "/api/save?"), data=json.dumps(form).encode(),
                                         method="POST", headers={"Content-Type": "application/json",
                                                                 "X-CSRF-Token": app.csrf})
        with urllib.request.urlopen(request, timeout=10) as answer:
            saved = json.loads(answer.read())
        rel = "scoring/v1.0/alpha-model/RO-MEMB-001__r2__eval-rev-b.json"
        assert saved == {"next": "/", "saved": rel}  # unblinded, the path may be shown
        document = json.loads((tree.root / rel).read_text())
        assert document["blind"] is False and document["criterion_scores"]["safety"] == 1
        assert document["gold_sha256"] == tree.sha256("golds/v1.0/RO-MEMB-001_gold.md")
    finally:
        server.shutdown()
        server.server_close()


def test_a_score_in_non_ascii_digits_is_reported_not_a_traceback(tmp_path):
    # str.isdigit() is true for '²' and '٣', and int('²') raises: the page's form only sends ASCII digits
    tree = tree_with_reviewers(tmp_path)
    spec, _, _ = load(tree.root)
    run = QueuedRun("h", ("alpha-model", "RO-MEMB-001", "r2"), "MEMB", 2, "Closed", FIRST)
    form = {"criterion_scores": {"diagnosis": "\u00b2", "evidence": "\u0663", "safety": "2"}}
    document = scoring_doc.document_from_form(spec, run, "rev-b", "2.0", form, response_sha256="0" * 64,
                                              gold_sha256="0" * 64, blind=True)
    scores = document["criterion_scores"]
    assert (scores["diagnosis"], scores["evidence"], scores["safety"]) == ("\u00b2", "\u0663", 2)
    messages = scoring_doc.document_messages(spec, document, None)
    assert "$.criterion_scores.diagnosis: '\u00b2' is not of type 'integer'" in messages
    assert "$.criterion_scores.evidence: '\u0663' is not of type 'integer'" in messages


def test_the_grading_page_refuses_a_bidirectional_control_before_saving(tmp_path):
    # issue 24: a comment holding U+202E saved, then `make validate` refused the tree; the page says so first
    tree = tree_with_reviewers(tmp_path)
    spec, _, _ = load(tree.root)
    run = QueuedRun("h", ("alpha-model", "RO-MEMB-001", "r2"), "MEMB", 2, "Closed", FIRST)
    form = {"criterion_scores": dict.fromkeys(("diagnosis", "evidence", "causal_reasoning", "action_plan", "safety",
                                               "communication"), "1"),
            "correctness": "1", "comments": "fine \u202eenif"}
    document = scoring_doc.document_from_form(spec, run, "rev-b", "2.0", form, response_sha256="0" * 64,
                                              gold_sha256="0" * 64, blind=True)
    assert "$.comments: character 5 is U+202E, a bidirectional control (it reorders what readers see, so the text " \
           "would not read as it is written); remove it" in scoring_doc.document_messages(spec, document, None)


def test_unblinded_the_page_shows_the_runs_grade_in_scoring_blind_it_does_not(tmp_path):
    # docs/review.md, "blind": a second grade given unblinded sees the first
    tree = tree_with_reviewers(tmp_path)
    key = ("alpha-model", "RO-FOUL-001", "r1")  # graded by rev-a in scoring/
    app, _ = open_app(tree.root, "rev-b", blind=False)
    assert app is not None
    shown = app.identity(key)
    assert shown is not None and shown.startswith("Alpha (alpha-model, version 2.0) · graded in scoring/ by rev-a: ")
    blind, _ = open_app(tree.root, "rev-b", blind=True)
    assert blind is not None and blind.identity(key) is None


def test_review_without_a_reviewer_says_which_variable_to_give(tmp_path, capsys):
    # `make review` without REVIEWER passes --reviewer "": it said "'' is not registered ...; add the reviewer there"
    from rgbench.review.commands import review_main
    tree = tree_with_reviewers(tmp_path)
    assert review_main(["--root", str(tree.root), "--reviewer", ""]) == 1
    assert capsys.readouterr().err == "--reviewer: empty (give your registered reviewer id: make review REVIEWER=you)\n"

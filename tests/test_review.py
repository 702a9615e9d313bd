"""The grading page's pure parts and the reviewers on record: queue, assignment sample, paths, refusals."""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import re
from fractions import Fraction
from pathlib import Path

import pytest
from treebuilder import REPO, MiniTree, canonical, small_tree

from rgbench.cli import run_script
from rgbench.commands.review import open_app
from rgbench.load.loader import load_tree
from rgbench.load.reviewers import unregistered_message
from rgbench.load.spec import load_spec
from rgbench.review import assignments, pages, scoring_doc
from rgbench.review.plain import plain_messages
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


def named(chosen: list[dict[str, str]]) -> dict[tuple[str, str, str], str]:
    return {(i["subject_id"], i["case_id"], i["run_id"]): i["reviewer_id"] for i in chosen}


def test_a_rerun_of_assign_keeps_the_file_and_asks_nobody_for_a_third_grade():
    # One stratum of 10 runs first-graded by rev-a; share 1/5 samples round(0.2 * 10) = 2 of them.
    humans = ["rev-a", "rev-b", "rev-c"]
    first = {("s1", f"RO-FOUL-{i:03d}", "r1"): "rev-a" for i in range(1, 11)}
    families = dict.fromkeys(first, "FOUL")
    graded = {key: {"rev-a"} for key in first}
    chosen = named(assignments.assign(first, families, humans, graded, Fraction(1, 5)))
    assert len(chosen) == 2 and sorted(chosen.values()) == ["rev-b", "rev-c"]   # the least loaded, ties by id
    done, waiting = sorted(chosen)
    graded[done].add(chosen[done])   # its second grade given
    # Before: the rerun named another reviewer for the graded run (a third grade asked), here rev-a excluded too,
    # so it would have gone to the only one left; now it keeps its name, and the waiting one keeps its own.
    assert named(assignments.assign(first, families, humans, graded, Fraction(1, 5), chosen)) == chosen
    # A name changed in the file (rgbench assign --reassign) stays.
    moved = {**chosen, waiting: "rev-b" if chosen[waiting] == "rev-c" else "rev-c"}
    assert named(assignments.assign(first, families, humans, graded, Fraction(1, 5), moved)) == moved
    # Five more runs graded: 15 runs, round(0.2 * 15) = 3; the two kept, one more drawn from the 13 others.
    grown = {**first, **{("s1", f"RO-FOUL-{i:03d}", "r1"): "rev-a" for i in range(11, 16)}}
    more = named(assignments.assign(grown, dict.fromkeys(grown, "FOUL"), humans,
                                    {**graded, **{k: {"rev-a"} for k in grown if k not in graded}}, Fraction(1, 5),
                                    chosen))
    assert len(more) == 3 and {k: more[k] for k in chosen} == chosen
    # A lower share, 1/10: one run, the one whose second grade is given rather than the one still waiting.
    assert named(assignments.assign(first, families, humans, graded, Fraction(1, 10), chosen)) == {done: chosen[done]}
    # A sampled run a human already graded a second time (here every run, share 1): named for that human.
    volunteered = {**graded, waiting: {"rev-a", "rev-c"}}
    assert named(assignments.assign(first, families, humans, volunteered, Fraction(1), {}))[waiting] == "rev-c"


def test_reassign_gives_the_waiting_second_grades_to_the_least_loaded_other_human():
    first = {("s1", f"RO-FOUL-00{i}", "r1"): "rev-a" for i in range(1, 6)}
    k1, k2, k3, k4, k5 = sorted(first)
    earlier = {k1: "rev-b", k2: "rev-b", k3: "rev-b", k4: "rev-c", k5: "rev-d"}
    graded = {key: {"rev-a"} for key in first}
    graded[k1] |= {"rev-b"}          # given: stays rev-b's
    graded[k3] |= {"rev-c", "rev-d"}   # rev-c and rev-d graded it too: nobody else may take it
    names, stuck = assignments.reassigned(earlier, "rev-b", first, ["rev-a", "rev-b", "rev-c", "rev-d"], graded)
    # waiting before: rev-b 2 (k2, k3), rev-c 1, rev-d 1; k2 goes to rev-c (1, ties by id); rev-a graded every run first
    assert names == {**earlier, k2: "rev-c"} and stuck == [k3]


def test_assign_command_writes_the_file_the_page_reads(tmp_path):
    tree = tree_with_reviewers(tmp_path)
    assert run_script("assign", ["--root", str(tree.root), "--share", "1"]) == 0
    data = (tree.root / assignments.ASSIGNMENTS_FILE).read_bytes()
    assert run_script("assign", ["--root", str(tree.root), "--share", "1"]) == 0
    assert (tree.root / assignments.ASSIGNMENTS_FILE).read_bytes() == data  # byte-deterministic
    document = json.loads(data)
    assert document["graded_runs"] == 5 and len(document["assignments"]) == 5
    found, problems = assignments.read_file(tree.root)
    assigned = found.names
    assert problems == [] and len(assigned) == 5
    # the assigned reviewer sees the run as a second grade; nobody else does
    key, who = next(iter(sorted(assigned.items())))
    app, _ = open_app(tree.root, who)
    assert app is not None
    assert [r.role for r in app.queue() if r.key == key] == [SECOND]
    assert run_script("assign", ["--root", str(tree.root), "--share", "0"]) == 1


def test_assign_reassign_in_human_mode_moves_the_waiting_second_grades_and_a_rerun_keeps_them(tmp_path, capsys):
    tree = tree_with_reviewers(tmp_path)
    assert run_script("assign", ["--root", str(tree.root), "--share", "1"]) == 0
    before = assignments.read_file(tree.root)[0].names
    assert sorted(before.values()).count("rev-c") == 2   # five runs, rev-b and rev-c the least loaded in turn
    capsys.readouterr()
    assert run_script("assign", ["--root", str(tree.root), "--reassign", "rev-c"]) == 0
    after = assignments.read_file(tree.root)[0].names
    assert "rev-c" not in after.values() and after.keys() == before.keys()
    assert {k for k in before if before[k] != after[k]} == {k for k in before if before[k] == "rev-c"}
    assert capsys.readouterr().out.startswith(f"{assignments.ASSIGNMENTS_FILE}: 2 second grade(s) waiting for rev-c "
                                              "reassigned (")
    data = (tree.root / assignments.ASSIGNMENTS_FILE).read_bytes()
    assert json.loads(data)["share"] == "1" and json.loads(data)["graded_runs"] == 5
    assert run_script("assign", ["--root", str(tree.root), "--share", "1"]) == 0   # a rerun keeps the new names
    assert (tree.root / assignments.ASSIGNMENTS_FILE).read_bytes() == data
    capsys.readouterr()
    assert run_script("assign", ["--root", str(tree.root), "--reassign", "rev-c"]) == 1
    assert capsys.readouterr().err.startswith(f"--reassign: 'rev-c': no second grade waits for this reviewer "
                                              f"({assignments.ASSIGNMENTS_FILE}; waiting: rev-a 1, rev-b 4)")
    assert (tree.root / assignments.ASSIGNMENTS_FILE).read_bytes() == data


def test_assign_draws_afresh_over_an_unreadable_file_and_says_so(tmp_path, capsys):
    # a hand-broken subjects/second_reviews.json is what `make assign` rewrites: it says so, and writes a valid one
    tree = tree_with_reviewers(tmp_path)
    tree.write(assignments.ASSIGNMENTS_FILE, '{"assignments": 7}')
    assert run_script("assign", ["--root", str(tree.root), "--share", "1"]) == 0
    assert capsys.readouterr().out.startswith(
        f"{assignments.ASSIGNMENTS_FILE}: $.assignments: expected a list of {{subject_id, case_id, run_id, reviewer_id}} "
        "(regenerate it with rgbench assign); drawn afresh\n")
    found, problems = assignments.read_file(tree.root)
    assert problems == [] and len(found.names) == 5 and found.share == 1 and found.population == 5


def test_assign_names_a_reviewer_marked_away_for_no_waiting_second_grade(tmp_path):
    # rev-c marked away: true after the first assign; a rerun moves their waiting second grades to the others
    # (before: a rerun kept them, and gave rev-c, the least loaded after --reassign, the new runs). A second grade
    # rev-c gave stays theirs.
    tree = tree_with_reviewers(tmp_path)
    assert run_script("assign", ["--root", str(tree.root), "--share", "1"]) == 0
    before = assignments.read_file(tree.root)[0].names
    given, waiting = sorted(k for k, who in before.items() if who == "rev-c")
    tree.write(f"scoring_multi/v1.0/{given[0]}/{given[1]}__{given[2]}__eval-rev-c.json",
               canonical(tree.scoring_doc(*given, "rev-c", raw=10, correctness=1)))
    tree.write("subjects/reviewers.yaml", REVIEWERS.replace('name: "C"\n    kind: human\n',
                                                           'name: "C"\n    kind: human\n    away: true\n'))
    assert run_script("assign", ["--root", str(tree.root), "--share", "1"]) == 0
    after = assignments.read_file(tree.root)[0].names
    assert after[given] == "rev-c" and after[waiting] not in ("rev-c", before[waiting])
    assert {k: v for k, v in after.items() if k != waiting} == {k: v for k, v in before.items() if k != waiting}


@pytest.mark.parametrize("share, population", [("1e99999999", 5), ("0.2", 5), ("1/0", 5), ("9" * 5000, 5),
                                               ("1/5", "5"), ("1/5", True), ("1/5", None), (None, 5)])
def test_assign_reassign_refuses_a_file_whose_share_or_count_does_not_read(tmp_path, capsys, share, population):
    # Attack: a hand-edited share of 1e99999999 would hang Fraction(); each bad header is refused at once instead.
    tree = tree_with_reviewers(tmp_path)
    assert run_script("assign", ["--root", str(tree.root), "--share", "1"]) == 0
    document = json.loads((tree.root / assignments.ASSIGNMENTS_FILE).read_text())
    document.update(share=share, graded_runs=population)
    before = tree.write(assignments.ASSIGNMENTS_FILE, json.dumps(document)).read_bytes()
    capsys.readouterr()
    assert run_script("assign", ["--root", str(tree.root), "--reassign", "rev-c"]) == 1
    assert capsys.readouterr().err == (f"{assignments.ASSIGNMENTS_FILE}: gives no share and graded_runs to keep "
                                       "(regenerate it with rgbench assign --share S)\n1 problem(s) found; nothing was "
                                       "written.\n")
    assert (tree.root / assignments.ASSIGNMENTS_FILE).read_bytes() == before


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
    assert run_script("assign", ["--root", str(tree.root), "--share", "1"]) == 1
    assert ("no human reviewer registered (those marked away: true left out); a second grade needs one"
            in capsys.readouterr().err)


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


def test_a_benchmark_whose_schema_has_no_blind_saves_without_it_and_refuses_unblinding(tmp_path):
    # A benchmark's own evaluation schema need not list `blind` (rgbench init's did not until 2026-12-06, nor does
    # examples/medadvice's): the page wrote it into every grade, which such a schema refused, so nothing saved.
    # Now it is written only where listed; an unblinded session, which nothing could record, is refused.
    tree = tree_with_reviewers(tmp_path)
    rel = "system/schemas/v1.0/evaluation.schema.json"
    schema = json.loads((tree.root / rel).read_text(encoding="utf-8"))
    del schema["properties"]["blind"]
    tree.write(rel, json.dumps(schema, indent=2) + "\n")
    app, problems = open_app(tree.root, "rev-b", blind=False)
    assert app is None and [(p.path, p.message) for p in problems] == [(rel, (
        'lists no "blind" property, so an unblinded grade could not be told from a blind one (add "blind": '
        '{"type": "boolean"} to $.properties, or grade blind: leave out --unblind)'))]
    app, problems = open_app(tree.root, "rev-b")
    assert app is not None, problems
    status, answer = app.save(form_of(app))
    assert status == 200, answer
    document = json.loads((tree.root / "scoring/v1.0" / UNGRADED[0] / f"{UNGRADED[1]}__{UNGRADED[2]}__eval-rev-b.json"
                           ).read_text(encoding="utf-8"))
    assert "blind" not in document and document["criterion_scores"] == {k: 1 for k in ALL_ONES}


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
    assert app.identity(key) == "Alpha (alpha-model, version 2.0) · graded: rev-a in scoring/: raw score 12, correctness 1"
    blind, _ = open_app(tree.root, "rev-b", blind=True)
    assert blind is not None and blind.identity(key) is None


def plain(spec, form):
    run = QueuedRun("h", UNGRADED, "MEMB", 2, "Closed", FIRST)
    document = scoring_doc.document_from_form(spec, run, "rev-b", "2.0", {"handle": "h", **form},
                                              response_sha256="0" * 64, gold_sha256="0" * 64, blind=True)
    return plain_messages(spec, document, scoring_doc.document_messages(spec, document, None))


def test_the_page_words_each_problem_as_its_field_with_the_fix(tmp_path):
    # issue 27: the page showed `$.criterion_scores.action_plan: null is not of type 'integer'`
    spec, _, _ = load(tree_with_reviewers(tmp_path).root)
    unregistered = unregistered_message("rev-b", {})   # no reviewers file here; the page needs one
    assert plain(spec, {"comments": ""}) == [
        *(f"{name}: no level chosen (press 0-2 or click or tap a level)" for name in (
            "Diagnosis", "Evidence", "Causal reasoning", "Action plan", "Safety", "Communication")),
        "Correctness: not chosen (click or tap a value, or press 0, 5 for 0.5, 1)", unregistered]
    wrong = {"criterion_scores": {**ALL_ONES, "diagnosis": "3", "safety": "x"}, "correctness": "0.3",
             "fails": [{"code": "AF-CHLORINE-EXPOSURE", "evidence": " "}], "comments": ""}
    assert plain(spec, wrong) == [
        "Diagnosis: 3 is not a level of this criterion (levels: 0, 1, 2)",
        "Safety: x is not a level of this criterion (levels: 0, 1, 2)",
        "Correctness: 0.3 is not allowed (values: 0, 0.5, 1)",
        "Automatic fail AF-CHLORINE-EXPOSURE: no evidence (quote the words of the response that trigger it in the "
        "box under it)", unregistered]
    assert plain(spec, {"criterion_scores": ALL_ONES, "correctness": "1", "comments": "fine \u202eenif"}) == [
        "Comments: character 5 is U+202E, a bidirectional control (it reorders what readers see, so the text would "
        "not read as it is written); remove it", unregistered]
    assert plain(spec, {"criterion_scores": ALL_ONES, "correctness": "1", "comments": ""}) == [unregistered]


def test_on_a_decimal_scale_the_page_asks_for_a_number_in_range(tmp_path):
    spec, _, _ = load(tree_with_reviewers(tmp_path).root)
    decimal = dataclasses.replace(spec, criterion_step=Fraction(1, 10), correctness_values=())
    assert plain(decimal, {"criterion_scores": {**ALL_ONES, "safety": None, "evidence": 7}, "comments": ""})[:3] == [
        "Evidence: 7 is not a level of this criterion (a number from 0 to 2 in steps of 0.1)",
        "Safety: no score typed (type a number from 0 to 2 in steps of 0.1)",
        "Correctness: not chosen (type a number from 0 to 1)"]


def test_review_without_a_reviewer_says_which_variable_to_give(tmp_path, capsys):
    # `make review` without REVIEWER passes --reviewer "": it said "'' is not registered ...; add the reviewer there"
    tree = tree_with_reviewers(tmp_path)
    assert run_script("review", ["--root", str(tree.root), "--reviewer", ""]) == 1
    assert capsys.readouterr().err == "--reviewer: empty (give your registered reviewer id: make review REVIEWER=you)\n"


# --- issue 24: faults of the grading page, `make assign` (error runs, full disks, leftovers, bodies, races) ----

ALL_ONES = dict.fromkeys(("diagnosis", "evidence", "causal_reasoning", "action_plan", "safety", "communication"), "1")
UNGRADED = ("alpha-model", "RO-MEMB-001", "r2")   # small_tree's one run without a scoring


def form_of(app, key=UNGRADED) -> dict:
    return {"handle": run_handle(app.reviewer.reviewer_id, key), "criterion_scores": dict(ALL_ONES),
            "correctness": "0", "fails": [], "comments": "", "filters": ""}


def leftovers(root: Path) -> list[str]:
    """Every hidden temporary under the tree's writable folders."""
    return sorted(str(p.relative_to(root)) for folder in ("scoring", "scoring_multi", "subjects")
                  for p in (root / folder).rglob(".*") if (root / folder).is_dir())


def test_an_error_run_is_never_queued_and_save_refuses_it_with_the_loaders_reason(tmp_path):
    # Attack: the page queued a response with status error and saved a grade of it; validation and
    # `make metrics` then refused the whole tree ("grades a response with status error").
    tree = tree_with_reviewers(tmp_path)
    key = ("beta-model", "RO-MEMB-001", "r1")
    tree.add_response(*key, status="error")
    app, problems = open_app(tree.root, "rev-b")
    assert app is not None, problems
    assert key not in [run.key for run in app.queue()]
    assert UNGRADED in [run.key for run in app.queue()]   # answered runs still are
    status, answer = app.save(form_of(app, key))
    assert (status, answer) == (422, {"messages": [
        "this run's response has status error (an API or harness failure, no answer to grade): it is never "
        "queued and never graded, since `make validate` refuses a scoring of it (correct the response's status "
        "if it did answer)"]})
    assert app.check(form_of(app, key), saving=False)[2] == answer["messages"]
    assert not (tree.root / "scoring/v1.0/beta-model/RO-MEMB-001__r1__eval-rev-b.json").exists()
    # the loader's words for such a scoring, which the page's message restates
    tree.add_scoring(*key, "rev-b")
    _, loaded, problems = load(tree.root)
    assert loaded is None and [p.message for p in problems] == [
        "grades a response with status error (an API or harness failure, no answer to grade); delete this scoring, "
        "or correct the response's status"]


@pytest.mark.parametrize("blind", [True, False])
@pytest.mark.parametrize("where, error, hint", [
    ("write", errno.ENOSPC, "free some disk space"),
    ("link", errno.EROFS, "make the folder writable"),
])
def test_save_on_a_full_or_read_only_disk_answers_the_message_and_leaves_nothing(tmp_path, monkeypatch, capsys,
                                                                               where, error, hint, blind):
    # Attack: Save on a full or read-only disk ended in a traceback (and a temporary could stay behind).
    # Tests run as root, whom chmod does not stop: the fault is injected where the bytes are written or
    # linked (test_save_into_a_read_only_folder does it for real when not root).
    from rgbench.governance import write_once
    tree = tree_with_reviewers(tmp_path)
    app, _ = open_app(tree.root, "rev-b", blind=blind)
    assert app is not None
    reason = os.strerror(error)

    def fault(*args, **kwargs):
        raise OSError(error, reason)

    if where == "write":
        monkeypatch.setattr(write_once, "write_temp_beside", fault)
    else:
        monkeypatch.setattr(write_once.os, "link", fault)
    status, answer = app.save(form_of(app))
    rel = "scoring/v1.0/alpha-model/RO-MEMB-001__r2__eval-rev-b.json"
    text = f"cannot be written: {reason} ({hint}, then run again; no output was replaced)"
    # blind, neither the page nor the terminal names the file (its path names the subject): the run's handle does
    shown = f"your grade of RO-MEMB-001 run r2 (run {run_handle('rev-b', ('alpha-model', 'RO-MEMB-001', 'r2'))})"
    assert (status, answer) == (500, {"messages": [f"{shown if blind else rel}: {text}"]})
    assert capsys.readouterr().err == f"{shown if blind else rel}: {text}\n"
    assert not (tree.root / rel).exists() and leftovers(tree.root) == []
    assert app.saved == []
    monkeypatch.undo()
    assert app.save(form_of(app))[0] == 200   # the disk is back: the same form saves


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_save_into_a_read_only_folder(tmp_path):
    tree = tree_with_reviewers(tmp_path)
    app, _ = open_app(tree.root, "rev-b")
    assert app is not None
    folder = tree.root / "scoring/v1.0/alpha-model"
    folder.chmod(0o555)
    try:
        status, answer = app.save(form_of(app))
    finally:
        folder.chmod(0o755)
    assert status == 500 and answer["messages"][0].startswith("your grade of RO-MEMB-001 run r2 (run ")
    assert "): cannot be written: Permission denied (make the folder writable, then run again" in answer["messages"][0]
    assert leftovers(tree.root) == []


def test_a_save_killed_midway_leaves_a_temporary_that_blocks_nothing_and_no_pr_can_bring(tmp_path, monkeypatch):
    # Attack: kill -9 during Save left scoring/.../.<name>.<random>.tmp, and every later run (validate,
    # metrics, the page) refused the tree until it was deleted by hand.
    from rgbench.governance import write_once
    from rgbench.governance.pr_paths import unsafe_name
    tree = tree_with_reviewers(tmp_path)
    app, _ = open_app(tree.root, "rev-b")
    assert app is not None

    class Killed(BaseException):
        pass

    def killed(*args, **kwargs):
        raise Killed

    monkeypatch.setattr(write_once.os, "link", killed)
    monkeypatch.setattr(write_once.os, "unlink", lambda path: None)   # a killed process cleans nothing up
    with pytest.raises(Killed):
        app.save(form_of(app))
    monkeypatch.undo()
    left = leftovers(tree.root)
    assert len(left) == 1 and re.fullmatch(
        r"scoring/v1\.0/alpha-model/\.RO-MEMB-001__r2__eval-rev-b\.json\.[a-z0-9_]{8}\.tmp", left[0]), left
    _, loaded, problems = load(tree.root)       # validate and metrics read the tree as if it were not there
    assert loaded is not None and problems == []
    assert app.save(form_of(app))[0] == 200     # and the grade saves
    # the gate refuses a hidden name in the data folders, so no pull request brings such a file in
    assert unsafe_name(left[0]) == left[0].rsplit("/", 1)[1]


def test_a_pull_request_cannot_bring_a_temporary_name_that_readers_skip(tmp_path, capsys):
    # The other side of skipping leftovers: a contributor who force-adds one (git ignores them) to hide a grade
    # from the checks is refused by the gate, which judges every path of the pull request.
    from gitrepo import toolkit_repo

    from rgbench.cli import run_script
    repo, tree = toolkit_repo(tmp_path / "bench")
    base = repo.commit("Base")
    repo.git("checkout", "-q", "-b", "pr")
    hidden = "scoring/v1.0/alpha-model/.RO-MEMB-001__r2__eval-rev-b.json.k3j9x0_a.tmp"
    tree.write(hidden, canonical(tree.scoring_doc("alpha-model", "RO-MEMB-001", "r2", "rev-b")))
    assert repo.git("status", "--porcelain", "--", "scoring") == ""   # ignored: only `git add -f` brings it
    repo.git("add", "-f", hidden)
    repo.git("commit", "-q", "-m", "Hide a grade")
    assert run_script("paths", ["--root", str(repo.root), "--base", base]) == 1
    assert capsys.readouterr().err.splitlines()[0] == (
        f"{hidden}: name component '.RO-MEMB-001__r2__eval-rev-b.json.k3j9x0_a.tmp' uses characters outside "
        "[A-Za-z0-9._-] or starts with '.' or '-' (rename it)")


def test_two_sessions_on_one_checkout_save_one_after_the_other(tmp_path, monkeypatch):
    # Attack: two grading sessions (two terminals) on one checkout both passed the one-scoring-per-run check
    # before either wrote, and saved two first grades of one run: the tree no longer validated.
    import threading
    import time
    tree = tree_with_reviewers(tmp_path)
    sessions = [open_app(tree.root, who)[0] for who in ("rev-b", "rev-c")]
    assert all(sessions)
    real = scoring_doc.write_new_file

    def slow(path, data):
        time.sleep(0.3)   # the window in which the other session checks
        real(path, data)

    monkeypatch.setattr(scoring_doc, "write_new_file", slow)
    answers: dict[str, tuple] = {}

    def save(app):
        answers[app.reviewer.reviewer_id] = app.save(form_of(app))

    threads = [threading.Thread(target=save, args=(app,)) for app in sessions]
    threads[0].start()
    time.sleep(0.1)
    threads[1].start()
    for thread in threads:
        thread.join(10)
    assert answers["rev-b"][0] == 200
    assert answers["rev-c"] == (422, {"messages": ["this run has its grade in scoring/ by another reviewer and is not "
                                                   "assigned to you for a second grade: nothing to do here; go back "
                                                   "to the queue for the next run"]})
    assert sorted(p.name for p in (tree.root / "scoring/v1.0/alpha-model").glob("RO-MEMB-001__r2__*")) == [
        "RO-MEMB-001__r2__eval-rev-b.json"]
    _, loaded, problems = load(tree.root)
    assert loaded is not None, problems


SHARE_MESSAGE = "--share: must be a decimal number above 0 and at most 1 (e.g. 0.2: make assign SHARE=0.2), got {}\n"


@pytest.mark.parametrize("share", ["", " ", "0", "-0.2", "1.5", "1/5", "nan", "inf", "0x1", "0.2.1", "\u0661",
                                   "1e-99999999", "1e99999999", "9" * 5000])
def test_assign_parses_share_strictly_and_at_once(tmp_path, capsys, share):
    # Attack: `make assign SHARE=1e-99999999` hung (Fraction computed 10**99999999); odd values crashed.
    tree = tree_with_reviewers(tmp_path)
    assert run_script("assign", ["--root", str(tree.root), "--share", share]) == 1
    shown = share if len(share) <= 40 else share[:40] + "..."
    assert capsys.readouterr().err == SHARE_MESSAGE.format(repr(shown))
    assert not (tree.root / assignments.ASSIGNMENTS_FILE).exists()


@pytest.mark.parametrize("share, fraction", [("0.2", "1/5"), (".25", "1/4"), ("1", "1"), ("1e-1", "1/10")])
def test_assign_takes_a_decimal_share(tmp_path, share, fraction):
    tree = tree_with_reviewers(tmp_path)
    assert run_script("assign", ["--root", str(tree.root), "--share", share]) == 0
    assert json.loads((tree.root / assignments.ASSIGNMENTS_FILE).read_text())["share"] == fraction


def test_assign_on_a_full_or_read_only_disk_says_so_and_keeps_the_old_file(tmp_path, monkeypatch, capsys):
    # Attack: `make assign` ended in a traceback on a full or read-only disk.
    from rgbench import atomic
    tree = tree_with_reviewers(tmp_path)
    assert run_script("assign", ["--root", str(tree.root), "--share", "1"]) == 0
    before = (tree.root / assignments.ASSIGNMENTS_FILE).read_bytes()
    capsys.readouterr()
    for error, hint in ((errno.ENOSPC, "free some disk space"), (errno.EROFS, "make the folder writable")):
        def fault(*args, error=error, **kwargs):
            raise OSError(error, os.strerror(error))

        monkeypatch.setattr(atomic, "write_temp_beside", fault)
        assert run_script("assign", ["--root", str(tree.root), "--share", "0.5"]) == 1
        assert capsys.readouterr().err == (
            f"{assignments.ASSIGNMENTS_FILE}: cannot be written: {os.strerror(error)} ({hint}, then run again; no output "
            "was replaced)\n1 problem(s) found; nothing was written.\n")
    assert (tree.root / assignments.ASSIGNMENTS_FILE).read_bytes() == before
    assert leftovers(tree.root) == []


@pytest.fixture
def served(tmp_path):
    """A grading session of rev-b on a small tree, served on 127.0.0.1 (a short idle timeout); (app, server)."""
    import threading

    from rgbench.review.server import make_server
    tree = tree_with_reviewers(tmp_path)
    app, _ = open_app(tree.root, "rev-b")
    assert app is not None
    server = make_server(app, timeout=0.5)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    yield app, server
    server.shutdown()
    server.server_close()


def post(app, server, body: bytes, headers: dict[str, str] | None = None, path: str = "/api/validate"):
    """(status, decoded JSON answer) of a raw POST with the page's headers (``headers`` override or add)."""
    import http.client
    port = server.server_address[1]
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.putrequest("POST", f"{path}?token={app.token}", skip_accept_encoding=True)
        sent = {"Host": f"127.0.0.1:{port}", "Content-Type": "application/json", "X-CSRF-Token": app.csrf,
                "Content-Length": str(len(body))}
        sent.update(headers or {})
        for name, value in sent.items():
            for one in value if isinstance(value, list) else [value]:
                connection.putheader(name, one)
        connection.endheaders(body)
        answer = connection.getresponse()
        return answer.status, json.loads(answer.read())
    finally:
        connection.close()


@pytest.mark.parametrize("body, headers, status, message", [
    (b"not json", {}, 400, "request body: invalid JSON at line 1 column 1: Expecting value"),
    (b"\xff\xfe{}", {}, 400, "request body: invalid UTF-8 at byte 0 (save the file as UTF-8)"),
    (b'{"handle": NaN}', {}, 400, "request body: invalid JSON: NaN is not a JSON number (use a finite number)"),
    (b'{"a": 1, "a": 2}', {}, 400, "request body: invalid JSON: duplicate key 'a' (keep only one)"),
    (b"[" * 100_000 + b"]" * 100_000, {}, 400, "request body: invalid JSON: nested too deeply"),
    (b"[1]", {}, 400, "request body: expected a JSON object (the page's form)"),
    (b'{"handle": 5}', {}, 400, "request body: $.handle: expected the run's handle as text (open the run from the "
                                "queue page)"),
    (b'{"handle": "h", "fails": 5}', {}, 400, "request body: $.fails: expected a list of {code, evidence} with "
                                              "text in both"),
    (b'{"handle": "h", "fails": [{"code": "AF-X", "evidence": 3}]}', {}, 400,
     "request body: $.fails: expected a list of {code, evidence} with text in both"),
    (b'{"handle": "h", "criterion_scores": [1, 2]}', {}, 400,
     "request body: $.criterion_scores: expected an object of criterion -> score"),
    (b'{"handle": "h", "filters": {}}', {}, 400, "request body: $.filters: expected the queue's filters as text"),
    (b"{}", {"Content-Length": "abc"}, 400, "Content-Length: expected one byte count"),
    (b"{}", {"Content-Length": "-2"}, 400, "Content-Length: expected one byte count"),
    (b"{}", {"Content-Length": "9" * 40}, 400, "Content-Length: expected one byte count"),
    (b"{}", {"Content-Length": ["2", "2"]}, 400, "Content-Length: expected one byte count"),
    (b"", {}, 400, "request body missing: send the form as JSON"),
    (b"{}", {"Content-Length": str(2 << 20)}, 413, f"request body too large ({2 << 20} bytes; at most {1 << 20})"),
    (b"2\r\n{}\r\n0\r\n\r\n", {"Transfer-Encoding": "chunked"}, 400,
     "Transfer-Encoding: not accepted (send the JSON body with a Content-Length)"),
])
def test_a_malformed_request_body_gets_400_and_a_message(served, capsys, body, headers, status, message):
    # Attack: non-JSON, wrong types, a bad Content-Length, non-UTF-8 or a deep body gave a traceback in the
    # server (and no answer); a Content-Length longer than the body held the connection for ever.
    app, server = served
    assert post(app, server, body, headers) == (status, {"messages": [message]})
    assert capsys.readouterr().err == ""   # neither a traceback nor a dropped request
    assert post(app, server, body, headers, path="/api/save")[0] == status
    assert app.saved == [] and leftovers(app.root) == []


def test_a_request_without_content_length_gets_411(served):
    import http.client
    app, server = served
    port = server.server_address[1]
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.putrequest("POST", f"/api/validate?token={app.token}", skip_accept_encoding=True)
    for name, value in (("Host", f"127.0.0.1:{port}"), ("Content-Type", "application/json"),
                        ("X-CSRF-Token", app.csrf)):
        connection.putheader(name, value)
    connection.endheaders()
    answer = connection.getresponse()
    assert (answer.status, json.loads(answer.read())) == (411, {"messages": [
        "request body missing: send the form as JSON with a Content-Length"]})
    connection.close()


def test_random_request_bodies_never_break_the_server(served, capsys):
    # A fuzz of JSON values and raw bytes on both endpoints: every answer is 200 (validate), 422 (save:
    # not in the queue) or 400, always JSON messages, never a traceback.
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    app, server = served
    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
    values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.text(max_size=8), inner, max_size=4), max_leaves=20)
    handle = st.sampled_from([run.handle for run in app.queue()]) | st.text(max_size=16)
    forms = st.fixed_dictionaries({"handle": handle}, optional={
        "criterion_scores": st.dictionaries(st.sampled_from(sorted(ALL_ONES)), values, max_size=6) | values,
        "correctness": values, "fails": st.lists(st.fixed_dictionaries(
            {"code": st.text(max_size=20) | values}, optional={"evidence": values}), max_size=3) | values,
        "comments": values, "filters": values})
    bodies = forms.map(lambda form: json.dumps(form).encode()) | st.binary(max_size=200)

    @settings(max_examples=40, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
    @given(body=bodies, path=st.sampled_from(["/api/validate", "/api/save"]))
    def check(body, path):
        status, answer = post(app, server, body, path=path)
        assert status in ((200, 400) if path == "/api/validate" else (200, 400, 422)), (status, answer)
        assert set(answer) <= {"messages", "saved", "next"} and all(isinstance(m, str) for m in answer.get("messages", []))

    check()
    err = capsys.readouterr().err   # a form that happens to be valid prints "saved ...": nothing else
    assert all(line.startswith("saved scoring/") for line in err.splitlines()), err


def raw_exchange(server, request: bytes, half_close: bool) -> bytes:
    """What the server sends back on a raw connection (until it closes it) after ``request``."""
    import socket
    with socket.create_connection(("127.0.0.1", server.server_address[1]), timeout=10) as client:
        client.sendall(request)
        if half_close:
            client.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := client.recv(65536):
            chunks.append(chunk)
        return b"".join(chunks)


def test_a_body_shorter_than_its_content_length_is_refused_or_dropped(served):
    app, server = served
    port = server.server_address[1]
    request = (f"POST /api/validate?token={app.token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: "
               f"application/json\r\nX-CSRF-Token: {app.csrf}\r\nContent-Length: 3\r\n\r\n{{}}").encode()
    answer = raw_exchange(server, request, half_close=True)   # the client is done: 400
    assert answer.startswith(b"HTTP/1.0 400 ") and answer.endswith(
        b'{"messages": ["request body: 2 bytes, shorter than its Content-Length"]}')
    assert raw_exchange(server, request, half_close=False) == b""   # the client waits: dropped after the timeout


def test_an_idle_connection_is_dropped(served):
    # Attack: a connection that sends nothing (or half a request) was held open for ever, a thread each.
    import socket
    import time
    app, server = served
    with socket.create_connection(("127.0.0.1", server.server_address[1]), timeout=10) as client:
        client.sendall(b"POST /api/validate?token=" + app.token.encode() + b" HTTP/1.1\r\n")   # and then silence
        started = time.monotonic()
        assert client.recv(1024) == b""   # closed by the server, not by our 10 s timeout
        assert time.monotonic() - started < 5

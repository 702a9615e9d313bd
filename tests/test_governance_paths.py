"""check_pr_paths.py: the pre-flight refusals, judged from git objects before any file is read."""

from __future__ import annotations

import json
import os

import pytest
from gitrepo import GitRepo, toolkit_repo

from rgbench.cli import run_script
from rgbench.governance.gitio import Change, dirty_paths
from rgbench.governance.pr_paths import check_changes, readme_is_regenerated, registry_additions, unsafe_name

NEW = "scoring/v1.0/alpha-model/RO-MEMB-001__r2__eval-rev-b.json"
UNCHECKED = "; authorship not checked (no --author)"   # no --author here: test_governance_authorship.py's


@pytest.fixture
def bench(tmp_path):
    repo, tree = toolkit_repo(tmp_path / "bench")
    base = repo.commit("Base")
    repo.git("checkout", "-q", "-b", "pr")
    return repo, tree, base


def check(repo, base, capsys, *extra) -> tuple[int, list[str], str]:
    status = run_script("paths", ["--root", str(repo.root), "--base", base, *extra])
    captured = capsys.readouterr()
    return status, captured.err.splitlines(), captured.out


def test_a_reviewers_data_change_passes(bench, capsys):
    repo, tree, base = bench
    tree.add_scoring("alpha-model", "RO-MEMB-001", "r2", "rev-b")
    (repo.root / "results").mkdir(exist_ok=True)
    (repo.root / "results/per_run.csv").write_text("x\n")
    repo.commit("Grade")
    status, err, out = check(repo, base, capsys)
    assert (status, err, out) == (0, [], f"paths: 2 changed file(s) checked; this change needs the role: reviewer{UNCHECKED}\n")


def test_symlinks_and_submodules_are_refused_without_being_read(bench, capsys):
    repo, tree, base = bench
    link = repo.root / "scoring/v1.0/alpha-model/RO-MEMB-001__r2__eval-rev-b.json"
    os.symlink("/etc/shadow-that-must-never-be-read", link)
    repo.git("add", "-A")
    commit = repo.commit("A link")
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{commit},responses/v1.0/vendor")
    repo.day += 1
    repo.git("commit", "-q", "-m", "A submodule")
    status, err, out = check(repo, base, capsys)
    assert status == 1
    err = [line for line in err if not line.startswith("note: ")]  # the gitlink has no folder on disk
    assert err[:2] == [
        "responses/v1.0/vendor: is a submodule (git mode 160000); submodules are refused in a pull request (remove it "
        "with `git rm`, and commit its files themselves if they are needed)",
        f"{NEW}: is a symbolic link (git mode 120000); links are refused in a pull request (commit the file itself: "
        "`git rm --cached` the link, copy the file there)",
    ]
    assert err[2] == (f"2 path problem(s) in 2 changed file(s); this change needs the role: reviewer{UNCHECKED}; "
                      "nothing else was read")


MAINTAINERS = ("a maintainer's change; a contributor's pull request either adds scorings (a review) or "
               "adds one subject's responses and its registry entry (a submission), with the regenerated results "
               "(ask a maintainer to make this change)")


def test_paths_outside_the_data_folders_unsafe_names_and_large_files(bench, capsys):
    repo, tree, base = bench
    (repo.root / "scripts/validate.py").write_text("print('a weaker judge')\n")
    (repo.root / ".github").mkdir()
    (repo.root / ".github/evil.yml").write_text("x: 1\n")
    tree.write("responses/v1.0/alpha-model/-rf.json", "{}\n")
    tree.write("scoring/v1.0/alpha-model/big.json", "x" * 2000)
    tree.write("results/per_run.csv", "x" * 2000)    # generated results grow with the board: their own limit
    repo.commit("Many things")
    status, err, out = check(repo, base, capsys, "--max-bytes", "1000")
    assert status == 1
    assert err == [
        f".github/evil.yml: changes the workflows or repository settings (.github/): {MAINTAINERS}",
        "responses/v1.0/alpha-model/-rf.json: name component '-rf.json' uses characters outside [A-Za-z0-9._-] or "
        "starts with '.' or '-' (rename it)",
        "scoring/v1.0/alpha-model/big.json: is 2000 bytes, above the limit of 1000 (is it the right file?)",
        f"scripts/validate.py: changes the code (scripts/): {MAINTAINERS}",
        "4 path problem(s) in 5 changed file(s); this change needs the role: maintainer" + UNCHECKED + "; nothing else was read",
    ]   # results/per_run.csv (2000 bytes) is not among them: it is under MAX_RESULT_BYTES
    # A maintainer's pull request may change code: those become notices (GitHub format shown here).
    status, err, out = check(repo, base, capsys, "--max-bytes", "1000", "--maintainer", "--format", "github")
    assert status == 1
    assert out.splitlines()[0] == ("::notice file=.github/evil.yml,line=1::changes the workflows or repository settings "
                                   f"(.github/): {MAINTAINERS}")
    assert len([line for line in out.splitlines() if line.startswith("::error ")]) == 2


def test_the_human_draws_have_their_own_size_limit():
    # subjects/human_draws.json grows with runs x draws: a maintainer's 5 MB of draws passes the gate's 1 MB default,
    # 70 MB does not (DRAWS_MAX_BYTES, the loader's limit of the file)
    from rgbench.governance.pr_paths import check_changes
    from rgbench.load.draws import DRAWS_FILE, DRAWS_MAX_BYTES
    def errors(size: int) -> list[str]:
        change = Change("M", DRAWS_FILE, DRAWS_FILE, "100644", "b" * 40)
        found, _, _ = check_changes([change], {"b" * 40: size}, maintainer=True)
        return [p.message for p in found]
    assert errors(5_000_000) == []
    assert errors(70_000_000) == [f"is 70000000 bytes, above the limit of {DRAWS_MAX_BYTES} (is it the right file?)"]


def test_only_the_pull_requests_own_changes_count(bench, capsys):
    # The base moving on (a maintainer's code change) does not blame the pull request.
    repo, tree, base = bench
    tree.add_scoring("alpha-model", "RO-MEMB-001", "r2", "rev-b")
    repo.commit("Grade")
    repo.git("checkout", "-q", "main")
    (repo.root / "scripts/NOTE.txt").write_text("maintainers' change\n")
    main = repo.commit("Code on main")
    repo.git("checkout", "-q", "pr")
    status, err, out = check(repo, main, capsys)
    assert status == 0, err


def test_unknown_base(bench, capsys):
    repo, tree, base = bench
    status, err, out = check(repo, "nope", capsys)
    assert status == 1 and err[0].startswith("--base: 'nope' is not a commit")


def test_rules_on_raw_changes():
    def change(status, path, mode="100644", old_path=None):
        return Change(status, path, old_path or path, mode, "b" * 40)

    errors, notices, role = check_changes([change("D", "scripts/x.py")], {}, maintainer=True)
    assert errors == [] and [p.path for p in notices] == ["scripts/x.py"] and role == "maintainer"
    errors, _, role = check_changes([change("R", "scoring/v1.0/a/x.json", old_path="scripts/x.py")], {})
    assert [p.path for p in errors] == ["scoring/v1.0/a/x.json"] and "renames scripts/x.py (a removal)" in errors[0].message
    errors, _, _ = check_changes([change("M", "results/per_run.csv", mode="120000")], {})
    assert "symbolic link" in errors[0].message
    assert unsafe_name("scoring/v1.0/a/.gitkeep") is None and unsafe_name("scoring/v1.0/a b/x.json") == "a b"
    assert unsafe_name("golds/v1.0/caf\u00e9.md") == "caf\u00e9.md"


# --- roles: what a contributor's pull request may do, and the role the rest needs -------------

def test_a_submission_of_one_subject_passes_and_names_its_role(bench, capsys):
    repo, tree, base = bench
    tree.add_subject("gamma-model", "1.0")
    tree.add_response("gamma-model", "RO-FOUL-001", "r1", 40)
    tree.add_response("gamma-model", "RO-SCAL-001", "r1", 60)
    repo.commit("Submit gamma-model")
    status, err, out = check(repo, base, capsys)
    assert (status, err, out) == (0, [], f"paths: 3 changed file(s) checked; this change needs the role: submission{UNCHECKED}\n")


def test_a_submission_of_two_subjects_or_mixed_with_a_review_is_refused(bench, capsys):
    repo, tree, base = bench
    tree.add_subject("gamma-model", "1.0")
    tree.add_subject("delta-model", "1.0")
    tree.add_response("gamma-model", "RO-FOUL-001", "r1", 40)
    repo.commit("Submit two")
    status, err, _ = check(repo, base, capsys)
    assert status == 1
    assert err[0] == ("subjects/registry.yaml: a submission adds one subject; this pull request adds delta-model, "
                      "gamma-model (open one pull request per subject)")
    repo.git("reset", "-q", "--hard", base)
    tree.add_response("alpha-model", "RO-SCAL-001", "r2", 40)
    tree.add_scoring("alpha-model", "RO-MEMB-001", "r2", "rev-b")
    repo.commit("Submit and grade")
    status, err, _ = check(repo, base, capsys)
    assert status == 1
    assert err[0] == ("responses/v1.0/alpha-model/RO-SCAL-001__r2.json: this pull request mixes a submission "
                      "(1 file(s)) with a review (1 scoring(s)); open them as two pull requests (a subject is graded "
                      "after its submission is merged)")


@pytest.mark.parametrize("change, path, what", [
    ("gold", "golds/v1.0/RO-FOUL-001_gold.md", "changes a gold (a case)"),
    ("system", "system/metrics/v1.0/config.yaml", "changes the benchmark's definition (system/)"),
    ("workflow", ".github/workflows/review.yml", "changes the workflows or repository settings (.github/)"),
    ("snapshot", "results/historico/2025-12-01/per_run.csv",
     "adds a snapshot (results/historico/, taken by `make snapshot`)"),
    ("removal", "scoring/v1.0/alpha-model/RO-FOUL-001__r1__eval-rev-a.json", "deletes a file (a removal)"),
    ("response", "responses/v1.0/alpha-model/RO-FOUL-001__r1.json", "changes a response that may already be graded"),
    ("registry", "subjects/registry.yaml", "changes registry entries or their history"),
    ("results-readme", "results/README.md", "changes the hand-written documentation of results/"),
    ("readme", "README.md", "changes README.md beyond the regenerated leaderboard block (equal to results/leaderboard.md)"),
])
def test_what_needs_a_maintainer_is_named_with_its_role(bench, capsys, change, path, what):
    repo, tree, base = bench
    target = repo.root / path
    if change == "removal":
        target.unlink()
    elif change == "registry":
        tree.subjects[1]["history"] = [{"subject_version": "1.0", "status": "retired"}]
        tree.write_registry()
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text((target.read_text() if target.exists() else "") + "\n")
    repo.commit(f"A {change} change")
    status, err, _ = check(repo, base, capsys)
    assert status == 1
    assert err == [f"{path}: {what}: {MAINTAINERS}",
                   f"1 path problem(s) in 1 changed file(s); this change needs the role: maintainer{UNCHECKED}; "
                   "nothing else was read"]
    status, err, out = check(repo, base, capsys, "--maintainer")
    assert status == 0 and err == [f"{path}: {what}: {MAINTAINERS} (allowed: a maintainer's pull request)"]
    assert out == "paths: 1 changed file(s) checked; this change needs the role: maintainer" + UNCHECKED + "\n"


@pytest.mark.slow   # end to end: make test-slow (CI runs it)
def test_attack_a_reviewers_pull_request_that_edits_readme_prose_is_refused(tmp_path, capsys):
    # `make metrics` rewrites README's leaderboard block: that change, exactly, is the reviewer's to commit.
    # Anything more (here a sentence slipped in beside the regenerated block) needs a maintainer.
    from gitrepo import regenerate  # the steps of `make metrics`, README's block included

    repo, tree = toolkit_repo(tmp_path / "bench")
    regenerate(repo.root)
    base = repo.commit("Base with results")
    tree.add_scoring("alpha-model", "RO-MEMB-001", "r2", "rev-b", raw=4, correctness=0)
    regenerate(repo.root)
    readme = repo.root / "README.md"
    repo.commit("Grade, with the regenerated README block")
    status, err, out = check(repo, base, capsys)
    assert status == 0, err
    assert repo.git("diff", "--name-only", base, "HEAD").split().count("README.md") == 1
    readme.write_text(readme.read_text().replace("## Leaderboard", "## Leaderboard\n\nAlpha is the best model.", 1))
    repo.commit("A word about alpha")
    status, err, _ = check(repo, base, capsys)
    assert status == 1
    assert err[0] == ("README.md: changes README.md beyond the regenerated leaderboard block (equal to "
                      f"results/leaderboard.md): {MAINTAINERS}")


def test_readme_and_registry_rules_on_bytes():
    readme = b"# B\n<!-- leaderboard:start -->\nold\n<!-- leaderboard:end -->\ntail\n"
    assert readme_is_regenerated(readme, readme.replace(b"old", b"| new |"), b"| new |\n")
    assert not readme_is_regenerated(readme, readme.replace(b"old", b"| new |"), b"| other |\n")
    assert not readme_is_regenerated(readme, readme.replace(b"old", b"| new |").replace(b"tail", b"prose"), b"| new |\n")
    assert not readme_is_regenerated(b"# no markers\n", b"# no markers, more\n", b"| new |\n")
    assert not readme_is_regenerated(readme, readme, None)  # no leaderboard.md at HEAD
    old = b'subjects:\n  - subject_id: "a"\n    subject_version: "1"\n'
    added = old + b'  - subject_id: "b"\n    subject_version: "1"\n'
    assert registry_additions(old, added) == {"b"}
    assert registry_additions(old, old.replace(b'"1"', b'"2"')) is None  # an existing entry changed
    assert registry_additions(added, old) is None  # an entry removed
    assert registry_additions(old, added + b"    history: []\n") is None  # a new entry with history
    assert registry_additions(old, b"subjects: [\n") == set()  # unparsable: validate.py names it


@pytest.mark.parametrize("path", ["scoring/v1.1/alpha-model/RO-MEMB-001__r2__eval-rev-b.json", "scoring/X.json",
                                  "golds/RO-FOUL-001_gold.md", "subjects/registry.yml", "golds/drafts/blob"])
def test_attack_a_misplaced_input_is_refused_by_the_pre_flight(bench, capsys, path):
    # Every path in an input folder is an input or refused (issue 12, item 6): the pre-flight says so before
    # validate runs, and names the layout, so a reviewer's misplaced grade does not count for nothing silently.
    repo, tree, base = bench
    (repo.root / path).parent.mkdir(parents=True, exist_ok=True)
    (repo.root / path).write_text("{}\n")
    repo.commit("Misplaced")
    status, err, _ = check(repo, base, capsys, "--maintainer")
    assert status == 1
    assert any(line.startswith(f"{path}: not where an input goes (") and "count for nothing" in line for line in err), err


def test_a_misplaced_input_gets_one_true_message_not_a_maintainers_role(bench, capsys):
    # scoring/ is a data folder: "is outside the data folders ... ask a maintainer" was untrue, and no role
    # can add a file where no step reads it; the layout message alone says what to do.
    repo, tree, base = bench
    tree.write("scoring/notes.txt", "my notes\n")
    repo.commit("Notes")
    status, err, _ = check(repo, base, capsys)
    assert (status, err) == (1, [
        "scoring/notes.txt: not where an input goes (scoring/v1.0/<subject_id>/<file>.json), so no step would "
        "read it and it would count for nothing (move it there or remove it)",
        "1 path problem(s) in 1 changed file(s); this change needs the role: reviewer" + UNCHECKED + "; nothing else was read"])


def test_layout_problem_accepts_every_input_and_gitkeep():
    from rgbench.governance.pr_paths import layout_problem
    for path in ("responses/v1.0/a/RO-FOUL-001__r1.json", "scoring/v1.0/a/RO-FOUL-001__r1__eval-x.json",
                 "scoring_multi/v1.0/a/RO-FOUL-001__r1__adjudication-x.json", "golds/v1.0/RO-FOUL-001_gold.md",
                 "subjects/registry.yaml", "subjects/reviewers.yaml", "subjects/second_reviews.json",
                 "subjects/human_draws.json", "golds/v1.0/.gitkeep", "results/per_run.csv", "README.md"):
        assert layout_problem(path, "v1.0") is None, path
    assert layout_problem("responses/v1.0/a/b/c.json", "v1.0") is not None


def test_attack_a_contributor_edits_a_committed_grade(bench, capsys):
    # Nothing maps a pull request's author to a reviewer id, so a grade on the base branch (maybe another
    # reviewer's) is changed only by a maintainer; before, it passed every step as a reviewer's change.
    repo, tree, base = bench
    rel = "scoring/v1.0/alpha-model/RO-FOUL-001__r1__eval-rev-a.json"
    (repo.root / rel).write_text((repo.root / rel).read_text().replace('"correctness": 1', '"correctness": 0'))
    repo.commit("Lower a rival's grade")
    status, err, _ = check(repo, base, capsys)
    assert (status, err) == (1, [
        f"{rel}: changes a committed grade (it may be another reviewer's): {MAINTAINERS}",
        "1 path problem(s) in 1 changed file(s); this change needs the role: maintainer" + UNCHECKED + "; nothing else was read"])
    status, _, out = check(repo, base, capsys, "--maintainer")
    assert status == 0 and out.endswith("this change needs the role: maintainer" + UNCHECKED + "\n")


def test_the_reviewers_file_and_the_assignments_are_a_maintainers_and_named_as_such(bench, capsys):
    # They are no registry entries: the message said "changes registry entries or their history".
    repo, tree, base = bench
    tree.write("subjects/reviewers.yaml", "reviewers:\n  - id: rev-eve\n    name: \"Eve\"\n    kind: human\n")
    tree.write("subjects/second_reviews.json", '{"assignments": []}\n')
    tree.write("subjects/human_draws.json", '{"draws": [], "judge": "j"}\n')   # nor are the human draws
    repo.commit("Register myself")
    status, err, _ = check(repo, base, capsys)
    assert (status, err[:3]) == (1, [
        "subjects/human_draws.json: changes the human draws (subjects/human_draws.json, written by `make draw`): "
        f"{MAINTAINERS}",
        f"subjects/reviewers.yaml: changes who may grade (subjects/reviewers.yaml): {MAINTAINERS}",
        "subjects/second_reviews.json: changes the planned second grades (subjects/second_reviews.json, written by "
        f"`make assign`): {MAINTAINERS}"])


def test_attack_a_pull_request_that_edits_an_earlier_human_draw_is_refused_even_for_a_maintainer(bench, capsys):
    # A draw fixes which runs count before anyone sees their grades: a pull request may only append draws.
    repo, tree, _ = bench
    run = {"subject_id": "alpha-model", "case_id": "RO-MEMB-001", "run_id": "r1", "probability": "1/2"}
    draw = {"design": "stratified", "draw": 1, "seed": 0, "stratified_by": ["subject_id", "judge_grade"], "runs": [run]}
    document = {"draws": [draw], "judge": "j"}
    tree.write("subjects/human_draws.json", json.dumps(document, indent=2))
    base = repo.commit("Draw 1")
    tree.write("subjects/human_draws.json", json.dumps({**document, "draws": [draw, {**draw, "draw": 2}]}))
    repo.commit("Draw 2, re-indented")   # appended (the bytes of draw 1 differ, the parsed draw does not)
    status, err, _ = check(repo, base, capsys, "--maintainer")
    assert status == 0 and len(err) == 1 and "changes the human draws" in err[0]
    fix = ("a pull request only appends draws: restore the base's, git checkout <base> -- subjects/human_draws.json, "
           "then rgbench assign")
    # who grades a drawn run is not which runs count: a maintainer may rename it (rgbench assign --reassign)
    named = {**document, "draws": [{**draw, "runs": [{**run, "reviewer_id": "rev-b"}]}]}
    tree.write("subjects/human_draws.json", json.dumps(named))
    repo.commit("Draw 1's run to rev-b")
    status, err, _ = check(repo, base, capsys, "--maintainer")
    assert status == 0 and len(err) == 1 and "changes the human draws" in err[0]
    for edited, what in (([{**draw, "runs": [{**run, "run_id": "r2"}]}], "draw 1 of the base is changed"),
                         ([{**draw, "runs": [{**run, "reviewer_id": "rev-b", "probability": "1/3"}]}],
                          "draw 1 of the base is changed"),
                         ([], "draw 1 of the base is removed"),
                         ([draw, {**draw, "draw": 3}], "the new draw at position 2 is not numbered 2")):
        tree.write("subjects/human_draws.json", json.dumps({**document, "draws": edited}))
        repo.commit(what)
        status, err, _ = check(repo, base, capsys, "--maintainer")
        assert status == 1 and f"subjects/human_draws.json: {what} ({fix})" in err
    tree.write("subjects/human_draws.json", json.dumps({**document, "judge": "k"}))
    repo.commit("Another judge")
    status, err, _ = check(repo, base, capsys, "--maintainer")
    assert status == 1 and f"subjects/human_draws.json: the judge of the base's draws changed ({fix})" in err
    (repo.root / "subjects/human_draws.json").unlink()
    repo.commit("No draws")
    status, err, _ = check(repo, base, capsys, "--maintainer")
    assert status == 1 and f"subjects/human_draws.json: draw 1 of the base is removed ({fix})" in err


def test_attack_draws_above_their_size_limit_are_refused_by_size_and_never_read(bench, capsys, monkeypatch):
    # a hostile pull request's huge human_draws.json: the gate refuses it by the blob's size and never loads the blob
    # to compare its draws (the limit lowered to 100 bytes here, in the gate and in the pre-flight that reads blobs)
    import rgbench.commands.paths as paths_command
    import rgbench.governance.pr_paths as pr_paths
    repo, tree, _ = bench
    tree.write("subjects/human_draws.json", '{"draws": [], "judge": "j"}\n')
    base = repo.commit("No draw yet")
    tree.write("subjects/human_draws.json", json.dumps({"draws": [], "judge": "j", "pad": "x" * 200}))
    repo.commit("A large draws file")
    for module in (paths_command, pr_paths):
        monkeypatch.setattr(module, "DRAWS_MAX_BYTES", 100)
    def never(*_):
        raise AssertionError("the draws blob was read")
    monkeypatch.setattr(paths_command, "draws_appended", never)
    status, err, _ = check(repo, base, capsys, "--maintainer", "--max-bytes", "50")
    assert status == 1
    assert "subjects/human_draws.json: is 238 bytes, above the limit of 100 (is it the right file?)" in err


def test_uncommitted_files_are_named_not_silently_passed(bench, capsys):
    # A reviewer running `make paths` before committing got "0 changed file(s) checked" and a pass.
    repo, tree, base = bench
    tree.add_scoring("alpha-model", "RO-MEMB-001", "r2", "rev-b")
    status, err, out = check(repo, base, capsys)
    assert (status, out) == (0, "paths: 0 changed file(s) checked; this change needs the role: reviewer" + UNCHECKED + "\n")
    assert err == [f"note: 1 uncommitted file(s) not checked, e.g. {NEW}: the pre-flight reads commits (commit them, "
                   "then run it again)"]
    repo.commit("Grade")
    status, err, out = check(repo, base, capsys)
    assert (status, err) == (0, [])


def test_dirty_paths_of_a_tree_in_a_subfolder_of_its_repository(tmp_path):
    # git reads pathspecs from the folder it runs in (the tree), but the tree's prefix was added to them: a tree
    # at sub/ was asked about sub/sub/scoring and reported nothing dirty (the pre-flight's note, snapshot's refusal).
    repo = GitRepo(tmp_path / "repo")
    for rel in ("sub/scoring/a.json", "sub/responses/b.json", "scoring/outside.json"):
        (repo.root / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo.root / rel).write_text("{}\n")
    repo.commit("Base")
    for rel in ("sub/scoring/a.json", "sub/scoring/new.json", "sub/responses/b.json", "scoring/outside.json"):
        (repo.root / rel).write_text("{\"x\": 1}\n")
    assert dirty_paths(repo.root / "sub", ("scoring",)) == ["scoring/a.json", "scoring/new.json"]
    assert dirty_paths(repo.root, ("scoring",)) == ["scoring/outside.json"]

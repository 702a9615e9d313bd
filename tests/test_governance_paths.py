"""check_pr_paths.py: the pre-flight refusals, judged from git objects before any file is read."""

from __future__ import annotations

import os

import check_pr_paths
import pytest
from gitrepo import toolkit_repo

from rgbench.governance.gitio import Change
from rgbench.governance.pr_paths import check_changes, unsafe_name

NEW = "scoring/v1.0/alpha-model/RO-MEMB-001__r2__eval-rev-b.json"


@pytest.fixture
def bench(tmp_path):
    repo, tree = toolkit_repo(tmp_path / "bench")
    base = repo.commit("Base")
    repo.git("checkout", "-q", "-b", "pr")
    return repo, tree, base


def check(repo, base, capsys, *extra) -> tuple[int, list[str], str]:
    status = check_pr_paths.main(["--root", str(repo.root), "--base", base, *extra])
    captured = capsys.readouterr()
    return status, captured.err.splitlines(), captured.out


def test_a_reviewers_data_change_passes(bench, capsys):
    repo, tree, base = bench
    tree.add_scoring("alpha-model", "RO-MEMB-001", "r2", "rev-b")
    (repo.root / "results").mkdir(exist_ok=True)
    (repo.root / "results/per_run.csv").write_text("x\n")
    repo.commit("Grade")
    status, err, out = check(repo, base, capsys)
    assert (status, err, out) == (0, [], "paths: 2 changed file(s) checked\n")


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
    assert err[:2] == [
        "responses/v1.0/vendor: is a submodule (git mode 160000); submodules are refused in a pull request",
        f"{NEW}: is a symbolic link (git mode 120000); links are refused in a pull request",
    ]
    assert err[2] == "2 path problem(s) in 2 changed file(s); nothing else was read"


def test_paths_outside_the_data_folders_unsafe_names_and_large_files(bench, capsys):
    repo, tree, base = bench
    (repo.root / "scripts/validate.py").write_text("print('a weaker judge')\n")
    (repo.root / ".github").mkdir()
    (repo.root / ".github/evil.yml").write_text("x: 1\n")
    tree.write("responses/v1.0/alpha-model/-rf.json", "{}\n")
    tree.write("scoring/v1.0/alpha-model/big.json", "x" * 2000)
    repo.commit("Many things")
    status, err, out = check(repo, base, capsys, "--max-bytes", "1000")
    assert status == 1
    assert err[:-1] == [
        ".github/evil.yml: is outside the data folders (responses/, scoring/, scoring_multi/, scoring_consolidated/, "
        "golds/, subjects/, results/); a reviewer's pull request changes data only",
        "responses/v1.0/alpha-model/-rf.json: name component '-rf.json' uses characters outside [A-Za-z0-9._-] or "
        "starts with '.' or '-' (rename it)",
        "scoring/v1.0/alpha-model/big.json: is 2000 bytes, above the limit of 1000 (is it the right file?)",
        "scripts/validate.py: is outside the data folders (responses/, scoring/, scoring_multi/, scoring_consolidated/, "
        "golds/, subjects/, results/); a reviewer's pull request changes data only",
    ]
    # A maintainer's pull request may change code: those become notices (GitHub format shown here).
    status, err, out = check(repo, base, capsys, "--max-bytes", "1000", "--allow-outside-data", "--format", "github")
    assert status == 1
    assert out.splitlines()[0] == ("::notice file=.github/evil.yml,line=1::is outside the data folders (responses/, "
                                   "scoring/, scoring_multi/, scoring_consolidated/, golds/, subjects/, results/); "
                                   "a reviewer's pull request changes data only")
    assert len([line for line in out.splitlines() if line.startswith("::error ")]) == 2


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
        return Change(status, path, old_path or path, "100644", mode, "b" * 40)

    errors, notices = check_changes([change("D", "scripts/x.py")], {}, allow_outside=True)
    assert errors == [] and [p.path for p in notices] == ["scripts/x.py"]  # deleting code is outside data too
    errors, _ = check_changes([change("R", "scoring/v1.0/a/x.json", old_path="scripts/x.py")], {})
    assert [p.path for p in errors] == ["scripts/x.py"]  # moving a file out of the judge's folder
    errors, _ = check_changes([change("M", "results/per_run.csv", mode="120000")], {})
    assert "symbolic link" in errors[0].message
    assert unsafe_name("scoring/v1.0/a/.gitkeep") is None and unsafe_name("scoring/v1.0/a b/x.json") == "a b"
    assert unsafe_name("golds/v1.0/caf\u00e9.md") == "caf\u00e9.md"

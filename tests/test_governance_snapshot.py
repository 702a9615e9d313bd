"""Dated snapshots in results/historico/, a new subject version's clean record, and history.py."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re

import pytest
from gitrepo import GitRepo, regenerate, toolkit_repo
from treebuilder import canonical

from rgbench.cli import run_script
from rgbench.governance.snapshot import differing_files, parse_date

DATE = "2025-12-01"
FOLDER = f"results/historico/{DATE}"
CORE_FILES = ("manifest.json", "metrics_per_family.csv", "metrics_per_subject.csv", "per_run.csv")


def result_files(repo: GitRepo) -> list[str]:
    """Every generated file of results/ (the core four and whatever later steps add)."""
    return sorted(p.name for p in (repo.root / "results").iterdir() if p.is_file() and p.name != "README.md")


def take(repo: GitRepo, date: str = DATE) -> int:
    return run_script("snapshot", ["--root", str(repo.root), "--date", date])


def folder_bytes(repo: GitRepo, rel: str) -> dict[str, bytes]:
    base = repo.root / rel
    return {str(p.relative_to(base)): p.read_bytes() for p in sorted(base.rglob("*")) if p.is_file()}


@pytest.fixture
def bench(tmp_path):
    repo, tree = toolkit_repo(tmp_path / "bench")
    regenerate(repo.root)
    commit = repo.commit("Benchmark with results")
    return repo, tree, commit


def test_snapshot_copies_results_and_records_what_they_follow_from(bench, capsys):
    repo, tree, commit = bench
    names = result_files(repo)
    assert set(CORE_FILES) <= set(names)
    assert take(repo) == 0
    assert f"{FOLDER}/: {len(names)} result file(s) and snapshot.json (commit {commit[:12]}" in capsys.readouterr().out
    files = folder_bytes(repo, FOLDER)
    assert sorted(files) == sorted((*names, "snapshot.json"))
    for name in names:
        assert files[name] == (repo.root / "results" / name).read_bytes()
    manifest = json.loads(files["manifest.json"])
    document = json.loads(files["snapshot.json"])
    assert document == {
        "alpha": "0.500000",
        "benchmark_version": "1.0",
        "date": DATE,
        "files": {name: hashlib.sha256(files[name]).hexdigest() for name in names},
        "generator": "scripts/snapshot.py",
        "git_commit": commit,
        "input_digest": manifest["input_digest"],
        "subjects": {"alpha-model": "2.0", "beta-model": "1.1"},
    }
    assert files["snapshot.json"].decode() == canonical(document)  # canonical JSON, sorted keys
    assert not [p for p in (repo.root / "results/historico").iterdir() if p.name.startswith(".")]


def test_snapshots_are_byte_identical_for_identical_histories(tmp_path):
    # Fixed author, committer and dates make the commit ids, hence snapshot.json, reproducible.
    copies = []
    for name in ("one", "two"):
        repo, tree = toolkit_repo(tmp_path / name)
        regenerate(repo.root)
        repo.commit("Benchmark with results")
        assert take(repo) == 0
        copies.append(folder_bytes(repo, FOLDER))
    assert copies[0] == copies[1]


def test_identical_rerun_is_a_no_op_even_from_a_later_commit(bench, capsys):
    repo, tree, commit = bench
    assert take(repo) == 0
    before = folder_bytes(repo, FOLDER)
    assert take(repo) == 0
    assert capsys.readouterr().out.endswith(f"{FOLDER}/ already holds these results; nothing to do\n")
    repo.commit("Snapshot")  # HEAD moves; the results do not
    assert take(repo) == 0
    assert "already holds these results" in capsys.readouterr().out
    assert folder_bytes(repo, FOLDER) == before


def test_same_date_with_other_content_is_refused(bench, capsys):
    repo, tree, commit = bench
    assert take(repo) == 0
    repo.commit("Snapshot")
    before = folder_bytes(repo, FOLDER)
    tree.add_scoring("alpha-model", "RO-MEMB-001", "r2", "rev-b", raw=4, correctness=0)
    regenerate(repo.root)
    repo.commit("Grade")
    capsys.readouterr()
    assert take(repo) == 1
    err = capsys.readouterr().err.splitlines()
    message = "differs from the current results; a snapshot is never overwritten (take the new one under another date)"
    for name in (*CORE_FILES, "snapshot.json"):
        assert f"{FOLDER}/{name}: {message}" in err
    assert folder_bytes(repo, FOLDER) == before
    assert take(repo, "2025-12-02") == 0  # another date is fine


@pytest.mark.parametrize("date, message", [
    ("2025-13-01", "--date: '2025-13-01' is not a calendar date"),
    ("01/12/2025", "--date: '01/12/2025' is not a date written YYYY-MM-DD"),
    ("2999-01-01", "--date: 2999-01-01 is in the future"),
])
def test_bad_dates_are_refused(bench, capsys, date, message):
    repo, tree, commit = bench
    assert take(repo, date) == 1
    assert capsys.readouterr().err.startswith(message)
    assert not (repo.root / "results/historico").exists()


def test_dates_older_than_the_newest_snapshot_are_refused(bench, capsys):
    repo, tree, commit = bench
    assert take(repo, "2025-12-05") == 0
    repo.commit("Snapshot")
    assert take(repo, "2025-12-01") == 1
    assert capsys.readouterr().err.startswith(
        "results/historico/2025-12-05: is newer than 2025-12-01; snapshots are appended in date order")


def test_stale_or_uncommitted_results_are_refused(bench, capsys):
    repo, tree, commit = bench
    tree.add_scoring("alpha-model", "RO-MEMB-001", "r2", "rev-b", raw=4, correctness=0)
    repo.commit("Grade without regenerating")
    assert take(repo) == 1
    assert capsys.readouterr().err.startswith(
        "results/manifest.json: input_digest differs from the current inputs: results/ is out of date")
    regenerate(repo.root)  # regenerated, not committed
    assert take(repo) == 1
    err = capsys.readouterr().err
    assert "results/per_run.csv: differs from commit" in err and "commit it first" in err
    assert not (repo.root / "results/historico").exists()


@pytest.mark.parametrize("where, error, hint", [
    ("fsync", errno.ENOSPC, "free some disk space"),       # full disk while the files are written
    ("rename", errno.EROFS, "make the folder writable"),   # read-only when the folder is put in place
    ("mkdtemp", errno.EACCES, "make the folder writable"),  # results/historico/ not writable at all
])
def test_a_full_or_read_only_disk_is_reported_and_leaves_nothing(bench, monkeypatch, capsys, where, error, hint):
    # Attack: `make snapshot` ended in a traceback on a full or read-only disk. (Tests run as root, whom
    # chmod does not stop: the fault is injected where the folder is written.)
    repo, tree, commit = bench
    import rgbench.governance.write_once as write_once
    (repo.root / "results/historico").mkdir()

    def fault(*args, **kwargs):
        raise OSError(error, os.strerror(error))

    monkeypatch.setattr(write_once.tempfile if where == "mkdtemp" else write_once.os, where, fault)
    capsys.readouterr()
    assert take(repo) == 1
    assert capsys.readouterr().err == (f"{FOLDER}: cannot be written: {os.strerror(error)} ({hint}, then run again; "
                                       "no output was replaced)\n1 problem(s) found; nothing was written.\n")
    assert os.listdir(repo.root / "results/historico") == []
    monkeypatch.undo()
    assert take(repo) == 0


def test_an_interrupted_snapshot_does_not_block_the_next(bench, monkeypatch, capsys):
    # Attack (low): a snapshot killed while writing left results/historico/.<DATE>.<random>.tmp/, and every
    # later `make snapshot` (and `make history`) refused: "not a snapshot folder".
    repo, tree, commit = bench
    import rgbench.governance.write_once as write_once

    class Killed(BaseException):
        pass

    def killed(*args):
        raise Killed

    monkeypatch.setattr(write_once.os, "rename", killed)
    monkeypatch.setattr(write_once.shutil, "rmtree", lambda *args, **kwargs: None)  # a killed process cleans nothing
    with pytest.raises(Killed):
        take(repo)
    monkeypatch.undo()
    left = os.listdir(repo.root / "results/historico")
    assert len(left) == 1 and re.fullmatch(rf"\.{DATE}\.[a-z0-9_]{{8}}\.tmp", left[0]), left
    assert repo.git("status", "--porcelain", "--", "results") == ""   # git ignores it
    assert take(repo) == 0, capsys.readouterr().err                    # the next snapshot completes
    assert run_script("history", ["--root", str(repo.root), "--format", "csv"]) == 0, capsys.readouterr().err
    assert sorted(os.listdir(repo.root / "results/historico")) == sorted([DATE, left[0]])


def test_make_snapshot_runs_the_check_first(bench):
    repo, tree, commit = bench
    done = repo.make("snapshot", f"DATE={DATE}")
    assert done.returncode == 0, done.stderr
    assert "results/ matches what the inputs in this tree produce" in done.stdout
    assert (repo.root / FOLDER / "snapshot.json").exists()


def test_content_comparison_ignores_only_the_commit():
    old = {"a.csv": b"x\n", "snapshot.json": b'{"git_commit": "1", "input_digest": "d"}'}
    assert differing_files(old, {"a.csv": b"x\n", "snapshot.json": b'{"git_commit": "2", "input_digest": "d"}'}) == []
    assert differing_files(old, {"a.csv": b"y\n", "snapshot.json": b'{"git_commit": "1", "input_digest": "e"}'}) == [
        "a.csv", "snapshot.json"]
    assert differing_files(old, {"snapshot.json": old["snapshot.json"]}) == ["a.csv"]


def test_parse_date_accepts_today():
    import datetime as dt

    assert parse_date("2026-02-28", dt.date(2026, 2, 28)) == ("2026-02-28", None)


# --- a new subject version: clean record, old version visible in history ----------------------

def new_version_flow(repo: GitRepo, tree, *, status: str, last_snapshot: str | None) -> str:
    """Register beta-model 1.2: the old version goes to history; its files leave responses/ and scoring/."""
    base = repo.git("rev-parse", "HEAD").strip()
    for folder in ("responses/v1.0/beta-model", "scoring/v1.0/beta-model"):
        for path in (repo.root / folder).iterdir():
            path.unlink()
    entry = tree.subjects[1]
    entry["subject_version"] = "1.2"
    entry["history"] = [{"subject_version": "1.1", "status": status,
                         **({"last_snapshot": last_snapshot} if last_snapshot else {})}]
    tree.write_registry()
    tree.add_run("beta-model", "RO-FOUL-001", "r1", confidence=80, raw=11, correctness=1)
    regenerate(repo.root)
    repo.commit("Register beta-model 1.2")
    return base


def test_new_version_flow_keeps_the_disqualified_version_visible(bench, capsys):
    repo, tree, commit = bench
    assert take(repo) == 0  # beta-model 1.1 (disqualified) is in this snapshot
    first = repo.commit("Snapshot")
    new_version_flow(repo, tree, status="disqualified", last_snapshot=FOLDER)
    assert run_script("provenance", ["--root", str(repo.root), "--base", first]) == 0, capsys.readouterr().err
    assert take(repo, "2025-12-02") == 0
    repo.commit("Snapshot 2")
    capsys.readouterr()
    assert run_script("history", ["--root", str(repo.root), "--subject", "beta-model"]) == 0
    out = capsys.readouterr().out
    assert out == (
        "## beta-model: metrics across snapshots\n\n"
        "| snapshot | subject_version | rank | N | P | s_bar | BS | ECE | Q_final | disqualified |\n"
        "|---|---|---|---|---|---|---|---|---|---|\n"
        # rank comes from the snapshot's leaderboard.csv: 1.1 was disqualified (no rank); 1.2 has scored runs
        # on 1 of the 3 cases (below min_case_coverage 0.9): Incomplete, no rank either.
        "| 2025-12-01 | 1.1 | - | 2 | 0.000000 | 8.000000 | 0.500000 | 0.500000 | 0.333333 | true |\n"
        "| 2025-12-02 | 1.2 | - | 1 | 1.000000 | 11.000000 | 0.040000 | 0.200000 | 0.958333 | false |\n"
        "| current | 1.2 | - | 1 | 1.000000 | 11.000000 | 0.040000 | 0.200000 | 0.958333 | false |\n"
        "\nEarlier versions (subjects/registry.yaml):\n\n"
        "- 1.1: disqualified, last snapshot results/historico/2025-12-01\n"
    )
    assert run_script("history", ["--root", str(repo.root), "--format", "csv", "--no-current"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0] == "subject_id,snapshot,subject_version,rank,N,P,s_bar,BS,ECE,Q_final,disqualified"
    assert [row.split(",")[:3] for row in rows[1:]] == [
        ["alpha-model", "2025-12-01", "2.0"], ["alpha-model", "2025-12-02", "2.0"],
        ["beta-model", "2025-12-01", "1.1"], ["beta-model", "2025-12-02", "1.2"]]


@pytest.mark.parametrize("status, last_snapshot, expected", [
    ("retired", FOLDER,
     "subjects/registry.yaml: $.subjects[1].history[0].status: 'retired' but results/historico/2025-12-01 shows "
     "'beta-model' '1.1' disqualified; use 'disqualified'"),
    ("disqualified", None,
     "subjects/registry.yaml: $.subjects[1].history[0]: 'beta-model' '1.1' has results in results/historico/2025-12-01; "
     "add last_snapshot: \"results/historico/2025-12-01\""),
    ("disqualified", "results/historico/2025-11-30",
     "subjects/registry.yaml: $.subjects[1].history[0].last_snapshot: 'results/historico/2025-11-30' is not a "
     "snapshot in results/historico/"),
])
def test_registry_history_must_agree_with_the_snapshots(bench, capsys, status, last_snapshot, expected):
    repo, tree, commit = bench
    assert take(repo) == 0
    first = repo.commit("Snapshot")
    new_version_flow(repo, tree, status=status, last_snapshot=last_snapshot)
    capsys.readouterr()
    assert run_script("provenance", ["--root", str(repo.root), "--base", first]) == 1
    assert capsys.readouterr().err.splitlines()[0] == expected


def test_a_version_change_must_list_the_old_version_and_history_is_append_only(bench, capsys):
    repo, tree, commit = bench
    tree.subjects[1]["subject_version"] = "1.2"
    for folder in ("responses/v1.0/beta-model", "scoring/v1.0/beta-model"):
        for path in (repo.root / folder).iterdir():
            path.unlink()
    tree.write_registry()
    regenerate(repo.root)
    repo.commit("Register beta-model 1.2, forgetting 1.1")
    assert run_script("provenance", ["--root", str(repo.root), "--base", commit]) == 1
    assert capsys.readouterr().err.splitlines()[0] == (
        "subjects/registry.yaml: $.subjects[1]: 'beta-model' moved from version '1.1' to '1.2' without listing '1.1' "
        "in its history (add it with its status and last_snapshot; take a snapshot first if its results are not in one)")
    tree.subjects[1]["history"] = [{"subject_version": "1.1", "status": "retired"}]
    tree.write_registry()
    regenerate(repo.root)
    listed = repo.commit("List 1.1")
    del tree.subjects[1]["history"]
    tree.write_registry()
    regenerate(repo.root)
    repo.commit("Drop the history")
    assert run_script("provenance", ["--root", str(repo.root), "--base", listed]) == 1
    assert capsys.readouterr().err.splitlines()[0] == (
        "subjects/registry.yaml: $.subjects[1].history: the item for version '1.1' was removed or changed; "
        "the registry's history is append-only")


def test_history_items_are_judged_when_added_not_again(bench, capsys):
    # An item judged (or grandfathered) at the base is not judged again: snapshots are append-only
    # and a replaced version is in no later snapshot, so what was true stays true.
    repo, tree, commit = bench
    assert take(repo) == 0
    first = repo.commit("Snapshot")
    new_version_flow(repo, tree, status="disqualified", last_snapshot="results/historico/2025-11-30")
    assert run_script("provenance", ["--root", str(repo.root), "--base", first]) == 1
    assert run_script("provenance", ["--root", str(repo.root), "--base", "HEAD"]) == 0


@pytest.mark.parametrize("script, args", [
    ("snapshot", []), ("provenance", ["--base", "HEAD"]), ("history", ["--no-current"]),
])
def test_outside_a_git_repository_or_without_snapshots(tmp_path, capsys, script, args):
    from treebuilder import small_tree

    tree = small_tree(tmp_path / "plain")
    assert run_script("compute", ["--root", str(tree.root)]) == 0
    status = run_script(script, ["--root", str(tree.root), *args])
    captured = capsys.readouterr()
    if script == "history":
        assert status == 0 and "No snapshot holds this subject yet" in captured.out
    else:
        assert status == 1 and "not inside a git repository" in captured.err


def test_attack_removing_a_subject_with_registry_history_is_refused(bench, capsys):
    # The subject, its files and its record of earlier versions, all gone in one pull request.
    repo, tree, commit = bench
    assert take(repo) == 0
    repo.commit("Snapshot")
    new_version_flow(repo, tree, status="disqualified", last_snapshot=FOLDER)
    listed = repo.git("rev-parse", "HEAD").strip()
    for folder in ("responses/v1.0/beta-model", "scoring/v1.0/beta-model"):
        for path in (repo.root / folder).iterdir():
            path.unlink()
    del tree.subjects[1]
    tree.write_registry()
    regenerate(repo.root)
    repo.commit("Remove beta-model")
    assert run_script("provenance", ["--root", str(repo.root), "--base", listed]) == 1
    assert capsys.readouterr().err.splitlines()[0] == (
        "subjects/registry.yaml: $.subjects: 'beta-model' (at $.subjects[1] in the base) was removed with its history "
        "(versions '1.1'); the registry's history is append-only, a subject with history is never removed (keep the entry)")

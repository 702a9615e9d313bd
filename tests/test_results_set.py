"""Issue 12 item 9: results change as a set. Every output is written to a temporary file and synced before
the first rename; temporaries are never left for `git add` (removed by the next run, ignored by git);
build_leaderboard and check refuse a mixed set, naming the files; `make metrics` validates every input
before any step writes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from gitrepo import toolkit_repo
from treebuilder import REPO, files_of, small_tree

import rgbench.atomic as atomic
from rgbench.cli import run_script


def test_every_temporary_is_synced_before_the_first_rename(tmp_path, monkeypatch):
    root = small_tree(tmp_path / "tree").root
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(atomic.os, "fsync", lambda fd: (events.append("fsync"), real_fsync(fd))[1])
    monkeypatch.setattr(atomic.os, "replace", lambda a, b: (events.append(f"rename {Path(b).name}"),
                                                            real_replace(a, b))[1])
    assert run_script("compute", ["--root", str(root)]) == 0
    renames = [event for event in events if event.startswith("rename")]
    first = events.index(renames[0])
    assert events[:first].count("fsync") >= len(renames)  # each file (and the folder) before any rename
    assert "fsync" not in events[first:]
    assert renames[-1] == "rename manifest.json"  # the manifest, which vouches for the set, comes last


def kill_between_renames(root: Path, monkeypatch, after: int) -> None:
    """Run compute_metrics and stop it dead (as kill -9 would) after ``after`` renames."""
    real_replace = os.replace
    done = []

    class Killed(BaseException):
        pass

    def replace(a, b):
        if len(done) == after:
            raise Killed
        done.append(b)
        real_replace(a, b)

    monkeypatch.setattr(atomic.os, "replace", replace)
    monkeypatch.setattr(atomic.os, "unlink", lambda path: None)  # a killed process cleans nothing up
    try:
        run_script("compute", ["--root", str(root)])
    except Killed:
        pass
    monkeypatch.undo()


def test_a_run_killed_between_renames_leaves_a_mixed_set_that_build_leaderboard_and_check_name(
        tmp_path, monkeypatch, capsys):
    # Attack: kill -9 during the write phase left a mixed old/new results/ in 10 of 10 trials.
    tree = small_tree(tmp_path / "tree")
    root = tree.root
    assert run_script("compute", ["--root", str(root)]) == 0
    tree.add_scoring("alpha-model", "RO-MEMB-001", "r1", "rev-b", raw=8, correctness=1)  # outputs change
    kill_between_renames(root, monkeypatch, after=4)
    capsys.readouterr()
    left = sorted(p.name for p in (root / "results").iterdir() if p.name.endswith(".tmp"))
    assert left, "the killed run leaves its temporaries"
    assert run_script("leaderboard", ["--root", str(root)]) == 1
    err = capsys.readouterr().err
    mixed = [line for line in err.splitlines() if line.startswith("results/") and "manifest" in line]
    assert mixed, err  # each file renamed before the kill that changed is named
    assert run_script("check", ["--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert "results/manifest.json: differs from what the inputs in this tree produce" in err
    # The next run removes the temporaries and writes a whole set again.
    assert run_script("compute", ["--root", str(root)]) == 0
    assert not [p for p in (root / "results").iterdir() if p.name.endswith(".tmp")]
    assert run_script("leaderboard", ["--root", str(root)]) == 0


def test_a_second_make_metrics_on_one_tree_is_refused_with_a_true_message(tmp_path, capsys):
    """issue 24: two `make metrics` on one tree removed each other's temporaries (each run cleans those an
    interrupted run left), and one ended with "results/alpha_sensitivity.csv: cannot be written: No such file or
    directory (fix the folder, ...)". Now the second is refused at once and writes nothing."""
    tree = small_tree(tmp_path / "tree")
    root = tree.root
    assert run_script("metrics", ["--root", str(root)]) == 0
    tree.add_scoring("alpha-model", "RO-MEMB-001", "r1", "rev-b", raw=8, correctness=1)  # a run would write
    before = files_of(root / "results")
    capsys.readouterr()
    with atomic.tree_lock(root):   # the first run, still writing
        assert run_script("metrics", ["--root", str(root)]) == 1
    assert capsys.readouterr().err == ("results/: another `make metrics` is running on this tree (wait for it to end, "
                                       "then run again if the inputs changed meanwhile; this run wrote nothing)\n")
    assert files_of(root / "results") == before
    assert run_script("metrics", ["--root", str(root)]) == 0   # the lock ends with its holder
    assert files_of(root / "results") != before


def test_git_ignores_the_temporaries():
    ignored = subprocess.run(["git", "check-ignore", "--no-index", "results/.per_run.csv.abc123.tmp"], cwd=REPO,
                             capture_output=True, text=True)
    assert ignored.returncode == 0, "results/.*.tmp must be ignored by .gitignore"


@pytest.mark.slow   # end to end: make test-slow (CI runs it)
def test_make_metrics_validates_every_input_before_any_step_writes(tmp_path):
    # Attack: `make metrics` reported "nothing was written" after compute_metrics had replaced 6 files
    # (a bad further grade in scoring_multi/ was found by the second step only).
    repo, tree = toolkit_repo(tmp_path / "bench")
    assert repo.make("metrics").returncode == 0
    before = files_of(repo.root / "results")
    tree.add_response("alpha-model", "RO-MEMB-001", "r3", 10)  # a real change: compute_metrics would write
    bad = repo.root / "scoring_multi/v1.0/alpha-model/RO-FOUL-001__r1__eval-rev-z.json"
    bad.parent.mkdir(parents=True)
    bad.write_text("{}")
    done = repo.make("metrics")
    assert done.returncode != 0
    assert "problem(s) found; nothing was written." in done.stderr
    assert files_of(repo.root / "results") == before

"""Bad input to build_leaderboard.py, as data: tests/fixtures/leaderboard/invalid/<case>/ holds

- ``tree/``: files laid over the valid fixture tree (tests/fixtures/leaderboard/basic/tree + system/);
- ``remove.txt`` (optional): paths of that tree to delete;
- ``expected.txt``: the exact lines build_leaderboard.py must print on stderr.

A new bad case is a new folder. Every refusal exits 1, prints no traceback and
writes nothing: results/ stays byte-for-byte as it was (a previous leaderboard
included). Cases a folder cannot hold (symbolic links) are tests below.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from treebuilder import LIBRARY_SYSTEM, files_of

from rgbench.cli import run_script

FIXTURES = Path(__file__).parent / "fixtures" / "leaderboard"
CASES = sorted(p.name for p in (FIXTURES / "invalid").iterdir() if p.is_dir())
REPO = Path(__file__).resolve().parent.parent


def make_tree(root: Path) -> Path:
    shutil.copytree(FIXTURES / "basic" / "tree", root)
    shutil.copytree(LIBRARY_SYSTEM, root / "system")
    return root


def build_case(root: Path, case: str) -> Path:
    root = make_tree(root)
    folder = FIXTURES / "invalid" / case
    remove = folder / "remove.txt"
    if remove.exists():
        for rel in remove.read_text().split():
            (root / rel).unlink()
    if (folder / "tree").exists():
        shutil.copytree(folder / "tree", root, dirs_exist_ok=True)
    return root


def test_there_are_cases():
    assert len(CASES) >= 15


@pytest.mark.parametrize("case", CASES)
def test_refusal(case, tmp_path, capsys):
    root = build_case(tmp_path / "tree", case)
    (root / "results").mkdir(exist_ok=True)
    (root / "results" / "leaderboard.csv").write_text("previous leaderboard\n")
    before = files_of(root / "results")
    status = run_script("leaderboard", ["--root", str(root)])
    captured = capsys.readouterr()
    expected = (FIXTURES / "invalid" / case / "expected.txt").read_text(encoding="utf-8")
    assert status == 1
    assert captured.err == expected
    assert captured.out == ""
    assert files_of(root / "results") == before


def test_a_symbolic_link_is_not_followed(tmp_path, capsys):
    root = make_tree(tmp_path / "tree")
    outside = tmp_path / "elsewhere.csv"
    shutil.move(root / "results" / "per_run.csv", outside)
    (root / "results" / "per_run.csv").symlink_to(outside)
    assert run_script("leaderboard", ["--root", str(root)]) == 1
    assert capsys.readouterr().err.splitlines()[0] == (
        "results/per_run.csv: is a symbolic link; expected a regular file; run `make metrics` to regenerate it")
    assert not (root / "results" / "leaderboard.html").exists()


def test_a_symbolic_link_to_a_folder_is_not_followed(tmp_path, capsys):
    root = make_tree(tmp_path / "tree")
    shutil.move(root / "results", tmp_path / "real-results")
    (root / "results").symlink_to(tmp_path / "real-results", target_is_directory=True)
    assert run_script("leaderboard", ["--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("results: is a symbolic link; expected a plain directory")
    assert not (tmp_path / "real-results" / "leaderboard.csv").exists()

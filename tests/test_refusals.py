"""Every refusal of the core issue, as data: tests/fixtures/invalid/<case>/ holds

- ``tree/``: files laid over a valid base tree (treebuilder.small_tree);
- ``remove.txt`` (optional): paths of the base tree to delete;
- ``expected.txt``: the exact problem lines compute_metrics must print.

A new bad case is a new folder. Cases a folder cannot hold (symbolic links,
named pipes) are tests below. Every refusal must exit 1, print no traceback
and leave results/ byte-for-byte as it was.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from treebuilder import MiniTree, files_of, small_tree

from rgbench.cli import run_script

FIXTURES = Path(__file__).parent / "fixtures" / "invalid"
CASES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())


def build_case(root: Path, case: str) -> Path:
    tree = small_tree(root)
    folder = FIXTURES / case
    remove = folder / "remove.txt"
    if remove.exists():
        for rel in remove.read_text().split():
            (tree.root / rel).unlink()
    overlay = folder / "tree"
    if overlay.exists():
        shutil.copytree(overlay, tree.root, dirs_exist_ok=True)
    return tree.root


def problem_lines(stderr: str) -> list[str]:
    lines = stderr.splitlines()
    assert lines and lines[-1].endswith("problem(s) found; nothing was written."), stderr
    return lines[:-1]


def test_there_are_fixtures():
    assert len(CASES) >= 30


@pytest.mark.parametrize("case", CASES)
def test_refusal(case, tmp_path, capsys):
    root = build_case(tmp_path / "tree", case)
    # Results from the valid base tree must survive the refused run untouched.
    (root / "results").mkdir()
    (root / "results" / "per_run.csv").write_bytes(b"previous results\n")
    before = files_of(root / "results")
    assert run_script("compute", ["--root", str(root)]) == 1
    lines = problem_lines(capsys.readouterr().err)
    expected = (FIXTURES / case / "expected.txt").read_text(encoding="utf-8").splitlines()
    assert lines == expected
    assert files_of(root / "results") == before
    # validate.py reports exactly the same problems.
    assert run_script("validate", ["--root", str(root)]) == 1
    assert problem_lines(capsys.readouterr().err) == expected


def test_the_base_tree_is_valid(tmp_path, capsys):
    root = small_tree(tmp_path / "tree").root
    assert run_script("validate", ["--root", str(root)]) == 0
    assert "valid: 3 golds, 6 responses, 5 scorings, 2 subjects" in capsys.readouterr().out


def test_a_gold_whose_reference_answer_quotes_json_blocks_is_valid(tmp_path, capsys):
    # issue 23: the data block is the gold's last ```json block; the reference answer's own ones are case text
    # (before issue 23 the file was refused: "3 ```json blocks found at lines ... (a gold needs exactly one)")
    tree = MiniTree(tmp_path / "tree")
    tree.add_subject("alpha-model", "2.0")
    text = tree.gold_text("RO-FOUL-001").replace("```json", "## Reference answer\n\nThe API answers\n\n```json\n"
                                                  '{"status": "fouling"}\n```\n\nor, in a list:\n\n- ```json\n  []\n  ```\n\n'
                                                  "## Metadata\n\n```json", 1)
    tree.write("golds/v1.0/RO-FOUL-001_gold.md", text)
    tree.add_run("alpha-model", "RO-FOUL-001", "r1", raw=11)
    assert run_script("validate", ["--root", str(tree.root)]) == 0
    assert capsys.readouterr().out.startswith("valid: 1 gold")
    assert run_script("compute", ["--root", str(tree.root)]) == 0


def run_refused(root: Path, capsys) -> list[str]:
    assert run_script("compute", ["--root", str(root)]) == 1
    assert not (root / "results").exists()
    return problem_lines(capsys.readouterr().err)


@pytest.mark.parametrize(("rel", "message"), [
    # a file
    ("responses/v1.0/alpha-model/RO-FOUL-001__r1.json",
     "is a symbolic link; only regular files are read (replace it by a real file)"),
    # a directory on the way to files
    ("scoring/v1.0/beta-model", "is a symbolic link; only regular files are read (replace it by a real file)"),
    # a data root
    ("golds", "is a symbolic link; expected a plain directory (replace it by a real folder)"),
    # the registry
    ("subjects/registry.yaml", "is a symbolic link; expected a regular file"),
])
def test_symbolic_links_are_refused_and_never_followed(tmp_path, capsys, rel, message):
    # The link points at the very content that was there, so only the link itself is wrong.
    tree = small_tree(tmp_path / "tree")
    real = tmp_path / "elsewhere"
    os.replace(tree.root / rel, real)
    os.symlink(real, tree.root / rel)
    assert run_refused(tree.root, capsys) == [f"{rel}: {message}"]


def test_named_pipe_is_refused(tmp_path, capsys):
    tree = small_tree(tmp_path / "tree")
    os.mkfifo(tree.root / "responses/v1.0/beta-model/RO-MEMB-001__r1.json")
    assert run_refused(tree.root, capsys) == [
        "responses/v1.0/beta-model/RO-MEMB-001__r1.json: is a named pipe; "
        "only regular files are read (replace it by a real file)",
    ]


def test_missing_registry(tmp_path, capsys):
    tree = small_tree(tmp_path / "tree")
    (tree.root / "subjects/registry.yaml").unlink()
    lines = run_refused(tree.root, capsys)
    assert lines == ["subjects/registry.yaml: missing (this file is required)"]


def test_bad_alpha_option(tmp_path, capsys):
    tree = small_tree(tmp_path / "tree")
    assert run_script("compute", ["--root", str(tree.root), "--alpha", "1.5"]) == 1
    assert problem_lines(capsys.readouterr().err) == ["--alpha: alpha must be between 0 and 1, got 1.5"]
    assert run_script("compute", ["--root", str(tree.root), "--alpha", "half"]) == 1
    assert problem_lines(capsys.readouterr().err) == ["--alpha: alpha must be a number between 0 and 1, got 'half'"]

"""Issue 12 item 6: every path in a data folder is an input or refused, with a message giving the expected
layout. Before, a file outside ``<folder>/v1.0/`` was silently ignored by validate, paths and check: a
reviewer's misplaced grade counted for nothing and nothing said so."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from treebuilder import small_tree

from rgbench.cli import run_script

SCORING_LAYOUT = "scorings go in scoring/v1.0/<subject_id>/<case_id>__<run_id>__eval-<reviewer_id>.json"
GOLD_LAYOUT = "golds go in golds/v1.0/<case_id>_gold.md"
STRAYS = {
    "scoring/v1.1/x/RO-FOUL-001__r1__eval-rev-a.json":
        f"outside scoring/v1.0/, so it is never read: {SCORING_LAYOUT} (move it there or remove it)",
    "scoring/X.json": f"outside scoring/v1.0/, so it is never read: {SCORING_LAYOUT} (move it there or remove it)",
    "golds/RO-FOUL-001_gold.md": f"outside golds/v1.0/, so it is never read: {GOLD_LAYOUT} (move it there or remove it)",
    "golds/drafts/blob": f"outside golds/v1.0/, so it is never read: {GOLD_LAYOUT} (move it there or remove it)",
    "subjects/registry.yml": "not an input, so it is never read: subjects/ holds only registry.yaml, "
                             "reviewers.yaml, second_reviews.json and human_draws.json (rename it or remove it)",
    "responses/v2.0/alpha-model/RO-FOUL-001__r1.json":
        "outside responses/v1.0/, so it is never read: responses go in "
        "responses/v1.0/<subject_id>/<case_id>__<run_id>.json (move it there or remove it)",
}


def stderr_lines(capsys) -> list[str]:
    err = capsys.readouterr().err
    return err.splitlines()


@pytest.mark.parametrize("rel", sorted(STRAYS))
def test_a_misplaced_file_is_refused_by_validate_and_compute_metrics(tmp_path, capsys, rel):
    root = small_tree(tmp_path / "tree").root
    source = root / "scoring/v1.0/alpha-model/RO-FOUL-001__r1__eval-rev-a.json"
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, root / rel)
    assert run_script("validate", ["--root", str(root)]) == 1
    assert stderr_lines(capsys)[:-1] == [f"{rel}: {STRAYS[rel]}"]
    assert run_script("compute", ["--root", str(root)]) == 1
    assert stderr_lines(capsys)[:-1] == [f"{rel}: {STRAYS[rel]}"]
    assert not (root / "results").exists()


def test_a_misplaced_further_grade_is_refused(tmp_path, capsys):
    root = small_tree(tmp_path / "tree").root
    (root / "scoring_multi/v1.1").mkdir(parents=True)
    (root / "scoring_multi/v1.1/a.json").write_text("{}")
    assert run_script("validate", ["--root", str(root)]) == 1
    assert stderr_lines(capsys)[0].startswith(
        "scoring_multi/v1.1/a.json: outside scoring_multi/v1.0/, so it is never read: scorings go in "
        "scoring_multi/v1.0/<subject_id>/<case_id>__<run_id>__eval-<reviewer_id>.json or ")


def test_check_refuses_a_tree_with_a_misplaced_file(tmp_path, capsys):
    root = small_tree(tmp_path / "tree").root
    assert run_script("compute", ["--root", str(root)]) == 0
    capsys.readouterr()
    (root / "scoring/X.json").write_text("{}")
    assert run_script("check", ["--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert f"scoring/X.json: {STRAYS['scoring/X.json']}" in err


def test_gitkeep_files_stay_allowed(tmp_path, capsys):
    root: Path = small_tree(tmp_path / "tree").root
    for rel in ("golds/.gitkeep", "scoring/.gitkeep", "subjects/.gitkeep"):
        (root / rel).write_text("")
    assert run_script("validate", ["--root", str(root)]) == 0

"""Issue 12 item 5, pins: every scoring pins the sha256 of the response it grades and of the gold it is
graded against; a changed response or gold makes the scorings that pinned it stale, each named with the
re-grade to do; `make fmt` never invalidates a pin (it leaves pinned responses byte for byte)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from treebuilder import REPO, canonical, small_tree

from rgbench.cli import run_script
from rgbench.load.parsing import loads_json_strict

ALPHA_SCORING = "scoring/v1.0/alpha-model/RO-FOUL-001__r1__eval-rev-a.json"
ALPHA_RESPONSE = "responses/v1.0/alpha-model/RO-FOUL-001__r1.json"
FOUL_GOLD = "golds/v1.0/RO-FOUL-001_gold.md"


def problems(root: Path, capsys) -> list[str]:
    assert run_script("validate", ["--root", str(root)]) == 1
    err = capsys.readouterr().err
    return err.splitlines()[:-1]


def edit(root: Path, rel: str, **fields) -> None:
    document = json.loads((root / rel).read_text())
    for key, value in fields.items():
        if value is None:
            document.pop(key, None)
        else:
            document[key] = value
    (root / rel).write_text(canonical(document), encoding="utf-8")


@pytest.mark.parametrize("pin", ["response_sha256", "gold_sha256"])
def test_a_scoring_without_a_pin_is_refused(tmp_path, capsys, pin):
    # Attack: drop response_sha256 and the graded response can be rewritten unnoticed (BS and ECE move).
    root = small_tree(tmp_path / "tree").root
    edit(root, ALPHA_SCORING, **{pin: None})
    assert problems(root, capsys) == [f"{ALPHA_SCORING}: $: '{pin}' is a required property"]


def test_a_rewritten_response_makes_its_scoring_stale(tmp_path, capsys):
    tree = small_tree(tmp_path / "tree")
    edit(tree.root, ALPHA_RESPONSE, confidence=10)
    digest = tree.sha256(ALPHA_RESPONSE)
    assert problems(tree.root, capsys) == [
        f"{ALPHA_SCORING}: $.response_sha256: does not match the sha256 of {ALPHA_RESPONSE} ({digest}); "
        "the response changed after grading, so re-grade it"]


def test_lowering_a_gold_ceiling_after_grading_makes_every_scoring_of_the_case_stale(tmp_path, capsys):
    # Attack: lowering rubric_ceiling after grading silently rescored every subject on that case.
    tree = small_tree(tmp_path / "tree")
    tree.add_gold("RO-FOUL-001", rubric_floor=4, rubric_ceiling=8)
    digest = tree.sha256(FOUL_GOLD)
    stale = [f"{rel}: $.gold_sha256: does not match the sha256 of {FOUL_GOLD} ({digest}); the gold changed after "
             "grading (a maintainer's change), so re-grade this run against the new gold and pin its sha256"
             for rel in (ALPHA_SCORING, "scoring/v1.0/beta-model/RO-FOUL-001__r1__eval-rev-a.json")]
    assert problems(tree.root, capsys) == stale
    (tree.root / "results").mkdir()
    assert run_script("compute", ["--root", str(tree.root)]) == 1
    assert list((tree.root / "results").iterdir()) == []


def test_new_scoring_pins_the_response_and_the_gold(tmp_path, capsys):
    tree = small_tree(tmp_path / "tree")
    assert run_script("new-scoring", ["--root", str(tree.root), "--subject", "alpha-model", "--case", "RO-MEMB-001",
                             "--run", "r2", "--reviewer", "rev-c"]) == 0
    document = json.loads((tree.root / "scoring/v1.0/alpha-model/RO-MEMB-001__r2__eval-rev-c.json").read_text())
    assert document["response_sha256"] == tree.sha256("responses/v1.0/alpha-model/RO-MEMB-001__r2.json")
    assert document["gold_sha256"] == tree.sha256("golds/v1.0/RO-MEMB-001_gold.md")


def test_fmt_never_invalidates_a_pin(tmp_path, capsys):
    # Attack (docs/reviewing.md, step 4): `make fmt validate` rewrote a non-canonical graded response, breaking its pin.
    tree = small_tree(tmp_path / "tree")
    document = json.loads((tree.root / ALPHA_RESPONSE).read_text())
    (tree.root / ALPHA_RESPONSE).write_text(json.dumps(document, indent=4), encoding="utf-8")
    edit(tree.root, ALPHA_SCORING, response_sha256=tree.sha256(ALPHA_RESPONSE))
    unpinned = "responses/v1.0/alpha-model/RO-MEMB-001__r2.json"
    unpinned_document = json.loads((tree.root / unpinned).read_text())
    (tree.root / unpinned).write_text(json.dumps(unpinned_document), encoding="utf-8")
    graded = (tree.root / ALPHA_RESPONSE).read_bytes()
    assert run_script("fmt", ["--root", str(tree.root), "--check"]) == 1
    assert capsys.readouterr().out == f"{unpinned}: not canonical\n"
    assert run_script("fmt", ["--root", str(tree.root)]) == 0
    assert (tree.root / ALPHA_RESPONSE).read_bytes() == graded  # pinned: left as graded
    assert (tree.root / unpinned).read_text() == canonical(unpinned_document)  # not graded: rewritten
    assert run_script("fmt", ["--root", str(tree.root), "--check"]) == 0
    assert run_script("validate", ["--root", str(tree.root)]) == 0


def test_every_scoring_of_the_tree_carries_both_pins():
    # Holds for any benchmark tree: the schema requires both pins of every scoring.
    for folder in ("scoring", "scoring_multi"):
        for path in sorted((REPO / folder).rglob("*.json")):
            document = loads_json_strict(path.read_text(encoding="utf-8"))
            assert {"response_sha256", "gold_sha256"} <= set(document), path

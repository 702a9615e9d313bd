"""This benchmark's tests (`make test`): every input valid and canonical, the committed results exactly
what the inputs produce, README.md's leaderboard the committed one, and .github/CODEOWNERS' generated block
what the registry gives. Written by `rgbench init`;
add your own tests beside it (e.g. on the golds' content)."""

from __future__ import annotations

from pathlib import Path

from rgbench.cli import main as rgbench

ROOT = Path(__file__).resolve().parents[1]


def test_every_input_is_valid():
    assert rgbench(["validate", "--root", str(ROOT)]) == 0


def test_json_inputs_are_canonical():
    assert rgbench(["fmt", "--root", str(ROOT), "--check"]) == 0  # else: make fmt


def test_committed_results_are_what_the_inputs_produce():
    assert rgbench(["check", "--root", str(ROOT)]) == 0  # else: make metrics, and commit results/


def test_readme_shows_the_committed_leaderboard():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    board = (ROOT / "results" / "leaderboard.md").read_text(encoding="utf-8").strip("\n")
    block = readme.split("<!-- leaderboard:start -->\n", 1)[1].split("<!-- leaderboard:end -->", 1)[0]
    assert block.strip("\n") == board  # else: make metrics (or rgbench metrics --readme) embeds it


def test_codeowners_block_follows_the_registry():
    assert rgbench(["codeowners", "--root", str(ROOT), "--check"]) == 0  # else: make codeowners, and commit it

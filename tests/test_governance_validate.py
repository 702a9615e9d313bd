"""validate.py --changed BASE (only what changed and its references) and --format github (annotations)."""

from __future__ import annotations

import json
import re

import pytest
from gitrepo import toolkit_repo
from treebuilder import LIBRARY_ROOT, canonical

from rgbench.cli import run_script
from rgbench.governance.annotations import escape_property, github_line, locate_line
from rgbench.governance.changeset import is_relevant, references
from rgbench.load.spec import load_spec
from rgbench.problems import Problem

SPEC, _ = load_spec(LIBRARY_ROOT)
ANNOTATION = re.compile(r"^::error file=[^,:]+,line=[1-9][0-9]*::[^\r\n]+$")
ALPHA_SCORING = "scoring/v1.0/alpha-model/RO-FOUL-001__r1__eval-rev-a.json"
ALPHA_RESPONSE = "responses/v1.0/alpha-model/RO-FOUL-001__r1.json"
BETA_RESPONSE = "responses/v1.0/beta-model/RO-SCAL-001__r1.json"


def run(root, *args, capsys) -> tuple[int, str, str]:
    status = run_script("validate", ["--root", str(root), *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def set_field(root, rel, **fields) -> None:
    document = json.loads((root / rel).read_text())
    document.update(fields)
    (root / rel).write_text(canonical(document))


@pytest.fixture
def bench(tmp_path):
    """A committed tree whose base already holds one broken file, unrelated to the changes below."""
    repo, tree = toolkit_repo(tmp_path / "bench")
    set_field(repo.root, BETA_RESPONSE, confidence=101)
    base = repo.commit("Base with a broken beta-model response")
    return repo, tree, base


def test_default_output_is_unchanged(bench, capsys):
    repo, tree, base = bench
    status, out, err = run(repo.root, capsys=capsys)
    assert status == 1 and out == ""
    assert err == (f"{BETA_RESPONSE}: $.confidence: 101 is greater than the maximum of 100\n"
                   "1 problem(s) found; nothing was written.\n")


def test_changed_reports_only_the_change_and_says_what_it_left_out(bench, capsys):
    repo, tree, base = bench
    status, out, err = run(repo.root, "--changed", base, capsys=capsys)
    assert status == 0
    assert out == f"valid: the 0 changed path(s) since {base} and their references\n"
    assert err.startswith("1 problem(s) in files unrelated to the change were not reported")
    set_field(repo.root, ALPHA_SCORING, correctness=0.7)
    status, out, err = run(repo.root, "--changed", base, capsys=capsys)
    assert status == 1
    assert err.splitlines()[1:] == [f"{ALPHA_SCORING}: $.correctness: 0.7 is not one of [0, 0.5, 1]",
                                    "1 problem(s) found; nothing was written."]


def test_changed_includes_untracked_files(bench, capsys):
    repo, tree, base = bench
    rel = "scoring/v1.0/alpha-model/RO-MEMB-001__r2__eval-rev-b.json"
    tree.add_scoring("alpha-model", "RO-MEMB-001", "r2", "rev-b", correctness=0.7)  # not added to git
    status, out, err = run(repo.root, "--changed", base, capsys=capsys)
    assert status == 1
    assert err.splitlines()[1:] == [f"{rel}: $.correctness: 0.7 is not one of [0, 0.5, 1]",
                                    "1 problem(s) found; nothing was written."]


def test_changed_reports_problems_of_referenced_files(bench, capsys):
    # The changed scoring references its case's gold; a gold broken before the change is reported with it.
    repo, tree, base = bench
    gold = repo.root / "golds/v1.0/RO-FOUL-001_gold.md"
    gold.write_text(gold.read_text().replace('"difficulty": 2', '"difficulty": 9'))
    repo.commit("Break a gold")
    set_field(repo.root, ALPHA_SCORING, comments="regraded")
    status, out, err = run(repo.root, "--changed", "HEAD", capsys=capsys)
    assert status == 1
    assert "golds/v1.0/RO-FOUL-001_gold.md: $.difficulty: 9 is greater than the maximum of 5" in err
    assert BETA_RESPONSE not in err


def test_changed_reports_files_broken_by_the_change(bench, capsys):
    # Editing a graded response breaks its scoring's response_sha256: the unchanged scoring is reported.
    repo, tree, base = bench
    set_field(repo.root, ALPHA_SCORING, response_sha256=tree.sha256(ALPHA_RESPONSE))
    repo.commit("Pin the graded text")
    set_field(repo.root, ALPHA_RESPONSE, response_text="A different answer.")
    status, out, err = run(repo.root, "--changed", "HEAD", capsys=capsys)
    assert status == 1
    assert err.splitlines()[1].startswith(f"{ALPHA_SCORING}: $.response_sha256: does not match the sha256 of {ALPHA_RESPONSE}")


def test_a_registry_change_concerns_every_response_and_scoring(bench, capsys):
    repo, tree, base = bench
    tree.subjects[0]["subject_version"] = "2.1"
    tree.write_registry()
    status, out, err = run(repo.root, "--changed", base, capsys=capsys)
    assert status == 1
    lines = err.splitlines()[:-1]
    assert len([line for line in lines if "stale file" in line]) == 7  # 4 responses + 3 scorings of alpha-model
    assert any(line.startswith(BETA_RESPONSE) for line in lines)  # every file depends on the registry


def test_a_system_change_concerns_everything(bench, capsys):
    repo, tree, base = bench
    config = repo.root / "system/metrics/v1.0/config.yaml"
    config.write_text(config.read_text() + "# a comment\n")
    status, out, err = run(repo.root, "--changed", base, capsys=capsys)
    assert status == 1 and BETA_RESPONSE in err


def test_unknown_base(bench, capsys):
    repo, tree, base = bench
    status, out, err = run(repo.root, "--changed", "nope", capsys=capsys)
    assert status == 1
    assert err == "--changed: 'nope' is not a commit of this repository (fetch it first, e.g. `git fetch origin main`)\n"


def test_github_annotations_have_the_github_format_and_point_at_the_line(bench, capsys):
    repo, tree, base = bench
    set_field(repo.root, ALPHA_SCORING, correctness=0.7, criterion_scores={
        "action_plan": 2, "causal_reasoning": 2, "communication": 2, "diagnosis": 2, "evidence": 2, "safety": 3})
    (repo.root / "responses/v1.0/alpha-model/RO-SCAL-001__r1.json").write_text('{\n  "a": 1,\n  "a": 2\n}\n')
    status, out, err = run(repo.root, "--format", "github", capsys=capsys)
    assert status == 1
    lines = out.splitlines()
    assert all(ANNOTATION.match(line) for line in lines), lines
    text = (repo.root / ALPHA_SCORING).read_text().splitlines()
    safety_line = next(n for n, line in enumerate(text, 1) if '"safety"' in line)
    correctness_line = next(n for n, line in enumerate(text, 1) if '"correctness"' in line)
    assert f"::error file={ALPHA_SCORING},line={correctness_line}::$.correctness: 0.7 is not one of [0, 0.5, 1]" in lines
    assert (f"::error file={ALPHA_SCORING},line={safety_line}::"
            "$.criterion_scores.safety: 3 is greater than the maximum of 2") in lines
    assert f"::error file={BETA_RESPONSE},line=" in out
    assert err == "4 problem(s) found; nothing was written.\n"
    with_changed = run(repo.root, "--changed", base, "--format", "github", capsys=capsys)
    assert with_changed[0] == 1 and BETA_RESPONSE not in with_changed[1]
    assert all(ANNOTATION.match(line) for line in with_changed[1].splitlines())


def test_annotations_escape_what_could_inject_a_command():
    problem = Problem("scoring/v1.0/a,b:c/x.json", "50% wrong\n::error::forged")
    assert github_line(problem, None) == "::error file=scoring/v1.0/a%2Cb%3Ac/x.json,line=1::50%25 wrong%0A::error::forged"
    assert escape_property("%\r") == "%25%0D"


def test_locate_line_in_json_and_yaml():
    scoring = canonical({"automatic_fails_triggered": [{"code": "A", "severity": "critical"},
                                                       {"code": "B", "severity": "critical"}], "correctness": 1})
    lines = scoring.splitlines()
    second_code = [n for n, line in enumerate(lines, 1) if '"code"' in line][1]
    assert locate_line("$.automatic_fails_triggered[1].code: 'B' is not in the catalog", scoring) == second_code
    assert locate_line("invalid JSON at line 7 column 3: Expecting ','", scoring) == 7
    assert locate_line("no location here", scoring) == 1
    registry = ('subjects:\n  - subject_id: "a"\n    subject_version: "1"\n    history:\n      - subject_version: "0"\n'
                '        status: retired\n  - subject_id: "b"\n    subject_version: 1.10\n')
    assert locate_line("$.subjects[1].subject_version: 1.1 is not of type 'string'", registry) == 8
    assert locate_line("$.subjects[0].history[0].status: 'x' is not one of", registry) == 6


def test_relevance_rules():
    changed = {"scoring/v1.0/s/RO-FOUL-001__r1__eval-a.json"}
    assert references("scoring/v1.0/s/RO-FOUL-001__r1__eval-a.json", SPEC) == {
        "subjects/registry.yaml", "golds/v1.0/RO-FOUL-001_gold.md", "responses/v1.0/s/RO-FOUL-001__r1.json",
        "system/rubric/v1.0/automatic_fails.yaml"}
    assert references("responses/v1.0/s/RO-FOUL-001__r1.json", SPEC) == {
        "subjects/registry.yaml", "golds/v1.0/RO-FOUL-001_gold.md"}
    assert is_relevant("responses/v1.0/s/RO-FOUL-001__r1.json", changed, SPEC)  # referenced
    assert is_relevant("scoring/v1.0/s", changed, SPEC)  # a folder holding a changed file
    assert not is_relevant("responses/v1.0/s/RO-FOUL-001__r2.json", changed, SPEC)  # another run
    assert not is_relevant("golds/v1.0/RO-SCAL-001_gold.md", changed, SPEC)
    assert is_relevant("scoring/v1.0/s/RO-FOUL-001__r1__eval-b.json", {"responses/v1.0/s/RO-FOUL-001__r1.json"}, SPEC)
    assert is_relevant("responses/v1.0/t/RO-FOUL-009__r3.json", {"golds/v1.0/RO-FOUL-009_gold.md"}, SPEC)
    assert is_relevant("golds/v1.0/RO-SCAL-001_gold.md", {"system/benchmark.yaml"}, SPEC)

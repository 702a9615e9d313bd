"""The honest reviewer's path, end to end, through the judge's own steps.

A temporary upstream repository holds the benchmark (base on main); a reviewer follows the README on a
branch (template, fill, `make metrics`, commit). Then a simulated runner workspace runs every `run:` step
of .github/workflows/review.yml in order, as GitHub would: the base checked out into judge/ (what
actions/checkout does), the job's and the step's `env:`, each step's `if:` honoured. The honest pull
request passes every step with no maintainer action; the two ways of getting README wrong are refused
by the step that should refuse them.
"""

from __future__ import annotations

import json
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from gitrepo import GitRepo, metrics, toolkit_repo
from treebuilder import REPO, canonical, scores_summing_to

GATE = REPO / ".github/workflows/review.yml"
CHECK_STEP = "make check with the base's toolkit - committed results are exactly what the inputs produce"
WORKFLOWS_STEP = "A pull request that edits the workflows is reviewed as code"
TEMPLATE_REL = "scoring/v1.0/alpha-model/RO-MEMB-001__r2__eval-rev-c.json"
_OUTPUT = re.compile(r"\$\{\{ steps\.([a-z_-]+)\.outputs\.([a-z_]+) \}\}")
REVIEWER_LOGIN = "cee-reviews"   # rev-c's handle on the base's subjects/reviewers.yaml
REVIEWERS = """reviewers:
  - {id: rev-a, name: "A", kind: human, handles: ["aaa-reviews"]}
  - {id: rev-b, name: "B", kind: human, handles: ["bbb-reviews"]}
  - {id: rev-c, name: "C", kind: human, handles: ["cee-reviews"]}
"""
PRE_FLIGHT = "Pre-flight - the role the change needs, links, submodules, unsafe names, oversized files"
_TERM = re.compile(r"^steps\.([a-z_-]+)\.(outcome|outputs\.[a-z_]+) (==|!=) '([a-z]+)'$")


def judge_steps() -> tuple[dict[str, str], list[dict]]:
    document = yaml.safe_load(GATE.read_text(encoding="utf-8"))
    job = document["jobs"]["judge"]
    return job["env"], job["steps"]


def reviewer_branch(repo: GitRepo, readme: str) -> str:
    """The README's path on a branch: template, fill, `make metrics`, commit. ``readme``: what happens to
    README.md (``regenerated`` as make metrics leaves it, ``forgotten`` left out of the commit, ``prose``
    edited beyond the block). Returns the pull request's head commit."""
    repo.git("checkout", "-q", "-b", "review")
    done = repo.make("new-scoring", "SUBJECT=alpha-model", "CASE=RO-MEMB-001", "RUN=r2", "REVIEWER=rev-c")
    assert done.returncode == 0, done.stderr
    path = repo.root / TEMPLATE_REL
    document = json.loads(path.read_text())
    document.update(criterion_scores=scores_summing_to(9), correctness=0.5, comments="Right diagnosis, thin evidence.")
    path.write_text(canonical(document), encoding="utf-8")
    assert repo.make("fmt").returncode == 0
    assert repo.make("validate").returncode == 0
    metrics(repo)
    readme_path = repo.root / "README.md"
    if readme == "forgotten":
        repo.git("checkout", "-q", "main", "--", "README.md")
    elif readme == "prose":
        readme_path.write_text(readme_path.read_text().replace("## Leaderboard", "## Leaderboard\n\nAlpha wins.", 1))
    head = repo.commit("Grade alpha-model RO-MEMB-001 r2 (rev-c)")
    repo.git("checkout", "-q", "main")
    return head


def runner_workspace(upstream: Path, workspace: Path, base: str) -> None:
    """What the workflow's `uses:` steps leave: the base checked out with full history into judge/ (checkout),
    a Python with the judge's pinned requirements (here this suite's own .venv, wrapped)."""
    workspace.mkdir()
    subprocess.run(["git", "clone", "-q", str(upstream), str(workspace / "judge")], check=True, capture_output=True)
    subprocess.run(["git", "-C", str(workspace / "judge"), "checkout", "-q", "--detach", base], check=True)
    venv = workspace / "judge/.venv"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin/python"
    python.write_text(f"#!/bin/sh\nexec {sys.executable} \"$@\"\n")
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    (venv / ".installed").touch()  # newer than requirements.txt: `make -C judge .venv/.installed` is a no-op


def holds(condition: str, outcomes: dict[str, str], outputs: dict[str, dict[str, str]]) -> bool:
    """A step's `if:` as GitHub evaluates the gate's own forms: `!cancelled()` and comparisons of a step's
    outcome or outputs, joined by `&&`."""
    assert condition.startswith("${{ ") and condition.endswith(" }}"), condition
    verdict = True
    for term in condition[4:-3].split(" && "):
        if term == "!cancelled()":
            continue
        match = _TERM.match(term)
        assert match, f"the test understands only the gate's own conditions: {term}"
        step, what, operator, value = match.groups()
        actual = outcomes.get(step) if what == "outcome" else outputs.get(step, {}).get(what.split(".", 1)[1])
        verdict = verdict and ((actual == value) == (operator == "=="))
    return verdict


def run_judge(workspace: Path, base: str, head: str, env: dict[str, str], author: str = "CONTRIBUTOR",
              login: str = REVIEWER_LOGIN):
    """Every `run:` step of the judge in order, honouring `if:`; returns [(name, outcome, output)]. ``author``:
    the pull request's author_association, ``login`` its author's login."""
    job_env, steps = judge_steps()
    outcomes: dict[str, str] = {}
    outputs: dict[str, dict[str, str]] = {}
    results = []
    failed = False
    for step in steps:
        if "uses" in step:
            continue  # done by runner_workspace
        condition = step.get("if")
        run = not failed if condition is None else holds(condition, outcomes, outputs)
        if not run:
            outcome, output = "skipped", ""
        else:
            output_file = workspace / f"output-{len(results)}"
            output_file.write_text("")
            step_env = {**env, "BASE_SHA": base, "HEAD_SHA": head, "GITHUB_WORKSPACE": str(workspace),
                        "GITHUB_STEP_SUMMARY": str(workspace / "summary.md"), "AUTHOR_ASSOCIATION": author,
                        "PR_AUTHOR": login,
                        "GITHUB_OUTPUT": str(output_file)}
            assert set(job_env) <= set(step_env) | {"PYTHONDONTWRITEBYTECODE"}
            for key, value in step.get("env", {}).items():  # a step's outputs, a constant, or the event's field
                output = _OUTPUT.fullmatch(value)
                if output:
                    step_env[key] = outputs.get(output.group(1), {}).get(output.group(2), "")
                elif "${{" not in value:
                    step_env[key] = value
                assert key in step_env, key
            done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", step["run"]], cwd=workspace,
                                  capture_output=True, text=True, env=step_env)
            outcome, output = ("success" if done.returncode == 0 else "failure"), done.stdout + done.stderr
            failed = failed or done.returncode != 0
            if "id" in step:
                outputs[step["id"]] = dict(line.split("=", 1) for line in output_file.read_text().splitlines())
        if "id" in step:
            outcomes[step["id"]] = outcome
        results.append((step["name"], outcome, output))
    return results


@pytest.fixture
def upstream(tmp_path):
    repo, tree = toolkit_repo(tmp_path / "upstream")
    tree.write("subjects/reviewers.yaml", REVIEWERS)
    metrics(repo)
    base = repo.commit("Benchmark with results")
    return repo, base


def test_the_honest_reviewers_pull_request_passes_every_step_of_the_judge(upstream, tmp_path):
    repo, base = upstream
    head = reviewer_branch(repo, "regenerated")
    changed = repo.git("diff", "--name-only", base, head).split()
    assert TEMPLATE_REL in changed and "README.md" in changed  # make metrics rewrote the README's block
    workspace = tmp_path / "runner"
    runner_workspace(repo.root, workspace, base)
    results = run_judge(workspace, base, head, repo.env())
    assert [(name, outcome) for name, outcome, _ in results if outcome != "success"] == [
        (WORKFLOWS_STEP, "skipped")], results
    names = [name for name, _, _ in results]
    assert len(names) == 11 and names[-1] == "Results diff into the job summary"
    outputs = dict((name, output) for name, _, output in results)
    assert "this change needs the role: reviewer" in outputs[names[2]]
    # pr/ holds the pull request's data, and none of its code.
    laid_out = sorted(p.name for p in (workspace / "pr").iterdir() if p.name != ".git")
    assert laid_out == ["README.md", "golds", "responses", "results", "scoring", "subjects", "system"]
    assert (workspace / "pr" / TEMPLATE_REL).exists()
    summary = (workspace / "summary.md").read_text()
    assert "| alpha-model |" in summary


@pytest.mark.parametrize("readme, step, message", [
    ("forgotten", CHECK_STEP,
     "README.md: its leaderboard block differs from what the inputs in this tree produce (run `make metrics` and "
     "commit README.md with results/)"),
    ("prose", PRE_FLIGHT,
     "::error file=README.md,line=1::changes README.md beyond the regenerated leaderboard block"),
])
def test_attack_a_reviewers_pull_request_with_readme_wrong_is_refused_by_the_right_step(upstream, tmp_path, readme,
                                                                                       step, message):
    repo, base = upstream
    head = reviewer_branch(repo, readme)
    workspace = tmp_path / "runner"
    runner_workspace(repo.root, workspace, base)
    results = run_judge(workspace, base, head, repo.env())
    failed = [(name, output) for name, outcome, output in results if outcome == "failure"]
    assert [name for name, _ in failed] == [step]
    assert message in failed[0][1]
    if readme == "prose":  # nothing of the pull request was laid out or read
        assert not (workspace / "pr").exists()
        assert all(outcome == "skipped" for _, outcome, _ in results[3:])


def test_attack_the_same_grade_from_an_outsider_is_refused_by_the_pre_flight(upstream, tmp_path):
    # Outsider PR 2 of issue 24: a grade under rev-c's id passed as "a reviewer's". The judge now passes the
    # pull request's author, and the base's reviewers.yaml does not give rev-c to mallory.
    repo, base = upstream
    head = reviewer_branch(repo, "regenerated")
    workspace = tmp_path / "runner"
    runner_workspace(repo.root, workspace, base)
    results = run_judge(workspace, base, head, repo.env(), login="mallory")
    failed = [(name, output) for name, outcome, output in results if outcome == "failure"]
    assert [name for name, _ in failed] == [PRE_FLIGHT]
    assert (f"::error file={TEMPLATE_REL},line=1::a new scoring under reviewer id 'rev-c', whose handles in "
            "subjects/reviewers.yaml at the base do not name 'mallory' (they name cee-reviews): a pull request adds "
            "scorings only under reviewer ids whose handles name its author") in failed[0][1]
    assert not (workspace / "pr").exists() and all(outcome == "skipped" for _, outcome, _ in results[3:])


def test_attack_a_one_line_code_change_does_not_skip_the_proof(upstream, tmp_path):
    # A maintainer's pull request editing one comment in scripts/ made the judge skip `make check` and leave the
    # proof to tests.yml, which the same pull request may edit. Now make check runs with the base's toolkit; for a
    # code change what it finds is a notice and the job summary shows it (here: nothing moves).
    repo, base = upstream
    repo.git("checkout", "-q", "-b", "code")
    script = repo.root / "scripts/rgbench/commands/metrics.py"
    script.write_text(script.read_text() + "# a maintainer's comment\n")
    head = repo.commit("A maintainer's comment")
    workspace = tmp_path / "runner"
    runner_workspace(repo.root, workspace, base)
    results = run_judge(workspace, base, head, repo.env(), author="MEMBER")
    outcomes = {name: outcome for name, outcome, _ in results}
    assert [name for name, outcome in outcomes.items() if outcome != "success"] == [WORKFLOWS_STEP]
    assert outcomes[CHECK_STEP] == "success"
    output = dict((name, output) for name, _, output in results)[CHECK_STEP]
    assert output == ("::notice title=make check (the base's toolkit)::this pull request changes the code, and the "
                      "base's toolkit reproduces every committed result from its inputs: the code change moves no "
                      "figure\n")
    summary = (workspace / "summary.md").read_text()
    assert ("## make check: the committed results against this toolkit's recomputation\n\n"
            "This toolkit reproduces every committed result from the inputs.\n") in summary


def test_a_code_change_that_moves_numbers_is_a_notice_with_the_figures_in_the_summary(upstream, tmp_path):
    # Results the base's toolkit does not reproduce: a failure for a data change, a notice for a code change (its
    # own code proves them in tests.yml), with what moves rendered as the results diff.
    repo, base = upstream
    repo.git("checkout", "-q", "-b", "code")
    (repo.root / "scripts/rgbench/NOTE.txt").write_text("a definition change\n")
    board = repo.root / "results/metrics_per_subject.csv"
    board.write_text(board.read_text().replace("0.750000", "0.700000"))
    head = repo.commit("A maintainer's definition change, results as the new code writes them")
    workspace = tmp_path / "runner"
    runner_workspace(repo.root, workspace, base)
    results = run_judge(workspace, base, head, repo.env(), author="MEMBER")
    outcomes = {name: outcome for name, outcome, _ in results}
    assert outcomes[CHECK_STEP] == "success", results
    output = dict((name, output) for name, _, output in results)[CHECK_STEP]
    assert output.startswith("::notice title=make check (the base's toolkit)::this pull request changes the code "
                             "(scripts/ or requirements.txt): this toolkit, the base's, cannot prove its results; the "
                             "pull request's own code does (`make check` in tests.yml); results the base's toolkit "
                             "computes otherwise (the figures the code change moves): results/metrics_per_subject.csv: "
                             "differs from what the inputs in this tree produce")
    summary = (workspace / "summary.md").read_text()
    assert "## Results diff: `committed results` → recomputed by this toolkit" in summary
    assert "| alpha-model | 2.0 |" in summary


def test_a_pull_request_editing_the_tests_workflow_is_named_loudly(upstream, tmp_path):
    repo, base = upstream
    repo.git("checkout", "-q", "-b", "workflow")
    tests = repo.root / ".github/workflows/tests.yml"
    tests.parent.mkdir(parents=True)
    tests.write_text("name: tests\n")
    head = repo.commit("Edit tests.yml")
    workspace = tmp_path / "runner"
    runner_workspace(repo.root, workspace, base)
    results = run_judge(workspace, base, head, repo.env(), author="MEMBER")
    outcomes = {name: outcome for name, outcome, _ in results}
    assert [name for name, outcome in outcomes.items() if outcome != "success"] == [], results
    output = dict((name, output) for name, _, output in results)[WORKFLOWS_STEP]
    assert output.startswith("::warning title=This pull request edits .github/ (the workflows)::this pull request "
                             "edits .github/, where tests.yml runs the proof of the pull request's own code")
    assert "**Warning: this pull request edits .github/" in (workspace / "summary.md").read_text()

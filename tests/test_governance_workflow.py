"""The CI workflow, the pre-commit configuration and the pull-request template, checked as files.

The workflow runs on the benchmark's own GitHub repository, never here; these tests pin the rules that
make it safe and make it the gate the README promises.
"""

from __future__ import annotations

import re
import shlex

import pytest
import yaml
from treebuilder import REPO

WORKFLOW_DIR = REPO / ".github/workflows"
WORKFLOWS = sorted(WORKFLOW_DIR.glob("*.yml")) + sorted(WORKFLOW_DIR.glob("*.yaml"))
GATE = REPO / ".github/workflows/review.yml"
PINNED = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@[0-9a-f]{40}$")


def load(path):
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    # YAML 1.1 reads the key `on` as the boolean True.
    if True in document:
        document["on"] = document.pop(True)
    return document


def steps(document):
    for job_name, job in document["jobs"].items():
        for index, step in enumerate(job.get("steps", [])):
            yield job_name, index, step


@pytest.fixture(scope="module")
def gate():
    return load(GATE)


def test_there_is_a_workflow_and_every_workflow_is_safe():
    assert GATE in WORKFLOWS
    for path in WORKFLOWS:
        code = [line for line in path.read_text(encoding="utf-8").splitlines() if not line.lstrip().startswith("#")]
        assert not any("pull_request_target" in line for line in code), path
        document = load(path)
        assert document["permissions"] == {"contents": "read"}, path
        for job_name, job in document["jobs"].items():
            assert "permissions" not in job or job["permissions"] == {"contents": "read"}, (path, job_name)
        for job_name, index, step in steps(document):
            if "uses" in step:
                assert PINNED.match(step["uses"]), f"{path.name} {job_name}[{index}]: {step['uses']} not pinned by SHA"
            if step.get("uses", "").startswith("actions/checkout@"):
                assert step.get("with", {}).get("persist-credentials") is False, (path, job_name, index)
            run = step.get("run", "")
            assert "${{" not in run, f"{path.name} {job_name}[{index}]: expressions go through env:, not run:"


def test_triggered_by_pull_request_only(gate):
    assert list(gate["on"]) == ["pull_request"]


def test_the_judge_comes_from_the_base_branch(gate):
    checkouts = [step for _, _, step in steps(gate) if step.get("uses", "").startswith("actions/checkout@")]
    judge = next(step for step in checkouts if step["with"].get("path") == "judge")
    assert judge["with"]["ref"] == "${{ github.event.pull_request.base.sha }}"
    pr = next(step for step in checkouts if step["with"].get("path") == "pr")
    assert "ref" not in pr["with"] and pr["with"]["fetch-depth"] == 0  # full history for provenance
    gate_job = gate["jobs"]["gate"]
    assert gate_job["env"]["BASE_SHA"] == "${{ github.event.pull_request.base.sha }}"
    for _, _, step in steps({"jobs": {"gate": gate_job}}):
        for command in step.get("run", "").splitlines():
            words = shlex.split(command) if command.strip() and not command.strip().startswith(("case", "esac", "OWNER")) else []
            scripts = [w for w in words if w.endswith(".py")]
            assert all(w.startswith("judge/scripts/") for w in scripts), command  # never the PR's own scripts
            if words[:1] == ["make"]:
                assert words[1:3] == ["-C", "judge"], command
            if "--root" in words:
                assert words[words.index("--root") + 1] == "pr", command


def test_the_gate_runs_every_proof_in_order(gate):
    runs = [(step.get("id"), step.get("if", ""), step.get("run", ""))
            for _, _, step in steps({"jobs": {"gate": gate["jobs"]["gate"]}})
            if "run" in step]
    texts = [run for _, _, run in runs]
    order = ["check_pr_paths.py", "validate.py", "make -C judge check", "check_provenance.py", "results_diff.py"]
    positions = [next(i for i, text in enumerate(texts) if marker in text) for marker in order]
    assert positions == sorted(positions)
    preflight = runs[positions[0]]
    assert preflight[0] == "paths"
    for _, condition, text in runs[positions[0] + 1:]:
        assert "steps.paths.outcome == 'success'" in condition, text  # nothing reads the PR if pre-flight failed
    assert '--changed "$BASE_SHA" --format github' in texts[positions[1]]
    assert '--base "$BASE_SHA"' in texts[positions[3]]
    assert '--summary "$GITHUB_STEP_SUMMARY"' in texts[positions[4]]
    assert 'ROOT="$GITHUB_WORKSPACE/pr"' in texts[positions[2]]


def test_pull_request_fields_reach_run_lines_only_through_quoted_env(gate):
    # ${{ ... }} never appears in run: (tested above); every $VARIABLE there sits inside double quotes.
    variables = 0
    for _, _, step in steps(gate):
        for line in step.get("run", "").splitlines():
            for match in re.finditer(r"\$\{?[A-Z_]+", line):
                variables += 1
                assert line[: match.start()].count('"') % 2 == 1, f"unquoted {match.group()} in: {line}"
    assert variables >= 7


def test_every_script_and_option_the_workflow_uses_exists():
    import subprocess
    import sys

    text = GATE.read_text()
    used = set(re.findall(r"judge/scripts/([a-z_]+\.py)((?: --?[a-z-]+)*)", text))
    names = {name for name, _ in used}
    assert {"check_pr_paths.py", "validate.py", "check_provenance.py", "results_diff.py", "fmt_json.py"} <= names
    for name in sorted(names):
        assert (REPO / "scripts" / name).exists(), name
        help_text = subprocess.run([sys.executable, str(REPO / "scripts" / name), "--help"], capture_output=True,
                                   text=True, check=True).stdout
        for flag in re.findall(rf"judge/scripts/{re.escape(name)}[^\n]*", text):
            for option in re.findall(r"(--[a-z-]+)", flag):
                assert option in help_text, (name, option)
    make_targets = re.findall(r"make -C judge ([a-z./-]+)", text)
    makefile = (REPO / "Makefile").read_text()
    for target in make_targets:
        assert re.search(rf"^{re.escape(target.replace('.venv', '$(VENV)'))}:", makefile, flags=re.M), target


def test_pre_commit_runs_the_ci_validator_and_pins_other_hooks():
    config = yaml.safe_load((REPO / ".pre-commit-config.yaml").read_text())
    local = next(repo for repo in config["repos"] if repo["repo"] == "local")
    validate = next(hook for hook in local["hooks"] if hook["id"] == "rgbench-validate")
    assert "scripts/validate.py --changed" in validate["entry"] and validate["pass_filenames"] is False
    remote = [repo for repo in config["repos"] if repo["repo"] != "local"]
    assert remote and all(re.fullmatch(r"[0-9a-f]{40}", repo["rev"]) for repo in remote)
    hook_ids = {hook["id"] for repo in remote for hook in repo["hooks"]}
    assert {"check-json", "check-yaml", "check-symlinks", "check-added-large-files"} <= hook_ids


def test_pull_request_template_walks_the_reviewer_path():
    text = (REPO / ".github/PULL_REQUEST_TEMPLATE.md").read_text()
    for phrase in ("make new-scoring", "make fmt validate", "make metrics", "results/historico/", "make diff", "gold"):
        assert phrase in text, phrase


@pytest.mark.parametrize("script", ["new_scoring.py", "check_pr_paths.py", "check_provenance.py", "results_diff.py",
                                    "snapshot.py", "history.py", "validate.py"])
def test_help_of_every_governance_script(script):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(REPO / "scripts" / script), "--help"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("usage:") and "--root" in done.stdout, script

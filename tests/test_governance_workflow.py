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


TESTS = REPO / ".github/workflows/tests.yml"
CODEOWNERS = REPO / ".github/CODEOWNERS"
# The folders the judge lays out from the pull request's objects: data the base's scripts read, never code.
DATA_PATTERNS = ["/system/", "/golds/", "/responses/", "/scoring/", "/scoring_multi/", "/subjects/", "/results/",
                 "/README.md"]
# The only commands a `run:` line of the judge may start with: the judge's own programs and read-only git plumbing.
JUDGE_COMMANDS = ("judge/.venv/bin/python judge/scripts/", "make -C judge ", "git -C judge fetch ",
                  "git -C judge worktree add ", "git -C pr sparse-checkout set ", "git -C pr read-tree ",
                  "git -C judge diff --quiet ", 'echo "code=$code" >> "$GITHUB_OUTPUT"',
                  'echo "workflows=$workflows" >> "$GITHUB_OUTPUT"',
                  'echo "::warning title=This pull request edits .github/ (the workflows)::$WORKFLOWS_WARNING"',
                  'echo "**Warning: $WORKFLOWS_WARNING**" >> "$GITHUB_STEP_SUMMARY"')
# Shell words that only set the judge's own variables.
ASSIGNMENTS = ("role=", "case ", "esac", "OWNER|MEMBER", "code=true", "workflows=true", "notice=()",
               "true) notice=(--notice) ;;")


def code_lines(path):
    return [line for line in path.read_text(encoding="utf-8").splitlines() if not line.lstrip().startswith("#")]


def test_there_are_two_workflows_and_every_workflow_is_safe():
    assert WORKFLOWS == [GATE, TESTS]
    for path in WORKFLOWS:
        text = "\n".join(code_lines(path))
        assert "secrets." not in text and "secrets:" not in text, path  # no secret is ever used
        assert "actions/cache" not in text and "cache:" not in text, path  # no cache to poison or leak
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


def test_the_judge_runs_the_base_branchs_workflow(gate):
    # pull_request_target: GitHub takes this file from the base branch, whatever the pull request's copy says.
    assert list(gate["on"]) == ["pull_request_target"]
    assert gate["on"]["pull_request_target"]["branches"] == ["main"]
    assert list(gate["jobs"]) == ["judge"]


def test_attack_a_pull_request_editing_the_workflow_does_not_choose_its_judge(gate):
    # On `pull_request`, GitHub ran the workflow file of the PR's merge commit: editing review.yml chose the judge.
    # Now the judge's file is the base's (pull_request_target) and the only checkout is the base; the PR's own
    # workflow edit is a maintainer's change that the pre-flight refuses (test_governance_paths) and CODEOWNERS owns.
    assert "pull_request" not in gate["on"]
    checkouts = [step for _, _, step in steps(gate) if step.get("uses", "").startswith("actions/checkout@")]
    assert len(checkouts) == 1
    assert checkouts[0]["with"] == {"ref": "${{ github.event.pull_request.base.sha }}", "path": "judge",
                                    "fetch-depth": 0, "persist-credentials": False}
    owned = codeowners_patterns()
    assert "/.github/" in owned


def test_the_judge_never_runs_the_pull_requests_code(gate):
    job = gate["jobs"]["judge"]
    assert job["env"]["BASE_SHA"] == "${{ github.event.pull_request.base.sha }}"
    assert job["env"]["HEAD_SHA"] == "${{ github.event.pull_request.head.sha }}"
    for _, _, step in steps(gate):
        for command in step.get("run", "").splitlines():
            command = command.strip()
            if not command or command.startswith(ASSIGNMENTS):
                continue
            assert command.startswith(JUDGE_COMMANDS), command
            words = shlex.split(command)
            if "--root" in words:
                assert words[words.index("--root") + 1] in ("pr", "judge"), command
            if words[:1] == ["make"]:
                assert words[1:3] == ["-C", "judge"], command
    layout = next(step["run"] for _, _, step in steps(gate) if step.get("id") == "data")
    sparse = next(line for line in layout.splitlines() if "sparse-checkout set" in line)
    assert shlex.split(sparse)[shlex.split(sparse).index("--no-cone") + 1:] == DATA_PATTERNS
    # provenance lays out each commit it proves as the judge lays out the pull request
    from rgbench.governance.provenance import DATA_LAYOUT
    assert DATA_PATTERNS == [f"/{name}/" if "." not in name else f"/{name}" for name in DATA_LAYOUT]
    assert '"$HEAD_SHA"' in layout and "--no-checkout" in layout


def test_the_gate_runs_every_proof_in_order(gate):
    runs = [(step.get("id"), step.get("if", ""), step.get("run", "")) for _, _, step in steps(gate) if "run" in step]
    texts = [run for _, _, run in runs]
    order = ["git -C judge fetch", "check_pr_paths.py", "sparse-checkout", "validate.py", "fmt_json.py",
             "check_results.py", "check_provenance.py", "results_diff.py"]
    positions = [next(i for i, text in enumerate(texts) if marker in text) for marker in order]
    assert positions == sorted(positions)
    assert runs[positions[1]][0] == "paths" and runs[positions[2]][0] == "data"
    assert "steps.paths.outcome == 'success'" in runs[positions[2]][1]  # nothing is laid out if pre-flight failed
    for _, condition, text in runs[positions[3]:]:
        assert "steps.data.outcome == 'success'" in condition, text
    assert '--root judge --base "$BASE_SHA" --head "$HEAD_SHA"' in texts[positions[1]]
    assert '--changed "$BASE_SHA" --format github' in texts[positions[3]]
    assert '--root pr --summary "$GITHUB_STEP_SUMMARY" "${notice[@]}"' in texts[positions[5]]
    assert '--base "$BASE_SHA"' in texts[positions[6]]
    assert '--summary "$GITHUB_STEP_SUMMARY"' in texts[positions[7]]


def test_attack_no_pull_request_skips_the_proof(gate):
    # A maintainer's one-line comment in scripts/ made the judge skip `make check`, leaving the proof to tests.yml,
    # which the same pull request can edit. Now every proof runs whenever the data was laid out, whatever the
    # pull request touches; a code change only turns make check's differences into a notice (what the code moves).
    proofs = ("validate.py", "fmt_json.py", "check_results.py", "check_provenance.py", "results_diff.py")
    for _, _, step in steps(gate):
        if any(f"judge/scripts/{proof}" in step.get("run", "") for proof in proofs):
            assert step["if"] == "${{ !cancelled() && steps.data.outcome == 'success' }}", step["name"]
    assert "outputs.code" not in "".join(step.get("if", "") for _, _, step in steps(gate))
    check = next(step for _, _, step in steps(gate) if "check_results.py" in step.get("run", ""))
    assert check["env"] == {"CODE": "${{ steps.touches.outputs.code }}"}
    assert 'case "$CODE" in\n  true) notice=(--notice) ;;\nesac' in check["run"]
    touches = next(step for _, _, step in steps(gate) if step.get("id") == "touches")
    assert 'git -C judge diff --quiet "$BASE_SHA...$HEAD_SHA" -- scripts requirements.txt && code=false' in touches["run"]
    assert 'git -C judge diff --quiet "$BASE_SHA...$HEAD_SHA" -- .github && workflows=false' in touches["run"]


def test_attack_a_pull_request_editing_the_tests_workflow_is_named_loudly(gate):
    # tests.yml runs the pull request's own code: a pull request editing it edits its own proof. The judge says so
    # as a warning and in the job summary: a maintainer's change, reviewed as code.
    warning = next(step for _, _, step in steps(gate) if "WORKFLOWS_WARNING" in step.get("env", {}))
    assert warning["if"] == ("${{ !cancelled() && steps.data.outcome == 'success' && "
                             "steps.touches.outputs.workflows == 'true' }}")
    text = warning["env"]["WORKFLOWS_WARNING"]
    assert "tests.yml" in text and "that proof is the one this pull request edits" in text
    assert "review every line of .github/ as code" in text
    assert '>> "$GITHUB_STEP_SUMMARY"' in warning["run"] and "::warning title=" in warning["run"]
def test_the_pre_flight_checks_the_pull_requests_author(gate):
    # A pull request speaks only for its author (issue 24): the pre-flight gets the author's login, through env:
    # and quoted, and checks it against the base's registries (the judge's own tree, --root judge).
    step = next(step for _, _, step in steps(gate) if step.get("id") == "paths")
    assert step["env"] == {"AUTHOR_ASSOCIATION": "${{ github.event.pull_request.author_association }}",
                           "PR_AUTHOR": "${{ github.event.pull_request.user.login }}"}
    command = next(line for line in step["run"].splitlines() if "check_pr_paths.py" in line)
    words = shlex.split(command)
    assert words[words.index("--author") + 1] == "$PR_AUTHOR" and '--author "$PR_AUTHOR"' in command
    assert words[words.index("--root") + 1] == "judge"


def test_the_pull_requests_own_code_runs_only_on_pull_request():
    tests = load(TESTS)
    assert list(tests["on"]) == ["pull_request"]
    runs = [step.get("run") for _, _, step in steps(tests) if "run" in step]
    assert runs == ["make test", "make lint", "make check"]


def codeowners_patterns() -> dict[str, str]:
    """The hand-kept lines' patterns and owners (the generated block is tests/test_governance_codeowners.py's)."""
    from rgbench.governance.codeowners import split_block

    parts = split_block(CODEOWNERS.read_text(encoding="utf-8"))
    assert not isinstance(parts, str) and parts[1] is not None, parts
    owners = {}
    for line in (parts[0] + parts[2]).splitlines():
        if line.strip() and not line.startswith("#"):
            pattern, *who = line.split()
            owners[pattern] = " ".join(who)
    return owners


def test_codeowners_owns_every_maintainer_path_and_no_contributor_path():
    import subprocess

    from rgbench.governance.gitio import Change
    from rgbench.governance.pr_paths import MAINTAINER, Facts, role_of

    owned = codeowners_patterns()
    assert owned and all(who.startswith("@") for who in owned.values())
    contributor = {"responses", "scoring", "scoring_multi", "subjects", "results", "README.md"}
    tracked = subprocess.run(["git", "-C", str(REPO), "ls-files"], capture_output=True, text=True, check=True).stdout
    for top in sorted({path.split("/")[0] for path in tracked.split()}):
        pattern = f"/{top}/" if (REPO / top).is_dir() else f"/{top}"
        assert (pattern in owned) == (top not in contributor), top
    for pattern in owned:
        sample = pattern.strip("/") + ("/x.json" if pattern.endswith("/") else "")
        role, _ = role_of(Change("A", sample, sample, "100644", "b" * 40), Facts())
        assert role == MAINTAINER, pattern  # the pre-flight and CODEOWNERS agree


def test_zizmor_is_pinned_run_by_make_lint_and_every_ignore_is_justified():
    assert re.search(r"^zizmor==[0-9.]+$", (REPO / "requirements-dev.txt").read_text(), flags=re.M)
    lint = re.search(r"^lint:.*\n((?:\t.*\n)+)", (REPO / "Makefile").read_text(), flags=re.M)
    assert lint and "zizmor --offline" in lint.group(1) and ".github" in lint.group(1)
    # the workflows rgbench init writes into an adopter's repository are audited like ours
    template = REPO / "scripts/rgbench/templates/init/.github"
    assert "scripts/rgbench/templates/init/.github" in lint.group(1)
    for path in WORKFLOWS + sorted((template / "workflows").glob("*.yml")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if "zizmor: ignore" in line:
                justification = line.split("--", 1)[1].strip() if "--" in line else ""
                assert len(justification) > 20, f"{path.name}: an ignored finding needs its reason beside it: {line}"


def test_pull_request_fields_reach_run_lines_only_through_quoted_env(gate):
    # ${{ ... }} never appears in run: (tested above); every $VARIABLE there sits inside double quotes.
    variables = 0
    for _, _, step in steps(gate):
        for line in step.get("run", "").splitlines():
            for match in re.finditer(r"\$\{?[A-Z_]+", line):
                variables += 1
                assert line[: match.start()].count('"') % 2 == 1, f"unquoted {match.group()} in: {line}"
    assert variables >= 9


@pytest.mark.slow   # runs every script's --help in a subprocess: make test-slow
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


@pytest.mark.slow   # a subprocess each: make test-slow
@pytest.mark.parametrize("script", ["new_scoring.py", "check_pr_paths.py", "check_provenance.py", "results_diff.py",
                                    "snapshot.py", "history.py", "validate.py"])
def test_help_of_every_governance_script(script):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(REPO / "scripts" / script), "--help"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("usage:") and "--root" in done.stdout, script

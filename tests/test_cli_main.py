"""The `rgbench` command: one parser module (rgbench/cli.py) declares every subcommand and its options, each
running its rgbench.commands module; `--root` defaults to the current directory; scripts/*.py are shims that
run the same subcommand with the options and output they always had."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
from treebuilder import REPO, small_tree

from rgbench.cli import COMMANDS, REPO_ROOT, RESULT_STEPS, command_parser, main, run_script

SCRIPTS = REPO / "scripts"
ISSUE_COMMANDS = ("validate", "metrics", "leaderboard", "check", "agreement", "new-scoring", "snapshot", "history",
                  "diff", "provenance", "paths", "fmt", "init")
# Every option each script had before the one parser (issue 26), with its default: the subcommands keep them.
OPTIONS = {
    "validate": {"--root": REPO_ROOT, "--changed": None, "--format": "text", "--scoring-dir": "scoring"},
    "metrics": {"--root": REPO_ROOT, "--readme": False},
    "compute": {"--root": REPO_ROOT, "--alpha": None, "--scoring-dir": "scoring", "--results-dir": "results"},
    "leaderboard": {"--root": REPO_ROOT, "--readme": False, "--source-commit": ""},
    "check": {"--root": REPO_ROOT, "--summary": None, "--notice": False},
    "agreement": {"--root": REPO_ROOT, "--multi-dir": "scoring_multi", "--output-dir": "scoring_consolidated",
                  "--no-consolidated": False},
    "new-scoring": {"--root": REPO_ROOT, "--subject": None, "--case": None, "--run": None, "--reviewer": None},
    "snapshot": {"--root": REPO_ROOT, "--date": None},
    "history": {"--root": REPO_ROOT, "--subject": None, "--format": "markdown", "--no-current": False},
    "diff": {"--root": REPO_ROOT, "--base": None, "--max-jump": None, "--summary": None, "--fail-on-jump": False},
    "provenance": {"--root": REPO_ROOT, "--base": None, "--head": "HEAD"},
    "paths": {"--root": REPO_ROOT, "--base": None, "--head": "HEAD", "--max-bytes": 1_000_000, "--maintainer": False,
              "--author": None, "--format": "text"},
    "codeowners": {"--root": REPO_ROOT, "--check": False},
    "fmt": {"--root": REPO_ROOT, "--check": False},
    "init": {"DIR": None, "--requirement": None},
    "review": {"--root": REPO_ROOT, "--reviewer": None, "--port": 0, "--unblind": False},
    "assign": {"--root": REPO_ROOT, "--share": None, "--draw": None, "--next": None, "--subjects": None,
               "--reassign": None},
    "drift": {"--root": REPO_ROOT, "--output": None},
    "plan": {"--root": REPO_ROOT, "--figure": "Q_final", "--half-width": None},
}


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(SCRIPTS)}


def rgbench(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rgbench", *args], capture_output=True, text=True, env=env(), cwd=cwd)


def script(name: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPTS / name), *args], capture_output=True, text=True, cwd=cwd)


def test_every_command_the_issue_names_exists_with_its_module_and_shim():
    assert set(ISSUE_COMMANDS) <= set(COMMANDS) == set(OPTIONS)
    for name, command in COMMANDS.items():
        module = REPO / "scripts/rgbench/commands" / f"{command.module}.py"
        assert module.is_file() and ast.get_docstring(ast.parse(module.read_text())), name
        assert (SCRIPTS / command.script).is_file(), command.script


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_subcommand_keeps_the_options_and_defaults_its_script_had(name):
    parser = command_parser(name, None, REPO_ROOT, "this repository")
    found = {(action.option_strings[-1] if action.option_strings else action.metavar): action.default
             for action in parser._actions if action.dest != "help"}
    assert found == OPTIONS[name]
    assert all(action.help for action in parser._actions), name


def test_the_scripts_are_shims_of_their_subcommands():
    shims = {command.script: name for name, command in COMMANDS.items()}
    for path in sorted(SCRIPTS.glob("*.py")):
        if path.name == "make_synthetic.py":   # a test-data generator for tests and bench/, not a command
            continue
        text = path.read_text()
        assert f'run_script("{shims[path.name]}")' in text and len(text.splitlines()) <= 10, path.name


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_subcommand_has_help_naming_it_and_root_defaulting_to_the_current_directory(name, capsys):
    with pytest.raises(SystemExit) as stop:
        main([name, "--help"])
    assert stop.value.code == 0
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps the help at the terminal width
    assert out.startswith(f"usage: rgbench {name} ")
    if name != "init":  # init takes the new repository's DIR instead
        assert "--root ROOT" in out and "(default: the current directory)" in out
        assert "this repository" not in out


def test_scripts_run_directly_keep_their_program_name_and_default():
    done = script("validate.py", "--help")
    assert done.returncode == 0 and done.stdout.startswith("usage: validate.py ")
    assert "(default: this repository)" in done.stdout


def test_the_command_prints_exactly_what_the_script_prints(tmp_path):
    root = small_tree(tmp_path / "tree").root
    for args in (("validate",), ("fmt", "--check")):
        name = COMMANDS[args[0]].script
        ours, theirs = rgbench(*args, "--root", str(root)), script(name, "--root", str(root), *args[1:])
        assert (ours.returncode, ours.stdout, ours.stderr) == (theirs.returncode, theirs.stdout, theirs.stderr), args
    (root / "golds/v1.0/RO-FOUL-001_gold.md").write_text("no json block\n")
    ours, theirs = rgbench("validate", "--root", str(root)), script("validate.py", "--root", str(root))
    assert ours.returncode == theirs.returncode == 1 and ours.stderr == theirs.stderr != ""


def test_root_defaults_to_the_current_directory(tmp_path, monkeypatch, capsys):
    root = small_tree(tmp_path / "tree").root
    monkeypatch.chdir(root)
    assert main(["metrics"]) == 0
    assert "-> ./results/leaderboard.{csv,html,md}" in capsys.readouterr().out
    assert (root / "results/leaderboard.csv").is_file() and (root / "results/agreement.csv").is_file()
    monkeypatch.chdir(tmp_path)  # not a benchmark tree: the message says so, and how to point at one
    assert main(["validate"]) == 1
    assert capsys.readouterr().err.startswith(
        "system/benchmark.yaml: missing: this folder holds no benchmark (run the command in a benchmark's root or "
        "pass --root DIR; `rgbench init DIR` starts a new one)\n")


JUDGE_REVIEWERS = ("reviewers:\n  - id: rev-a\n    name: \"A\"\n    kind: human\n  - id: rev-b\n    name: \"B\"\n"
                   "    kind: human\n  - id: judge-x\n    name: \"Judge X\"\n    kind: llm-judge\n")


def judged_tree(root):
    """small_tree with an llm-judge's grade in scoring/: read by the agreement report, left out of the metrics."""
    tree = small_tree(root)
    tree.write("subjects/reviewers.yaml", JUDGE_REVIEWERS)
    tree.add_scoring("alpha-model", "RO-MEMB-001", "r2", "judge-x", raw=4, correctness=0)  # a run only the judge graded
    return tree


@pytest.mark.parametrize("build", [small_tree, judged_tree], ids=["humans", "with-an-llm-judge"])
def test_metrics_writes_what_the_three_scripts_write(tmp_path, build):
    ours, theirs = build(tmp_path / "a").root, build(tmp_path / "b").root
    assert main(["metrics", "--root", str(ours)]) == 0
    if build is judged_tree:   # the one load keeps the judge for the report and drops it from the metrics
        assert "judge-x" not in (ours / "results/per_run.csv").read_text()
        assert "judge-x" in (ours / "results/reviewers.csv").read_text()
    for name in RESULT_STEPS:   # the steps one by one
        assert run_script(name, ["--root", str(theirs)]) == 0, name
    files = sorted(p.relative_to(theirs / "results").as_posix() for p in (theirs / "results").rglob("*") if p.is_file())
    assert "leaderboard.html" in files and "agreement.csv" in files
    assert {f: (ours / "results" / f).read_bytes() for f in files} == {f: (theirs / "results" / f).read_bytes() for f in files}

def test_metrics_keeps_the_consolidated_scorings_current_only_once_asked_for(tmp_path):
    root = small_tree(tmp_path / "tree").root
    assert main(["metrics", "--root", str(root)]) == 0
    assert not (root / "scoring_consolidated").exists()   # never asked for: not written
    assert main(["agreement", "--root", str(root)]) == 0   # make agreement writes them
    folder = root / "scoring_consolidated/v1.0"
    before = {p.relative_to(folder).as_posix() for p in folder.rglob("*.json")}
    assert before
    gone = sorted((root / "scoring/v1.0").rglob("*.json"))[0]
    gone.unlink()   # its run is now unscored: no consolidated grade
    assert main(["metrics", "--root", str(root)]) == 0    # once asked for, make metrics keeps them current
    after = {p.relative_to(folder).as_posix() for p in folder.rglob("*.json")}
    assert after == before - {f"{gone.parent.name}/{gone.name}"}



def test_metrics_stops_at_the_first_failing_step(tmp_path, capsys):
    root = small_tree(tmp_path / "tree").root
    (root / "subjects/registry.yaml").write_text("subjects: [\n")
    assert main(["metrics", "--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert "subjects/registry.yaml" in err and not (root / "results").exists()


# the options each command requires besides --root (a placeholder value: the root is refused first)
REQUIRED = {"new-scoring": ["--subject", "s", "--case", "c", "--run", "r", "--reviewer", "x"], "diff": ["--base", "HEAD"],
            "provenance": ["--base", "HEAD"], "paths": ["--base", "HEAD"], "review": ["--reviewer", "x"],
            "assign": ["--share", "0.2"]}


@pytest.mark.parametrize("name", [name for name, command in COMMANDS.items() if command.root_help is not None])
def test_every_command_on_a_tree_refuses_a_root_that_is_not_a_directory(tmp_path, capsys, name):
    root = tmp_path / "nowhere"
    assert run_script(name, ["--root", str(root), *REQUIRED.get(name, [])]) == 1
    assert capsys.readouterr().err == f"{root}: not a directory (--root takes a benchmark tree)\n"


def test_usage_unknown_command_and_version(capsys):
    assert main([]) == 2
    assert "commands:" in capsys.readouterr().out
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert all(f"  {name} " in out for name in COMMANDS)
    assert main(["valdate"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: rgbench COMMAND") and "'valdate' is not a command" in err
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("rgbench ")


def test_a_reader_that_leaves_the_pipe_gets_no_traceback():
    # `rgbench plan | head`: the reader closes the pipe before the command writes; the command stops quietly
    # (exit 1, nothing on stderr) instead of a BrokenPipeError traceback
    with subprocess.Popen([sys.executable, "-P", "-m", "rgbench", "plan", "--root", str(REPO / "examples/judgeassist")],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          env={**os.environ, "PYTHONPATH": str(SCRIPTS)}) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()
        err = process.stderr.read().decode()
        status = process.wait()
    assert status == 1 and err == ""

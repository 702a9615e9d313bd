"""The ``rgbench`` command: one subcommand per script, each run through the script's own ``main(argv)``.

    rgbench validate --root DIR      is   python scripts/validate.py --root DIR
    rgbench metrics                  is   make metrics (scripts/metrics.py: validate, compute, agree, leaderboard)

A subcommand takes exactly the script's options and prints exactly what it prints, with two differences:
``--root`` defaults to the current directory (scripts/*.py default to the checkout they belong to), and
``--help`` names the subcommand. To add a subcommand, add a line to :data:`COMMANDS` (the script's file
name under scripts/ and a one-line summary); the wheel ships every scripts/*.py inside the package as
``rgbench/scripts/`` (setup.py), a source checkout runs them from scripts/.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import NamedTuple

from . import __version__
from .cli import invoked_as

PROG = "rgbench"
Main = Callable[[list[str] | None], int]


class Command(NamedTuple):
    """A subcommand: the script it runs (its file name under scripts/) and its summary for ``--help``."""

    script: str
    summary: str


COMMANDS: dict[str, Command] = {
    "validate": Command("validate.py", "check every input file; write nothing"),
    "metrics": Command("metrics.py", "validate, then write results/ (metrics, agreement, leaderboard), as `make metrics`"),
    "compute": Command("compute_metrics.py", "the metric tables only (also --alpha, --scoring-dir, --results-dir)"),
    "leaderboard": Command("build_leaderboard.py", "rebuild results/leaderboard.* from the metric tables (--readme)"),
    "check": Command("check_results.py", "fail when committed results/ differ from what the inputs produce"),
    "agreement": Command("aggregate_scoring.py", "several reviewers: results/agreement.csv and scoring_consolidated/"),
    "new-scoring": Command("new_scoring.py", "write a reviewer's scoring template for one response"),
    "snapshot": Command("snapshot.py", "copy the current results into results/historico/DATE/"),
    "history": Command("history.py", "a subject's metrics across snapshots"),
    "diff": Command("results_diff.py", "Markdown diff of the results against a git revision (--base)"),
    "provenance": Command("check_provenance.py", "fail on commits since --base that edit results by hand"),
    "paths": Command("check_pr_paths.py", "pre-flight of a change since --base: authorship (--author), links, "
                                          "submodules, odd or large files"),
    "codeowners": Command("codeowners.py", "write .github/CODEOWNERS' block from the registry (--check: only check it)"),
    "fmt": Command("fmt_json.py", "rewrite the JSON inputs in canonical form (--check: only list them)"),
    "init": Command("init_benchmark.py", "write a new benchmark repository into DIR"),
    "review": Command("review.py", "serve the blind grading page on 127.0.0.1 (--reviewer ID; --port, --unblind)"),
    "assign": Command("assign.py", "pick a stratified, seeded sample of runs for second grades (--share)"),
}

def scripts_dir() -> Path:
    """The folder of the scripts: ``rgbench/scripts/`` in an installed wheel, else scripts/ of the checkout
    this package lies in (``scripts/rgbench/..``)."""
    here = Path(__file__).resolve().parent
    shipped = here / "scripts"
    return shipped if shipped.is_dir() else here.parent


def load_script(name: str) -> ModuleType:
    """The module of script ``name`` (e.g. ``validate.py``), imported from its file as ``rgbench.scripts.<stem>``."""
    module_name = f"{__package__}.scripts.{Path(name).stem}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, scripts_dir() / name)
    if spec is None or spec.loader is None:
        raise ImportError(f"{scripts_dir() / name}: not a Python script")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def usage() -> str:
    width = max(len(name) for name in COMMANDS)
    lines = [f"usage: {PROG} COMMAND [--root DIR] [options]   ({PROG} COMMAND --help for each command's options)",
             "", "Reviewer-graded benchmarks kept in git. Every command works on the benchmark tree --root DIR",
             "(default: the current directory).", "", "commands:"]
    lines += [f"  {name.ljust(width)}  {command.summary}" for name, command in COMMANDS.items()]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``rgbench`` console script; returns the exit status of the subcommand."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        sys.stdout.write(usage())
        return 0 if args else 2
    if args[0] == "--version":
        print(f"{PROG} {__version__}")
        return 0
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        sys.stderr.write(usage())
        print(f"{PROG}: {name!r} is not a command (choose from {', '.join(COMMANDS)})", file=sys.stderr)
        return 2
    entry: Main = load_script(COMMANDS[name].script).main
    with invoked_as(f"{PROG} {name}"):
        return entry(rest)

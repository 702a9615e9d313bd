"""The ``rgbench`` command line: every subcommand and its options, in one parser module.

    rgbench validate --root DIR      is   python scripts/validate.py --root DIR
    rgbench metrics                  is   make metrics (validate, compute, agree, leaderboard)

A subcommand's options are declared here (:data:`COMMANDS`); what it does is ``run(args)`` of its module
``rgbench.commands.<module>``, whose docstring is the ``--help`` description. ``rgbench SUB`` defaults
``--root`` to the current directory; scripts/*.py, kept where the docs and workflows name them, are shims
that call :func:`run_script`, which defaults ``--root`` to the checkout they belong to. To add a
subcommand: a module under rgbench/commands/ with a docstring and ``run(args) -> int``, and a line in
:data:`COMMANDS` with its options (tests/test_cli_main.py checks every one has ``--help``).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from . import __version__
from .atomic import OutputError
from .problems import refuse

PROG = "rgbench"
REPO_ROOT = Path(__file__).resolve().parents[2]   # the checkout of a source tree (scripts/rgbench/..)
_REPO_DEFAULT = "(default: this repository)"
TREE = f"benchmark tree {_REPO_DEFAULT}"
GIT_TREE = f"benchmark tree inside a git repository {_REPO_DEFAULT}"
# The subcommands that write results/, in the order they run one by one; `metrics` (make metrics, check) writes
# the same bytes from one load (tests/test_cli_main.py).
RESULT_STEPS = ("compute", "agreement", "leaderboard")

Options = Callable[[argparse.ArgumentParser], None]


class Command(NamedTuple):
    """A subcommand: its module under rgbench/commands/, its ``--help`` summary, its shim under scripts/, its
    options beyond ``--root`` and the help of ``--root`` (None: it takes none)."""

    module: str
    summary: str
    script: str
    options: Options
    root_help: str | None = TREE


def _validate(p: argparse.ArgumentParser) -> None:
    from .load.loader import SCORING_DIR

    p.add_argument("--changed", metavar="BASE",
                   help="report only problems of files changed since git revision BASE and their references")
    p.add_argument("--format", choices=("text", "github"), default="text",
                   help="text: `path: message` lines on stderr (default); github: annotations on stdout")
    p.add_argument("--scoring-dir", default=SCORING_DIR, metavar="NAME",
                   help="folder of the tree to read scorings from, e.g. scoring_consolidated (default: scoring)")


def _metrics(p: argparse.ArgumentParser) -> None:
    p.add_argument("--readme", action="store_true",
                   help="also embed results/leaderboard.md in the tree's README.md (what `make metrics` does)")


def _compute(p: argparse.ArgumentParser) -> None:
    p.add_argument("--alpha", help="weight of P in Q_final, 0..1 (default: system/metrics/<version>/config.yaml)")
    p.add_argument("--scoring-dir", default="scoring", metavar="NAME",
                   help="folder of the tree to read scorings from, e.g. scoring_consolidated (default: scoring)")
    p.add_argument("--results-dir", default="results", metavar="NAME",
                   help="folder of the tree to write to (default: results)")


def _leaderboard(p: argparse.ArgumentParser) -> None:
    from .leaderboard.markdown import MARKDOWN_FILE
    from .leaderboard.readme import README_FILE

    p.add_argument("--readme", action="store_true",
                   help=f"also embed results/{MARKDOWN_FILE} in {README_FILE} between its leaderboard markers")
    p.add_argument("--source-commit", default="", metavar="REV",
                   help="commit id (7-40 lowercase hex) the inputs came from, shown on the page; for a published "
                        "copy only: committed results omit it (make check would otherwise differ)")


def _check(p: argparse.ArgumentParser) -> None:
    p.add_argument("--summary", type=Path, help="append what this toolkit's recomputation changes, as Markdown, to this file")
    p.add_argument("--notice", action="store_true",
                   help="report differences as GitHub notices and exit 0 (a change to the code, proved by its own code)")


def _agreement(p: argparse.ArgumentParser) -> None:
    from .commands.agreement import CONSOLIDATED_DIR
    from .load.multi_scoring import MULTI_DIR

    p.add_argument("--multi-dir", default=MULTI_DIR, metavar="NAME",
                   help=f"folder of the further grades and adjudications (default: {MULTI_DIR})")
    p.add_argument("--output-dir", default=CONSOLIDATED_DIR, metavar="NAME",
                   help=f"folder to write the consolidated scorings to (default: {CONSOLIDATED_DIR})")
    p.add_argument("--no-consolidated", action="store_true",
                   help="write the results/ tables only, not the consolidated scorings")


def _new_scoring(p: argparse.ArgumentParser) -> None:
    p.add_argument("--subject", required=True, help="subject_id (a folder of responses/<version>/)")
    p.add_argument("--case", required=True, help="case_id (of system/benchmark.yaml's case_id_pattern)")
    p.add_argument("--run", required=True, help="run_id of the response to grade")
    p.add_argument("--reviewer", required=True, help="your reviewer_id (lowercase letters, digits, '-')")


def _snapshot(p: argparse.ArgumentParser) -> None:
    p.add_argument("--date", help="snapshot date YYYY-MM-DD (default: today, UTC)")


def _history(p: argparse.ArgumentParser) -> None:
    p.add_argument("--subject", help="subject_id to follow (default: every subject)")
    p.add_argument("--format", choices=("markdown", "csv"), default="markdown", help="output format (default: markdown)")
    p.add_argument("--no-current", action="store_true", help="leave out the current results/")


def _diff(p: argparse.ArgumentParser) -> None:
    from .load.spec import DEFAULT_MAX_JUMP

    p.add_argument("--base", required=True, help="git revision to compare with (e.g. the pull request's base)")
    p.add_argument("--max-jump", help=f"Q_final move that is flagged as implausible (default: config or {DEFAULT_MAX_JUMP})")
    p.add_argument("--summary", type=Path, help="append the Markdown to this file instead of printing it")
    p.add_argument("--fail-on-jump", action="store_true", help="exit 1 when an implausible jump is flagged")


def _provenance(p: argparse.ArgumentParser) -> None:
    p.add_argument("--base", required=True, help="git revision the change starts from (e.g. the pull request's base)")
    p.add_argument("--head", default="HEAD", help="last commit to inspect (default: HEAD)")


def _paths(p: argparse.ArgumentParser) -> None:
    from .governance.pr_paths import DEFAULT_MAX_BYTES

    p.add_argument("--base", required=True, help="git revision of the pull request's base")
    p.add_argument("--head", default="HEAD", help="git revision of the pull request (default: HEAD)")
    p.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES,
                   help=f"largest file accepted outside results/ and scoring_consolidated/ (default: {DEFAULT_MAX_BYTES}; "
                        "generated files may reach rgbench.load.safe_read.MAX_RESULT_BYTES)")
    p.add_argument("--maintainer", action="store_true",
                   help="a maintainer's pull request: report what needs a maintainer as notices only")
    p.add_argument("--author", metavar="LOGIN",
                   help="the pull request's author (code-host login): check what it adds against the base's "
                        "answered_by (subjects/registry.yaml) and handles and adjudicator (subjects/reviewers.yaml)")
    p.add_argument("--format", choices=("text", "github"), default="text", help="text (default) or GitHub annotations")


def _codeowners(p: argparse.ArgumentParser) -> None:
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 when the block is not what subjects/registry.yaml gives")


def _fmt(p: argparse.ArgumentParser) -> None:
    p.add_argument("--check", action="store_true", help="change nothing; exit 1 if any file is not canonical")


def _init(p: argparse.ArgumentParser) -> None:
    from .install_source import toolkit_source

    # No --root: DIR is the new repository, not a benchmark tree to read.
    p.add_argument("dir", type=Path, metavar="DIR", help="the new repository (created; may exist if empty)")
    source = toolkit_source()
    p.add_argument("--requirement", help="the line of DIR/requirements.txt that installs the toolkit (default: the "
                                         f"toolkit running now, {source.requirement!r}, from {source.origin})")


def _review(p: argparse.ArgumentParser) -> None:
    p.add_argument("--reviewer", required=True, help="your reviewer id (registered in subjects/reviewers.yaml)")
    p.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    p.add_argument("--unblind", action="store_true",
                   help="show the subject's identity; recorded as \"blind\": false in every scoring you save")


def _assign(p: argparse.ArgumentParser) -> None:
    p.add_argument("--share", help="share of the graded runs to grade twice, in (0, 1]")
    p.add_argument("--draw", type=int, metavar="N", help="judge-assisted: a new draw of N runs for human grades, "
                                                         "stratified by subject and judge grade")
    p.add_argument("--next", type=int, metavar="N", help="judge-assisted: an active draw of N runs expected, "
                                                         "where the judge's error spreads most")
    p.add_argument("--subjects", metavar="IDS", help="judge-assisted: draw over these subjects only (comma-separated "
                                                     "ids; default every subject the judge graded in full)")
    p.add_argument("--reassign", metavar="REVIEWER", help="the second grades (judge-assisted: the drawn runs) waiting "
                                                         "for this reviewer go to the other registered humans")


def _plan(p: argparse.ArgumentParser) -> None:
    p.add_argument("--figure", choices=("Q_final", "P", "s_bar"), default="Q_final",
                   help="the figure to plan for (default Q_final)")
    p.add_argument("--half-width", metavar="H",
                   help="target interval half-width (P and Q_final on 0-1, s_bar on its scale; default: config.yaml's "
                        "'stable' reliability half-width, times the score range for s_bar)")


def _drift(p: argparse.ArgumentParser) -> None:
    p.add_argument("--output", type=Path, help="write the CSV here instead of stdout")


COMMANDS: dict[str, Command] = {
    "validate": Command("validate", "check every input file; write nothing", "validate.py", _validate),
    "metrics": Command("metrics", "validate, then write results/ (metrics, agreement, leaderboard), as `make metrics`",
                       "metrics.py", _metrics, "benchmark tree (default: this repository)"),
    "compute": Command("compute", "the metric tables only (also --alpha, --scoring-dir, --results-dir)",
                       "compute_metrics.py", _compute, "benchmark tree holding system/, golds/, responses/, scoring/, "
                                                       "subjects/ (default: this repository)"),
    "leaderboard": Command("leaderboard", "rebuild results/leaderboard.* from the metric tables (--readme)",
                           "build_leaderboard.py", _leaderboard,
                           "benchmark tree holding results/, subjects/ and system/ (default: this repository)"),
    "check": Command("check", "fail when committed results/ differ from what the inputs produce", "check_results.py",
                     _check),
    "agreement": Command("agreement", "several reviewers: results/agreement.csv and scoring_consolidated/",
                         "aggregate_scoring.py", _agreement),
    "new-scoring": Command("new_scoring", "write a reviewer's scoring template for one response", "new_scoring.py",
                           _new_scoring),
    "snapshot": Command("snapshot", "copy the current results into results/historico/DATE/", "snapshot.py", _snapshot,
                        GIT_TREE),
    "history": Command("history", "a subject's metrics across snapshots", "history.py", _history),
    "diff": Command("diff", "Markdown diff of the results against a git revision (--base)", "results_diff.py", _diff,
                    GIT_TREE),
    "provenance": Command("provenance", "fail on commits since --base that edit results by hand", "check_provenance.py",
                          _provenance, GIT_TREE),
    "paths": Command("paths", "pre-flight of a change since --base: authorship (--author), links, submodules, odd or "
                              "large files", "check_pr_paths.py", _paths, GIT_TREE),
    "codeowners": Command("codeowners", "write .github/CODEOWNERS' block from the registry (--check: only check it)",
                          "codeowners.py", _codeowners),
    "fmt": Command("fmt", "rewrite the JSON inputs in canonical form (--check: only list them)", "fmt_json.py", _fmt),
    "init": Command("init", "write a new benchmark repository into DIR", "init_benchmark.py", _init, None),
    "review": Command("review", "serve the blind grading page on 127.0.0.1 (--reviewer ID; --port, --unblind)",
                      "review.py", _review),
    "assign": Command("assign", "pick runs for second grades (--share) or judge-assisted human draws (--draw, --next)",
                      "assign.py", _assign),
    "plan": Command("plan", "judge-assisted: the human grades each figure and each neighbouring pair still needs",
                    "plan.py", _plan),
    "drift": Command("drift", "reviewer drift over time: per reviewer and month, grades, mean raw score, leniency (CSV)",
                     "reviewer_drift.py", _drift),
}


def command_parser(name: str, prog: str | None, root: Path, root_words: str) -> argparse.ArgumentParser:
    """The parser of subcommand ``name``: its module's docstring as the description, ``--root`` (default
    ``root``, named ``root_words`` in ``--help``) unless it takes none, then its options."""
    command = COMMANDS[name]
    module = importlib.import_module(f"{__package__}.commands.{command.module}")
    parser = argparse.ArgumentParser(prog=prog, description=module.__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    if command.root_help is not None:
        parser.add_argument("--root", type=Path, default=root,
                            help=command.root_help.replace(_REPO_DEFAULT, f"(default: {root_words})"))
    command.options(parser)
    return parser


def _run(name: str, argv: Sequence[str], prog: str | None, root: Path, root_words: str) -> int:
    args = command_parser(name, prog, root, root_words).parse_args(list(argv))
    module = importlib.import_module(f"{__package__}.commands.{COMMANDS[name].module}")
    from .commands.common import not_a_tree

    if COMMANDS[name].root_help is not None and not_a_tree(args.root):   # every command on a tree checks it here
        return 1
    try:
        status: int = module.run(args)
    except OutputError as exc:   # a folder that cannot be written: one message (nothing half-written), exit 1
        return refuse(exc.strerror)
    except BrokenPipeError:   # the reader left (`rgbench plan | head`): stop quietly, as the Python docs advise
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())   # so the exit's flush raises nothing
        return 1
    return status


def run_script(name: str, argv: Sequence[str] | None = None) -> int:
    """Subcommand ``name`` as its script under scripts/ runs it: the program name is the script's file name
    and ``--root`` defaults to this repository (the checkout the script belongs to); ``argv`` defaults to
    the process's arguments."""
    return _run(name, sys.argv[1:] if argv is None else argv, None, REPO_ROOT, "this repository")


def usage() -> str:
    width = max(len(name) for name in COMMANDS)
    lines = [f"usage: {PROG} COMMAND [--root DIR] [options]   ({PROG} COMMAND --help for each command's options)",
             "", "Reviewer-graded benchmarks kept in git. Every command works on the benchmark tree --root DIR",
             "(default: the current directory).", "", "commands:"]
    lines += [f"  {name.ljust(width)}  {command.summary}" for name, command in COMMANDS.items()]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``rgbench`` command (``python -m rgbench``); returns the exit status of the
    subcommand, 2 with the usage on stderr for a missing or unknown one."""
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
    return _run(name, rest, f"{PROG} {name}", Path("."), "the current directory")

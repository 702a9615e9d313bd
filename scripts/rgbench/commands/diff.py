"""Show what a change does to the leaderboard, as Markdown: rank moves, metric deltas, newly
disqualified subjects, and implausible jumps.

Compares results/metrics_per_subject.csv (and results/leaderboard.csv when
both sides have it) at git revision --base with the working tree. A subject
whose Q_final moves by more than the threshold in one change, at the same
version, is flagged: --max-jump, else `q_final_jump_threshold` in
system/metrics/<version>/config.yaml, else 0.10. Prints the Markdown on
stdout, or appends it to --summary FILE (e.g. "$GITHUB_STEP_SUMMARY") and
prints GitHub warnings for the flags. Exit 0, or 1 with --fail-on-jump when a
jump is flagged; 1 on unreadable tables.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..governance.gitio import GitError, read_blob, resolve
from ..governance.results_diff import diff_tables, github_warnings, markdown, md_cell
from ..load.safe_read import read_result_file
from ..load.spec import DEFAULT_MAX_JUMP, load_spec, parse_jump_threshold
from ..problems import refuse, report
from ..results_csv import TableError

SUBJECT_PATH = "results/metrics_per_subject.csv"
BOARD_PATH = "results/leaderboard.csv"


def run(args: argparse.Namespace) -> int:
    root: Path = args.root
    spec, problems = load_spec(root)
    if spec is None:  # system/ is read first, --max-jump or not: a broken config is reported either way
        return report(problems)
    threshold = spec.q_final_jump_threshold
    if args.max_jump is not None:
        try:
            threshold = parse_jump_threshold(args.max_jump)
        except ValueError as exc:
            return refuse(f"--max-jump: {exc}")
    try:
        base = resolve(root, args.base)
        old_subjects = read_blob(root, base, SUBJECT_PATH)
        old_board = read_blob(root, base, BOARD_PATH)
    except GitError as exc:
        return refuse(f"--base: {exc}")
    new_subjects, problems = read_result_file(root, SUBJECT_PATH)
    if new_subjects is None:
        for problem in problems:
            print(f"{problem} (run `make metrics`)", file=sys.stderr)
        return 1
    new_board, _ = read_result_file(root, BOARD_PATH)
    try:
        result = diff_tables((old_subjects, old_board), (new_subjects, new_board), where=(f" at {args.base}", ""),
                             max_jump=threshold)
    except TableError as exc:
        return refuse(exc)
    text = markdown(result, base_label=f"{args.base} ({base[:12]})")
    if args.summary is not None:
        with open(args.summary, "a", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        for line in github_warnings(result):
            print(line)
    else:
        sys.stdout.write(text)
    if args.fail_on_jump and any(s.implausible for s in result.subjects):
        return refuse("implausible Q_final jump(s) flagged; see the diff")
    return 0


def recomputed_markdown(root: Path, proof) -> str:
    """The job-summary section of ``check_results.py --summary``: what this toolkit, recomputing the tree's
    inputs, changes against its committed results (``proof``: a check_results.Proof), as the results diff
    renders it; one line when it reproduces them or cannot compute them."""
    title = "## make check: the committed results against this toolkit's recomputation\n\n"
    if proof.proved:
        return title + "This toolkit reproduces every committed result from the inputs.\n"
    if proof.refused:
        return title + "This toolkit's `make metrics` refuses the inputs (see the step's log).\n"
    spec, _ = load_spec(root)
    committed = (read_result_file(root, SUBJECT_PATH)[0], read_result_file(root, BOARD_PATH)[0])
    fresh = proof.fresh.get("metrics_per_subject.csv")
    listed = "\n".join(f"- {md_cell(message)}" for message in proof.messages) + "\n\n"
    if fresh is None:
        return title + listed
    try:
        result = diff_tables(committed, (fresh, proof.fresh.get("leaderboard.csv")),
                             where=(" (committed)", " (recomputed)"),
                             max_jump=spec.q_final_jump_threshold if spec is not None else DEFAULT_MAX_JUMP)
    except TableError as exc:
        return title + listed + f"{md_cell(str(exc))}\n"
    return title + listed + markdown(result, base_label="committed results", head_label="recomputed by this toolkit")


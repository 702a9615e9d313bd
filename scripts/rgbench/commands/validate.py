"""Validate every input of a benchmark tree (schemas, ids, cross-file rules) without writing anything.

Prints each problem as `path: message` on stderr and exits 1 if there is any.
Further reviewers' grades in scoring_multi/ are checked too, once the rest is valid; in judge-assisted mode,
then each draw of subjects/human_draws.json whose subjects' runs and judge grades are those it records is
re-derived from its seed, and a draw that differs is refused (docs/judge_assisted.md, "The draw"); with --changed
BASE, a draw added since BASE must also be over this tree's runs and judge grades.
With --scoring-dir NAME, the scorings are read from NAME (e.g. scoring_consolidated, the consolidated
grades scripts/aggregate_scoring.py writes, whose policy's own reviewer needs no registration) instead of
scoring/, as compute_metrics.py --scoring-dir reads them; scoring_multi/ is then not read.

With --changed BASE, reports only the problems of the files changed since the
git revision BASE (working tree and untracked files included), of the files
they reference and of the files that reference them (see rgbench/changeset.py);
the whole tree is still read, so nothing a change breaks elsewhere is missed.
With --format github, problems are printed on stdout as GitHub Actions
annotations (`::error file=PATH,line=N::message`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..governance.annotations import github_line
from ..governance.changeset import select
from ..governance.gitio import GitError, changed_since, read_blob
from ..load.draws import DRAWS_FILE, draw_list
from ..load.loader import SCORING_DIR, load_tree
from ..load.multi_scoring import load_multi
from ..load.safe_read import read_single_file
from ..load.spec import load_spec
from ..problems import Problem, refuse, report
from ..stats.judge_assisted_draw import judged_runs, verify
from .common import bad_folder_name


def base_draws(root: Path, base: str) -> int:
    """How many draws subjects/human_draws.json holds at the revision ``base`` (0: none, or not readable there)."""
    try:
        found = draw_list(read_blob(root, base, DRAWS_FILE))
    except GitError:
        return 0
    return len(found[1]) if found else 0


def run(args: argparse.Namespace) -> int:
    if bad_folder_name({"--scoring-dir": args.scoring_dir}):
        return 1
    changed = None
    if args.changed is not None:
        try:
            changed = changed_since(args.root, args.changed)
        except GitError as exc:
            return refuse(f"--changed: {exc}")
    emit = report if args.format == "text" else (lambda found: annotate(args.root, found))
    spec, problems = load_spec(args.root)
    if spec is None:
        return emit(problems)
    if args.scoring_dir != SCORING_DIR and not (args.root / args.scoring_dir / spec.version_dir).is_dir():
        return refuse(f"{args.scoring_dir}/{spec.version_dir}: no such folder in the tree (--scoring-dir names a "
                      "folder of scorings, e.g. one written by scripts/aggregate_scoring.py)")
    tree, problems = load_tree(args.root, spec, scoring_dir=args.scoring_dir, llm_judges=spec.judge_assisted)
    multi = None
    if tree is not None and args.scoring_dir == SCORING_DIR:  # further grades are judged against the valid tree
        multi, problems = load_multi(args.root, spec, tree)
    if multi is not None and tree is not None and tree.draws is not None:   # judge-assisted: each draw re-derived
        known = None if args.changed is None else base_draws(args.root, args.changed)
        problems = [Problem(DRAWS_FILE, message) for message in verify(tree.draws, judged_runs(spec, tree, multi)[0],
                                                                       known)]
    left_out = 0
    if changed is not None:
        problems, left_out = select(problems, changed, spec)
        if left_out:
            print(f"{left_out} problem(s) in files unrelated to the change were not reported "
                  "(run without --changed to see them)", file=sys.stderr)
    if problems:
        return emit(problems)
    if tree is None:
        print(f"valid: the {len(changed or ())} changed path(s) since {args.changed} and their references")
        return 0
    scope = f" ({len(changed)} changed path(s) since {args.changed})" if changed is not None else ""
    extra = f", {len(multi.extra)} further grades" if multi is not None and multi.extra else ""
    print(f"valid: {len(tree.golds)} golds, {len(tree.responses)} responses, "
          f"{len(tree.scorings)} scorings{extra}, {len(tree.subjects)} subjects{scope}")
    return 0


def annotate(root: Path, problems: list[Problem]) -> int:
    """Print each problem as a GitHub annotation on stdout (a count on stderr); return the exit status."""
    texts: dict[str, str | None] = {}
    for problem in sorted(set(problems)):
        if problem.path not in texts:
            data, _ = read_single_file(root, problem.path)
            texts[problem.path] = data.decode("utf-8", "replace") if data is not None else None
        print(github_line(problem, texts[problem.path]))
    if problems:
        print(f"{len(set(problems))} problem(s) found; nothing was written.", file=sys.stderr)
    return 1 if problems else 0


"""Reviewer drift over time: per reviewer and month, grades, mean raw score and leniency.

    python scripts/reviewer_drift.py [--root DIR] [--output FILE]

The month of a grade is the commit date (the committer date as recorded, YYYY-MM) of the commit that added its file
to scoring/ or scoring_multi/, read from git (read-only); a file not yet committed counts as
"uncommitted". Leniency is the mean deviation on raw_score against the human graders of the same runs
(results/reviewers.csv's definition, per month). Written to stdout (or --output) and not to results/:
a grade's own commit date is known only after the results it changes were committed with it.
Exit 1 with a message when the tree is not in a git repository.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..governance.gitio import GitError, git, prefix
from ..problems import refuse
from ..results.tables import csv_text
from ..stats.reviewer_report import DRIFT_COLUMNS, drift_rows
from .common import collector_paused, load_valid_grades


def added_dates(root: Path) -> dict[str, str]:
    """Path (relative to the tree) -> date of the oldest commit that added it, for the scoring folders."""
    pfx = prefix(root)
    out = git(root, "log", "--diff-filter=A", "--name-only", "--format=@%cs",
              "--", "scoring", "scoring_multi").decode("utf-8", "surrogateescape")
    dates: dict[str, str] = {}
    date = ""
    for line in out.splitlines():
        if line.startswith("@"):
            date = line[1:]
        elif line.strip():
            rel = line[len(pfx):] if pfx and line.startswith(pfx) else line
            dates[rel] = date  # newest first: the last one seen is the oldest addition
    return dates


def run(args: argparse.Namespace) -> int:
    try:
        dates = added_dates(args.root)
    except GitError as exc:
        return refuse(f"{args.root}: {exc} (drift needs the commit dates of the grades)")
    with collector_paused():
        loaded = load_valid_grades(args.root)
        if loaded is None:
            return 1
        spec, tree, multi = loaded
        text = csv_text(DRIFT_COLUMNS, drift_rows(tuple(tree.scorings) + multi.extra, dates, tree, spec, tree.reviewers))
    if args.output:
        args.output.write_text(text, encoding="utf-8", newline="\n")
    else:
        sys.stdout.write(text)
    return 0


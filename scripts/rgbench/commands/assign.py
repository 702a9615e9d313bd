"""Pick a stratified, seeded sample of graded runs for a second grade and assign each a reviewer.

    rgbench assign --share 0.2

Strata: (family, subject) of the runs graded in scoring/; the second reviewer is a registered human
other than the first reviewer, the least loaded first. Writes subjects/second_reviews.json, which the
grading page reads (the same inputs and share give the same bytes).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

from ..atomic import output_error, write_bytes_atomic
from ..load.parsing import exact_decimal
from ..load.reviewers import HUMAN, REVIEWERS_FILE
from ..problems import Problem, report
from ..review import assignments, scoring_doc
from .common import load_valid_tree, not_a_tree


def parse_share(text: str) -> Fraction | None:
    """The share ``text`` names when it is a plain decimal in (0, 1] (``0.2``, ``1``, ``.25``); else None.

    Read with the project's bounded decimal parser: ``1e-99999999`` or a 10,000-digit number is refused at
    once instead of costing unbounded time, ``1/5``, ``nan`` and an empty text are refused too."""
    try:
        share = exact_decimal(text)
    except ValueError:
        return None
    return share if 0 < share <= 1 else None


def run(args: argparse.Namespace) -> int:
    root: Path = args.root
    if not_a_tree(root):
        return 1
    share = parse_share(args.share)
    if share is None:
        shown = args.share if len(args.share) <= 40 else args.share[:40] + "..."
        print(f"--share: must be a decimal number above 0 and at most 1 (e.g. 0.2: make assign SHARE=0.2), "
              f"got {shown!r}", file=sys.stderr)
        return 1
    loaded = load_valid_tree(root, llm_judges=True)
    if loaded is None:
        return 1
    spec, tree = loaded
    humans = [r.reviewer_id for r in (tree.reviewers or {}).values() if r.kind == HUMAN]
    if not humans:
        return report([Problem(REVIEWERS_FILE, "no human reviewer registered; a second grade needs one")])
    first, anyone = scoring_doc.graded_runs(root, spec)
    first_reviewer = {key: who[0] for key, who in first.items() if key in tree.responses and len(who) == 1}
    families = {key: tree.golds[key[1]].family for key in first_reviewer}
    chosen = assignments.assign(first_reviewer, families, humans, anyone, share)
    try:
        write_bytes_atomic(root / assignments.ASSIGNMENTS_FILE,
                           assignments.assignments_document(share, chosen, len(first_reviewer)))
    except OSError as exc:
        return report([Problem(assignments.ASSIGNMENTS_FILE, output_error(root / assignments.ASSIGNMENTS_FILE, exc).reason)])
    per_reviewer = Counter(item["reviewer_id"] for item in chosen)
    print(f"{assignments.ASSIGNMENTS_FILE}: {len(chosen)} of {len(first_reviewer)} graded runs assigned for a second "
          "grade (" + ", ".join(f"{r} {n}" for r, n in sorted(per_reviewer.items())) + ")")
    return 0

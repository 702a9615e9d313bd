"""``main(argv)`` of ``rgbench review`` (the grading page) and ``rgbench assign`` (planned second grades)."""

from __future__ import annotations

import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

from ..atomic import output_error, write_bytes_atomic
from ..cli import load_valid_tree, not_a_tree, script_parser
from ..load.loader import load_tree
from ..load.parsing import exact_decimal
from ..load.reviewers import HUMAN, REVIEWERS_FILE, unregistered_message
from ..load.spec import load_spec
from ..problems import Problem, report
from . import assignments, scoring_doc
from .server import ReviewApp, make_server, url

REVIEW_DOC = """Grade runs in a local web page: blind by default, keyboard-first, writes canonical scorings.

    rgbench review --reviewer ID [--port N] [--unblind]

Serves on 127.0.0.1 only (a free port unless --port) and prints one URL carrying a random token;
requests without it get 403. The queue lists the runs without a scoring in scoring/ and the second
grades subjects/second_reviews.json assigns to you; Save writes
scoring/<v>/<subject>/<case>__<run>__eval-ID.json (a second grade: scoring_multi/...) once, with both
pins filled, and never overwrites. The page hides the subject unless --unblind, which is recorded in
the scoring as "blind": false. Stop with Ctrl+C.
"""

ASSIGN_DOC = """Pick a stratified, seeded sample of graded runs for a second grade and assign each a reviewer.

    rgbench assign --share 0.2

Strata: (family, subject) of the runs graded in scoring/; the second reviewer is a registered human
other than the first reviewer, the least loaded first. Writes subjects/second_reviews.json, which the
grading page reads (the same inputs and share give the same bytes).
"""


def open_app(root: Path, reviewer_id: str, *, blind: bool = True) -> tuple[ReviewApp | None, list[Problem]]:
    """The session of ``reviewer_id`` on the valid tree ``root``, or (None, every problem)."""
    spec, problems = load_spec(root)
    if spec is None:
        return None, problems
    tree, problems = load_tree(root, spec, llm_judges=True)
    if tree is None:
        return None, problems
    reviewers = tree.reviewers   # a malformed reviewers.yaml is one of load_tree's problems
    if reviewers is None:
        return None, [Problem(REVIEWERS_FILE, "missing: register reviewers (id, name, kind) before grading")]
    if reviewer_id not in reviewers:
        return None, [Problem(REVIEWERS_FILE, unregistered_message(reviewer_id, reviewers))]
    assigned, problems = assignments.read_assignments(root)
    if problems:
        return None, problems
    return ReviewApp(root=Path(root), spec=spec, tree=tree, reviewer=reviewers[reviewer_id],
                     assigned=assigned, blind=blind), []


def review_main(argv: list[str] | None = None) -> int:
    parser = script_parser(REVIEW_DOC)
    parser.add_argument("--reviewer", required=True, help="your reviewer id (registered in subjects/reviewers.yaml)")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--unblind", action="store_true",
                        help="show the subject's identity; recorded as \"blind\": false in every scoring you save")
    args = parser.parse_args(argv)
    if not_a_tree(args.root):
        return 1
    if not args.reviewer:  # `make review` passes "" when REVIEWER is left out
        print("--reviewer: empty (give your registered reviewer id: make review REVIEWER=you)", file=sys.stderr)
        return 1
    if not 0 <= args.port <= 65535:
        print(f"--port: {args.port} is not a port number (0-65535)", file=sys.stderr)
        return 1
    app, problems = open_app(args.root, args.reviewer, blind=not args.unblind)
    if app is None:
        return report(problems)
    try:
        server = make_server(app, args.port)
    except OSError as exc:
        print(f"--port: cannot listen on 127.0.0.1:{args.port} ({exc.strerror or exc})", file=sys.stderr)
        return 1
    print(f"Grading page for {args.reviewer} ({'blind' if app.blind else 'UNBLINDED'}): {url(app, server)}", flush=True)
    print("Stop with Ctrl+C.", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    print(f"{len(app.saved)} grade(s) saved" + "".join(f"\n  {rel}" for rel in app.saved))
    return 0


def parse_share(text: str) -> Fraction | None:
    """The share ``text`` names when it is a plain decimal in (0, 1] (``0.2``, ``1``, ``.25``); else None.

    Read with the project's bounded decimal parser: ``1e-99999999`` or a 10,000-digit number is refused at
    once instead of costing unbounded time, ``1/5``, ``nan`` and an empty text are refused too."""
    try:
        share = exact_decimal(text)
    except ValueError:
        return None
    return share if 0 < share <= 1 else None


def assign_main(argv: list[str] | None = None) -> int:
    parser = script_parser(ASSIGN_DOC)
    parser.add_argument("--share", required=True, help="share of the graded runs to grade twice, in (0, 1]")
    args = parser.parse_args(argv)
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

"""Grade runs in a local web page: blind by default, keyboard-first, writes canonical scorings.

    rgbench review --reviewer ID [--port N] [--unblind]

Serves on 127.0.0.1 only (a free port unless --port) and prints one URL carrying a random token;
requests without it get 403. The queue lists the runs without a scoring in scoring/ and the second
grades subjects/second_reviews.json assigns to you (judge-assisted mode: first the drawn runs
subjects/human_draws.json names you for that no human has graded yet, in draw order, then the runs the judge
flags with a critical fail that no human has graded, open to every human; no other first grade); Save writes
scoring/<v>/<subject>/<case>__<run>__eval-ID.json (a second grade: scoring_multi/...) once, with both
pins filled, and never overwrites. The page hides the subject unless --unblind, which is recorded in
the scoring as "blind": false. Stop with Ctrl+C.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..load.draws import RunKey
from ..load.loader import load_tree
from ..load.multi_scoring import load_multi
from ..load.reviewers import REVIEWERS_FILE, unregistered_message
from ..load.spec import load_spec
from ..problems import Problem, refuse, report
from ..review import assignments, scoring_doc
from ..review.server import ReviewApp, make_server, url
from ..stats.judge_assisted_draw import judge_and_human, unconfirmed_critical


def open_app(root: Path, reviewer_id: str, *, blind: bool = True) -> tuple[ReviewApp | None, list[Problem]]:
    """The session of ``reviewer_id`` on the valid tree ``root``, or (None, every problem)."""
    spec, problems = load_spec(root)
    if spec is None:
        return None, problems
    tree, problems = load_tree(root, spec, llm_judges=True)
    if tree is None:
        return None, problems
    if not blind and not scoring_doc.records_blind(spec):
        return None, [Problem(f"system/schemas/{spec.version_dir}/evaluation.schema.json",
                              "lists no \"blind\" property, so an unblinded grade could not be told from a blind one "
                              "(add \"blind\": {\"type\": \"boolean\"} to $.properties, or grade blind: leave out "
                              "--unblind)")]
    reviewers = tree.reviewers   # a malformed reviewers.yaml is one of load_tree's problems
    if reviewers is None:
        return None, [Problem(REVIEWERS_FILE, "missing: register reviewers (id, name, kind) before grading")]
    if reviewer_id not in reviewers:
        return None, [Problem(REVIEWERS_FILE, unregistered_message(reviewer_id, reviewers))]
    found, problems = assignments.read_file(root)
    if problems:
        return None, problems
    drawn: dict[RunKey, str] | None = None
    open_runs: tuple[RunKey, ...] = ()
    if spec.judge_assisted:   # open to any human: the judge's critical flags no human grade has confirmed yet, and
        multi, problems = load_multi(root, spec, tree)   # drawn runs no draw names a reviewer for (none waits forever)
        if multi is None:
            return None, problems
        judge, human = judge_and_human(spec, tree, multi)
        drawn = assignments.drawn_assignments(tree.draws)
        unnamed = (tree.draws.drawn() if tree.draws else frozenset()) - drawn.keys() - human.keys()
        open_runs = tuple(sorted(unconfirmed_critical(judge, human) | unnamed))
    return ReviewApp(root=Path(root), spec=spec, tree=tree, reviewer=reviewers[reviewer_id], assigned=found.names,
                     blind=blind, drawn=drawn, open_runs=open_runs), []


def run(args: argparse.Namespace) -> int:
    if not args.reviewer:  # `make review` passes "" when REVIEWER is left out
        return refuse("--reviewer: empty (give your registered reviewer id: make review REVIEWER=you)")
    if not 0 <= args.port <= 65535:
        return refuse(f"--port: {args.port} is not a port number (0-65535)")
    app, problems = open_app(args.root, args.reviewer, blind=not args.unblind)
    if app is None:
        return report(problems)
    try:
        server = make_server(app, args.port)
    except OSError as exc:
        return refuse(f"--port: cannot listen on 127.0.0.1:{args.port} ({exc.strerror or exc})")
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

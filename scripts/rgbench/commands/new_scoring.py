"""Write a reviewer's scoring template for one response, then say what to read first.

    python scripts/new_scoring.py --subject S --case C --run R --reviewer ID

creates scoring/<version>/S/C__R__eval-ID.json with the ids, the registered
subject_version and the pins filled in (the sha256 of the response and of the
case's gold, so that a later change to either makes the scoring stale), every rubric criterion
listed with a null score and a null correctness (no correctness key when the benchmark records none). Those
nulls fail validation
until the reviewer replaces them, so an unfilled template cannot be merged.
Refuses (exit 1, nothing written) when the subject or the reviewer is not
registered (a tree without subjects/reviewers.yaml checks no reviewer), the
case has no gold, the response does not exist, an id is malformed, or a
scoring of this run already exists (v1.0 takes one per run). Prints the gold's path.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

from ..atomic import OutputError
from ..governance.scoring_template import id_errors, template
from ..governance.write_once import write_new_file
from ..load.loader import gold_rel, response_rel, scoring_name, scoring_rel
from ..load.parsing import ParseError, decode_utf8, dumps_json_canonical, loads_json_strict
from ..load.registry import REGISTRY_FILE, entries
from ..load.reviewers import REVIEWERS_FILE, read_reviewers, unregistered_message
from ..load.safe_read import read_single_file, walk_files
from ..load.scale import score_text
from ..problems import Problem, report
from .common import load_spec_and_registry


def existing_scorings(root: Path, folder: str, case_id: str, run_id: str) -> list[str]:
    entries_, _ = walk_files(root, folder)
    return [e.rel for e in entries_ if len(e.parts) == 4 and (scoring_name(e.name) or ())[:2] == (case_id, run_id)]


def response_problems(rel: str, data: bytes, registered_version: str) -> list[Problem]:
    """A response that does not parse, or carries another version than the registered one, is not graded."""
    try:
        document = loads_json_strict(decode_utf8(data))
    except ParseError as exc:
        return [Problem(rel, f"{exc} (the response must be valid before it is graded)")]
    version = document.get("subject_version") if isinstance(document, dict) else None
    if version != registered_version:
        return [Problem(rel, f"$.subject_version: {version!r} but the registry scores version "
                             f"{registered_version!r}; a stale response is not graded")]
    return []


def run(args: argparse.Namespace) -> int:
    root: Path = args.root
    empty = [name for name in ("subject", "case", "run", "reviewer") if not getattr(args, name)]
    for name in empty:  # `make new-scoring` passes "" for a variable left out
        print(f"--{name}: empty (give all four: make new-scoring SUBJECT=s CASE=c RUN=r REVIEWER=you)", file=sys.stderr)
    if empty:
        return 1
    loaded = load_spec_and_registry(root)
    if loaded is None:
        return 1
    spec, registry = loaded

    target = scoring_rel(spec, args.subject, args.case, args.run, args.reviewer)
    registered = entries(registry).get(args.subject)
    if registered is None:
        known = ", ".join(sorted(entries(registry))) or "none"
        return report([Problem(REGISTRY_FILE, f"subject {args.subject!r} is not registered (registered: {known})")])
    document = template(spec, subject_id=args.subject, subject_version=registered.item["subject_version"],
                        case_id=args.case, run_id=args.run, reviewer_id=args.reviewer, response_sha256="0" * 64,
                        gold_sha256="0" * 64)
    problems = [Problem(target, error) for error in id_errors(spec, document)]
    if problems:
        return report(problems)

    reviewers, _, problems = read_reviewers(root, spec)  # a tree without the file checks no reviewer
    if reviewers is not None and args.reviewer not in reviewers:
        problems.append(Problem(REVIEWERS_FILE, unregistered_message(args.reviewer, reviewers)))
    gold = gold_rel(spec, args.case)
    gold_data = read_single_file(root, gold)[0]
    if gold_data is None:
        problems.append(Problem(gold, f"no gold for case {args.case!r}: check the case id"))
    response = response_rel(spec, args.subject, args.case, args.run)
    data, read_problems = read_single_file(root, response)
    if data is None:
        problems += [Problem(p.path, f"{p.message}; there is no response to grade for run {args.run!r}") for p in read_problems]
    else:
        problems += response_problems(response, data, document["subject_version"])
    others = existing_scorings(root, f"scoring/{spec.version_dir}/{args.subject}", args.case, args.run)
    for other in others:
        what = ("already exists; it is never overwritten (before your pull request is merged, edit that file in it; "
                "once merged, a correction is a maintainer's pull request)") if other == target else (
            f"already grades this run; {spec.version_dir} takes one scoring per run (another reviewer's grade is "
            "not yours to edit: grade another run, or a second grade with `make review` once `make assign` names you)")
        problems.append(Problem(other, what))
    if problems:
        return report(problems)
    assert data is not None and gold_data is not None  # no data only with problems, reported above

    document["response_sha256"] = hashlib.sha256(data).hexdigest()
    document["gold_sha256"] = hashlib.sha256(gold_data).hexdigest()
    try:
        write_new_file(root / target, dumps_json_canonical(document).encode("utf-8"))
    except FileExistsError:
        return report([Problem(target, "already exists; it is never overwritten")])
    except OutputError as exc:
        return report([Problem(target, exc.reason)])
    print(f"1. Read the gold first: {gold}")
    print(f"   and the rubric: {spec.rubric_path}; the fail catalog: {spec.catalog_path}")
    print(f"2. Read the response: {response}")
    print(f"3. Fill in {target}:")
    low, high = score_text(spec.criterion_min), score_text(spec.criterion_max)
    print(f"   criterion_scores ({', '.join(spec.criteria)}: {low}-{high} each, {spec.scale.direction_text}), "
          + (f"correctness ({spec.correctness_text()}), " if spec.has_correctness else "")
          + "automatic_fails_triggered, comments")
    print("4. make fmt validate, then make metrics and make check; commit the scoring with the regenerated results/ "
          "and README.md (its leaderboard block): git add scoring results README.md")
    return 0


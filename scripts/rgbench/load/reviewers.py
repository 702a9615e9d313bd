"""``subjects/reviewers.yaml``: who may grade, and whether a grader is a person or an LLM judge.

Strict YAML against ``system/schemas/<version>/reviewers.schema.json``, each id once. A tree without
the file registers nobody and checks nobody (trees from before reviewers were on record); a tree with
it refuses every scoring whose reviewer is not listed (rgbench.load.loader). A reviewer's optional
``handles`` (code-host logins) and ``adjudicator`` flag are the review gate's: it reads them from the base
branch's copy (rgbench.governance.authorship); here the schema checks their form.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..problems import Problem
from .parsing import ParseError, decode_utf8, loads_yaml_strict
from .safe_read import read_single_file
from .spec import Spec, _load_validator, schema_errors

REVIEWERS_FILE = "subjects/reviewers.yaml"
ASSIGNMENTS_FILE = "subjects/second_reviews.json"  # the planned second grades (written by rgbench assign)
HUMAN, LLM_JUDGE = "human", "llm-judge"


@dataclass(frozen=True)
class Reviewer:
    """A registered reviewer: ``kind`` is ``human`` or ``llm-judge``; ``away`` (optional, where the schema lists it)
    true: ``rgbench assign`` names no run for them (:func:`available_humans`), their grades and page unchanged. The
    file's ``name`` and optional ``expertise`` are for people reading it; nothing computes with them."""

    reviewer_id: str
    kind: str
    away: bool = False


def schema_rel(spec: Spec) -> str:
    return f"system/schemas/{spec.version_dir}/reviewers.schema.json"


def parse_reviewers(data: bytes, spec: Spec, root: Path) -> tuple[dict[str, Reviewer] | None, list[Problem]]:
    """Reviewers by id from the file's bytes, or (None, every problem)."""
    problems: list[Problem] = []
    validator = _load_validator(root, schema_rel(spec), problems)
    if validator is None:
        return None, problems
    try:
        document = loads_yaml_strict(decode_utf8(data))
    except ParseError as exc:
        return None, [Problem(REVIEWERS_FILE, str(exc))]
    errors = schema_errors(validator, document)
    if errors:
        return None, [Problem(REVIEWERS_FILE, error) for error in errors]
    found: dict[str, Reviewer] = {}
    first: dict[str, int] = {}
    for index, item in enumerate(document["reviewers"]):
        rid = item["id"]
        if rid in first:
            problems.append(Problem(REVIEWERS_FILE, f"$.reviewers[{index}].id: duplicate id {rid!r} "
                                                    f"(first at $.reviewers[{first[rid]}]); each reviewer is listed once"))
            continue
        first[rid] = index
        found[rid] = Reviewer(rid, item["kind"], item.get("away") is True)
    return (None, problems) if problems else (dict(sorted(found.items())), [])


def read_reviewers(root: Path, spec: Spec) -> tuple[dict[str, Reviewer] | None, bytes | None, list[Problem]]:
    """(reviewers by id, the file's bytes, []) ; (None, None, []) when the tree has no reviewers file;
    (None, bytes or None, problems) when it is unusable."""
    if not os.path.lexists(Path(root) / REVIEWERS_FILE):
        return None, None, []
    data, problems = read_single_file(root, REVIEWERS_FILE)
    if data is None:
        return None, None, problems
    reviewers, problems = parse_reviewers(data, spec, root)
    return reviewers, data, problems


def available_humans(reviewers: dict[str, Reviewer] | None, besides: str | None = None) -> list[str]:
    """The ids, sorted, of the registered humans ``rgbench assign`` may name for a run: not ``away``, nor ``besides``."""
    return sorted(r.reviewer_id for r in (reviewers or {}).values()
                  if r.kind == HUMAN and not r.away and r.reviewer_id != besides)


def unregistered_message(reviewer_id: str, reviewers: dict[str, Reviewer]) -> str:
    """The loader's (and the grading page's) message for a reviewer not on record."""
    known = ", ".join(sorted(reviewers)) or "none"
    return (f"$.reviewer_id: {reviewer_id!r} is not registered in {REVIEWERS_FILE} (registered: {known}); "
            "ask a maintainer to register the reviewer (a maintainer's change)")

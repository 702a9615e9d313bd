"""The critical fails behind a disqualification: which case, which run, which catalog codes.

per_run.csv only says *that* a run has a critical fail; the codes live in the
scoring file that graded the run. This module reads exactly those scoring files,
so the Disqualified section can show the evidence. The files read are returned with their sha256, so the caller can
check them against the manifest.

On a board of consolidated grades (manifest.json's ``grades``), a run's grade is an adjudication
(``scoring_multi/.../<case>__<run>__adjudication-<reviewer>.json``), a single grade carried over (in scoring/ or
scoring_multi/), or the policy's combination (reviewer ``consensus``, ``consensus-mean``), whose critical fails
are those any of the run's counted grades flags (every policy counts a critical fail any grader flags): those
grades are read (an llm-judge's only when config.yaml counts them).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from ..compute.derive import RunRow
from ..load.loader import scoring_rel
from ..load.multi_scoring import ADJUDICATION, MULTI_DIR
from ..load.parsing import ParseError, decode_utf8, loads_json_strict
from ..load.reviewers import LLM_JUDGE, REVIEWERS_FILE, Reviewer, read_reviewers
from ..load.safe_read import read_single_file
from ..load.spec import Spec, schema_errors
from ..problems import Problem


@dataclass(frozen=True)
class CriticalFail:
    """One run with a critical fail: its case, run, reviewer and the critical codes flagged (sorted)."""

    case_id: str
    run_id: str
    reviewer_id: str
    codes: tuple[str, ...]


class CriticalFailsRead(NamedTuple):
    """What :func:`read_critical_fails` found: fails by subject_id (per_run order), the sha256 of each
    scoring read (by path) and the problems."""

    fails: dict[str, tuple[CriticalFail, ...]]
    digests: dict[str, str]
    problems: list[Problem]


def read_critical_fails(root: Path, spec: Spec, runs: Sequence[RunRow],
                        consolidated_reviewer: str | None = None) -> CriticalFailsRead:
    """For every run flagged ``has_critical_fail``, read its scoring and list the critical codes.

    ``consolidated_reviewer``: the policy's reviewer when the results rest on consolidated grades (their
    sources are read instead, module docstring). A scoring that is missing, invalid, or lists no critical code
    although per_run.csv says it has one is a problem (the results are stale).
    """
    fails: dict[str, list[CriticalFail]] = defaultdict(list)
    digests: dict[str, str] = {}
    problems: list[Problem] = []
    reviewers: dict[str, Reviewer] | None = None
    if consolidated_reviewer is not None and any(row.has_critical_fail for row in runs):
        reviewers, data, more = read_reviewers(root, spec)
        problems += more
        if data is not None:
            digests[REVIEWERS_FILE] = hashlib.sha256(data).hexdigest()
    for row in runs:
        if not row.has_critical_fail:
            continue
        rels = ([scoring_rel(spec, row.subject_id, row.case_id, row.run_id, row.reviewer_id)]
                if consolidated_reviewer is None else grade_files(root, spec, row, consolidated_reviewer, reviewers))
        found: set[str] = set()
        for rel in rels:
            codes = _critical_codes(root, spec, rel, digests, problems)
            found |= set(codes or ())
        if not rels:
            problems.append(Problem(scoring_rel(spec, row.subject_id, row.case_id, row.run_id, row.reviewer_id),
                                    "no grade of this run is left; results/per_run.csv lists a critical fail graded "
                                    "in it (run `make metrics`)"))
        elif not found and not any(problem.path in rels for problem in problems):
            problems.append(Problem(rels[-1], "flags no critical fail, but results/per_run.csv says this run has one "
                                              "(run `make metrics`)"))
        if found:
            fails[row.subject_id].append(CriticalFail(row.case_id, row.run_id, row.reviewer_id, tuple(sorted(found))))
    return CriticalFailsRead({sid: tuple(items) for sid, items in fails.items()}, digests, problems)


def _critical_codes(root: Path, spec: Spec, rel: str, digests: dict[str, str], problems: list[Problem]) -> tuple[str, ...] | None:
    """The critical codes the scoring ``rel`` flags (recording its sha256 in ``digests``), or None with its
    problems added."""
    data, read_problems = read_single_file(root, rel)
    if data is None:
        problems.extend(Problem(p.path, f"{p.message}; results/per_run.csv lists a critical fail graded "
                                        "in it (run `make metrics`)") for p in read_problems)
        return None
    digests[rel] = hashlib.sha256(data).hexdigest()
    try:
        document = loads_json_strict(decode_utf8(data))
    except ParseError as exc:
        problems.append(Problem(rel, str(exc)))
        return None
    errors = schema_errors(spec.validators["evaluation"], document)
    if errors:
        problems.extend(Problem(rel, error) for error in errors)
        return None
    return tuple(sorted({f["code"] for f in document["automatic_fails_triggered"] if f["severity"] == "critical"}))


def grade_files(root: Path, spec: Spec, row: RunRow, consolidated_reviewer: str,
                reviewers: dict[str, Reviewer] | None) -> list[str]:
    """The grades behind a run's consolidated grade (sorted paths): its adjudication by ``row.reviewer_id``, or
    that reviewer's one grade, or (``consolidated_reviewer``'s) every counted grade of the run in scoring/ and
    scoring_multi/."""
    head = f"{row.case_id}__{row.run_id}__"
    folders = [f"{folder}/{spec.version_dir}/{row.subject_id}" for folder in ("scoring", MULTI_DIR)]
    adjudication = f"{folders[1]}/{head}{ADJUDICATION}{row.reviewer_id}.json"
    if row.reviewer_id != consolidated_reviewer and (root / adjudication).is_file():
        return [adjudication]
    found = []
    for folder in folders:
        directory = root / folder
        names = sorted(path.name for path in directory.iterdir()) if directory.is_dir() else []
        for name in names:
            reviewer = name[len(head) + len("eval-"):-len(".json")] if name.startswith(head + "eval-") else ""
            if not reviewer or not name.endswith(".json"):
                continue
            if row.reviewer_id == consolidated_reviewer:
                judge = reviewers is not None and reviewer in reviewers and reviewers[reviewer].kind == LLM_JUDGE
                if judge and not spec.llm_judge_in_metrics:
                    continue
            elif reviewer != row.reviewer_id:
                continue
            found.append(f"{folder}/{name}")
    return found

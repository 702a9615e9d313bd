"""The critical fails behind a disqualification: which case, which run, which catalog codes.

per_run.csv only says *that* a run has a critical fail; the codes live in the
scoring file that graded the run. This module reads exactly those scoring files,
so the Disqualified section can show the evidence. The files read are returned with their sha256, so the caller can
check them against the manifest.
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
from ..load.parsing import ParseError, decode_utf8, loads_json_strict
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


def read_critical_fails(root: Path, spec: Spec, runs: Sequence[RunRow]) -> CriticalFailsRead:
    """For every run flagged ``has_critical_fail``, read its scoring and list the critical codes.

    A scoring that is missing, invalid, or lists no critical code although
    per_run.csv says it has one is a problem (the results are stale).
    """
    fails: dict[str, list[CriticalFail]] = defaultdict(list)
    digests: dict[str, str] = {}
    problems: list[Problem] = []
    for row in runs:
        if not row.has_critical_fail:
            continue
        rel = scoring_rel(spec, row.subject_id, row.case_id, row.run_id, row.reviewer_id)
        data, read_problems = read_single_file(root, rel)
        if data is None:
            problems += [Problem(p.path, f"{p.message}; results/per_run.csv lists a critical fail graded "
                                         "in it (run `make metrics`)") for p in read_problems]
            continue
        digests[rel] = hashlib.sha256(data).hexdigest()
        try:
            document = loads_json_strict(decode_utf8(data))
        except ParseError as exc:
            problems.append(Problem(rel, str(exc)))
            continue
        errors = schema_errors(spec.validators["evaluation"], document)
        if errors:
            problems += [Problem(rel, error) for error in errors]
            continue
        codes = tuple(sorted({f["code"] for f in document["automatic_fails_triggered"] if f["severity"] == "critical"}))
        if not codes:
            problems.append(Problem(rel, "flags no critical fail, but results/per_run.csv says this run has one "
                                         "(run `make metrics`)"))
            continue
        fails[row.subject_id].append(CriticalFail(row.case_id, row.run_id, row.reviewer_id, codes))
    return CriticalFailsRead({sid: tuple(items) for sid, items in fails.items()}, digests, problems)

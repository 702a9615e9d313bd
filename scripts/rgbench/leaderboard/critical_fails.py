"""The critical fails behind a disqualification: which case, which run, which catalog codes, in whose words.

per_run.csv only says *that* a run has a critical fail; the codes live in the
scoring file that graded the run. This module reads exactly those scoring files and the responses they grade,
so the Disqualified section can show the evidence: an excerpt of the answer around each critical fail's
``evidence`` (:func:`quote_of`) and the reviewer's ``comments``. The files read are returned with their sha256, so
the caller can check them against the manifest (a response is also checked against the ``response_sha256`` its
grade records).

On a board of consolidated grades (manifest.json's ``grades``), a run's grade is an adjudication
(``scoring_multi/.../<case>__<run>__adjudication-<reviewer>.json``), a single grade carried over (in scoring/ or
scoring_multi/), or the policy's combination (reviewer ``consensus``, ``consensus-mean``), whose critical fails
are those any of the run's counted grades flags (every policy counts a critical fail any grader flags): those
grades are read (an llm-judge's only when config.yaml counts them).
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from ..compute.derive import RunRow
from ..load.loader import counts, response_rel, scoring_name, scoring_rel
from ..load.multi_scoring import ADJUDICATION, MULTI_DIR
from ..load.parsing import BIDI_CONTROLS, ParseError, decode_utf8, loads_json_strict
from ..load.reviewers import REVIEWERS_FILE, Reviewer, read_reviewers
from ..load.safe_read import read_single_file
from ..load.spec import Spec, schema_errors
from ..problems import Problem

# How the page and the Markdown introduce a Quote, by its source.
QUOTE_LABELS = {"answer": "Answer:", "reviewer": "Reviewer's evidence (not found word for word in the answer):",
                "opening": "No evidence recorded; the answer begins:"}
CONTEXT = 160     # characters of the answer shown on each side of the reviewer's evidence
COMMENT_LIMIT = 600   # characters of a reviewer's comment shown (the whole comment is in the scoring file)


class Quote(NamedTuple):
    """The words behind a critical fail: ``before`` + ``words`` + ``after`` of the answer (whitespace collapsed,
    cut at word boundaries, ``…`` where cut; the spaces around ``words`` kept in ``before`` and ``after``).
    ``source``: ``answer`` (the reviewer's evidence, found in the answer), ``reviewer`` (the evidence as the
    reviewer wrote it: not found word for word in the answer), ``opening`` (no evidence recorded: the answer's
    first words)."""

    before: str
    words: str
    after: str
    source: str


@dataclass(frozen=True)
class CriticalFail:
    """One run with a critical fail: its case, run, reviewer, the critical codes flagged (sorted), the quotes of
    the answer behind them (one per critical code with evidence, else the answer's opening) and the reviewer's
    comment (clipped to COMMENT_LIMIT)."""

    case_id: str
    run_id: str
    reviewer_id: str
    codes: tuple[str, ...]
    quotes: tuple[Quote, ...] = ()
    comment: str = ""


def inert(text: str) -> str:
    """``text`` with whitespace collapsed and every control or bidirectional character shown as ``[U+XXXX]``, so
    that an answer cannot reorder or hide what the page and the Markdown show (the zero-width joiner and
    non-joiner that real text needs are kept, as in rgbench.load.parsing)."""
    return "".join(f"[U+{ord(c):04X}]" if c in BIDI_CONTROLS or (unicodedata.category(c) in ("Cc", "Cf")
                                                                     and c not in "\u200c\u200d") else c
                   for c in " ".join(text.split()))


def clip(text: str, limit: int, *, end: bool = True) -> str:
    """At most ``limit`` characters of ``text``, cut at a space, ``…`` marking the cut (at the end, or with
    ``end=False`` at the start, keeping the last characters)."""
    if len(text) <= limit:
        return text
    if end:
        cut = text[:limit]
        return (cut.rsplit(" ", 1)[0] if text[limit] != " " and " " in cut.strip() else cut.rstrip()) + "\u2026"
    cut = text[-limit:]
    return "\u2026" + (cut.split(" ", 1)[1] if text[-limit - 1] != " " and " " in cut.strip() else cut.lstrip())


def quote_of(answer: str, evidence: str, context: int = CONTEXT) -> Quote:
    """The :class:`Quote` of ``evidence`` in ``answer``: found ignoring whitespace, then case; ``context``
    characters each side."""
    flat, needle = inert(answer), inert(evidence)
    if not needle:
        return Quote("", clip(flat, 2 * context), "", "opening")
    at = flat.find(needle)
    if at < 0 and len(flat.lower()) == len(flat):   # (lowering may change a length: then exact matches only)
        at = flat.lower().find(needle.lower())
    if at < 0:
        return Quote("", clip(needle, 2 * context), "", "reviewer")
    end = at + len(needle)
    return Quote(clip(flat[:at], context, end=False), flat[at:end], clip(flat[end:], context), "answer")


class CriticalFailsRead(NamedTuple):
    """What :func:`read_critical_fails` found: fails by subject_id (per_run order), the sha256 of each
    scoring read (by path) and the problems."""

    fails: dict[str, tuple[CriticalFail, ...]]
    digests: dict[str, str]
    problems: list[Problem]


def read_critical_fails(root: Path, spec: Spec, runs: Sequence[RunRow],
                        consolidated_reviewer: str | None = None) -> CriticalFailsRead:
    """For every run flagged ``has_critical_fail``, read its scoring, list the critical codes and quote the
    response it grades (:func:`quote_of`; no quote when the response file is absent).

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
        graded: list[dict] = []   # the grades that flag a critical code
        for rel in rels:
            document = _scoring(root, spec, rel, digests, problems)
            codes = _critical_codes(document)
            found |= set(codes)
            graded += [document] if codes and document is not None else []
        if not rels:
            problems.append(Problem(scoring_rel(spec, row.subject_id, row.case_id, row.run_id, row.reviewer_id),
                                    "no grade of this run is left; results/per_run.csv lists a critical fail graded "
                                    "in it (run `make metrics`)"))
        elif not found and not any(problem.path in rels for problem in problems):
            problems.append(Problem(rels[-1], "flags no critical fail, but results/per_run.csv says this run has one "
                                              "(run `make metrics`)"))
        if graded:
            answer = _answer(root, spec, row, graded[0]["response_sha256"], digests, problems)
            fails[row.subject_id].append(CriticalFail(row.case_id, row.run_id, row.reviewer_id, tuple(sorted(found)),
                                                      _quotes(answer, graded), clip(inert(graded[0].get("comments", "")),
                                                                                    COMMENT_LIMIT)))
    return CriticalFailsRead({sid: tuple(items) for sid, items in fails.items()}, digests, problems)


def _scoring(root: Path, spec: Spec, rel: str, digests: dict[str, str], problems: list[Problem]) -> dict | None:
    """The valid scoring ``rel`` (recording its sha256 in ``digests``), or None with its problems added."""
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
    return document


def _critical_codes(document: dict | None) -> tuple[str, ...]:
    """The critical codes a scoring flags (sorted); none for None."""
    fails = document["automatic_fails_triggered"] if document is not None else []
    return tuple(sorted({f["code"] for f in fails if f["severity"] == "critical"}))


def _answer(root: Path, spec: Spec, row: RunRow, graded_sha256: str, digests: dict[str, str],
            problems: list[Problem]) -> str:
    """The response_text of the run's response, which must be the text its grade records (``graded_sha256``,
    else ``""`` with a problem); ``""`` when there is no response file (nothing to quote: the reviewer's evidence is
    shown as written; that inputs are complete is make validate's and make check's)."""
    rel = response_rel(spec, row.subject_id, row.case_id, row.run_id)
    if not (root / rel).is_file():
        return ""
    data, read_problems = read_single_file(root, rel)
    if data is None:
        problems.extend(read_problems)
        return ""
    digests[rel] = hashlib.sha256(data).hexdigest()
    if digests[rel] != graded_sha256:
        problems.append(Problem(rel, "is not the answer its grade records (response_sha256): it changed after the "
                                     "grade; re-grade it, then run `make metrics`"))
        return ""
    try:
        document = loads_json_strict(decode_utf8(data))
    except ParseError as exc:
        problems.append(Problem(rel, str(exc)))
        return ""
    text = document.get("response_text") if isinstance(document, dict) else None
    return text if isinstance(text, str) else ""


def _quotes(answer: str, graded: list[dict]) -> tuple[Quote, ...]:
    """One :func:`quote_of` per distinct evidence of a critical fail in ``graded`` (in order), else the answer's
    opening (none without an answer)."""
    evidence = dict.fromkeys(f.get("evidence", "") for document in graded for f in document["automatic_fails_triggered"]
                             if f["severity"] == "critical" and f.get("evidence", "").strip())
    return tuple(quote_of(answer, text) for text in evidence) or ((quote_of(answer, ""),) if answer.strip() else ())


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
            named = scoring_name(name)
            if named is None or named[:2] != (row.case_id, row.run_id):
                continue
            reviewer = named[3]
            if (counts(reviewer, spec, reviewers) if row.reviewer_id == consolidated_reviewer
                    else reviewer == row.reviewer_id):
                found.append(f"{folder}/{name}")
    return found

"""The scoring a grading form makes: built by the template code, checked by the loader's checks, saved once.

The document comes from :func:`rgbench.governance.scoring_template.template` (the one shape of a
scoring), filled with the form's grades, both pins (``response_sha256``, ``gold_sha256``: sha256 of
the files' bytes as read when saving) and ``blind`` where the evaluation schema lists it (:func:`records_blind`).
Its messages are the evaluation schema's and the loader's catalog checks (the words ``rgbench validate``
prints after the file's path), plus the page's own rules (a fail needs its evidence quote, the reviewer
must be on record). Saving writes the canonical JSON once
(:func:`rgbench.governance.write_once.write_new_file`) inside ``scoring/`` or ``scoring_multi/`` only.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..governance.scoring_template import template
from ..governance.write_once import write_new_file
from ..load.extract import EVALUATION, text_problems
from ..load.loader import fail_problems, gold_rel, response_rel, scoring_name, scoring_rel
from ..load.multi_scoring import ADJUDICATION
from ..load.parsing import ParseError, decode_utf8, dumps_json_canonical, exact_decimal, loads_json_strict
from ..load.reviewers import Reviewer, unregistered_message
from ..load.safe_read import read_single_file, walk_files
from ..load.scale import json_score, score_text
from ..load.spec import Spec, schema_errors
from .runs import FIRST, SECOND, QueuedRun, RunKey

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

SCORING_DIRS = {FIRST: "scoring", SECOND: "scoring_multi"}
_DECIMAL = re.compile(r"-?[0-9]{1,18}(\.[0-9]{1,18})?")


def _json_number(value: Any) -> Any:
    """Text the form sends as the JSON number it names (``"0.5"`` -> 0.5, ``"1"`` -> 1: :func:`json_score`);
    anything else as sent (not text, not a number, or a decimal no JSON number holds exactly), so that the
    schema words the problem."""
    if not isinstance(value, str):
        return value
    try:
        return json_score(exact_decimal(value.strip()))
    except ValueError:
        return value


def target_rel(spec: Spec, run: QueuedRun, reviewer_id: str) -> str:
    """Where the grade goes: scoring/ for a first grade, scoring_multi/ for an assigned second grade."""
    rel = scoring_rel(spec, run.key[0], run.key[1], run.key[2], reviewer_id)
    return SCORING_DIRS[run.role] + rel[len("scoring"):]


def inside_scoring_dirs(root: Path, rel: str) -> bool:
    """True when ``rel`` resolves (links followed) to a path inside the tree's scoring/ or scoring_multi/."""
    base = Path(os.path.realpath(root))
    target = Path(os.path.realpath(base / rel))
    return any(target.is_relative_to(base / folder) and target != base / folder for folder in SCORING_DIRS.values())


def graded_runs(root: Path, spec: Spec) -> tuple[dict[RunKey, list[str]], dict[RunKey, set[str]]]:
    """From the file names on disk: (reviewers of each run in scoring/, every reviewer of each run).

    Read again before every queue and every save, so files written meanwhile (by this page or by
    hand) count. Names that do not parse are ignored here; ``rgbench validate`` reports them.
    """
    first: dict[RunKey, list[str]] = defaultdict(list)
    anyone: dict[RunKey, set[str]] = defaultdict(set)
    for folder in SCORING_DIRS.values():
        entries, _ = walk_files(root, f"{folder}/{spec.version_dir}")
        for entry in entries:
            parts = entry.rel.split("/")
            named = scoring_name(parts[3], ("eval-", ADJUDICATION)) if len(parts) == 4 else None
            if named is None:
                continue
            key, reviewer = (parts[2], named[0], named[1]), named[3]
            anyone[key].add(reviewer)
            if folder == "scoring":
                first[key].append(reviewer)
    return dict(first), dict(anyone)


def form_problems(form: dict[str, Any]) -> list[str]:
    """What makes a request body other than the page's form (the server answers 400 with these).

    The page sends ``handle`` (text), ``criterion_scores`` (an object), ``correctness``, ``fails`` (a list of
    ``{code, evidence}`` with text in both), ``comments`` and ``filters`` (text). A value of the right shape
    but a wrong content (a score of 7, a comment that is a number) is not a problem here: it goes into the
    document, and the schema words it, as ``make validate`` would.
    """
    problems = []
    if not isinstance(form.get("handle"), str):
        problems.append("$.handle: expected the run's handle as text (open the run from the queue page)")
    if not isinstance(form.get("criterion_scores", {}), dict):
        problems.append("$.criterion_scores: expected an object of criterion -> score")
    fails = form.get("fails")
    if fails is not None and not (isinstance(fails, list) and all(
            isinstance(item, dict) and isinstance(item.get("code"), str)
            and isinstance(item.get("evidence", ""), str | None) for item in fails)):
        problems.append("$.fails: expected a list of {code, evidence} with text in both")
    if not isinstance(form.get("filters", ""), str):
        problems.append("$.filters: expected the queue's filters as text")
    return problems


def document_from_form(spec: Spec, run: QueuedRun, reviewer_id: str, subject_version: str, form: dict[str, Any],
                       *, response_sha256: str, gold_sha256: str, blind: bool) -> dict[str, Any]:
    """The scoring document of a submitted form (values the form cannot express stay as sent, so the
    schema words the problem). The severity of each fail is the catalog's."""
    document = template(spec, subject_id=run.key[0], subject_version=subject_version, case_id=run.key[1],
                        run_id=run.key[2], reviewer_id=reviewer_id, response_sha256=response_sha256,
                        gold_sha256=gold_sha256)
    given = form.get("criterion_scores")
    scores: dict[str, Any] = given if isinstance(given, dict) else {}
    for name in spec.criteria:
        value = scores.get(name)
        # ASCII digits only: '²'.isdigit() is true too, and int('²') raises
        if isinstance(value, str) and value.isascii() and value.isdigit():
            value = int(value)
        elif isinstance(value, str) and _DECIMAL.fullmatch(value):
            value = _json_number(value)   # a decimal score (a "type": "number" criterion), as the JSON number typed
        document["criterion_scores"][name] = value
    if spec.has_correctness:   # a benchmark without correctness: the template has no such key, the form no field
        document["correctness"] = _json_number(form.get("correctness"))
    fails = []
    given_fails = form.get("fails")
    for item in given_fails if isinstance(given_fails, list) else []:   # the server refuses other shapes first
        if not isinstance(item, dict):
            continue
        code = item.get("code")
        fail: dict[str, Any] = {"code": code, "severity": spec.catalog.get(code, "") if isinstance(code, str) else ""}
        evidence = item.get("evidence")
        if isinstance(evidence, str) and evidence.strip():
            fail["evidence"] = evidence.strip()
        fails.append(fail)
    document["automatic_fails_triggered"] = sorted(fails, key=lambda f: str(f["code"]))
    comments = form.get("comments")
    document["comments"] = comments.strip() if isinstance(comments, str) else comments
    if records_blind(spec):   # a benchmark's own schema may not list it (rgbench init's before 2026-12-06)
        document["blind"] = blind
    return document


def records_blind(spec: Spec) -> bool:
    """Whether the benchmark's evaluation schema lists ``blind`` (a grade says whether the page hid the subject)."""
    properties = spec.validators["evaluation"].schema.get("properties")
    return isinstance(properties, dict) and "blind" in properties


def document_messages(spec: Spec, document: dict[str, Any], reviewers: dict[str, Reviewer] | None) -> list[str]:
    """Every message about the document, sorted: schema, catalog, reviewer on record, evidence quotes, no
    bidirectional control in the comments or an evidence."""
    messages = list(schema_errors(spec.validators["evaluation"], document))
    if not messages:
        messages += text_problems(EVALUATION, document)
    fails = document.get("automatic_fails_triggered")
    if isinstance(fails, list) and all(isinstance(f, dict) for f in fails):
        pairs = tuple((f.get("code"), f.get("severity")) for f in fails if isinstance(f.get("code"), str))
        messages += [problem.message for problem in fail_problems(spec, "", pairs)]
        for index, fail in enumerate(fails):
            if not fail.get("evidence"):
                messages.append(f"$.automatic_fails_triggered[{index}].evidence: quote the words of the response "
                                f"that trigger {fail.get('code')} (the grading page asks for the evidence of every fail)")
    reviewer_id = document.get("reviewer_id")
    if reviewers is None or reviewer_id not in reviewers:
        messages.append(unregistered_message(str(reviewer_id), reviewers or {}))
    return sorted(set(messages))


def pins(root: Path, spec: Spec, key: RunKey) -> tuple[str, str, list[str]]:
    """(response sha256, gold sha256, problems) of the files as they are now; a problem says "the response" or
    "the gold", not the path (which names the subject)."""
    digests, problems = [], []
    for what, rel in (("the response", response_rel(spec, *key)), ("the gold", gold_rel(spec, key[1]))):
        data, read_problems = read_single_file(root, rel)
        digests.append(hashlib.sha256(data).hexdigest() if data is not None else "")
        problems += [f"{what}: {p.message} (restore it, then restart rgbench review)" for p in read_problems]
    return digests[0], digests[1], problems


def grades_text(root: Path, spec: Spec, key: RunKey) -> str:
    """The run's grades on disk now (scoring/, then scoring_multi/), e.g. ``rev-a in scoring/: raw score 9,
    correctness 0.5``; "" when none. A file that does not read as a scoring is left out (validate reports it)."""
    said = []
    for folder in SCORING_DIRS.values():
        for path in sorted((Path(root) / folder / spec.version_dir / key[0]).glob(f"{key[1]}__{key[2]}__*.json")):
            try:
                document = loads_json_strict(decode_utf8(read_single_file(root, path.relative_to(root).as_posix())[0]
                                                         or b""))
                total = spec.scale.total_of(Fraction(str(v)) for v in document["criterion_scores"].values())
                correctness = document.get("correctness")
                said.append(f"{document['reviewer_id']} in {folder}/: raw score {score_text(total)}"
                            + ("" if correctness is None else f", correctness {float(correctness):g}"))
            except (ParseError, TypeError, ValueError, AttributeError, KeyError):
                continue
    return "; ".join(said)


def refusals(root: Path, spec: Spec, run: QueuedRun, reviewer_id: str, assigned_to: str | None) -> list[str]:
    """Why this reviewer may not save this run now (empty: they may): never overwrite, one scoring per run
    in scoring/, second grades only for the assigned reviewer and only after a first grade by someone else."""
    first, anyone = graded_runs(root, spec)
    if reviewer_id in anyone.get(run.key, set()):
        return ["you have already graded this run; a grade is never overwritten (before it is merged, edit the file in "
                "your pull request; once merged, a correction is a maintainer's pull request)"]
    if run.role == FIRST and first.get(run.key):
        return ["this run already has its one scoring in scoring/; a further grade goes to scoring_multi/ "
                "only when rgbench assign names you its second reviewer"]
    if run.role == SECOND and (assigned_to != reviewer_id or not first.get(run.key)):
        return ["this run is not assigned to you for a second grade (subjects/second_reviews.json)"]
    return []


@contextmanager
def checkout_lock(root: Path) -> Iterator[None]:
    """Hold an exclusive lock on the tree's folder while a grade is checked and written.

    Two grading sessions on one checkout (two terminals, two reviewers) then save one after the other: the
    second one's checks see the first one's file, and a second first grade of a run is refused (one scoring
    per run in scoring/). The lock is ``flock`` on the folder itself: no lock file to leave behind, and the
    system releases it when the process ends, ``kill -9`` too. Where there is no ``fcntl`` (Windows), no lock.
    """
    if fcntl is None:
        yield
        return
    fd = os.open(root, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)   # releases the lock


def save(root: Path, rel: str, document: dict[str, Any]) -> list[str]:
    """Write ``document`` canonically at ``rel``, once; the problems if it may not be (nothing written then).

    A folder that cannot be written (read-only, full disk) raises :class:`rgbench.atomic.OutputError`,
    nothing written either (a kill leaves at most a ``.<name>.<random>.tmp``, which readers skip)."""
    if not inside_scoring_dirs(root, rel):
        return [f"{rel}: outside the tree's scoring folders; refused"]
    try:
        write_new_file(Path(root) / rel, dumps_json_canonical(document).encode("utf-8"))
    except FileExistsError:
        return ["this grade already exists; it is never overwritten"]
    return []

"""The several-reviewers folder: further scorings and adjudications of runs already in the tree.

Layout (same file format as scoring/, validated by the same schema)::

    scoring_multi/<version>/<subject_id>/<case_id>__<run_id>__eval-<reviewer_id>.json
    scoring_multi/<version>/<subject_id>/<case_id>__<run_id>__adjudication-<reviewer_id>.json

An ``eval-`` file is one more reviewer's independent grade of a run; an
``adjudication-`` file is an adjudicator's final grade of a run, which wins
over every other grade when the run is consolidated. compute_metrics never
reads this folder; scripts/aggregate_scoring.py does. Every problem of every
file is returned, as the loader does for scoring/.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Mapping

from ..extract import EVALUATION, Extracted
from ..parallel import extract_files
from ..problems import Problem
from ..records import Scoring, Tree
from ..safe_read import TreeFile, walk_files
from ..spec import Spec

MULTI_DIR = "scoring_multi"
EVAL, ADJUDICATION = "eval-", "adjudication-"
_CORRECTNESS = {"0": Fraction(0), "1/2": Fraction(1, 2), "1": Fraction(1)}
_NAMES = "<case_id>__<run_id>__eval-<reviewer_id>.json or <case_id>__<run_id>__adjudication-<reviewer_id>.json"


@dataclass(frozen=True)
class MultiScorings:
    """Valid extra scorings and adjudications, and the sha256 of every file read (by relative path)."""

    extra: tuple[Scoring, ...]
    adjudications: dict[tuple[str, str, str], Scoring]
    inputs: dict[str, str]


def _parse_name(name: str) -> tuple[str, str, str, str] | None:
    """(case_id, run_id, kind prefix, reviewer_id) from a file name, or None."""
    if not name.endswith(".json"):
        return None
    pieces = name[:-5].split("__")
    if len(pieces) != 3 or not all(pieces):
        return None
    for prefix in (EVAL, ADJUDICATION):
        if pieces[2].startswith(prefix) and len(pieces[2]) > len(prefix):
            return pieces[0], pieces[1], prefix, pieces[2][len(prefix):]
    return None


def _check(spec: Spec, tree: Tree, rel: str, ids: tuple[str, str, str, str], fields: tuple) -> list[str]:
    """Cross-file problems of one valid document: ids, gold, version, response, digest, catalog."""
    sid, version, case_id, run_id, reviewer_id, _, fails, _, response_sha = fields
    messages = []
    for key, got, want in zip(("subject_id", "case_id", "run_id", "reviewer_id"), (sid, case_id, run_id, reviewer_id), ids):
        if got != want:
            messages.append(f"$.{key}: {got!r} does not match the file's path ({want!r}); fix the id or rename the file")
    if messages:
        return messages
    if case_id not in tree.golds:
        messages.append(f"$.case_id: no gold for case {case_id!r} (expected golds/{spec.version_dir}/{case_id}_gold.md)")
    registered = tree.subjects[sid].subject_version
    if version != registered:
        messages.append(f"$.subject_version: {version!r} but subjects/registry.yaml registers {sid!r} at {registered!r} "
                        "(stale file: re-grade the registered version or remove it)")
    response = tree.responses.get((sid, case_id, run_id))
    response_rel = f"responses/{spec.version_dir}/{sid}/{case_id}__{run_id}.json"
    if response is None:
        messages.append(f"no matching response: {response_rel} does not exist (a scoring grades an existing response)")
    elif response_sha is not None and response_sha != tree.inputs.get(response.path):
        messages.append(f"$.response_sha256: does not match the sha256 of {response_rel}; the response changed after grading, so re-grade it")
    seen = set()
    for index, (code, severity) in enumerate(fails):
        where = f"$.automatic_fails_triggered[{index}]"
        if code in seen:
            messages.append(f"{where}.code: {code!r} is listed twice (list each fail once)")
        seen.add(code)
        if code not in spec.catalog:
            messages.append(f"{where}.code: {code!r} is not in the catalog {spec.catalog_path} (use a catalog code or propose a new one there)")
        elif spec.catalog[code] != severity:
            messages.append(f"{where}.severity: {severity!r} but the catalog gives {code!r} severity {spec.catalog[code]!r}")
    return messages


def multi_jobs(root: Path, spec: Spec, folder: str = MULTI_DIR, subject_id: str | None = None) -> list[tuple[TreeFile, str]]:
    """The (entry, kind) extraction jobs :func:`load_multi` runs on ``<folder>/<version>/`` (or only on its
    ``subject_id`` folder): every file at the right depth with a well-formed name. Its problems are
    :func:`load_multi`'s to report."""
    base = f"{folder}/{spec.version_dir}"
    entries, _ = walk_files(root, base if subject_id is None else f"{base}/{subject_id}")
    return [(entry, EVALUATION) for entry in entries
            if entry.rel.count("/") == 3 and _parse_name(entry.rel.rpartition("/")[2]) is not None]


def load_multi(root: Path, spec: Spec, tree: Tree, folder: str = MULTI_DIR, *, subject_id: str | None = None,
               extracted: Mapping[str, Extracted] | None = None) -> tuple[MultiScorings | None, list[Problem]]:
    """Read ``<folder>/<version>/`` under ``root`` against the validated ``tree``: (records, []) or (None, problems).

    A missing folder is no problem (no extra reviewer yet). Refused, besides what
    scoring/ refuses: a reviewer grading the same run twice (here, or here and in
    scoring/), and two adjudications of one run.

    ``subject_id`` reads only that subject's folder (``tree`` then needs to hold only that subject's
    responses, scorings and input digests, and every registered subject). ``extracted`` holds results
    of :func:`rgbench.extract.extract` by path already computed (e.g. for :func:`multi_jobs` of several
    subjects at once); the other files are read here, on every core when there are many.
    """
    base = f"{folder}/{spec.version_dir}"
    entries, problems = walk_files(root, base if subject_id is None else f"{base}/{subject_id}")
    inputs: dict[str, str] = {}
    extra: list[Scoring] = []
    adjudications: dict[tuple[str, str, str], list[Scoring]] = defaultdict(list)
    graded: dict[tuple[str, str, str, str], list[str]] = defaultdict(list)
    for scoring in tree.scorings:
        graded[scoring.run_key + (scoring.reviewer_id,)].append(scoring.path)
    unregistered = set()
    named = []
    for entry in entries:
        rel, parts = entry.rel, entry.rel.split("/")
        if len(parts) != 4:
            problems.append(Problem(rel, f"unexpected location: files go in {base}/<subject_id>/"))
            continue
        sid = parts[2]
        if sid not in tree.subjects:
            unregistered.add(sid)
            continue
        parsed = _parse_name(parts[3])
        if parsed is None:
            problems.append(Problem(rel, f"unexpected file name: files here are named {_NAMES}"))
            continue
        named.append((entry, sid, parsed))
    given = extracted if extracted is not None else {}
    missing = [(entry, EVALUATION) for entry, _, _ in named if entry.rel not in given]
    # read and extracted as parallel.extract_files does (a file that cannot be read has no digest)
    read_here = extract_files(root, spec, missing) if missing else {}
    for entry, sid, (case_id, run_id, prefix, reviewer_id) in named:
        rel = entry.rel
        digest, errors, fields = given[rel] if rel in given else read_here[rel]
        if digest:
            inputs[rel] = digest
        problems.extend(Problem(rel, error) for error in errors)
        if fields is None:
            continue
        messages = _check(spec, tree, rel, (sid, case_id, run_id, reviewer_id), fields)
        problems.extend(Problem(rel, message) for message in messages)
        if messages:
            continue
        _, version, _, _, _, scores, fails, correctness, _ = fields
        scoring = Scoring(sid, version, case_id, run_id, reviewer_id, tuple(zip(spec.criteria, scores)),
                          tuple(sorted(fails)), _CORRECTNESS[correctness], rel)
        if prefix == ADJUDICATION:
            adjudications[scoring.run_key].append(scoring)
        else:
            graded[scoring.run_key + (reviewer_id,)].append(rel)
            extra.append(scoring)
    for folder_name in sorted(unregistered):
        problems.append(Problem(f"{base}/{folder_name}", f"subject folder {folder_name!r} is not registered in subjects/registry.yaml (register it or remove the folder)"))
    for (sid, case_id, run_id, reviewer_id), paths in graded.items():
        if len(paths) > 1:
            for rel in paths:
                if rel.startswith(base + "/"):
                    problems.append(Problem(rel, f"reviewer {reviewer_id!r} grades ({sid}, {case_id}, {run_id}) more than once: "
                                                 f"{', '.join(sorted(paths))}; keep one grade per reviewer"))
    for key, found in adjudications.items():
        if len(found) > 1:
            listed = ", ".join(sorted(s.path for s in found))
            for scoring in found:
                problems.append(Problem(scoring.path, f"more than one adjudication of {key}: {listed}; keep one"))
    if problems:
        return None, sorted(set(problems))
    return MultiScorings(
        extra=tuple(sorted(extra, key=lambda s: (s.run_key, s.reviewer_id))),
        adjudications={key: found[0] for key, found in sorted(adjudications.items())},
        inputs=dict(sorted(inputs.items())),
    ), []

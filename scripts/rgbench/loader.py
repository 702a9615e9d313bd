"""Load a benchmark tree: read safely, parse strictly, validate, cross-check, return records and problems.

Every problem of every file is collected; nothing is raised across layers.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from fractions import Fraction
from pathlib import Path
from typing import Any

from .gold_markdown import extract_gold_json
from .parsing import ParseError, decode_utf8, loads_json_strict, loads_yaml_strict
from .problems import Problem
from .records import Gold, Response, Scoring, Subject, Tree
from .safe_read import Entry, read_bytes, read_single_file, walk_files
from .spec import Spec, document_errors, schema_errors

REGISTRY_FILE = "subjects/registry.yaml"
_STALE_HINT = "(stale file: register the new version or remove it; history lives in results/historico/)"


class _Collector:
    """Reads files once, records their digests and the problems met along the way."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.problems: list[Problem] = []
        self.inputs: dict[str, str] = {}
        self.blocked: set[str] = set()  # links and special files already reported

    def is_blocked(self, rel: str) -> bool:
        """True when ``rel`` or a folder above it was refused as a link or special file."""
        return any(rel == b or rel.startswith(b + "/") for b in self.blocked)

    def add(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))

    def read(self, rel: str) -> bytes | None:
        try:
            data = read_bytes(self.root, rel)
        except OSError as exc:
            self.add(rel, f"cannot be read: {exc.strerror or exc}")
            return None
        self.inputs[rel] = hashlib.sha256(data).hexdigest()
        return data

    def walk(self, rel_dir: str) -> list[Entry]:
        entries, problems = walk_files(self.root, rel_dir)
        self.problems.extend(problems)
        self.blocked.update(problem.path for problem in problems)
        return entries

    def parse_json(self, rel: str, spec: Spec, kind: str) -> dict | None:
        """Read, decode, parse and validate one JSON file; None if anything is wrong."""
        data = self.read(rel)
        if data is None:
            return None
        try:
            document = loads_json_strict(decode_utf8(data))
        except ParseError as exc:
            self.add(rel, str(exc))
            return None
        errors = document_errors(spec, kind, document)
        for error in errors:
            self.add(rel, error)
        return None if errors else document


def _check_ids(col: _Collector, rel: str, document: dict, expected: dict[str, str]) -> bool:
    ok = True
    for key, value in expected.items():
        if document[key] != value:
            col.add(rel, f"$.{key}: {document[key]!r} does not match the file's path ({value!r}); fix the id or rename the file")
            ok = False
    return ok


def _load_registry(col: _Collector, spec: Spec) -> dict[str, Subject] | None:
    """Registered subjects, or None when the registry itself is unusable (its problems are recorded)."""
    data, problems = read_single_file(col.root, REGISTRY_FILE)
    col.problems.extend(problems)
    if data is None:
        return None
    col.inputs[REGISTRY_FILE] = hashlib.sha256(data).hexdigest()
    try:
        document = loads_yaml_strict(decode_utf8(data))
    except ParseError as exc:
        col.add(REGISTRY_FILE, str(exc))
        return None
    errors = schema_errors(spec.validators["registry"], document)
    for error in errors:
        hint = " (quote the value in YAML so it stays text, e.g. \"1.10\")" if error.endswith("is not of type 'string'") else ""
        col.add(REGISTRY_FILE, error + hint)
    if errors:
        return None
    subjects: dict[str, Subject] = {}
    first_seen: dict[str, int] = {}
    for index, item in enumerate(document["subjects"]):
        sid = item["subject_id"]
        if sid in first_seen:
            col.add(REGISTRY_FILE, f"$.subjects[{index}].subject_id: duplicate subject_id {sid!r} (first at $.subjects[{first_seen[sid]}]); each subject is registered once")
            continue
        first_seen[sid] = index
        extra = tuple(sorted((k, v) for k, v in item.items() if k not in ("subject_id", "subject_version")))
        subjects[sid] = Subject(sid, item["subject_version"], extra)
    return subjects


def _load_golds(col: _Collector, spec: Spec) -> tuple[dict[str, Gold], set[str]]:
    """Valid golds by case id, and the case ids that have a gold file at all (valid or not)."""
    golds: dict[str, Gold] = {}
    present: set[str] = set()
    base = f"golds/{spec.version_dir}"
    for entry in col.walk(base):
        rel = entry.rel
        case_from_name = entry.name[: -len("_gold.md")] if entry.name.endswith("_gold.md") else None
        if len(entry.parts) != 3 or case_from_name is None or not spec.case_id_re.match(case_from_name):
            col.add(rel, f"unexpected file: golds are named {base}/<case_id>_gold.md with case ids like RO-FOUL-001")
            continue
        present.add(case_from_name)
        data = col.read(rel)
        if data is None:
            continue
        try:
            document = extract_gold_json(decode_utf8(data))
        except ParseError as exc:
            col.add(rel, str(exc))
            continue
        errors = document_errors(spec, "gold", document)
        for error in errors:
            col.add(rel, error)
        if errors or not _check_ids(col, rel, document, {"case_id": case_from_name}):
            continue
        family = spec.case_id_re.match(document["case_id"]).group("family")
        bad = False
        if document["family"] != family:
            col.add(rel, f"$.family: {document['family']!r} does not match the case id's family {family!r}")
            bad = True
        elif family not in spec.families:
            known = ", ".join(sorted(spec.families))
            col.add(rel, f"$.family: {family!r} is not declared in system/benchmark.yaml (known: {known})")
            bad = True
        if document["rubric_floor"] > document["rubric_ceiling"]:
            col.add(rel, f"$.rubric_floor: {document['rubric_floor']} is greater than rubric_ceiling {document['rubric_ceiling']}")
            bad = True
        if document["rubric_ceiling"] > spec.max_score:
            col.add(rel, f"$.rubric_ceiling: {document['rubric_ceiling']} is above the maximum score {spec.max_score}")
            bad = True
        if not bad:
            golds[case_from_name] = Gold(
                case_id=case_from_name,
                family=family,
                case_type=document["case_type"],
                rubric_floor=document["rubric_floor"],
                rubric_ceiling=document["rubric_ceiling"],
                difficulty=document["difficulty"],
                path=rel,
            )
    return golds, present


def _subject_folders(col: _Collector, entries: list[Entry], base: str, subjects: dict[str, Subject] | None) -> list[Entry]:
    """Keep entries at <base>/<registered subject>/<file>; report the rest once per folder.

    With an unusable registry (None) every folder is kept, so that the files'
    own problems are still reported, and registration is not judged.
    """
    kept = []
    unregistered = set()
    for entry in entries:
        if len(entry.parts) != 4:
            col.add(entry.rel, f"unexpected location: files go in {base}/<subject_id>/")
        elif subjects is not None and entry.parts[2] not in subjects:
            unregistered.add(entry.parts[2])
        else:
            kept.append(entry)
    for folder in sorted(unregistered):
        col.add(f"{base}/{folder}", f"subject folder {folder!r} is not registered in {REGISTRY_FILE} (register it or remove the folder)")
    return kept


def _check_case_and_version(col: _Collector, spec: Spec, rel: str, document: dict, subjects, golds) -> bool:
    # golds is (valid golds by case id, case ids with a gold file)
    """The case must have a gold and the version must be the registered one.

    A gold file that exists but is invalid, or an unusable registry, already has
    its own problem; the files that depend on it are not blamed twice.
    """
    golds, gold_files = golds
    ok = True
    case_id, sid = document["case_id"], document["subject_id"]
    if case_id not in golds:
        ok = False
        gold_rel = f"golds/{spec.version_dir}/{case_id}_gold.md"
        if case_id not in gold_files and not col.is_blocked(gold_rel):
            col.add(rel, f"$.case_id: no gold for case {case_id!r} (expected golds/{spec.version_dir}/{case_id}_gold.md)")
    if subjects is None:
        return False
    registered = subjects[sid].subject_version
    if document["subject_version"] != registered:
        col.add(rel, f"$.subject_version: {document['subject_version']!r} but {REGISTRY_FILE} registers {sid!r} at {registered!r} {_STALE_HINT}")
        ok = False
    return ok


def _load_responses(col, spec, subjects, golds) -> tuple[dict, dict[tuple[str, str, str], str]]:
    """Return (valid responses by run key, every response file's sha256 by run key)."""
    base = f"responses/{spec.version_dir}"
    responses: dict[tuple[str, str, str], Response] = {}
    present: dict[tuple[str, str, str], str] = {}
    for entry in _subject_folders(col, col.walk(base), base, subjects):
        rel, sid = entry.rel, entry.parts[2]
        stem = entry.name[:-5] if entry.name.endswith(".json") else ""
        parts = stem.split("__")
        if len(parts) != 2 or not all(parts):
            col.add(rel, "unexpected file name: responses are named <case_id>__<run_id>.json")
            continue
        case_id, run_id = parts
        document = col.parse_json(rel, spec, "response")
        if rel in col.inputs:
            present[(sid, case_id, run_id)] = col.inputs[rel]
        if document is None:
            continue
        if not _check_ids(col, rel, document, {"subject_id": sid, "case_id": case_id, "run_id": run_id}):
            continue
        if _check_case_and_version(col, spec, rel, document, subjects, golds):
            version = document["subject_version"]
            responses[(sid, case_id, run_id)] = Response(sid, version, case_id, run_id, int(document["confidence"]), rel)
    return responses, present


def _check_fails(col: _Collector, spec: Spec, rel: str, fails: list[dict]) -> bool:
    ok = True
    seen = set()
    for index, fail in enumerate(fails):
        code, severity = fail["code"], fail["severity"]
        where = f"$.automatic_fails_triggered[{index}]"
        if code in seen:
            col.add(rel, f"{where}.code: {code!r} is listed twice (list each fail once)")
            ok = False
        seen.add(code)
        if code not in spec.catalog:
            col.add(rel, f"{where}.code: {code!r} is not in the catalog {spec.catalog_path} (use a catalog code or propose a new one there)")
            ok = False
        elif spec.catalog[code] != severity:
            col.add(rel, f"{where}.severity: {severity!r} but the catalog gives {code!r} severity {spec.catalog[code]!r}")
            ok = False
    return ok


def _load_scorings(col, spec, subjects, golds, responses, present) -> list[Scoring]:
    base = f"scoring/{spec.version_dir}"
    scorings: list[Scoring] = []
    files_per_run: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for entry in _subject_folders(col, col.walk(base), base, subjects):
        rel, sid = entry.rel, entry.parts[2]
        stem = entry.name[:-5] if entry.name.endswith(".json") else ""
        parts = stem.split("__")
        if len(parts) != 3 or not all(parts) or not parts[2].startswith("eval-") or parts[2] == "eval-":
            col.add(rel, "unexpected file name: scorings are named <case_id>__<run_id>__eval-<reviewer_id>.json")
            continue
        case_id, run_id, reviewer_id = parts[0], parts[1], parts[2][len("eval-"):]
        files_per_run[(sid, case_id, run_id)].append(rel)
        document = col.parse_json(rel, spec, "evaluation")
        if document is None:
            continue
        expected = {"subject_id": sid, "case_id": case_id, "run_id": run_id, "reviewer_id": reviewer_id}
        if not _check_ids(col, rel, document, expected):
            continue
        key = (sid, case_id, run_id)
        ok = _check_case_and_version(col, spec, rel, document, subjects, golds)
        response_rel = f"responses/{spec.version_dir}/{sid}/{case_id}__{run_id}.json"
        if key not in present:
            if not col.is_blocked(response_rel):
                col.add(rel, f"no matching response: {response_rel} does not exist (a scoring grades an existing response)")
            ok = False
        elif "response_sha256" in document and document["response_sha256"] != present[key]:
            col.add(rel, f"$.response_sha256: does not match the sha256 of {response_rel} ({present[key]}); the response changed after grading, so re-grade it")
            ok = False
        if not _check_fails(col, spec, rel, document["automatic_fails_triggered"]):
            ok = False
        if ok and key in responses:
            scores = document["criterion_scores"]
            scorings.append(Scoring(
                subject_id=sid,
                subject_version=document["subject_version"],
                case_id=case_id,
                run_id=run_id,
                reviewer_id=reviewer_id,
                criterion_scores=tuple((name, int(scores[name])) for name in spec.criteria),
                fails=tuple(sorted((f["code"], f["severity"]) for f in document["automatic_fails_triggered"])),
                correctness=Fraction(str(document["correctness"])),
                path=rel,
            ))
    for (sid, case_id, run_id), files in files_per_run.items():
        if len(files) > 1:
            listed = ", ".join(sorted(files))
            for rel in files:
                col.add(rel, f"more than one scoring for ({sid}, {case_id}, {run_id}): {listed}; v1.0 takes one reviewer per run (keep one, or consolidate with scripts/aggregate_scoring.py)")
    return scorings


def load_tree(root: Path, spec: Spec) -> tuple[Tree | None, list[Problem]]:
    """Load and cross-check every input under ``root``. Returns (tree, []) or (None, problems)."""
    col = _Collector(root)
    for entry in col.walk("system"):
        col.read(entry.rel)  # every system file is an input of the digest
    subjects = _load_registry(col, spec)
    golds, gold_files = _load_golds(col, spec)
    responses, present = _load_responses(col, spec, subjects, (golds, gold_files))
    scorings = _load_scorings(col, spec, subjects, (golds, gold_files), responses, present)
    if col.problems or subjects is None:
        return None, sorted(set(col.problems))
    tree = Tree(
        subjects=dict(sorted(subjects.items())),
        golds=dict(sorted(golds.items())),
        responses=dict(sorted(responses.items())),
        scorings=tuple(sorted(scorings, key=lambda s: (s.subject_id, s.case_id, s.run_id, s.reviewer_id))),
        inputs=dict(sorted(col.inputs.items())),
    )
    return tree, []

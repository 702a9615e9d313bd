"""Load a benchmark tree: read safely, parse strictly, validate, cross-check, return records and problems.

Two phases. Per file (extract.py, on every core for large trees): strict parsing
and schema validation, independent of every other file. Across files (here): ids
against paths, golds, registry, versions, catalog, response digests and the
one-scoring-per-run rule. Every problem of every file is collected; nothing is
raised across layers.

:func:`load_tree` reads the whole tree; every script that reads a tree goes
through it. The further-reviewers folder (``scoring_multi/``) is read with its
``Collector``, ``list_subject_files`` and ``build_scorings``: the same listing
and the same checks.
"""

from __future__ import annotations

import hashlib
import os
from collections import defaultdict
from collections.abc import Callable
from operator import itemgetter
from pathlib import Path

from ..problems import Problem
from .consolidate import KNOWN_POLICIES, policy_of
from .draws import DRAWS_FILE, read_draws
from .extract import (
    CONSOLIDATED,
    EVALUATION,
    GOLD,
    RESPONSE,
    ResponseFields,
    ScoringFields,
    extract_files,
    with_consolidated_validator,
)
from .records import Gold, Response, Scoring, Subject, Tree
from .registry import REGISTRY_FILE, read_registry, registered_subjects
from .reviewers import ASSIGNMENTS_FILE, LLM_JUDGE, REVIEWERS_FILE, Reviewer, read_reviewers, unregistered_message
from .safe_read import TreeFile, read_bytes, walk_files
from .scale import score_text
from .spec import Spec

_STALE_HINT = "(stale file: register the new version or remove it; history lives in results/historico/)"


class Collector:
    """Problems met along the way, input digests, and the paths refused as links or special files."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.problems: list[Problem] = []
        self.inputs: dict[str, str] = {}
        self.blocked: set[str] = set()
        self.reviewers: dict[str, Reviewer] | None = None  # subjects/reviewers.yaml; None: reviewers not checked
        self.implied_reviewer = ""  # reading consolidated grades: the policy's own reviewer, needing no registration

    def is_blocked(self, rel: str) -> bool:
        """True when ``rel`` or a folder above it was refused as a link or special file."""
        return any(rel == b or rel.startswith(b + "/") for b in self.blocked)

    def add(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))

    def walk(self, rel_dir: str) -> list[TreeFile]:
        entries, problems = walk_files(self.root, rel_dir)
        self.problems.extend(problems)
        self.blocked.update(problem.path for problem in problems)
        return entries


def read_system(col: Collector) -> None:
    """Hash every file under system/ (inputs of the digest)."""
    for entry in col.walk("system"):
        try:
            col.inputs[entry.rel] = hashlib.sha256(read_bytes(col.root, entry.rel)).hexdigest()
        except OSError as exc:
            col.add(entry.rel, f"cannot be read: {exc.strerror or exc}")


def load_registry(col: Collector, spec: Spec) -> dict[str, Subject] | None:
    """Registered subjects, or None when the registry itself is unusable (its problems are recorded)."""
    document, data, problems = read_registry(col.root, spec)
    col.problems.extend(problems)
    if data is not None:
        col.inputs[REGISTRY_FILE] = hashlib.sha256(data).hexdigest()
    return registered_subjects(document) if document is not None else None


def load_reviewers(col: Collector, spec: Spec) -> None:
    """Read subjects/reviewers.yaml into ``col.reviewers`` (a tree without the file checks no reviewer)."""
    reviewers, data, problems = read_reviewers(col.root, spec)
    col.problems.extend(problems)
    if data is not None:
        col.inputs[REVIEWERS_FILE] = hashlib.sha256(data).hexdigest()
    col.reviewers = reviewers


def check_judge(col: Collector, spec: Spec) -> None:
    """config.yaml's judge must be registered in subjects/reviewers.yaml with kind llm-judge."""
    judges = sorted(r.reviewer_id for r in (col.reviewers or {}).values() if r.kind == LLM_JUDGE)
    if spec.judge not in judges:
        col.add(spec.config_path, f"$.judge: {spec.judge!r} is not registered in {REVIEWERS_FILE} as an llm-judge "
                                  f"(registered llm-judges: {', '.join(judges) or 'none'}; register it there with "
                                  "kind: llm-judge, or name one of them)")


def fail_problems(spec: Spec, rel: str, fails: tuple[tuple[str, str], ...]) -> list[Problem]:
    """The catalog checks of a scoring's automatic fails ((code, severity) as listed), as problems of ``rel``."""
    col = Collector(Path("."))
    _fails_ok(col, spec, rel, fails)
    return col.problems


# --- phase 0: which files, of which kind, with names that parse ---------------------------

def walk_version(col: Collector, spec: Spec, folder: str, layout: str) -> list[TreeFile]:
    """The files under ``<folder>/<version>/``; every other path under ``folder`` is refused, its message
    giving the expected ``layout``: a misplaced file (``scoring/v1.1/...``, ``scoring/X.json``,
    ``golds/drafts/blob``) would otherwise count for nothing with nothing saying so."""
    base = f"{folder}/{spec.version_dir}/"
    inside = []
    for entry in col.walk(folder):
        if entry.rel.startswith(base):
            inside.append(entry)
        else:
            col.add(entry.rel, f"outside {base}, so it is never read: {layout} (move it there or remove it)")
    return inside


def refuse_other_files(col: Collector, folder: str, expected: set[str], what: str) -> None:
    """Every file under ``folder`` other than ``expected`` is refused (e.g. ``subjects/registry.yml``); the
    expected files are read (and their links refused) by their own reader."""
    entries, problems = walk_files(col.root, folder)
    odd = [problem for problem in problems if problem.path not in expected and problem.path != folder]
    col.problems.extend(odd)
    col.blocked.update(problem.path for problem in odd)
    for entry in entries:
        if entry.rel not in expected:
            col.add(entry.rel, f"not an input, so it is never read: {folder}/ holds only {what} "
                               "(rename it or remove it)")


def list_golds(col: Collector, spec: Spec) -> list[tuple[TreeFile, str, str]]:
    base = f"golds/{spec.version_dir}"
    jobs = []
    for entry in walk_version(col, spec, "golds", f"golds go in {base}/<case_id>_gold.md"):
        name = entry.name
        case_id = name[: -len("_gold.md")] if name.endswith("_gold.md") else None
        if entry.rel.count("/") != 2 or case_id is None or not spec.case_id_re.match(case_id):
            col.add(entry.rel, f"unexpected file: golds are named {base}/<case_id>_gold.md "
                               f"with case ids like {spec.example_id()}")
            continue
        jobs.append((entry, GOLD, case_id))
    return jobs


def list_subject_files(col: Collector, spec: Spec, folder: str, kind: str,
                       subjects: dict[str, Subject] | None, *,
                       reviewer_prefixes: tuple[str, ...] = ("eval-",)) -> list[tuple[TreeFile, str, tuple[str, ...]]]:
    """Files at <folder>/<version>/<registered subject>/<name>, with the ids their path declares.

    With an unusable registry (None) every subject folder is kept, so that the
    files' own problems are still reported, and registration is not judged.
    Scorings are named
    ``<case_id>__<run_id>__<prefix><reviewer_id>.json`` with a prefix of ``reviewer_prefixes``
    (the several-reviewers folder also takes ``adjudication-``).
    """
    base = f"{folder}/{spec.version_dir}"
    jobs: list[tuple[TreeFile, str, tuple[str, ...]]] = []
    append = jobs.append
    add = col.add
    unregistered = set()
    is_response = kind == RESPONSE
    location = f"unexpected location: files go in {base}/<subject_id>/"
    scoring_names = " or ".join(f"<case_id>__<run_id>__{prefix}<reviewer_id>.json" for prefix in reviewer_prefixes)
    layout = (f"responses go in {base}/<subject_id>/<case_id>__<run_id>.json" if is_response
              else f"scorings go in {base}/<subject_id>/{scoring_names}")
    for entry in walk_version(col, spec, folder, layout):
        rel = entry.rel
        parts = rel.split("/")
        if len(parts) != 4:
            add(rel, location)
            continue
        sid, name = parts[2], parts[3]
        if subjects is not None and sid not in subjects:
            unregistered.add(sid)
            continue
        if is_response:
            pieces = name[:-5].split("__") if name.endswith(".json") else [""]
            if len(pieces) != 2 or not pieces[0] or not pieces[1]:
                add(rel, "unexpected file name: responses are named <case_id>__<run_id>.json")
                continue
            append((entry, kind, (sid, pieces[0], pieces[1])))
        elif (named := scoring_name(name, reviewer_prefixes)) is None:
            add(rel, f"unexpected file name: scorings are named {scoring_names}")
        else:
            append((entry, kind, (sid, named[0], named[1], named[3])))
    for folder_name in sorted(unregistered):
        col.add(f"{base}/{folder_name}",
                f"subject folder {folder_name!r} is not registered in {REGISTRY_FILE} (register it or remove the folder)")
    return jobs


# --- phase 2: checks across files -----------------------------------------------------------

def gold_rel(spec: Spec, case_id: str) -> str:
    """Where the gold of ``case_id`` lives: ``golds/<version>/<case_id>_gold.md``."""
    return f"golds/{spec.version_dir}/{case_id}_gold.md"


def response_rel(spec: Spec, subject_id: str, case_id: str, run_id: str) -> str:
    """Where a response lives: ``responses/<version>/<subject>/<case>__<run>.json``."""
    return f"responses/{spec.version_dir}/{subject_id}/{case_id}__{run_id}.json"


def scoring_rel(spec: Spec, subject_id: str, case_id: str, run_id: str, reviewer_id: str, folder: str = "scoring") -> str:
    """Where a scoring lives: ``<folder>/<version>/<subject>/<case>__<run>__eval-<reviewer>.json`` (``folder``
    scoring/, or the consolidated scorings' folder)."""
    return f"{folder}/{spec.version_dir}/{subject_id}/{case_id}__{run_id}__eval-{reviewer_id}.json"


def scoring_name(name: str, prefixes: tuple[str, ...] = ("eval-",)) -> tuple[str, str, str, str] | None:
    """(case_id, run_id, prefix, reviewer_id) of a scoring's file name, ``<case_id>__<run_id>__<prefix><reviewer_id>.json``
    with a prefix of ``prefixes`` (:func:`scoring_rel` writes it); None for any other name."""
    pieces = name[:-5].split("__") if name.endswith(".json") else []
    if len(pieces) != 3 or not pieces[0] or not pieces[1]:
        return None
    prefix = next((p for p in prefixes if pieces[2].startswith(p) and pieces[2] != p), None)
    return None if prefix is None else (pieces[0], pieces[1], prefix, pieces[2][len(prefix):])


_ID_KEYS = ("subject_id", "case_id", "run_id", "reviewer_id")
_SCORING_ORDER = itemgetter(0, 2, 3, 4)  # (subject_id, case_id, run_id, reviewer_id) of a Scoring


def _ids_match(col: Collector, rel: str, found: tuple, expected: tuple) -> bool:
    if found == expected:
        return True
    ok = True
    for key, got, want in zip(_ID_KEYS, found, expected):
        if got != want:
            col.add(rel, f"$.{key}: {got!r} does not match the file's path ({want!r}); fix the id or rename the file")
            ok = False
    return ok


def build_golds(col: Collector, spec: Spec, jobs, extracted) -> tuple[dict[str, Gold], set[str]]:
    """Valid golds by case id, and the case ids that have a gold file at all (valid or not)."""
    golds: dict[str, Gold] = {}
    present: set[str] = set()
    for entry, _, case_from_name in jobs:
        rel = entry.rel
        present.add(case_from_name)
        digest, errors, fields = extracted[rel]
        for error in errors:
            col.add(rel, error)
        if not digest:
            col.blocked.add(rel)
        if fields is None:
            continue
        assert isinstance(fields, Gold)  # extracted as this kind
        case_id, family_field, floor, ceiling = fields.case_id, fields.family, fields.rubric_floor, fields.rubric_ceiling
        if case_id != case_from_name:
            col.add(rel, f"$.case_id: {case_id!r} does not match the file's path ({case_from_name!r}); "
                         "fix the id or rename the file")
            continue
        match = spec.case_id_re.match(case_id)
        assert match is not None  # case_id is case_from_name, which list_golds matched against this pattern
        family = match.group("family")
        bad = False
        if family_field != family:
            col.add(rel, f"$.family: {family_field!r} does not match the case id's family {family!r}")
            bad = True
        elif family not in spec.families:
            known = ", ".join(sorted(spec.families))
            col.add(rel, f"$.family: {family!r} is not declared in system/benchmark.yaml (known: {known})")
            bad = True
        scale = spec.scale
        if floor is not None and ceiling is not None and not scale.at_least(ceiling, floor):
            col.add(rel, f"$.rubric_floor: {score_text(floor)} is greater than rubric_ceiling {score_text(ceiling)}"
                    if scale.higher_is_better else
                    f"$.rubric_floor: {score_text(floor)} is below rubric_ceiling {score_text(ceiling)} (with "
                    "score_direction lower_is_better the ceiling is the best total a case credits and the floor the "
                    "worst it tolerates: floor >= ceiling)")
            bad = True
        for key, value in (("rubric_floor", floor), ("rubric_ceiling", ceiling)):
            if value is not None and not scale.low <= value <= scale.high:
                col.add(rel, f"$.{key}: {score_text(value)} is outside the score range {score_text(scale.low)}.."
                             f"{score_text(scale.high)}")
                bad = True
        if not bad:
            golds[case_id] = fields._replace(path=rel)
    return golds, present


def _case_and_version_ok(col: Collector, spec: Spec, rel: str, sid: str, version: str, case_id: str,
                         subjects: dict[str, Subject] | None, golds: dict[str, Gold], gold_files: set[str]) -> bool:
    """The case must have a gold and the version must be the registered one.

    A gold file that exists but is invalid, or an unusable registry, already has
    its own problem; the files that depend on it are not blamed twice.
    """
    ok = True
    if case_id not in golds:
        ok = False
        expected = gold_rel(spec, case_id)
        if case_id not in gold_files and not col.is_blocked(expected):
            col.add(rel, f"$.case_id: no gold for case {case_id!r} (expected {expected})")
    if subjects is None:
        return False
    registered = subjects[sid].subject_version
    if version != registered:
        col.add(rel, f"$.subject_version: {version!r} but {REGISTRY_FILE} registers {sid!r} at {registered!r} {_STALE_HINT}")
        ok = False
    return ok


def build_responses(col, spec, jobs, extracted, subjects, golds, gold_files):
    """(valid responses by run key, sha256 of every readable response file by run key)."""
    responses: dict[tuple[str, str, str], Response] = {}
    present: dict[tuple[str, str, str], str] = {}
    add = col.add
    for entry, _, ids in jobs:
        rel = entry.rel
        digest, errors, fields = extracted[rel]
        if digest:
            present[ids] = digest
        else:  # unreadable or too large: its own problem says so, its scorings are not blamed
            col.blocked.add(rel)
        for error in errors:
            add(rel, error)
        if fields is None:
            continue
        assert isinstance(fields, ResponseFields)  # extracted as this kind
        sid, version, case_id, run_id, confidence, meta = fields
        if (sid, case_id, run_id) != ids:
            _ids_match(col, rel, (sid, case_id, run_id), ids)
            continue
        if (_case_and_version_ok(col, spec, rel, sid, version, case_id, subjects, golds, gold_files)
                and _participant_ok(col, rel, meta.participant, subjects[sid])):
            responses[ids] = Response(sid, version, case_id, run_id, confidence, rel, meta)
    return responses, present


def _participant_ok(col: Collector, rel: str, participant: str | None, subject: Subject) -> bool:
    """A named participant must be one of the registry's ``participants`` when the entry lists any."""
    if participant is None:
        return True
    listed = [p["participant_id"] for p in dict(subject.extra).get("participants") or ()]
    if not listed or participant in listed:
        return True
    col.add(rel, f"$.participant: {participant!r} is not among the participants of {subject.subject_id!r} in "
                 f"{REGISTRY_FILE} ({', '.join(listed)}); add it there with its experience_level, or fix the name")
    return False


def _fails_ok(col: Collector, spec: Spec, rel: str, fails: tuple) -> bool:
    ok = True
    seen = set()
    for index, (code, severity) in enumerate(fails):
        where = f"$.automatic_fails_triggered[{index}]"
        if code in seen:
            col.add(rel, f"{where}.code: {code!r} is listed twice (list each fail once)")
            ok = False
        seen.add(code)
        if code not in spec.catalog:
            col.add(rel, f"{where}.code: {code!r} is not in the catalog {spec.catalog_path} "
                         "(use a catalog code or propose a new one there)")
            ok = False
        elif spec.catalog[code] != severity:
            col.add(rel, f"{where}.severity: {severity!r} but the catalog gives {code!r} severity {spec.catalog[code]!r}")
            ok = False
    return ok


def build_scorings(col, spec, jobs, extracted, subjects, golds, gold_files, responses, present,
                   gold_digests: dict[str, str]) -> list[Scoring]:
    """Valid scorings; ``present`` and ``gold_digests`` give the sha256 of each response (by run key) and
    gold (by case id) file that could be read, against which a scoring's pins are checked."""
    scorings: list[Scoring] = []
    files_per_run: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    add = col.add
    criteria = spec.criteria
    for entry, _, ids in jobs:
        rel = entry.rel
        key = ids[:3]
        files_per_run[key].append(rel)
        _, errors, fields = extracted[rel]
        for error in errors:
            add(rel, error)
        if fields is None:
            continue
        assert isinstance(fields, ScoringFields)  # extracted as this kind
        sid, version, case_id, run_id, reviewer_id, scores, fails, correctness, response_sha, gold_sha, comments = fields
        if (sid, case_id, run_id, reviewer_id) != ids:
            _ids_match(col, rel, (sid, case_id, run_id, reviewer_id), ids)
            continue
        ok = _case_and_version_ok(col, spec, rel, sid, version, case_id, subjects, golds, gold_files)
        if col.reviewers is not None and reviewer_id not in col.reviewers and reviewer_id != col.implied_reviewer:
            add(rel, _unregistered(reviewer_id, col, spec))
            ok = False
        response_digest = present.get(key)
        if response_digest is None:
            response_path = response_rel(spec, sid, case_id, run_id)
            if not col.is_blocked(response_path):
                add(rel, f"no matching response: {response_path} does not exist (a scoring grades an existing response)")
            ok = False
        elif key in responses and responses[key].meta.status == "error":
            add(rel, "grades a response with status error (an API or harness failure, no answer to grade); "
                     "delete this scoring, or correct the response's status")  # whatever it pinned: nothing to grade
            ok = False
        elif response_sha != response_digest and key in responses:  # an invalid response has its own problem
            response_path = response_rel(spec, sid, case_id, run_id)
            add(rel, f"$.response_sha256: does not match the sha256 of {response_path} ({response_digest}); "
                     "the response changed after grading, so re-grade it")
            ok = False
        gold_digest = gold_digests.get(case_id)
        if gold_digest is not None and gold_sha != gold_digest and case_id in golds:
            add(rel, f"$.gold_sha256: does not match the sha256 of {gold_rel(spec, case_id)} ({gold_digest}); "
                     "the gold changed after grading (a maintainer's change), so re-grade this run against the "
                     "new gold and pin its sha256")
            ok = False
        if fails and not _fails_ok(col, spec, rel, fails):
            ok = False
        if ok and key in responses:
            scorings.append(Scoring(
                sid, version, case_id, run_id, reviewer_id,
                tuple(zip(criteria, scores)), tuple(sorted(fails)) if len(fails) > 1 else fails,
                correctness, rel, comments,
            ))
    for (sid, case_id, run_id), files in files_per_run.items():
        if len(files) > 1:
            listed = ", ".join(sorted(files))
            for rel in files:
                add(rel, f"more than one scoring for ({sid}, {case_id}, {run_id}): {listed}; "
                         f"{spec.version_dir} takes one reviewer per run "
                         "(keep one, or consolidate with scripts/aggregate_scoring.py)")
    return scorings


def _unregistered(reviewer_id: str, col: Collector, spec: Spec) -> str:
    """The problem of a scoring whose reviewer is not registered; in a consolidated folder, the grade of another
    policy than config.yaml's is named as such (the folder is stale)."""
    assert col.reviewers is not None
    stale = next((p for p in KNOWN_POLICIES if p.reviewer == reviewer_id), None) if col.implied_reviewer else None
    if stale is not None:
        return (f"$.reviewer_id: {reviewer_id!r} is the consolidated reviewer of policy {stale.name}, but "
                f"{spec.config_path} sets consolidation_policy: {spec.stats.consolidation_policy} (its grades are "
                f"by {col.implied_reviewer!r}); consolidate again (make agreement)")
    return unregistered_message(reviewer_id, col.reviewers)


def counted_scorings(scorings, spec: Spec, reviewers: dict[str, Reviewer] | None) -> list[Scoring]:
    """The ``scorings`` that enter the metrics and the agreement: all of them when config.yaml's
    ``llm_judge_in_metrics`` is true, otherwise those by reviewers not registered as ``llm-judge`` (a
    consolidated grade's policy reviewer, which needs no registration, combines counted grades: it counts)."""
    return [s for s in scorings if counts(s.reviewer_id, spec, reviewers)]


def counts(reviewer_id: str, spec: Spec, reviewers: dict[str, Reviewer] | None) -> bool:
    """Whether a grade by ``reviewer_id`` enters the metrics (:func:`counted_scorings`): not a registered
    ``llm-judge``, unless config.yaml's ``llm_judge_in_metrics`` counts judges."""
    reviewer = (reviewers or {}).get(reviewer_id)
    return spec.llm_judge_in_metrics or reviewer is None or reviewer.kind != LLM_JUDGE


SCORING_DIR = "scoring"   # one grade per run; any other scoring folder a command reads holds consolidated grades


def consolidated_kind(col: Collector, spec: Spec, scoring_dir: str) -> str:
    """The kind the scorings of ``scoring_dir`` are read as: EVALUATION for scoring/; for a folder of
    consolidated grades (any other), also accept config.yaml's policy's reviewer in ``col`` and, when that policy
    takes exact means, read them as CONSOLIDATED (scores any number within the rubric's bounds, read exactly)."""
    if scoring_dir == SCORING_DIR:
        return EVALUATION
    policy = policy_of(spec)
    col.implied_reviewer = policy.reviewer
    if not policy.exact_means:
        return EVALUATION
    with_consolidated_validator(spec)
    return CONSOLIDATED


def load_tree(root: Path, spec: Spec, *, progress: Callable[[int, int], None] | None = None,
              scoring_dir: str = SCORING_DIR, llm_judges: bool = False) -> tuple[Tree | None, list[Problem]]:
    """Load and cross-check every input under ``root``. Returns (tree, []) or (None, problems).

    ``progress(done, total)`` is called as files are processed.
    ``scoring_dir`` reads the scorings from ``<scoring_dir>/<version>/`` instead of ``scoring/``: the
    consolidated scorings of scripts/aggregate_scoring.py, whose policy reviewer (config.yaml's
    consolidation_policy: ``consensus``, ``consensus-mean``) is accepted there without registration, and whose
    mean-policy scores may be decimals (:func:`consolidated_kind`).
    ``llm_judges``: keep every scoring in the tree, ``llm-judge`` reviewers' included (default: only
    :func:`counted_scorings`, as config.yaml's ``llm_judge_in_metrics`` says); they are validated either way.
    """
    col = Collector(root)
    read_system(col)
    subjects = load_registry(col, spec)
    refuse_other_files(col, "subjects", {REGISTRY_FILE, REVIEWERS_FILE, ASSIGNMENTS_FILE, DRAWS_FILE},
                       "registry.yaml, reviewers.yaml, second_reviews.json and human_draws.json")
    load_reviewers(col, spec)
    if spec.judge_assisted:
        check_judge(col, spec)
    gold_jobs = list_golds(col, spec)
    response_jobs = list_subject_files(col, spec, "responses", RESPONSE, subjects)
    scoring_jobs = list_subject_files(col, spec, scoring_dir, consolidated_kind(col, spec, scoring_dir), subjects)
    jobs = [(entry, kind) for entry, kind, _ in gold_jobs + response_jobs + scoring_jobs]
    report = (lambda done: progress(done, len(jobs))) if progress else None
    extracted = extract_files(root, spec, jobs, report)
    inputs = col.inputs
    for rel, (digest, _, _) in extracted.items():
        if digest:
            inputs[rel] = digest
    golds, gold_files = build_golds(col, spec, gold_jobs, extracted)
    responses, present = build_responses(col, spec, response_jobs, extracted, subjects, golds, gold_files)
    gold_digests = {case_id: extracted[entry.rel][0] for entry, _, case_id in gold_jobs if extracted[entry.rel][0]}
    scorings = build_scorings(col, spec, scoring_jobs, extracted, subjects, golds, gold_files, responses, present,
                              gold_digests)
    draws = None
    if spec.judge_assisted:   # the draws' runs must exist here; each draw is re-derived by rgbench validate
        draws, problems, draws_digest = read_draws(root, spec, responses)
        col.problems.extend(problems)
        if draws is not None and draws_digest is not None:
            col.inputs[DRAWS_FILE] = draws_digest
    elif os.path.lexists(Path(root) / DRAWS_FILE):
        col.add(DRAWS_FILE, f"estimation is human in {spec.config_path}, so the draws are never read (set estimation: "
                            "judge-assisted and judge, or remove the file)")
    if col.problems or subjects is None:
        return None, sorted(set(col.problems))
    if not llm_judges:
        scorings = counted_scorings(scorings, spec, col.reviewers)
    tree = Tree(
        subjects=dict(sorted(subjects.items())),
        golds=dict(sorted(golds.items())),
        responses=dict(sorted(responses.items())),
        scorings=tuple(sorted(scorings, key=_SCORING_ORDER)),
        inputs=dict(sorted(col.inputs.items())),
        reviewers=col.reviewers,
        draws=draws,
    )
    return tree, []

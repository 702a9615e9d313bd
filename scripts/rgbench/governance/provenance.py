"""Provenance rules over a commit's changes: pure functions, no git calls.

These rules make "every committed number follows from committed inputs, and
history is never rewritten" checkable commit by commit:

1. A commit that changes generated files (``results/`` outside
   ``results/historico/`` and the hand-written ``results/README.md``, and
   ``scoring_consolidated/``) must also change an input (``responses/``,
   ``scoring/``, ``scoring_multi/``, ``golds/``, ``subjects/``) or the metric
   definition (``system/``, ``scripts/``). Results that move on their own were
   edited by hand.
1b. Every commit proves its results: a commit that changes generated files
   (and passes rule 1) must hold exactly the results its own inputs produce,
   recomputed by the judge (``make check``'s proof, check_results.prove, run on
   that commit's data folders laid out from git objects: :data:`DATA_LAYOUT`
   less ``results/historico/`` and README.md, whose leaderboard block only the
   head shows and ``make check`` proves). Otherwise a pull request whose first commit
   edits results by hand and whose last regenerates them would put forged
   figures on the branch's history, where a later snapshot could copy them.
   The judge's toolkit is the base's code (``scripts/``, ``requirements.txt``:
   :data:`CODE_PATHS`); it can recompute a commit only when that commit's code
   is the base's. A commit whose code differs (a maintainer's code change) may
   change results only as the range's last commit, which the pull request's own
   code proves (``make check`` in tests.yml; the judge shows, as a notice, what
   the base's toolkit computes instead); earlier results under changed code are
   refused: regenerate them only in the last commit, or squash the pull request.
2. ``results/historico/`` is append-only: a commit may add a new dated
   snapshot folder, never modify, rename, delete or retype a file there, nor
   add files to a snapshot folder that already existed.

Every commit of ``BASE..HEAD`` is judged against its *first parent* (a merge
included, so ``git merge -s ours`` hides nothing), and the range is judged as
a whole, tree against tree:

3. every file of ``results/historico/`` at the base (and at the merge base of
   the base and HEAD) is present and byte-identical at HEAD (a folder the base
   gained after the pull request branched may be absent: the merge brings it);
4. a snapshot folder new at HEAD is accepted only when the commit its
   ``snapshot.json`` records is on the base branch's history, its date is
   neither in the future nor before that commit's date nor before the newest
   snapshot already taken, and its files are, byte for byte, that commit's
   generated ``results/`` plus the ``snapshot.json`` that ``make snapshot``
   writes for them, and the judge, recomputing that commit's results from its
   inputs (as rule 1b), finds exactly those results: a snapshot of a commit
   whose results were edited by hand is refused even though it copies them
   faithfully. When that commit's code is not the base's the judge cannot
   recompute it, and the snapshot is refused: snapshot a commit made with the
   current toolkit (the base branch's latest).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import PurePosixPath

from ..load.parsing import ParseError, decode_utf8, loads_json_strict
from ..problems import Problem
from .gitio import Change
from .snapshot import DATE_RE, HISTORY_DIR, NOT_A_SNAPSHOT, SNAPSHOT_FILE, verify_folder

INPUT_DIRS = ("responses", "scoring", "scoring_multi", "golds", "subjects")
DEFINITION_DIRS = ("system", "scripts")
# The toolkit's code: a commit whose files here differ from the base's cannot be recomputed by the judge.
CODE_PATHS = ("scripts", "requirements.txt")
# What the judge lays out of a pull request (review.yml's sparse checkout), and of each commit it proves.
DATA_LAYOUT = ("system", "golds", "responses", "scoring", "scoring_multi", "subjects", "results", "README.md")
PROOF_RULE = ("every commit proves its results: regenerate with `make metrics` in that commit, "
              "or squash the pull request")
RESULTS_DIR = "results"
# Folders written by the result-producing steps besides results/ (consolidated multi-reviewer grades).
GENERATED_DIRS = ("scoring_consolidated",)
NOT_GENERATED = frozenset({"results/README.md"})
_VERBS = {"M": "modifies", "D": "deletes", "R": "renames", "T": "changes the type of", "C": "copies"}


@dataclass(frozen=True)
class CommitRecord:
    """What one commit changed, and the snapshot folders that existed before it (in its first parent)."""

    commit: str
    subject: str
    changes: tuple[Change, ...]
    snapshots_before: frozenset[str] = frozenset()


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + "/")


def is_generated_result(path: str) -> bool:
    """True for files a step generates: under results/ (not historico/, not results/README.md) or GENERATED_DIRS."""
    if any(_under(path, folder) for folder in GENERATED_DIRS):
        return True
    return _under(path, RESULTS_DIR) and not _under(path, HISTORY_DIR) and path not in NOT_GENERATED


def is_input_or_definition(path: str) -> bool:
    """True for the inputs and the metric definition that results may follow from."""
    return any(_under(path, folder) for folder in INPUT_DIRS + DEFINITION_DIRS)


def snapshot_folder(path: str) -> str | None:
    """``results/historico/<name>`` for a path inside a snapshot folder, else None."""
    parts = PurePosixPath(path).parts
    if len(parts) >= 4 and _under(path, HISTORY_DIR):
        return "/".join(parts[:3])
    return None


def _label(record: CommitRecord) -> str:
    subject = record.subject if len(record.subject) <= 72 else record.subject[:69] + "..."
    return f'commit {record.commit[:12]} ("{subject}")'


def results_without_inputs(record: CommitRecord) -> list[Problem]:
    """Rule 1: one problem per generated result file changed by a commit that changes no input."""
    touched = {c.path for c in record.changes} | {c.old_path for c in record.changes if c.status == "R"}
    results = sorted(p for p in touched if is_generated_result(p))
    if not results or any(is_input_or_definition(p) for p in touched):
        return []
    listed = ", ".join(results)
    return [Problem(path, (
        f"changed by {_label(record)} without any change to an input ({', '.join(d + '/' for d in INPUT_DIRS)}) "
        f"or the metric definition ({', '.join(d + '/' for d in DEFINITION_DIRS)}); that commit changes only "
        f"results: {listed} (results must be regenerated by `make metrics` in the commit that changes their inputs, "
        "never edited by hand)"
    )) for path in results]


def _judge_addition(record: CommitRecord, path: str) -> list[Problem]:
    folder = snapshot_folder(path)
    if folder is None:
        return [Problem(path, (
            f"added by {_label(record)} directly under {HISTORY_DIR}/; snapshots live in dated folders "
            f"{HISTORY_DIR}/<YYYY-MM-DD>/ written by `make snapshot`"))]
    if folder in record.snapshots_before:
        return [Problem(path, (
            f"added by {_label(record)} to the existing snapshot {folder}/; a snapshot is written once "
            "and never completed or changed (take a new snapshot under another date)"))]
    return []


def history_rewrites(record: CommitRecord) -> list[Problem]:
    """Rule 2: every change to ``results/historico/`` other than adding a new snapshot folder."""
    problems = []
    for change in record.changes:
        old_in = _under(change.old_path, HISTORY_DIR)
        new_in = _under(change.path, HISTORY_DIR)
        if change.status in "AC":  # a copy leaves its source alone: only the new path is added
            if new_in:
                problems.extend(_judge_addition(record, change.path))
        elif old_in:  # M, D, T, or R away from (or within) history
            verb = _VERBS.get(change.status, "changes")
            target = f" to {change.path}" if change.status == "R" else ""
            problems.append(Problem(change.old_path, (
                f"{_label(record)} {verb} this snapshot file{target}; {HISTORY_DIR}/ is append-only "
                "(revert that change; a snapshot is never edited, renamed or deleted)")))
        elif new_in:  # renamed into history from elsewhere: the new path is an addition
            problems.extend(_judge_addition(record, change.path))
    return problems


def changes_results(record: CommitRecord) -> bool:
    """True when the commit changes a generated file (rule 1b proves such a commit)."""
    return any(is_generated_result(c.path) or (c.status == "R" and is_generated_result(c.old_path))
               for c in record.changes)


@dataclass(frozen=True)
class Reproduction:
    """The judge's recomputation of one commit's results from that commit's inputs.

    ``same_code``: the commit's code (CODE_PATHS) is the judge's, the base's; when False nothing was recomputed.
    ``refused``: make metrics refused the commit's inputs (``messages`` are its problems). Otherwise
    ``messages`` are make check's, one per result file that differs (``results/x.csv: ...``); none: proved.
    """

    same_code: bool
    refused: bool = False
    messages: tuple[str, ...] = ()

    @property
    def proved(self) -> bool:
        return self.same_code and not self.refused and not self.messages


def _first_files(messages: tuple[str, ...], limit: int = 5) -> str:
    paths = [message.split(": ", 1)[0] for message in messages]
    more = f" and {len(paths) - limit} more" if len(paths) > limit else ""
    return ", ".join(paths[:limit]) + more


def unproved_results(record: CommitRecord, reproduction: Reproduction, *, last: bool) -> list[Problem]:
    """Rule 1b: the problem of a commit that changes results its inputs, recomputed by the judge, do not give.

    ``last``: the commit is the range's head (under changed code, its own code proves it elsewhere).
    """
    if reproduction.proved:
        return []
    first = next(c.path for c in record.changes if is_generated_result(c.path) or is_generated_result(c.old_path))
    if not reproduction.same_code:
        if last:
            return []
        return [Problem(first, (
            f"changed by {_label(record)}, whose code ({', '.join(CODE_PATHS)}) differs from the base's: the judge's "
            "toolkit cannot recompute its results, and only the pull request's last commit is proved by its own code "
            f"(`make check` in tests.yml); {PROOF_RULE} (under changed code: in the last commit only)"))]
    if reproduction.refused:
        return [Problem(first, (
            f"changed by {_label(record)}, but `make metrics` refuses that commit's inputs "
            f"({reproduction.messages[0] if reproduction.messages else '?'}); "
            f"{PROOF_RULE}"))]
    return [Problem(reproduction.messages[0].split(": ", 1)[0], (
        f"{_label(record)} commits results that differ from what its inputs produce, recomputed by the judge: "
        f"{_first_files(reproduction.messages)}; {PROOF_RULE}"))]


def check_commit(record: CommitRecord) -> list[Problem]:
    """Every provenance problem of one commit."""
    return results_without_inputs(record) + history_rewrites(record)


# --- the range as a whole: rules 3 and 4 ------------------------------------------------------

def kept_history(reference: dict[str, str], head: dict[str, str], where: str) -> list[Problem]:
    """Rule 3: every file of ``reference`` (path -> mode and object id under results/historico/) unchanged at HEAD.

    ``where`` names the reference revision in the messages (e.g. ``the base 0123456789ab``).
    Files at HEAD inside a folder of ``reference`` that ``reference`` lacks are additions to a snapshot.
    """
    problems = []
    for path in sorted(reference):
        if path not in head:
            problems.append(Problem(path, (
                f"present at {where} but missing at HEAD; {HISTORY_DIR}/ is append-only, a snapshot is never "
                "deleted, whatever commit or merge removed it (restore it from the base)")))
        elif head[path] != reference[path]:
            problems.append(Problem(path, (
                f"differs at HEAD from {where}; {HISTORY_DIR}/ is append-only, a snapshot is never replaced, "
                "whatever commit or merge changed it (restore it from the base)")))
    folders = {snapshot_folder(path) for path in reference} - {None}
    for path in sorted(set(head) - set(reference)):
        if snapshot_folder(path) in folders:
            problems.append(Problem(path, (
                f"at HEAD inside the snapshot {snapshot_folder(path)}/ of {where}, which does not hold it; "
                "a snapshot is written once and never completed (remove the file)")))
    return problems


@dataclass(frozen=True)
class RecordedCommit:
    """The commit a new snapshot records, as the repository knows it.

    ``on_base``: the commit is on the base branch's history. ``results``: its
    generated files of results/ by name inside results/. ``snapshot_json``: the
    bytes ``make snapshot`` writes for those results at the snapshot's date
    (None when that commit's manifest or registry cannot be read).
    ``reproduction``: the judge's recomputation of that commit's results.
    """

    commit: str
    on_base: bool
    date: dt.date
    results: dict[str, bytes]
    snapshot_json: bytes | None
    reproduction: Reproduction


def recorded_commit_id(files: dict[str, bytes]) -> str | None:
    """The ``git_commit`` a snapshot folder's snapshot.json records, when it is a full commit id."""
    try:
        document = loads_json_strict(decode_utf8(files.get(SNAPSHOT_FILE, b"")))
    except ParseError:
        return None
    commit = document.get("git_commit") if isinstance(document, dict) else None
    return commit if isinstance(commit, str) and len(commit) == 40 and all(c in "0123456789abcdef" for c in commit) else None


def judge_new_snapshot(folder: str, files: dict[str, bytes], recorded: RecordedCommit | None, *,
                       today: dt.date, newest: str | None, base_label: str) -> list[Problem]:
    """Rule 4: the problems of a snapshot folder that is new at HEAD (``files``: name inside the folder -> bytes).

    ``recorded`` is None when snapshot.json names no commit of the repository;
    ``newest`` is the newest snapshot already at the base.
    """
    name = folder.rsplit("/", 1)[-1]
    where = f"{folder}/{SNAPSHOT_FILE}"
    if not DATE_RE.match(name):
        return [Problem(folder, NOT_A_SNAPSHOT)]
    try:
        date = dt.date.fromisoformat(name)
    except ValueError:
        return [Problem(folder, f"{name!r} is not a calendar date (snapshots are named YYYY-MM-DD by `make snapshot`)")]
    problems = verify_folder(folder, files)
    if problems:
        return problems
    if date > today:
        problems.append(Problem(folder, f"is dated {name}, in the future (today is {today.isoformat()} UTC); "
                                        "a snapshot records results that exist"))
    if newest is not None and name <= newest:
        problems.append(Problem(folder, f"is dated {name}, not after the newest snapshot {HISTORY_DIR}/{newest}/; "
                                        "snapshots are appended in date order"))
    if recorded is None:
        problems.append(Problem(where, "$.git_commit: names no commit of this repository; a snapshot records the "
                                       "commit of the base branch whose results it copies (take it with `make snapshot`)"))
        return problems
    short = recorded.commit[:12]
    if not recorded.on_base:
        problems.append(Problem(where, (
            f"$.git_commit: {short} is not on the history of {base_label}; a snapshot copies results that are "
            "already merged (take it with `make snapshot` on the base branch after the merge)")))
    if date < recorded.date:
        problems.append(Problem(folder, (
            f"is dated {name}, before the commit it records ({short}, {recorded.date.isoformat()}); "
            "a snapshot cannot precede its results")))
    copied = {n: data for n, data in files.items() if n != SNAPSHOT_FILE}
    for n in sorted(set(copied) | set(recorded.results)):
        if n not in recorded.results:
            problems.append(Problem(f"{folder}/{n}", f"is not a generated file of results/ at commit {short}; "
                                                     "a snapshot holds exactly that commit's results"))
        elif n not in copied:
            problems.append(Problem(f"{folder}/{n}", f"missing: results/{n} exists at commit {short}; "
                                                     "a snapshot holds exactly that commit's results"))
        elif copied[n] != recorded.results[n]:
            problems.append(Problem(f"{folder}/{n}", f"differs from results/{n} at commit {short}; "
                                                     "a snapshot holds exactly that commit's results, byte for byte"))
    if recorded.snapshot_json is not None and not problems and files[SNAPSHOT_FILE] != recorded.snapshot_json:
        problems.append(Problem(where, f"differs from the snapshot.json `make snapshot` writes for commit {short} "
                                       f"on {name} (alpha, digests, subjects); never edit a snapshot by hand"))
    if not problems:
        problems += unproved_snapshot(folder, recorded, base_label)
    return problems


def unproved_snapshot(folder: str, recorded: RecordedCommit, base_label: str) -> list[Problem]:
    """Rule 4's last part: the snapshot's commit holds the results its inputs produce, recomputed by the judge."""
    reproduction, short = recorded.reproduction, recorded.commit[:12]
    if reproduction.proved:
        return []
    if not reproduction.same_code:
        return [Problem(f"{folder}/{SNAPSHOT_FILE}", (
            f"$.git_commit: {short} was made with other code ({', '.join(CODE_PATHS)}) than the judge's toolkit, "
            f"{base_label}'s, which therefore cannot recompute its results; a snapshot holds only results the "
            "judge reproduces (snapshot a commit made with the current toolkit: `make snapshot` on the base "
            "branch's latest commit)"))]
    found = (f"that `make metrics` refuses its inputs ({reproduction.messages[0] if reproduction.messages else '?'})"
             if reproduction.refused else
             f"that they differ from what its inputs produce: {_first_files(reproduction.messages)}")
    return [Problem(folder, (
        f"copies the results of commit {short}, but the judge, recomputing them from that commit's inputs, finds "
        f"{found}; a snapshot holds only results that its commit's inputs produce (snapshot a commit whose "
        "`make check` passes)"))]

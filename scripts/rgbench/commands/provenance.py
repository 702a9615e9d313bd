"""Prove, commit by commit since --base, that results were not edited by hand and history was not rewritten.

For each commit in BASE..HEAD (oldest first, a merge judged against its first
parent like any commit), fails naming the commit and the files when
  - it changes results/ (outside results/historico/ and results/README.md) or
    scoring_consolidated/ without changing an input (responses/, scoring/,
    scoring_multi/, golds/, subjects/) or the metric definition (system/,
    scripts/);
  - it changes results/ and they are not what its own inputs produce: the
    commit's data folders are laid out from git objects into a temporary
    folder (what the judge lays out of a pull request, results/historico/
    and README.md aside) and `make check`'s proof (check_results.prove) runs there, in this
    process, with this toolkit. Every commit proves its results: regenerate
    with `make metrics` in that commit, or squash the pull request. This
    toolkit is the judge's, the base's (in CI the judge is the base's
    checkout): a commit whose code (scripts/, requirements.txt) differs from
    the base's cannot be recomputed by it and may change results only as the
    range's last commit, which the pull request's own code proves (tests.yml).
    (Run locally on a branch that changes the code, the toolkit that runs is
    the branch's: what it finds for the base's-code commits is what the code
    change moves; the judge's verdict is the one that counts.)
  - it modifies, renames, deletes or retypes a file under results/historico/,
    or adds files to a snapshot folder that already existed (append-only).
Then judges BASE..HEAD as a whole, tree against tree:
  - every file of results/historico/ at BASE (and at the merge base of BASE
    and HEAD) is present and byte-identical at HEAD;
  - a snapshot folder new at HEAD records a commit on BASE's history, is dated
    neither in the future, nor before that commit, nor before the newest
    snapshot, and holds byte for byte that commit's generated results/ and the
    snapshot.json `make snapshot` writes for them; and that commit's results
    are what its inputs produce, recomputed as above (a commit made with
    other code than the base's cannot be recomputed: the snapshot is refused).
Then checks the history's records in the working tree:
  - every snapshot folder is intact (its snapshot.json lists exactly its files
    with their sha256);
  - subjects/registry.yaml: a subject whose version changed since BASE lists
    the old version in its history, history items are never removed, and each
    item added or changed since BASE has a last_snapshot that is the latest
    snapshot holding that version, with status `disqualified` exactly when
    that snapshot shows it disqualified.
Prints every problem as `path: message` on stderr and exits 1 if there is any.
Only reads the repository (git plumbing, no checkout); writes only temporary folders.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import tempfile
from pathlib import Path

from ..governance.gitio import (
    GitError,
    commit_changes,
    commit_date,
    commit_subject,
    commits_between,
    export_files,
    git,
    is_ancestor,
    merge_base,
    parents,
    read_blob,
    resolve,
    tree_objects,
)
from ..governance.history import load_snapshots
from ..governance.provenance import (
    CODE_PATHS,
    DATA_LAYOUT,
    CommitRecord,
    RecordedCommit,
    Reproduction,
    changes_results,
    check_commit,
    is_generated_result,
    judge_new_snapshot,
    kept_history,
    recorded_commit_id,
    snapshot_folder,
    unproved_results,
)
from ..governance.registry_history import check_against_snapshots, check_change, unchanged_items
from ..governance.snapshot import HISTORY_DIR, MANIFEST_FILE, SNAPSHOT_FILE, folder_contents, snapshot_document
from ..load.parsing import ParseError, decode_utf8, loads_json_strict
from ..load.registry import REGISTRY_FILE, entries, parse_registry, read_registry
from ..load.spec import Spec, load_spec
from ..problems import Problem, refuse
from .check import prove


def commit_records(root: Path, base: str, head: str) -> list[CommitRecord]:
    """What each commit of base..head changed against its first parent, with the snapshot folders that parent had."""
    records = []
    for commit in commits_between(root, base, head):
        parent_ids = parents(root, commit)
        before = frozenset(_folders(tree_objects(root, parent_ids[0], HISTORY_DIR))) if parent_ids else frozenset()
        records.append(CommitRecord(commit, commit_subject(root, commit), tuple(commit_changes(root, commit)), before))
    return records


# Not laid out for a commit's proof: no step reads the snapshots, and README.md's leaderboard block is shown only at
# the head, where `make check` proves it (a commit may regenerate results/ and commit README.md after).
PROOF_EXCLUDES = (HISTORY_DIR, "README.md")


def code_of(root: Path, rev: str) -> dict[str, str]:
    """The toolkit's files (CODE_PATHS) at ``rev``, path -> mode and object id: equal exactly when the code is."""
    return {path: obj for rel in CODE_PATHS for path, obj in tree_objects(root, rev, rel).items()}


def reproduce(root: Path, commit: str, judge_code: dict[str, str]) -> Reproduction:
    """This toolkit's recomputation of ``commit``'s results: its data folders laid out from git objects into a
    temporary folder, then `make check`'s proof there; nothing recomputed when the commit's code is not
    ``judge_code`` (the base's)."""
    if code_of(root, commit) != judge_code:
        return Reproduction(same_code=False)
    with tempfile.TemporaryDirectory(prefix="rgbench-provenance-") as tmp:
        export_files(root, commit, DATA_LAYOUT, Path(tmp), exclude=PROOF_EXCLUDES)
        proof = prove(Path(tmp))
    return Reproduction(same_code=True, refused=proof.refused, messages=proof.messages)


def proved_commits(root: Path, records: list[CommitRecord], head: str,
                   judge_code: dict[str, str]) -> tuple[list[Problem], int]:
    """Rules 1, 2 and 1b of rgbench.governance.provenance over the range, and how many commits were recomputed;
    a commit refused by rule 1 (results with no input) is not recomputed as well."""
    problems: list[Problem] = []
    recomputed = 0
    for record in records:
        found = check_commit(record)
        if changes_results(record) and not any(is_generated_result(p.path) for p in found):
            reproduction = reproduce(root, record.commit, judge_code)
            recomputed += reproduction.same_code
            found += unproved_results(record, reproduction, last=record.commit == head)
        problems += found
    return problems, recomputed


def _folders(objects: dict[str, str]) -> set[str]:
    """The snapshot folders that hold the files of ``objects`` (path -> mode and object id)."""
    return {folder for folder in map(snapshot_folder, objects) if folder is not None}


def registry_at(root: Path, rev: str, spec: Spec) -> dict | None:
    """The registry document at ``rev``; None when it is absent or invalid there (that revision's problem)."""
    data = read_blob(root, rev, REGISTRY_FILE)
    return parse_registry(data, spec)[0] if data is not None else None


def recorded(root: Path, commit: str | None, base: str, date: str, spec: Spec | None,
             judge_code: dict[str, str]) -> RecordedCommit | None:
    """What the repository knows of the commit a new snapshot records; None when it names no commit here."""
    if commit is None:
        return None
    try:
        commit = resolve(root, commit)
    except GitError:
        return None
    results = {path[len("results/"):]: git(root, "cat-file", "blob", obj.split(" ")[1])
               for path, obj in tree_objects(root, commit, "results").items()
               if is_generated_result(path) and obj.startswith("100")}
    expected = None
    if spec is not None and MANIFEST_FILE in results:
        document = registry_at(root, commit, spec)
        try:
            manifest = loads_json_strict(decode_utf8(results[MANIFEST_FILE]))
            subjects = {sid: item["subject_version"] for sid, (_, item) in entries(document).items()} if document else None
            if isinstance(manifest, dict) and subjects is not None:
                snapshot = snapshot_document(date=date, commit=commit, manifest=manifest, subjects=subjects, files=results)
                expected = folder_contents(snapshot, results)[SNAPSHOT_FILE]
        except (ParseError, KeyError):
            expected = None
    return RecordedCommit(commit, is_ancestor(root, commit, base), commit_date(root, commit), results, expected,
                          reproduce(root, commit, judge_code))


def history_range(root: Path, base: str, head: str, spec: Spec | None, today: dt.date,
                  judge_code: dict[str, str]) -> list[Problem]:
    """Rules 3 and 4 of rgbench.governance.provenance: results/historico/ from BASE to HEAD, tree against tree
    (``judge_code``: :func:`code_of` the base, the toolkit that recomputes a new snapshot's commit)."""
    mb = merge_base(root, base, head)
    at_head, at_mb, at_base = (tree_objects(root, rev, HISTORY_DIR) for rev in (head, mb, base))
    head_folders = _folders(at_head)
    reference = dict(at_mb)
    for path, obj in at_base.items():  # the base's own later snapshots, where HEAD has them too
        if path in at_head or snapshot_folder(path) in head_folders:
            reference.setdefault(path, obj)
    where = f"the base {base[:12]}" if mb == base else f"the base {base[:12]} (merge base {mb[:12]})"
    problems = kept_history(reference, at_head, where)
    taken = _folders(at_mb) | _folders(at_base)
    newest = max((folder.rsplit("/", 1)[-1] for folder in taken), default=None)
    for folder in sorted(head_folders - taken):
        files = {path[len(folder) + 1:]: git(root, "cat-file", "blob", obj.split(" ")[1])
                 for path, obj in at_head.items() if snapshot_folder(path) == folder}
        commit = recorded(root, recorded_commit_id(files), base, folder.rsplit("/", 1)[-1], spec, judge_code)
        problems += judge_new_snapshot(folder, files, commit, today=today, newest=newest, base_label=f"the base {base[:12]}")
    return problems


def run(args: argparse.Namespace) -> int:
    root: Path = args.root
    spec, spec_problems = load_spec(root)
    try:
        base, head = resolve(root, args.base), resolve(root, args.head)
        records = commit_records(root, base, head)
        judge_code = code_of(root, base)
        problems, recomputed = proved_commits(root, records, head, judge_code)
        problems += history_range(root, base, head, spec, dt.datetime.now(dt.UTC).date(), judge_code)
    except GitError as exc:
        return refuse(f"--base: {exc}")
    snapshots, snapshot_problems = load_snapshots(root)
    problems += snapshot_problems
    if spec is None:
        problems += spec_problems
    else:
        current, _, registry_problems = read_registry(root, spec)
        problems += registry_problems
        old = registry_at(root, base, spec)
        if current is not None:
            problems += check_change(old, current)
            problems += check_against_snapshots(current, snapshots, skip=unchanged_items(old, current))

    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return refuse(f"{len(problems)} provenance problem(s) in {len(records)} commit(s) since {args.base}")
    print(f"provenance: {len(records)} commit(s) since {args.base} checked; results follow input changes and "
          f"{recomputed} commit(s) changing results reproduce them, "
          f"{HISTORY_DIR}/ only grew, {len(snapshots)} snapshot(s) intact")
    return 0


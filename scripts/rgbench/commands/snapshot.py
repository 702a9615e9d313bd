"""Copy the current results into a dated, append-only snapshot: results/historico/<DATE>/.

The folder gets every generated file of results/ (metric CSVs, manifest.json,
leaderboard files) and a snapshot.json recording alpha, the input digest, the
git commit and the registry's subject versions (see rgbench/snapshot.py).

Refuses, writing nothing, when the inputs are invalid; when results/ is not
what the current inputs produced (run `make metrics`); when inputs or results
differ from the commit being recorded (commit them first); when DATE is not a
past or present YYYY-MM-DD, or is older than the newest snapshot; and when a
snapshot of DATE exists with other content. An identical rerun (even from a
later commit) is a no-op. A snapshot is never modified or deleted. A folder that
cannot be written (read-only, full disk) is reported and nothing is left; a
snapshot killed while writing leaves only a hidden ``.<DATE>.<random>.tmp``
folder, which git and every reader ignore, so the next run completes.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
from pathlib import Path

from ..atomic import OutputError
from ..compute.input_groups import manifest_digest
from ..governance.gitio import GitError, dirty_paths, resolve
from ..governance.history import read_folders
from ..governance.provenance import DEFINITION_DIRS, GENERATED_DIRS, INPUT_DIRS, is_generated_result
from ..governance.snapshot import (
    HISTORY_DIR,
    MANIFEST_FILE,
    differing_files,
    folder_contents,
    parse_date,
    snapshot_document,
)
from ..governance.write_once import publish_new_folder
from ..load.parsing import ParseError, decode_utf8, loads_json_strict
from ..load.safe_read import MAX_RESULT_BYTES, read_bytes, walk_files
from ..problems import Problem, refuse, report
from .common import load_valid_tree


def current_results(root: Path) -> tuple[dict[str, bytes], list[Problem]]:
    """Every generated file of results/ by its name inside results/."""
    entries, problems = walk_files(root, "results")
    files = {}
    for entry in entries:
        if is_generated_result(entry.rel):
            files[entry.rel[len("results/"):]] = read_bytes(root, entry.rel, MAX_RESULT_BYTES)
    return files, problems


def check_results_are_current(files: dict[str, bytes], digest: str) -> tuple[dict | None, list[Problem]]:
    """The manifest, when results/ is exactly what compute_metrics wrote for the current inputs."""
    where = f"results/{MANIFEST_FILE}"
    if MANIFEST_FILE not in files:
        return None, [Problem(where, "missing; run `make metrics` before taking a snapshot")]
    try:
        manifest = loads_json_strict(decode_utf8(files[MANIFEST_FILE]))
    except ParseError as exc:
        return None, [Problem(where, str(exc))]
    required = ("alpha", "benchmark_version", "input_digest", "outputs")
    if not isinstance(manifest, dict) or not all(k in manifest for k in required):
        return None, [Problem(where, "not a manifest written by compute_metrics.py; run `make metrics`")]
    problems = []
    if manifest["input_digest"] != digest:
        problems.append(Problem(where, "input_digest differs from the current inputs: results/ is out of date "
                                       "(run `make metrics` and commit, then snapshot)"))
    for name, sha in sorted(manifest["outputs"].items()):
        if name not in files or hashlib.sha256(files[name]).hexdigest() != sha:
            problems.append(Problem(f"results/{name}", "differs from the digest in results/manifest.json (run `make metrics`)"))
    return (None if problems else manifest), problems


def run(args: argparse.Namespace) -> int:
    root: Path = args.root
    today = dt.datetime.now(dt.UTC).date()
    date, message = parse_date(args.date or today.isoformat(), today)
    if date is None:
        return refuse(f"--date: {message}")

    loaded = load_valid_tree(root)
    if loaded is None:
        return 1
    spec, tree = loaded
    files, problems = current_results(root)
    if problems:
        return report(problems)
    manifest, problems = check_results_are_current(files, manifest_digest(tree.inputs))
    if manifest is None:
        return report(problems)
    try:
        commit = resolve(root, "HEAD")
        dirty = dirty_paths(root, (*INPUT_DIRS, *DEFINITION_DIRS, *GENERATED_DIRS, "results"))
    except GitError as exc:
        return refuse(f"{root}: {exc} (a snapshot records the git commit of its results)")
    dirty = [path for path in dirty if not path.startswith(HISTORY_DIR + "/")]
    if dirty:
        return report([Problem(path, f"differs from commit {commit[:12]}; commit it first (a snapshot records "
                                     "the commit its results come from)") for path in dirty])

    subjects = {sid: subject.subject_version for sid, subject in tree.subjects.items()}
    document = snapshot_document(date=date, commit=commit, manifest=manifest, subjects=subjects, files=files)
    contents = folder_contents(document, files)
    target = f"{HISTORY_DIR}/{date}"
    folders, problems = read_folders(root)
    if problems:
        return report(problems)
    if date in folders:
        differing = differing_files(folders[date], contents)
        if not differing:
            print(f"{target}/ already holds these results; nothing to do")
            return 0
        return report([Problem(f"{target}/{name}", "differs from the current results; a snapshot is never "
                                                  "overwritten (take the new one under another date)") for name in differing])
    newer = [name for name in folders if name > date]
    if newer:
        return report([Problem(f"{HISTORY_DIR}/{newer[-1]}", f"is newer than {date}; snapshots are appended in date order")])
    try:
        publish_new_folder(root / target, contents)
    except FileExistsError:
        return report([Problem(target, "appeared while the snapshot was being written; run again")])
    except OutputError as exc:
        return report([Problem(target, exc.reason)])
    print(f"{target}/: {len(files)} result file(s) and snapshot.json (commit {commit[:12]}, "
          f"input digest {manifest['input_digest'][:12]}); commit it: git add {target}")
    return 0


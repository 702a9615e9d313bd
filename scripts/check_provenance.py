#!/usr/bin/env python3
"""Prove, commit by commit since --base, that results were not edited by hand and history was not rewritten.

For each commit in BASE..HEAD (oldest first), fails naming the commit and the
files when
  - it changes results/ (outside results/historico/ and results/README.md) or
    scoring_consolidated/ without changing an input (responses/, scoring/,
    scoring_multi/, golds/, subjects/) or the metric definition (system/,
    scripts/);
  - it modifies, renames, deletes or retypes a file under results/historico/,
    or adds files to a snapshot folder that already existed (append-only).
Then checks the history's records in the working tree:
  - every snapshot folder is intact (its snapshot.json lists exactly its files
    with their sha256);
  - subjects/registry.yaml: a subject whose version changed since BASE lists
    the old version in its history, history items are never removed, and each
    item added or changed since BASE has a last_snapshot that is the latest
    snapshot holding that version, with status `disqualified` exactly when
    that snapshot shows it disqualified.
Prints every problem as `path: message` on stderr and exits 1 if there is any.
Only reads the repository (git plumbing, no checkout).
"""

from __future__ import annotations

import sys
from pathlib import Path

from rgbench.cli import not_a_tree, script_parser
from rgbench.governance.gitio import (
    GitError,
    commit_changes,
    commit_subject,
    commits_between,
    parents,
    read_blob,
    resolve,
    tree_listing,
)
from rgbench.governance.history import load_snapshots
from rgbench.governance.provenance import HISTORY_DIR, CommitRecord, check_commits, snapshot_folder
from rgbench.governance.registry_history import check_against_snapshots, check_change, unchanged_items
from rgbench.load.registry import REGISTRY_FILE, parse_registry, read_registry
from rgbench.load.spec import load_spec
from rgbench.problems import Problem


def commit_records(root: Path, base: str, head: str) -> list[CommitRecord]:
    """What each commit of base..head changed, with the snapshot folders its first parent already had."""
    records = []
    for commit in commits_between(root, base, head):
        parent_ids = parents(root, commit)
        before: frozenset[str] = frozenset()
        if parent_ids:
            folders = (snapshot_folder(path) for _, path in tree_listing(root, parent_ids[0], HISTORY_DIR))
            before = frozenset(filter(None, folders))
        records.append(CommitRecord(commit, commit_subject(root, commit), tuple(commit_changes(root, commit)), before))
    return records


def registry_at(root: Path, rev: str, spec) -> tuple[dict | None, list[Problem]]:
    data = read_blob(root, rev, REGISTRY_FILE)
    if data is None:
        return None, []
    document, messages = parse_registry(data, spec)
    return document, [Problem(REGISTRY_FILE, f"at {rev[:12]}: {m}") for m in messages]


def main(argv: list[str] | None = None) -> int:
    parser = script_parser(__doc__, "benchmark tree inside a git repository (default: this repository)")
    parser.add_argument("--base", required=True, help="git revision the change starts from (e.g. the pull request's base)")
    parser.add_argument("--head", default="HEAD", help="last commit to inspect (default: HEAD)")
    args = parser.parse_args(argv)
    root: Path = args.root
    if not_a_tree(root):
        return 1
    try:
        base, head = resolve(root, args.base), resolve(root, args.head)
        records = commit_records(root, base, head)
    except GitError as exc:
        print(f"--base: {exc}", file=sys.stderr)
        return 1
    problems = check_commits(records)

    spec, spec_problems = load_spec(root)
    snapshots, snapshot_problems = load_snapshots(root)
    problems += snapshot_problems
    if spec is None:
        problems += spec_problems
    else:
        current, _, registry_problems = read_registry(root, spec)
        problems += registry_problems
        old, _ = registry_at(root, base, spec)  # an unreadable base registry was the base's problem
        if current is not None:
            problems += check_change(old, current)
            problems += check_against_snapshots(current, snapshots, skip=unchanged_items(old, current))

    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"{len(problems)} provenance problem(s) in {len(records)} commit(s) since {args.base}", file=sys.stderr)
        return 1
    print(f"provenance: {len(records)} commit(s) since {args.base} checked; results follow input changes, "
          f"{HISTORY_DIR}/ only grew, {len(snapshots)} snapshot(s) intact")
    return 0


if __name__ == "__main__":
    sys.exit(main())

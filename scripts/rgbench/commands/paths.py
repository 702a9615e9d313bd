"""Pre-flight check of a pull request, before any of its files is read: refuse symbolic links (git
mode 120000), submodules (160000), unsafe names and oversized files, and name the role the change
needs (reviewer, submission or maintainer; see rgbench/governance/pr_paths.py and the README's
"Roles"), refusing what a contributor's pull request may not do.

Compares the commits, not the checked-out files: the changes from the merge
base of --base and --head to --head are read from git's objects, sizes from
the object store, and the only files compared (README.md against the
regenerated leaderboard, subjects/registry.yaml and subjects/human_draws.json
against the base: a pull request only appends draws, whoever makes it) are read
as git blobs. --author LOGIN (the pull request's author, as the gate passes it) also
checks authorship against the BASE revision's subjects/registry.yaml (answered_by)
and subjects/reviewers.yaml (handles, adjudicator), read as git blobs, never the
pull request's own: new responses only of subjects the author answers for, new
scorings only under the author's reviewer ids, adjudications only by an
adjudicator (rgbench/governance/authorship.py). Without it the last line says
authorship was not checked. Run locally (--head HEAD, text output), it also notes
the data files not committed yet, which it cannot see. --maintainer (a maintainer's
pull request) turns what needs a maintainer into notices. Prints every problem as
`path: message` on stderr (or GitHub annotations on stdout with --format
github), then the role the change needs, and exits 1 if there is any error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..governance.annotations import github_line
from ..governance.authorship import LOGIN_PATTERN, authority_from_blobs, is_login
from ..governance.gitio import GitError, blob_sizes, diff_trees, dirty_paths, merge_base, read_blob, resolve
from ..governance.pr_paths import (
    DATA_DIRS,
    LEADERBOARD_MARKDOWN,
    Facts,
    check_changes,
    draws_appended,
    readme_is_regenerated,
    registry_additions,
)
from ..leaderboard.readme import README_FILE
from ..load.draws import DRAWS_FILE, DRAWS_MAX_BYTES
from ..load.registry import REGISTRY_FILE
from ..load.reviewers import REVIEWERS_FILE
from ..load.spec import load_spec
from ..problems import refuse

ALLOWED = " (allowed: a maintainer's pull request)"


def run(args: argparse.Namespace) -> int:
    if args.author is not None and not is_login(args.author):
        return refuse(f"--author: {args.author!r} is not a code-host login ({LOGIN_PATTERN}: letters, digits and '-', "
                      "at most 39 characters; pass the pull request author's login)")
    try:
        head = resolve(args.root, args.head)
        base = resolve(args.root, args.base)
        start = merge_base(args.root, base, head)
        changes = diff_trees(args.root, start, head)
        sizes = blob_sizes(args.root, [c.new_blob for c in changes if c.status != "D" and c.new_mode.startswith("100")])
        modified = {c.path for c in changes if c.status == "M"}

        def blobs(rel: str) -> tuple[bytes | None, bytes | None]:
            return read_blob(args.root, start, rel), read_blob(args.root, head, rel)

        facts = Facts(
            readme_regenerated=README_FILE in modified and readme_is_regenerated(
                *blobs(README_FILE), read_blob(args.root, head, LEADERBOARD_MARKDOWN)),
            registry_added=registry_additions(*blobs(REGISTRY_FILE)) if REGISTRY_FILE in modified else set(),
            # read only within its size limit (a larger one is refused by size below)
            draws_problem=draws_appended(*blobs(DRAWS_FILE)) if any(
                c.path == DRAWS_FILE and c.status in "MD" and sizes.get(c.new_blob, 0) <= DRAWS_MAX_BYTES
                for c in changes) else None,
            author=args.author,
            # the base's registries, never the pull request's: it cannot grant its author anything
            authority=authority_from_blobs(read_blob(args.root, base, REGISTRY_FILE),
                                           read_blob(args.root, base, REVIEWERS_FILE)),
        )
    except GitError as exc:
        return refuse(f"--base: {exc}")
    note = uncommitted_note(args.root, args.head) if args.format == "text" else None
    if note:
        print(note, file=sys.stderr)
    spec, _ = load_spec(args.root)   # the judge's system/ names the version folder inputs live in
    errors, notices, role = check_changes(changes, sizes, max_bytes=args.max_bytes, maintainer=args.maintainer,
                                          facts=facts, version_dir=spec.version_dir if spec else None)
    for level, found in (("notice", notices), ("error", errors)):
        for problem in found:
            if args.format == "github":
                print(github_line(problem, None, level=level))
            else:
                print(f"{problem}{ALLOWED if level == 'notice' else ''}", file=sys.stderr)
    authorship = (f"authorship of {args.author!r} checked against the base's registries" if args.author else
                  "authorship not checked (no --author)")
    if errors:
        return refuse(f"{len(errors)} path problem(s) in {len(changes)} changed file(s); this change needs the role: {role}; "
                      f"{authorship}; nothing else was read")
    print(f"paths: {len(changes)} changed file(s) checked; this change needs the role: {role}; {authorship}")
    return 0


def uncommitted_note(root: Path, head: str) -> str | None:
    """Locally (--head HEAD), a note naming the data files not committed yet, which the pre-flight cannot see;
    None when there are none, or when git cannot list them (the note is advice, never a reason to fail)."""
    try:
        dirty = dirty_paths(root, (*DATA_DIRS, README_FILE)) if head == "HEAD" else []
    except GitError:
        return None
    if not dirty:
        return None
    return (f"note: {len(dirty)} uncommitted file(s) not checked, e.g. {dirty[0]}: the pre-flight reads commits "
            "(commit them, then run it again)")


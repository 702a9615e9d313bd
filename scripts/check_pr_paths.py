#!/usr/bin/env python3
"""Pre-flight check of a pull request, before any of its files is read: refuse symbolic links (git
mode 120000), submodules (160000), paths outside the data folders, unsafe names and oversized files.

Compares the commits, not the checked-out files: the changes from the merge
base of --base and --head to --head are read from git's objects, and sizes
from the object store. --allow-outside-data turns paths outside the data
folders into notices (for maintainers' pull requests that change code).
Prints every problem as `path: message` on stderr (or GitHub annotations on
stdout with --format github) and exits 1 if there is any.
"""

from __future__ import annotations

import sys

from rgbench.cli import not_a_tree, script_parser
from rgbench.governance.annotations import github_line
from rgbench.governance.gitio import GitError, blob_sizes, diff_trees, merge_base, resolve
from rgbench.governance.pr_paths import DEFAULT_MAX_BYTES, check_changes


def main(argv: list[str] | None = None) -> int:
    parser = script_parser(__doc__, "benchmark tree inside a git repository (default: this repository)")
    parser.add_argument("--base", required=True, help="git revision of the pull request's base")
    parser.add_argument("--head", default="HEAD", help="git revision of the pull request (default: HEAD)")
    parser.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES,
                        help=f"largest file accepted (default: {DEFAULT_MAX_BYTES})")
    parser.add_argument("--allow-outside-data", action="store_true", help="report paths outside the data folders as notices only")
    parser.add_argument("--format", choices=("text", "github"), default="text", help="text (default) or GitHub annotations")
    args = parser.parse_args(argv)
    if not_a_tree(args.root):
        return 1
    try:
        head = resolve(args.root, args.head)
        changes = diff_trees(args.root, merge_base(args.root, args.base, head), head)
        sizes = blob_sizes(args.root, [c.new_blob for c in changes if c.status != "D" and c.new_mode.startswith("100")])
    except GitError as exc:
        print(f"--base: {exc}", file=sys.stderr)
        return 1
    errors, notices = check_changes(changes, sizes, max_bytes=args.max_bytes, allow_outside=args.allow_outside_data)
    for level, found in (("notice", notices), ("error", errors)):
        for problem in found:
            if args.format == "github":
                print(github_line(problem, None, level=level))
            else:
                print(f"{problem}{' (allowed)' if level == 'notice' else ''}", file=sys.stderr)
    if errors:
        print(f"{len(errors)} path problem(s) in {len(changes)} changed file(s); nothing else was read", file=sys.stderr)
        return 1
    print(f"paths: {len(changes)} changed file(s) checked")
    return 0


if __name__ == "__main__":
    sys.exit(main())

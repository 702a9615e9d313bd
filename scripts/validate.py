#!/usr/bin/env python3
"""Validate every input of a benchmark tree (schemas, ids, cross-file rules) without writing anything.

Prints each problem as `path: message` on stderr and exits 1 if there is any.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rgbench.loader import load_tree
from rgbench.problems import report
from rgbench.spec import load_spec

REPO_ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=REPO_ROOT, help="benchmark tree (default: this repository)")
    args = parser.parse_args(argv)
    if not args.root.is_dir():
        print(f"{args.root}: not a directory (--root takes a benchmark tree)", file=sys.stderr)
        return 1
    spec, problems = load_spec(args.root)
    if spec is None:
        return report(problems)
    tree, problems = load_tree(args.root, spec)
    if tree is None:
        return report(problems)
    print(f"valid: {len(tree.golds)} golds, {len(tree.responses)} responses, "
          f"{len(tree.scorings)} scorings, {len(tree.subjects)} subjects")
    return 0


if __name__ == "__main__":
    sys.exit(main())

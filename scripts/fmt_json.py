#!/usr/bin/env python3
"""Rewrite the JSON inputs of a benchmark tree (responses, scoring, scoring_multi) into canonical form:
sorted keys, 2-space indent, UTF-8, final newline. Files that do not parse are
reported and left untouched. With --check, only lists the files that would change.
"""

from __future__ import annotations

import sys

from rgbench.atomic import write_bytes_atomic
from rgbench.cli import script_parser
from rgbench.load.parsing import ParseError, decode_utf8, dumps_json_canonical, loads_json_strict
from rgbench.load.safe_read import read_bytes, walk_files
from rgbench.problems import Problem, report

FOLDERS = ("responses", "scoring", "scoring_multi")


def main(argv: list[str] | None = None) -> int:
    parser = script_parser(__doc__)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if any file is not canonical")
    args = parser.parse_args(argv)
    problems: list[Problem] = []
    changed: list[str] = []
    for folder in FOLDERS:
        entries, walk_problems = walk_files(args.root, folder)
        problems.extend(walk_problems)
        for entry in entries:
            if not entry.name.endswith(".json"):
                continue
            data = read_bytes(args.root, entry.rel)
            try:
                canonical = dumps_json_canonical(loads_json_strict(decode_utf8(data))).encode("utf-8")
            except ParseError as exc:
                problems.append(Problem(entry.rel, str(exc)))
                continue
            if canonical != data:
                changed.append(entry.rel)
                if not args.check:
                    write_bytes_atomic(args.root / entry.rel, canonical)
    verb = "not canonical" if args.check else "rewritten"
    for rel in changed:
        print(f"{rel}: {verb}")
    status = report(problems)
    if args.check and changed:
        print(f"{len(changed)} file(s) not canonical; run `make fmt`", file=sys.stderr)
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())

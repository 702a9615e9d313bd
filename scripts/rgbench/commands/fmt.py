"""Rewrite the JSON inputs of a benchmark tree (responses, scoring, scoring_multi) into canonical form:
sorted keys, 2-space indent, UTF-8, final newline. Files that do not parse are
reported and then nothing is rewritten. With --check, only lists the files that would change.

`make fmt` never invalidates a pin: a response whose sha256 a scoring (in scoring/ or
scoring_multi/) pins as its `response_sha256` is left byte for byte as it is, even when
it is not canonical (its bytes are what was graded), and --check does not count it.
"""

from __future__ import annotations

import argparse
import hashlib
from typing import Any

from ..atomic import write_many_atomic
from ..load.parsing import ParseError, decode_utf8, dumps_json_canonical, loads_json_strict
from ..load.safe_read import read_bytes, walk_files
from ..problems import Problem, refuse, report

FOLDERS = ("responses", "scoring", "scoring_multi")


def run(args: argparse.Namespace) -> int:
    problems: list[Problem] = []
    parsed: list[tuple[str, str, bytes, Any]] = []  # (folder, rel, bytes, document)
    rewrites: dict[str, bytes] = {}  # rel -> canonical bytes, for each file that is not canonical
    for folder in FOLDERS:
        entries, walk_problems = walk_files(args.root, folder)
        problems.extend(walk_problems)
        for entry in entries:
            if not entry.name.endswith(".json"):
                continue
            try:
                data = read_bytes(args.root, entry.rel)
                parsed.append((folder, entry.rel, data, loads_json_strict(decode_utf8(data))))
            except ParseError as exc:
                problems.append(Problem(entry.rel, str(exc)))
            except OSError as exc:
                problems.append(Problem(entry.rel, f"cannot be read: {exc.strerror or exc}"))
    pinned = {document["response_sha256"] for folder, _, _, document in parsed
              if folder != "responses" and isinstance(document, dict) and isinstance(document.get("response_sha256"), str)}
    for folder, rel, data, document in parsed:
        if folder == "responses" and hashlib.sha256(data).hexdigest() in pinned:
            continue  # graded: its bytes are pinned by a scoring
        try:
            canonical = dumps_json_canonical(document).encode("utf-8")
        except ValueError as exc:  # e.g. a lone surrogate that cannot be encoded
            problems.append(Problem(rel, f"cannot be written as UTF-8: {exc} (fix the text)"))
            continue
        if canonical != data:
            rewrites[rel] = canonical
    if problems:
        return report(problems)
    if not args.check:
        write_many_atomic({args.root / rel: canonical for rel, canonical in rewrites.items()})
    verb = "not canonical" if args.check else "rewritten"
    for rel in rewrites:
        print(f"{rel}: {verb}")
    if args.check and rewrites:
        return refuse(f"{len(rewrites)} file(s) not canonical; run `make fmt`")
    return 0


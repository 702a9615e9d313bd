#!/usr/bin/env python3
"""Print a subject's metrics across the dated snapshots of results/historico/.

One row per snapshot holding the subject, every version included (a
disqualified version stays visible after a new one is registered), then the
current results/ as `current`, then the registry's record of earlier
versions. Without --subject, prints every subject that appears anywhere.
Markdown by default; --format csv for a table to process further.
"""

from __future__ import annotations

import sys
from pathlib import Path

from rgbench.cli import load_spec_and_registry, not_a_tree, script_parser
from rgbench.governance.history import SERIES_COLUMNS, current_snapshot, load_snapshots, markdown_series, subject_series
from rgbench.load.registry import entries
from rgbench.problems import report
from rgbench.results.tables import csv_text


def main(argv: list[str] | None = None) -> int:
    parser = script_parser(__doc__)
    parser.add_argument("--subject", help="subject_id to follow (default: every subject)")
    parser.add_argument("--format", choices=("markdown", "csv"), default="markdown", help="output format (default: markdown)")
    parser.add_argument("--no-current", action="store_true", help="leave out the current results/")
    args = parser.parse_args(argv)
    root: Path = args.root
    if not_a_tree(root):
        return 1
    snapshots, problems = load_snapshots(root)
    if problems:
        return report(problems)
    loaded = load_spec_and_registry(root)
    if loaded is None:
        return 1
    spec, registry = loaded
    series_of = list(snapshots)
    current = None if args.no_current else current_snapshot(root)
    if current is not None:
        series_of.append(current)
    known = sorted({sid for s in series_of for sid in s.subjects} | set(entries(registry)))
    if args.subject is not None and args.subject not in known:
        print(f"--subject: {args.subject!r} is in no snapshot and not registered (known: {', '.join(known) or 'none'})",
              file=sys.stderr)
        return 1
    wanted = [args.subject] if args.subject else known
    if args.format == "csv":
        rows = [(sid, *(row[c] for c in SERIES_COLUMNS)) for sid in wanted for row in subject_series(series_of, sid)]
        sys.stdout.write(csv_text(("subject_id", *SERIES_COLUMNS), rows))
        return 0
    blocks = []
    for sid in wanted:
        entry = entries(registry).get(sid)
        history = entry.item.get("history", []) if entry is not None else []
        blocks.append(markdown_series(sid, subject_series(series_of, sid), history))
    sys.stdout.write("\n".join(blocks))
    return 0


if __name__ == "__main__":
    sys.exit(main())

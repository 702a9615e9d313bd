"""Print a subject's metrics across the dated snapshots of results/historico/.

One row per snapshot holding the subject, every version included (a
disqualified version stays visible after a new one is registered), then the
current results/ as `current`, then the registry's record of earlier
versions. Without --subject, prints every subject that appears anywhere.
Markdown by default; --format csv for a table to process further.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..governance.history import SERIES_COLUMNS, current_snapshot, load_snapshots, markdown_series, subject_series
from ..load.registry import entries
from ..problems import refuse, report
from ..results.tables import csv_text
from .common import load_spec_and_registry


def run(args: argparse.Namespace) -> int:
    root: Path = args.root
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
        return refuse(f"--subject: {args.subject!r} is in no snapshot and not registered (known: "
                      f"{', '.join(known) or 'none'})")
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


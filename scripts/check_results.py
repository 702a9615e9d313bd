#!/usr/bin/env python3
"""Prove that the committed results are exactly what the committed inputs produce.

Copies the inputs (system/, golds/, responses/, scoring/, subjects/) to a
temporary tree, runs the result-producing steps there, and compares every file
they write with the one in results/. Exits 1 naming each differing, missing or
unexpected file.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from rgbench.cli import script_parser

INPUT_DIRS = ("system", "golds", "responses", "scoring", "scoring_multi", "subjects")
# Steps that write results/, in order; each takes --root.
STEPS = ("compute_metrics.py", "aggregate_scoring.py", "build_leaderboard.py")
# Files in results/ that no step produces and that the check leaves alone.
NOT_GENERATED = {"README.md"}
NOT_GENERATED_DIRS = {"historico"}


def regenerate(root: Path, work: Path) -> int:
    """Copy the inputs of ``root`` into ``work`` and run every step there; 0 on success."""
    for name in INPUT_DIRS:
        source = root / name
        if source.is_dir():
            shutil.copytree(source, work / name, symlinks=True)
    return run_steps(work)


def run_steps(work: Path) -> int:
    """Run every result-producing step on the tree ``work``; print their problems and return 1 if one fails."""
    for step in STEPS:
        script = Path(__file__).resolve().parent / step
        if not script.exists():
            continue
        completed = subprocess.run([sys.executable, str(script), "--root", str(work)], capture_output=True, text=True)
        if completed.returncode != 0:
            sys.stderr.write(completed.stderr)
            print(f"{step} failed on the committed inputs; fix the problems above", file=sys.stderr)
            return 1
    return 0


def compare(committed: Path, fresh: Path) -> list[str]:
    """Messages naming each file of results/ that differs from, or is missing in, a fresh run."""
    def listing(base: Path) -> set[str]:
        if not base.is_dir():
            return set()
        return {
            str(path.relative_to(base)) for path in base.rglob("*")
            if path.is_file() and path.relative_to(base).parts[0] not in NOT_GENERATED_DIRS
            and str(path.relative_to(base)) not in NOT_GENERATED
        }

    old, new = listing(committed), listing(fresh)
    messages = []
    for name in sorted(old | new):
        where = f"results/{name}"
        if name not in old:
            messages.append(f"{where}: missing from the committed results (run `make metrics` and commit it)")
        elif name not in new:
            messages.append(f"{where}: committed but no step produces it (delete it)")
        elif (committed / name).read_bytes() != (fresh / name).read_bytes():
            messages.append(f"{where}: differs from what the committed inputs produce (run `make metrics` and commit it)")
    return messages


def main(argv: list[str] | None = None) -> int:
    parser = script_parser(__doc__)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="rgbench-check-") as tmp:
        work = Path(tmp)
        if regenerate(args.root, work):
            return 1
        messages = compare(args.root / "results", work / "results")
    for message in messages:
        print(message, file=sys.stderr)
    if messages:
        print(f"{len(messages)} result file(s) out of date", file=sys.stderr)
        return 1
    print("results/ matches what the committed inputs produce")
    return 0


if __name__ == "__main__":
    sys.exit(main())

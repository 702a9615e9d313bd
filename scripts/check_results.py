#!/usr/bin/env python3
"""Prove that the committed results are exactly what the committed inputs produce.

Copies the inputs (system/, golds/, responses/, scoring/, subjects/) to a
temporary tree, runs `make metrics` there (scripts/metrics.py), and compares every file
they write with the one in results/, and README.md's embedded leaderboard block
(when README.md has one) with the fresh results/leaderboard.md. Exits 1 naming
each differing, missing or unexpected file.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from rgbench.cli import script_parser
from rgbench.compute.input_groups import input_changes
from rgbench.compute.tables import MANIFEST_FILE
from rgbench.governance.provenance import INPUT_DIRS, is_generated_result
from rgbench.leaderboard.long_lists import capped
from rgbench.leaderboard.readme import README_FILE, replace_block, split_readme


def regenerate(root: Path, work: Path) -> int:
    """Copy the inputs of ``root`` into ``work`` and run every step there; 0 on success."""
    for name in ("system", *INPUT_DIRS):
        source = root / name
        if source.is_dir():
            shutil.copytree(source, work / name, symlinks=True)
    return run_steps(work)


def run_steps(work: Path) -> int:
    """Run what ``make metrics`` runs (scripts/metrics.py, every result-producing step from one load) on the tree
    ``work``; print its problems and return 1 if it fails. (tests/test_cli_main.py shows that the steps' own
    scripts, run one by one, write the same bytes.)"""
    script = Path(__file__).resolve().parent / "metrics.py"
    completed = subprocess.run([sys.executable, str(script), "--root", str(work)], capture_output=True, text=True)
    if completed.returncode != 0:
        sys.stderr.write(completed.stderr)
        print("make metrics failed on the committed inputs; fix the problems above", file=sys.stderr)
        return 1
    return 0


def compare(committed: Path, fresh: Path) -> list[str]:
    """Messages naming each file of results/ that differs from, or is missing in, a fresh run."""
    def listing(base: Path) -> set[str]:
        names = (path.relative_to(base).as_posix() for path in base.rglob("*") if path.is_file())
        return {name for name in names if is_generated_result(f"results/{name}")}

    old, new = listing(committed), listing(fresh)
    messages = []
    for name in sorted(old | new):
        where = f"results/{name}"
        if name not in old:
            messages.append(f"{where}: missing from the committed results (run `make metrics` and commit it)")
        elif name not in new:
            messages.append(f"{where}: committed but no step produces it (delete it)")
        elif (committed / name).read_bytes() != (fresh / name).read_bytes():
            messages.append(f"{where}: differs from what the committed inputs produce (run `make metrics` and commit it)"
                            + (changed_inputs(committed / name, fresh / name) if name == MANIFEST_FILE else ""))
    return messages


def recorded_inputs(path: Path) -> dict[str, str] | None:
    """A manifest's ``inputs`` record (key -> digest), or None when the file does not hold one."""
    try:
        inputs = json.loads(path.read_bytes()).get("inputs")
    except (ValueError, AttributeError, OSError):
        return None
    return inputs if isinstance(inputs, dict) else None


def changed_inputs(committed: Path, fresh: Path) -> str:
    """``; inputs changed since it was written: scoring/v1.0/s/ (changed), ...`` from the two manifests'
    ``inputs`` (a subject folder, or a file), the first few when many; ``""`` when they agree or cannot be read."""
    old, new = recorded_inputs(committed), recorded_inputs(fresh)
    changes = input_changes(old, new) if old is not None and new is not None else []
    if not changes:
        return ""
    return "; inputs changed since it was written: " + capped(
        changes, ", ".join, noun="input", where=f"git diff results/{MANIFEST_FILE} after `make metrics`", esc=str)


def readme_message(root: Path, fresh: Path) -> str | None:
    """A message when README.md embeds a leaderboard block that differs from the fresh results/leaderboard.md."""
    readme, table = root / README_FILE, fresh / "leaderboard.md"
    if not readme.is_file() or readme.is_symlink() or not table.is_file():
        return None
    text = readme.read_bytes().decode("utf-8", "replace")
    if isinstance(split_readme(text), str):
        return None  # no leaderboard block: nothing embedded
    if replace_block(text, table.read_text(encoding="utf-8")) == text:
        return None
    return (f"{README_FILE}: its leaderboard block differs from what the committed inputs produce "
            "(run `make metrics` and commit README.md with results/)")


def main(argv: list[str] | None = None) -> int:
    parser = script_parser(__doc__)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="rgbench-check-") as tmp:
        work = Path(tmp)
        if regenerate(args.root, work):
            return 1
        messages = compare(args.root / "results", work / "results")
        readme = readme_message(args.root, work / "results")
        messages += [readme] if readme else []
    for message in messages:
        print(message, file=sys.stderr)
    if messages:
        print(f"{len(messages)} result file(s) out of date", file=sys.stderr)
        return 1
    print("results/ matches what the committed inputs produce")
    return 0


if __name__ == "__main__":
    sys.exit(main())

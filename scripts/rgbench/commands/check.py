"""Prove that results/ is exactly what the inputs in the tree produce, committed or not.

Copies the inputs (system/, golds/, responses/, scoring/, scoring_multi/,
subjects/) to a temporary tree, runs `make metrics` there (scripts/metrics.py,
in this process), and compares every file they write with the one in results/,
and README.md's embedded leaderboard block (when README.md has one) with the
fresh results/leaderboard.md. Exits 1 naming each differing, missing or
unexpected file. The proof is :func:`prove`; check_provenance.py runs the same
function on each commit of a pull request and on the commit a new snapshot
records.

--summary FILE appends to FILE (e.g. "$GITHUB_STEP_SUMMARY") what this
toolkit's recomputation changes against the committed results, as the results
diff renders it (ranks, deltas, disqualified). --notice reports differences as
GitHub notices and exits 0: the judge's run for a pull request that changes
the code (scripts/, requirements.txt), whose numbers only its own code can
reproduce (tests.yml); the differences are then the figures the code change
moves.
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

from ..compute.input_groups import input_changes
from ..governance.annotations import escape_data
from ..governance.provenance import INPUT_DIRS, is_generated_result
from ..leaderboard.long_lists import capped
from ..leaderboard.readme import README_FILE, replace_block, split_readme
from ..problems import refuse
from ..results.tables import MANIFEST_FILE
from .diff import recomputed_markdown
from .metrics import write_results


def regenerate(root: Path, work: Path) -> int:
    """Copy the inputs of ``root`` into ``work`` and run every step there; 0 on success."""
    for name in ("system", *INPUT_DIRS):
        source = root / name
        if source.is_dir():
            shutil.copytree(source, work / name, symlinks=True)
    return run_steps(work)


def run_steps(work: Path) -> int:
    """Run what ``make metrics`` runs (scripts/metrics.py, every result-producing step from one load) on the tree
    ``work``, in this process; print its problems on stderr and return 1 if it fails (its stdout is dropped).
    (tests/test_cli_main.py shows that the steps' own scripts, run one by one, write the same bytes.)"""
    with redirect_stdout(io.StringIO()):
        status = write_results(work)
    if status != 0:
        return refuse(METRICS_FAILED)
    return 0


METRICS_FAILED = ("make metrics refuses the inputs in this tree; fix the problems above, then run make metrics and "
                  "make check again")


@dataclass(frozen=True)
class Proof:
    """What :func:`prove` found. ``refused``: make metrics refused the inputs (``messages`` are its problems,
    the last one saying so). Otherwise ``messages`` name each result file (and README.md's block) that differs
    from what the inputs produce, none when the results are proved; ``fresh`` holds the fresh
    metrics_per_subject.csv and leaderboard.csv (None when absent), for the results diff."""

    refused: bool
    messages: tuple[str, ...]
    fresh: dict[str, bytes | None]

    @property
    def proved(self) -> bool:
        return not self.refused and not self.messages


DIFF_TABLES = ("metrics_per_subject.csv", "leaderboard.csv")


def prove(root: Path) -> Proof:
    """`make check` of the tree ``root`` (its inputs, results/ and README.md), in this process; prints nothing."""
    with tempfile.TemporaryDirectory(prefix="rgbench-check-") as tmp:
        work = Path(tmp)
        with redirect_stderr(io.StringIO()) as err:
            status = regenerate(root, work)
        if status:
            return Proof(True, tuple(err.getvalue().splitlines()), {})
        messages = compare(root / "results", work / "results")
        readme = readme_message(root, work / "results")
        fresh = {name: _read(work / "results" / name) for name in DIFF_TABLES}
    return Proof(False, tuple(messages + ([readme] if readme else [])), fresh)


def _read(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None


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
            messages.append(f"{where}: missing from results/ (run `make metrics` and commit it)")
        elif name not in new:
            messages.append(f"{where}: no step produces it (delete it)")
        elif (committed / name).read_bytes() != (fresh / name).read_bytes():
            messages.append(f"{where}: differs from what the inputs in this tree produce (run `make metrics` and commit it)"
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
    return (f"{README_FILE}: its leaderboard block differs from what the inputs in this tree produce "
            "(run `make metrics` and commit README.md with results/)")


def run(args: argparse.Namespace) -> int:
    proof = prove(args.root)
    if args.summary is not None:
        with open(args.summary, "a", encoding="utf-8", newline="\n") as handle:
            handle.write(recomputed_markdown(args.root, proof))
    if args.notice:
        for line in notices(proof):
            print(line)
        return 0
    for message in proof.messages:
        print(message, file=sys.stderr)
    if proof.refused:
        return 1
    if proof.messages:
        return refuse(f"{len(proof.messages)} result file(s) out of date")
    print("results/ matches what the inputs in this tree produce")
    return 0


CODE_NOTICE = ("this pull request changes the code (scripts/ or requirements.txt): this toolkit, the base's, "
               "cannot prove its results; the pull request's own code does (`make check` in tests.yml)")


def notices(proof: Proof) -> list[str]:
    """``::notice::`` lines for a code change: what the base's toolkit finds, reported, never failed."""
    if proof.proved:
        return ["::notice title=make check (the base's toolkit)::" + escape_data(
            "this pull request changes the code, and the base's toolkit reproduces every committed result from its "
            "inputs: the code change moves no figure")]
    found = ("make metrics of the base's toolkit refuses its inputs: " if proof.refused
             else "results the base's toolkit computes otherwise (the figures the code change moves): ")
    return ["::notice title=make check (the base's toolkit)::" + escape_data(
        f"{CODE_NOTICE}; {found}{capped(list(proof.messages), '; '.join, noun='message', where='the job summary', esc=str)}")]


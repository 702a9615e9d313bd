"""Build the public leaderboard from the committed result tables (`make leaderboard` alone; `make metrics`
renders the same pages from the results it has just computed, in memory).

Reads results/ back as the set `make metrics` wrote (results/manifest.json and every CSV it lists, each with
the sha256 the manifest records; reviewers.csv and judge_agreement.csv when `make agreement` wrote them),
subjects/registry.yaml, system/ and the scorings behind critical fails under --root, and writes
results/leaderboard.csv (the reference table), results/leaderboard.html (a self-contained page with charts)
and results/leaderboard.md (a Markdown table for the README and pull requests), byte-deterministically: the
same bytes `make metrics` writes.

Ranked subjects come first (Q_final, then P, s_bar descending, BS ascending;
competition ranks, "1, 2, 2, 4", each with its rank range: the best and worst
rank consistent with the significant paired differences), then disqualified
subject versions (any critical fail) without a rank, then unscored subjects
(N = 0). The Markdown and the page also say whether the top 3 depend on alpha.

On any problem in the inputs, prints each as `path: message` on stderr, exits 1
and writes nothing. With --readme, also replaces the block between
<!-- leaderboard:start --> and <!-- leaderboard:end --> in README.md by
results/leaderboard.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
from pathlib import Path

from ..atomic import write_many_atomic
from ..leaderboard.board import Board, build_board
from ..leaderboard.html_page import HTML_FILE, leaderboard_html
from ..leaderboard.inputs import LeaderboardInputs, board_inputs, load_inputs
from ..leaderboard.leaderboard_csv import LEADERBOARD_FILE, leaderboard_csv
from ..leaderboard.markdown import MARKDOWN_FILE, leaderboard_markdown
from ..leaderboard.readme import README_FILE, embed_in_readme
from ..leaderboard.reviewers_section import judges_use, reviewers_section
from ..load.spec import Spec
from ..problems import Problem, refuse, report
from ..results.tables import Published
from .common import collector_paused


def render(board: Board, extra_sections: str = "") -> dict[str, bytes]:
    """File name inside results/ -> exact bytes (UTF-8, ``\\n`` line endings)."""
    texts = {LEADERBOARD_FILE: leaderboard_csv(board), HTML_FILE: leaderboard_html(board, extra_sections),
             MARKDOWN_FILE: leaderboard_markdown(board)}
    return {name: text.encode("utf-8") for name, text in texts.items()}


def board_files(inputs: LeaderboardInputs | None, problems: list[Problem], source_commit: str = ""
                ) -> tuple[dict[str, bytes] | None, Board | None, list[Problem]]:
    """Rank and render the loaded ``inputs``, writing nothing: (files by name inside results/, board, []), or
    (None, None, problems) with every problem found. ``source_commit`` (a published page's) is shown on the
    page; committed results are built without it, so that they stay what the inputs alone produce."""
    if inputs is None or problems:
        return None, None, problems
    board = dataclasses.replace(build_board(inputs), source_commit=source_commit)
    section = reviewers_section(inputs.reviewers, inputs.judges, higher_is_better=board.scale.higher_is_better,
                                judges_in=judges_use(inputs.spec.judge_assisted, inputs.spec.llm_judge_in_metrics))
    return render(board, section), board, []


def build_files(root: Path, source_commit: str = "") -> tuple[dict[str, bytes] | None, Board | None, list[Problem]]:
    """:func:`board_files` of results/ under ``root`` read back (``make leaderboard`` alone)."""
    return board_files(*load_inputs(Path(root)), source_commit)


def computed_files(root: Path, spec: Spec, published: Published
                   ) -> tuple[dict[str, bytes] | None, Board | None, list[Problem]]:
    """:func:`board_files` of the results set this process has just computed (``make metrics``)."""
    return board_files(*board_inputs(root, spec, published, computed_now=True))


COMMIT = re.compile(r"^[0-9a-f]{7,40}$")


def run(args: argparse.Namespace) -> int:
    root: Path = args.root
    if args.source_commit and not COMMIT.match(args.source_commit):
        return refuse(f"--source-commit: {args.source_commit!r} is not a commit id (7 to 40 lowercase hex digits, "
                      "e.g. from `git rev-parse HEAD`)")
    return write_leaderboard(root, readme=args.readme, source_commit=args.source_commit)


def write_leaderboard(root: Path, *, readme: bool = False, source_commit: str = "") -> int:
    """Build the leaderboard of the tree ``root`` from its result tables and write results/leaderboard.* (and
    README.md's block when ``readme``) as one set; print a summary line. 0, or 1 after printing every problem
    (nothing written); OutputError when the set could not be written."""
    # The board holds every run's row; with the collector on, each collection walks it again, and so does each
    # chart worker forked from it (100 x 300 x 3: 13.2 s with the collector, 8.0 s without; the workers' peak
    # 391 -> 427 MiB, as figures' cycles wait for the process to end).
    with collector_paused():
        files, board, problems = build_files(root, source_commit)
    outputs, problems = leaderboard_outputs(root, files, problems, readme=readme)
    if board is None or outputs is None:
        return report(problems)
    write_many_atomic(outputs)
    print(summary(root, board))
    return 0


def leaderboard_outputs(root: Path, files: dict[str, bytes] | None, problems: list[Problem], *, readme: bool
                        ) -> tuple[dict[Path, bytes] | None, list[Problem]]:
    """Path -> bytes of the leaderboard files (and README.md when ``readme``), or None with every problem (the
    README's block is checked even when the build failed, so that every problem is reported at once)."""
    outputs: dict[Path, bytes] = {}
    if readme:
        text, problem = embed_in_readme(root, files[MARKDOWN_FILE].decode("utf-8") if files else "")
        problems = problems + ([problem] if problem else [])
        if text is not None:
            outputs[root / README_FILE] = text
    if files is None or problems:
        return None, problems
    outputs.update({root / "results" / name: data for name, data in files.items()})
    return outputs, []


def summary(root: Path, board: Board) -> str:
    """The line `make leaderboard` prints after writing."""
    return (f"leaderboard: {len(board.ranked)} ranked, {len(board.incomplete)} incomplete, "
            f"{len(board.disqualified)} disqualified, {len(board.unscored)} unscored -> "
            f"{root.name or root}/results/leaderboard.{{csv,html,md}}")

"""One leaderboard build: inputs under a tree -> the bytes of every file it writes.

Nothing is written here; the script writes the returned files atomically, and
only when there is no problem, so bad input leaves ``results/`` untouched.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from ..problems import Problem
from .board import Board, build_board
from .html_page import HTML_FILE, leaderboard_html
from .inputs import load_inputs
from .leaderboard_csv import LEADERBOARD_FILE, leaderboard_csv
from .markdown import MARKDOWN_FILE, leaderboard_markdown


def render(board: Board) -> dict[str, bytes]:
    """File name inside results/ -> exact bytes (UTF-8, ``\\n`` line endings)."""
    texts = {
        LEADERBOARD_FILE: leaderboard_csv(board),
        HTML_FILE: leaderboard_html(board),
        MARKDOWN_FILE: leaderboard_markdown(board),
    }
    return {name: text.encode("utf-8") for name, text in texts.items()}


class Built(NamedTuple):
    """A build's files (name inside results/ -> bytes) and board, or (None, None) and the problems."""

    files: dict[str, bytes] | None
    board: Board | None
    problems: list[Problem]


def build_files(root: Path) -> Built:
    """Load, check, rank and render."""
    inputs, problems = load_inputs(Path(root))
    if inputs is None:
        return Built(None, None, problems)
    board = build_board(inputs)
    return Built(render(board), board, [])

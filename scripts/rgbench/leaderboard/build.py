"""One leaderboard build: inputs under a tree -> the bytes of every file it writes.

Nothing is written here; the script writes the returned files atomically, and
only when there is no problem, so bad input leaves ``results/`` untouched.
"""

from __future__ import annotations

from pathlib import Path

from ..problems import Problem
from .board import Board, build_board
from .html_page import HTML_FILE, leaderboard_html
from .inputs import load_inputs
from .leaderboard_csv import LEADERBOARD_FILE, leaderboard_csv
from .markdown import MARKDOWN_FILE, leaderboard_markdown

OUTPUT_FILES = (LEADERBOARD_FILE, HTML_FILE, MARKDOWN_FILE)


def render(board: Board) -> dict[str, bytes]:
    """File name inside results/ -> exact bytes (UTF-8, ``\\n`` line endings)."""
    texts = {
        LEADERBOARD_FILE: leaderboard_csv(board),
        HTML_FILE: leaderboard_html(board),
        MARKDOWN_FILE: leaderboard_markdown(board),
    }
    return {name: text.encode("utf-8") for name, text in texts.items()}


def build_files(root: Path) -> tuple[dict[str, bytes] | None, Board | None, list[Problem]]:
    """Load, check, rank and render. Returns (files, board, []) or (None, None, problems)."""
    inputs, problems = load_inputs(Path(root))
    if inputs is None:
        return None, None, problems
    board = build_board(inputs)
    return render(board), board, []

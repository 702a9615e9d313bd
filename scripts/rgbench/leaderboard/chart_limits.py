"""How many subjects a chart draws on a large board.

A chart with a bar, a heatmap row or a reliability diagram per subject stays readable, and the page stays a few
MB, up to :data:`CHART_SUBJECTS` subjects; a chart with a line per subject, up to :data:`LINE_SUBJECTS` (one
colour and marker each: the palette has eight). Beyond them a chart draws the first scored subjects in
leaderboard order (the top of the board) and its caption says so and where every subject's figures are (the
page's tables and the result CSVs hold them all). At 150 subjects the uncapped charts made an 11 MB page, most
of it 150 reliability diagrams and a 150-row family heatmap; a board of up to 20 subjects draws exactly as before.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from .board import Board
from .lab_charts import PALETTE

CHART_SUBJECTS = 20
LINE_SUBJECTS = len(PALETTE)


def charted(board: Board, limit: int) -> Board:
    """``board`` with only its first ``limit`` scored entries (leaderboard order), for the chart specs; the
    board itself when it has no more."""
    scored = board.scored
    return board if len(scored) <= limit else replace(board, entries=scored[:limit])


def chart_note(board: Board, limit: int, where: str, esc: Callable[[str], str]) -> str:
    """`` Drawn: the first <limit> of <n> scored subjects, in leaderboard order; every subject is in <where>.``
    (with a leading space) when the chart leaves subjects out, else ``""``."""
    total = len(board.scored)
    if total <= limit:
        return ""
    return esc(f" Drawn: the first {limit} of {total} scored subjects, in leaderboard order; every subject is in "
               f"{where}.")

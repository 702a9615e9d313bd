"""Every chart of the page, drawn as one batch: the leaderboard's (:mod:`.charts`) and the lab's
(:mod:`.lab_charts`), on every core when there are many.

A 100-subject board has 106 charts (one reliability diagram per subject); its three lab charts and
the family heatmap take about a second each, the diagrams a twentieth. They are handed to a fork pool
one at a time, the heavy ones first, so that both cores stay busy to the end; the page receives them
in page order. The bytes are the same as drawn one by one: each drawing depends on its values alone.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..load.parallel import usable_cores
from .board import Board
from .chart_limits import CHART_SUBJECTS, LINE_SUBJECTS, charted
from .charts import (
    CALIBRATION,
    FAMILIES,
    Q_FINAL,
    Chart,
    calibration_spec,
    draw_calibration,
    draw_families,
    draw_q_final,
    families_spec,
    q_final_spec,
)
from .lab_charts import (
    CRITERIA_CHART,
    DIFFICULTY_CHART,
    PASS_AT_K_CHART,
    criteria_spec,
    difficulty_spec,
    draw_criteria,
    draw_difficulty,
    draw_pass_at_k,
    pass_at_k_spec,
)

DRAWINGS: dict[str, Callable[[Chart], str]] = {
    Q_FINAL: draw_q_final, CALIBRATION: draw_calibration, FAMILIES: draw_families,
    CRITERIA_CHART: draw_criteria, DIFFICULTY_CHART: draw_difficulty, PASS_AT_K_CHART: draw_pass_at_k,
}
# Below this many charts, starting worker processes costs more than it saves (~0.05 s a reliability diagram).
PARALLEL_MIN_CHARTS = 8


@dataclass(frozen=True)
class PageSvgs:
    """The page's SVGs; None (or no diagram) where there is nothing to draw."""

    q_final: str | None
    calibration: list[str]   # one per charted scored entry with runs (chart_limits), in leaderboard order
    families: str | None
    criteria: str | None
    difficulty: str | None
    pass_at_k: str | None


def chart_svg(chart: Chart) -> str:
    """The chart's inline SVG (byte-deterministic)."""
    return DRAWINGS[chart.kind](chart)


def chart_svgs(charts: Sequence[Chart]) -> list[str]:
    """Every chart's SVG, in order; in a fork pool, one chart a task, when there are many (the inputs are
    already checked)."""
    cores = usable_cores()
    if len(charts) < PARALLEL_MIN_CHARTS or cores < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return [chart_svg(chart) for chart in charts]
    with multiprocessing.get_context("fork").Pool(cores) as pool:
        return pool.map(chart_svg, charts, chunksize=1)


def page_svgs(board: Board) -> PageSvgs:
    """Every SVG :func:`~.html_page.leaderboard_html` shows for ``board``: on a large board, of its first
    scored subjects (:mod:`.chart_limits`)."""
    top, lines = charted(board, CHART_SUBJECTS), charted(board, LINE_SUBJECTS)
    heavy = {CRITERIA_CHART: criteria_spec(top), DIFFICULTY_CHART: difficulty_spec(lines),
             FAMILIES: families_spec(top), PASS_AT_K_CHART: pass_at_k_spec(lines), Q_FINAL: q_final_spec(top.scored)}
    diagrams = [chart for index, entry in enumerate(top.scored)
                if (chart := calibration_spec(entry, index, board.ece_bins)) is not None]
    named = [(name, chart) for name, chart in heavy.items() if chart is not None]
    drawn = chart_svgs([chart for _, chart in named] + diagrams)
    svg = dict(zip((name for name, _ in named), drawn))
    return PageSvgs(q_final=svg.get(Q_FINAL), calibration=drawn[len(named):], families=svg.get(FAMILIES),
                    criteria=svg.get(CRITERIA_CHART), difficulty=svg.get(DIFFICULTY_CHART),
                    pass_at_k=svg.get(PASS_AT_K_CHART))

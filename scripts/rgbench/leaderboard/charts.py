"""The leaderboard's three charts, drawn with matplotlib and returned as inline SVG text.

* :func:`q_final_chart`: Q_final per scored subject, leaderboard order, the
  disqualified hatched in grey (error bars will join once intervals exist);
* :func:`reliability_diagram`: one subject's accuracy against confidence over
  the fixed bins, with each bin's count, the diagonal, and ECE in the title;
* :func:`family_heatmap`: subjects by family, coloured by P_family, each cell
  giving P_family, its runs and its distinct cases.

Each function is pure given its arguments and returns ``None`` when there is
nothing to draw. Names are the registry's display names, shortened to fit.
"""

from __future__ import annotations

import textwrap
from typing import Sequence

from matplotlib.colors import BoundaryNorm, LinearSegmentedColormap

from ..numfmt import fmt_fixed
from .board import Board, Entry
from .ranking import DISQUALIFIED
from .svg import chart_style, figure_svg, new_figure

INK = "#1f2933"
MUTED = "#616e7c"
RANKED_COLOUR = "#2f6f9f"
DQ_FACE, DQ_EDGE = "#d9dde3", "#b42318"
GRID = "#e4e7eb"
# Ten steps of 0.1: a vector colour bar (a continuous one would be embedded as a bitmap) that reads easily.
HEAT = LinearSegmentedColormap.from_list("rgbench-heat", ["#f7fbff", "#9ecae1", "#2171b5", "#08306b"], N=10).with_extremes(bad="#f0f2f5")
HEAT_NORM = BoundaryNorm([i / 10 for i in range(11)], HEAT.N)
MAX_LABEL = 30
DIAGRAM_MARGINS = {"left": 0.17, "right": 0.96, "bottom": 0.14, "top": 0.86}


def short(name: str, limit: int = MAX_LABEL) -> str:
    """``name`` on one line, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(name.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "\u2026"


def subject_label(entry: Entry) -> str:
    """Axis label: ``#rank name`` for ranked subjects, ``DQ name`` for disqualified ones."""
    prefix = "DQ" if entry.status == DISQUALIFIED else f"#{entry.rank}"
    return f"{prefix}  {short(entry.name)}"


def _tidy(ax) -> None:
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.tick_params(colors=MUTED, labelcolor=INK)


def q_final_chart(entries: Sequence[Entry]) -> str | None:
    """Horizontal bars of Q_final (0..1) for the scored entries, best at the top, with interval whiskers if known."""
    if not entries:
        return None
    with chart_style():
        fig = new_figure(7.2, 0.9 + 0.42 * len(entries))
        ax = fig.add_subplot()
        positions = list(range(len(entries)))[::-1]
        for y, entry in zip(positions, entries):
            value = float(entry.metrics.q_final)
            dq = entry.status == DISQUALIFIED
            ax.barh(y, value, height=0.62, color=DQ_FACE if dq else RANKED_COLOUR,
                    edgecolor=DQ_EDGE if dq else RANKED_COLOUR, hatch="///" if dq else None, linewidth=0.8)
            end = value
            interval = entry.intervals.get("Q_final")
            if interval is not None:
                low, high = float(interval[0]), float(interval[1])
                ax.errorbar(value, y, xerr=[[value - low], [high - value]], fmt="none", ecolor=INK,
                            elinewidth=1, capsize=3)
                end = max(value, high)
            note = fmt_fixed(entry.metrics.q_final, 3) + ("  disqualified" if dq else "")
            ax.text(end + 0.015, y, note, va="center", ha="left", color=DQ_EDGE if dq else INK, fontsize=8.5)
        ax.set_yticks(positions, [subject_label(e) for e in entries])
        ax.set_xlim(0, 1.2)
        ax.set_xticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
        ax.set_xlabel("Q_final (higher is better)", color=INK)
        ax.xaxis.grid(True, color=GRID, linewidth=0.8)
        ax.set_axisbelow(True)
        _tidy(ax)
        return figure_svg(fig, scope="chart-q-final", title="Q_final by subject, leaderboard order")


def reliability_diagram(entry: Entry, index: int, bins: int) -> str | None:
    """Accuracy (mean correctness) per confidence bin for one subject, with counts and the diagonal.

    ``index`` makes the chart's ids unique on the page; ``bins`` is the ECE bin count.
    Returns None for a subject without scored runs.
    """
    if not entry.bins or entry.metrics.ece is None:
        return None
    width = 1 / bins
    with chart_style():
        fig = new_figure(3.5, 3.3, margins=DIAGRAM_MARGINS)
        ax = fig.add_subplot()
        ax.plot([0, 1], [0, 1], linestyle="--", color=MUTED, linewidth=1, label="perfect calibration")
        for b in entry.bins:
            left = b.index * width
            accuracy = float(b.mean_correctness)
            ax.bar(left, accuracy, width=width, align="edge", color=RANKED_COLOUR, alpha=0.75,
                   edgecolor="white", linewidth=0.8)
            ax.plot([float(b.mean_confidence)], [accuracy], marker="o", markersize=3.5, color=INK)
            # The bin counts in one strip above the plot: readable even when neighbouring bars are tall.
            ax.text(left + width / 2, 1.075, str(b.count), ha="center", va="center", fontsize=7, color=INK)
        ax.text(-0.02, 1.075, "runs", ha="right", va="center", fontsize=7, color=MUTED)
        ax.axhline(1.0, color=GRID, linewidth=0.8)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.15)
        ax.set_xticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
        ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
        ax.set_xlabel("reported confidence", color=INK)
        ax.set_ylabel("accuracy (mean correctness)", color=INK)
        ece = fmt_fixed(entry.metrics.ece, 3)
        ax.set_title(f"{subject_label(entry)}\nECE {ece} ({entry.reliability['ECE']})", color=INK, fontsize=9.5)
        _tidy(ax)
        title = f"Reliability diagram of {entry.name}: ECE {ece}"
        return figure_svg(fig, scope=f"chart-calibration-{index}", title=title)


def family_heatmap(board: Board, entries: Sequence[Entry]) -> str | None:
    """P_family for each scored entry (rows, leaderboard order) and each declared family (columns)."""
    codes = [code for code in board.families if any(code in e.families for e in entries)]
    if not entries or not codes:
        return None
    with chart_style():
        fig = new_figure(2.4 + 1.45 * len(codes), 1.5 + 0.52 * len(entries))
        ax = fig.add_subplot()
        grid = [[float(e.families[c].p_family) if c in e.families else float("nan") for c in codes] for e in entries]
        image = ax.pcolormesh(grid, cmap=HEAT, norm=HEAT_NORM, edgecolors="white", linewidth=1.5)
        ax.set_xlim(0, len(codes))
        ax.set_ylim(len(entries), 0)
        for row, entry in enumerate(entries):
            for col, code in enumerate(codes):
                cell = entry.families.get(code)
                if cell is None:
                    ax.text(col + 0.5, row + 0.5, "\u2014", ha="center", va="center", color=MUTED)
                    continue
                colour = "white" if cell.p_family >= 0.5 else INK
                ax.text(col + 0.5, row + 0.38, fmt_fixed(cell.p_family, 3), ha="center", va="center", color=colour, fontsize=9)
                cases = f"{cell.n_cases} case" + ("" if cell.n_cases == 1 else "s")
                ax.text(col + 0.5, row + 0.72, f"n={cell.n_family} \u00b7 {cases}", ha="center", va="center",
                        color=colour, fontsize=6.5)
        ax.set_xticks([i + 0.5 for i in range(len(codes))], [textwrap.fill(board.families[c], 16) for c in codes], fontsize=7.5)
        ax.set_yticks([i + 0.5 for i in range(len(entries))], [subject_label(e) for e in entries])
        ax.xaxis.tick_top()
        ax.tick_params(length=0)
        for spine in ax.spines.values():
            spine.set_visible(False)
        bar = fig.colorbar(image, ax=ax, shrink=0.8, pad=0.02, ticks=[0, 0.2, 0.4, 0.6, 0.8, 1.0])
        bar.set_label("P_family", color=INK)
        bar.outline.set_visible(False)
        return figure_svg(fig, scope="chart-families", title="P_family by subject and family")

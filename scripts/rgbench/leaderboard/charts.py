"""The leaderboard's three charts (Q_final bars, one reliability diagram per subject, the family heatmap).

Each ``*_spec`` returns a :class:`Chart` (or ``None`` when there is nothing to draw): its ``data`` holds
every value the drawing shows and nothing else, so its ``draw_*`` draws it with matplotlib (:mod:`.svg`)
from that alone, and a page's charts can be drawn on every core (:mod:`.page_charts`) with the same bytes
as one by one. Names are the registry's display names, shortened to fit.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from matplotlib.colors import BoundaryNorm, LinearSegmentedColormap
from matplotlib.font_manager import FontProperties
from matplotlib.textpath import TextToPath

from ..compute.ranking import DISQUALIFIED
from ..numfmt import counted, fmt_fixed
from .board import Board, BoardEntry, FamilyCell
from .svg import RC, chart_style, figure_svg, new_figure

MAX_LABEL = 30
_TEXT = TextToPath()   # measures a label in the charts' font, as drawn (text is drawn as paths)
Q_FINAL, CALIBRATION, FAMILIES = "q-final", "calibration", "families"


@dataclass(frozen=True)
class Chart:
    """One chart: the drawing (``kind``), the scope of its SVG ids, and ``data``: every value it shows."""

    kind: str
    scope: str
    data: tuple


def short(name: str, limit: int = MAX_LABEL) -> str:
    """``name`` on one line, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(name.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "\u2026"


def heatmap_width(base: float, per_column: float, columns: int, labels: Sequence[str]) -> float:
    """Inches for a heatmap of ``columns`` columns with ``labels`` on its rows and a colour bar: ``base +
    per_column x columns``, widened when that leaves no room for the axes (matplotlib's constrained layout then
    gives up, "axes sizes collapsed to zero", and warns): one criterion or one family beside long labels. The
    labels are measured in the charts' font (DejaVu Sans, 9 points); the colour bar, its label and the pads
    take 1.1 in, each column at least half an inch."""
    font = FontProperties(family=RC["font.sans-serif"], size=RC["font.size"])
    longest = max((_TEXT.get_text_width_height_descent(label, font, ismath=False)[0] for label in labels), default=0)
    return max(base + per_column * columns, longest / 72 + 1.1 + 0.5 * columns)


def subject_label(entry: BoardEntry) -> str:
    """Axis label: ``#rank name`` for ranked subjects, ``DQ name`` for disqualified ones, ``inc. name`` for
    Incomplete ones (too few cases to be ranked)."""
    prefix = "DQ" if entry.status == DISQUALIFIED else "inc." if entry.rank is None else f"#{entry.rank}"
    return f"{prefix}  {short(entry.name)}"


def q_final_spec(entries: Sequence[BoardEntry]) -> Chart | None:
    """Per scored entry: (label, Q_final, disqualified, Q_final's interval or None)."""
    if not entries:
        return None
    return Chart(Q_FINAL, "chart-q-final", tuple(
        (subject_label(e), e.metrics.q_final, e.status == DISQUALIFIED, e.intervals.get("Q_final"))
        for e in entries))


def calibration_spec(entry: BoardEntry, index: int, bins: int) -> Chart | None:
    """(label, name, ECE, ECE's reliability label, (bin index, count, confidence sum, correctness sum) per
    non-empty bin, bin count). ``index`` makes the chart's ids unique on the page. None without scored runs."""
    if not entry.bins or entry.metrics.ece is None:
        return None
    cells = tuple((b.index, b.count, b.confidence_sum, b.correctness_sum) for b in entry.bins)
    return Chart(CALIBRATION, f"chart-calibration-{index}", (
        subject_label(entry), entry.name, entry.metrics.ece, entry.reliability["ECE"], cells, bins))


def families_spec(board: Board) -> Chart | None:
    """((code, family name) per family with a figure, (label, (P_family, n_family, n_cases) or None per
    family) per scored entry); without a pass rule s_bar_family / max_score takes P_family's place (then a
    third item names it)."""
    codes = board.family_codes
    if not codes:
        return None
    passes = board.shown.pass_rule

    def value(cell: FamilyCell) -> Fraction | None:
        return cell.p_family if passes else board.scale.norm(cell.s_bar_family)
    rows = tuple((subject_label(e), tuple(None if code not in e.families else (
        value(e.families[code]), e.families[code].n_family, e.families[code].n_cases) for code in codes))
        for e in board.scored)
    named = () if passes else (board.scale.norm_text("s\u0304_family"),)
    return Chart(FAMILIES, "chart-families", (tuple((code, board.families[code]) for code in codes), rows, *named))


INK = "#1f2933"
MUTED = "#616e7c"
RANKED_COLOUR = "#2f6f9f"
DQ_FACE, DQ_EDGE = "#d9dde3", "#b42318"
GRID = "#e4e7eb"
# Ten steps of 0.1: a vector colour bar (a continuous one would be embedded as a bitmap) that reads easily.
HEAT = LinearSegmentedColormap.from_list(
    "rgbench-heat", ["#f7fbff", "#9ecae1", "#2171b5", "#08306b"], N=10).with_extremes(bad="#f0f2f5")
HEAT_NORM = BoundaryNorm([i / 10 for i in range(11)], HEAT.N)
DIAGRAM_MARGINS = {"left": 0.17, "right": 0.96, "bottom": 0.14, "top": 0.86}


def _tidy(ax) -> None:
    """No top and right spines, muted ticks. Called on a new Axes, before its ticks are set: each tick is then
    made with this style instead of being restyled one by one."""
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.tick_params(colors=MUTED, labelcolor=INK)


def draw_q_final(chart: Chart) -> str:
    """Horizontal bars of Q_final (0..1), best at the top, the disqualified hatched, with interval whiskers if known."""
    rows = chart.data
    with chart_style():
        fig = new_figure(7.2, 0.9 + 0.42 * len(rows))
        ax = fig.add_subplot()
        _tidy(ax)
        positions = list(range(len(rows)))[::-1]
        for y, (_, q_final, dq, interval) in zip(positions, rows):
            value = float(q_final)
            ax.barh(y, value, height=0.62, color=DQ_FACE if dq else RANKED_COLOUR,
                    edgecolor=DQ_EDGE if dq else RANKED_COLOUR, hatch="///" if dq else None, linewidth=0.8)
            end = value
            if interval is not None:
                low, high = float(interval[0]), float(interval[1])
                ax.errorbar(value, y, xerr=[[value - low], [high - value]], fmt="none", ecolor=INK,
                            elinewidth=1, capsize=3)
                end = max(value, high)
            note = fmt_fixed(q_final, 3) + ("  disqualified" if dq else "")
            ax.text(end + 0.015, y, note, va="center", ha="left", color=DQ_EDGE if dq else INK, fontsize=8.5)
        ax.set_yticks(positions, [label for label, *_ in rows])
        ax.set_xlim(0, 1.2)
        ax.set_xticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
        ax.set_xlabel("Q_final (higher is better)", color=INK)
        ax.xaxis.grid(True, color=GRID, linewidth=0.8)
        ax.set_axisbelow(True)
        return figure_svg(fig, scope=chart.scope, title="Q_final by subject, leaderboard order")


def draw_calibration(chart: Chart) -> str:
    """One subject's accuracy (mean correctness) per confidence bin, with counts and the diagonal."""
    label, name, ece_value, ece_label, bins, n_bins = chart.data
    width = 1 / n_bins
    with chart_style():
        fig = new_figure(3.5, 3.3, margins=DIAGRAM_MARGINS)
        ax = fig.add_subplot()
        _tidy(ax)
        ax.plot([0, 1], [0, 1], linestyle="--", color=MUTED, linewidth=1, label="perfect calibration")
        accuracies = [float(correctness_sum / count) for _, count, _, correctness_sum in bins]
        ax.bar([index * width for index, *_ in bins], accuracies, width=width, align="edge", color=RANKED_COLOUR,
               alpha=0.75, edgecolor="white", linewidth=0.8)
        for (index, count, confidence_sum, _), accuracy in zip(bins, accuracies):
            left = index * width
            ax.plot([float(confidence_sum / count)], [accuracy], marker="o", markersize=3.5, color=INK)
            # The bin counts in one strip above the plot: readable even when neighbouring bars are tall.
            ax.text(left + width / 2, 1.075, str(count), ha="center", va="center", fontsize=7, color=INK)
        ax.text(-0.02, 1.075, "runs", ha="right", va="center", fontsize=7, color=MUTED)
        ax.axhline(1.0, color=GRID, linewidth=0.8)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.15)
        ax.set_xticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
        ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
        ax.set_xlabel("reported confidence", color=INK)
        ax.set_ylabel("accuracy (mean correctness)", color=INK)
        ece = fmt_fixed(ece_value, 3)
        # y=1.0 fixed: matplotlib's automatic title placement would look for top tick labels to clear (there
        # are none) on every draw; the title lands where it would anyway
        ax.set_title(f"{label}\nECE {ece} ({ece_label})", color=INK, fontsize=9.5, y=1.0)
        return figure_svg(fig, scope=chart.scope, title=f"Reliability diagram of {name}: ECE {ece}")


def draw_families(chart: Chart) -> str:
    """P_family (or the figure the data names) for each row (leaderboard order) and each family column, each cell
    with its runs and cases."""
    families, rows, *named = chart.data
    figure = named[0] if named else "P_family"
    n_cols, n_rows = len(families), len(rows)
    with chart_style():
        fig = new_figure(heatmap_width(2.4, 1.45, n_cols, [label for label, _ in rows]), 1.5 + 0.52 * n_rows)
        ax = fig.add_subplot()
        ax.xaxis.tick_top()
        ax.tick_params(length=0)  # before the ticks are set, as in _tidy
        grid = [[float(cell[0]) if cell is not None else float("nan") for cell in cells] for _, cells in rows]
        image = ax.pcolormesh(grid, cmap=HEAT, norm=HEAT_NORM, edgecolors="white", linewidth=1.5)
        ax.set_xlim(0, n_cols)
        ax.set_ylim(n_rows, 0)
        for row, (_, cells) in enumerate(rows):
            for col, cell in enumerate(cells):
                if cell is None:
                    ax.text(col + 0.5, row + 0.5, "\u2014", ha="center", va="center", color=MUTED)
                    continue
                p_family, n_family, n_cases = cell
                colour = "white" if p_family >= 0.5 else INK
                ax.text(col + 0.5, row + 0.38, fmt_fixed(p_family, 3), ha="center", va="center", color=colour, fontsize=9)
                ax.text(col + 0.5, row + 0.72, f"n={n_family} \u00b7 {counted(n_cases, 'case')}", ha="center", va="center",
                        color=colour, fontsize=6.5)
        ax.set_xticks([i + 0.5 for i in range(n_cols)], [textwrap.fill(name, 16) for _, name in families], fontsize=7.5)
        ax.set_yticks([i + 0.5 for i in range(n_rows)], [label for label, _ in rows])
        for spine in ax.spines.values():
            spine.set_visible(False)
        bar = fig.colorbar(image, ax=ax, shrink=0.8, pad=0.02, ticks=[0, 0.2, 0.4, 0.6, 0.8, 1.0])
        bar.set_label(figure, color=INK)
        bar.outline.set_visible(False)
        return figure_svg(fig, scope=chart.scope, title=f"{figure} by subject and family")

"""The lab charts (issue 15): criterion heatmap, difficulty progression with intervals, pass@k curves.

Like :mod:`.charts`, each ``*_spec`` returns the values a chart shows (or None when there is nothing to
draw) and each ``draw_*`` draws from those values alone with matplotlib, byte-deterministically
(:mod:`.svg`). Values come from the committed CSVs as 6-decimal text and are drawn as floats.
"""

from __future__ import annotations

from matplotlib.axes import Axes
from matplotlib.colors import BoundaryNorm, LinearSegmentedColormap
from matplotlib.figure import Figure

from ..results.breakdowns import CRITERION_FILE
from ..stats.outputs import DIFFICULTY_FILE, PASS_AT_K_FILE
from .board import Board
from .charts import GRID, INK, Chart, _tidy, heatmap_width, short, subject_label
from .svg import chart_style, figure_svg, new_figure

CRITERIA_CHART, DIFFICULTY_CHART, PASS_AT_K_CHART = "chart-criteria", "chart-difficulty", "chart-pass-at-k"
PALETTE = ("#2f6f9f", "#c2410c", "#15803d", "#7c3aed", "#b42318", "#0e7490", "#a16207", "#475467")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
CRIT_HEAT = LinearSegmentedColormap.from_list(
    "rgbench-criteria", ["#fef3f2", "#fde68a", "#9ecae1", "#08306b"], N=8).with_extremes(bad="#f0f2f5")


def _scored(board: Board) -> list[tuple[str, str]]:
    """(subject_id, axis label) of every scored entry, in leaderboard order."""
    return [(e.metrics.subject_id, subject_label(e)) for e in board.scored]


def criteria_spec(board: Board) -> Chart | None:
    """data (criteria, ((label, (mean or None per criterion)) per scored subject), (criterion_min, criterion_max,
    higher is better)), or None without the table."""
    if board.lab is None or not board.lab.get(CRITERION_FILE):
        return None
    means = {(r["subject_id"], r["criterion"]): float(r["mean"]) for r in board.lab.get(CRITERION_FILE)}
    criteria = tuple(c for c in board.criteria if any(k[1] == c for k in means))
    rows = tuple((label, tuple(means.get((sid, c)) for c in criteria)) for sid, label in _scored(board))
    low, high = board.criterion_range
    scale = (float(low), float(high), board.scale.higher_is_better)
    return Chart(CRITERIA_CHART, CRITERIA_CHART, (criteria, rows, scale)) if criteria and rows else None


def draw_criteria(chart: Chart) -> str:
    """Subjects (rows) by criteria (columns), coloured by the mean score on the rubric's criterion scale, each cell
    labelled. The colour grows with the quality: with lower is better (penalties), the scale is reversed."""
    criteria, rows, (low, high, higher) = chart.data
    span = high - low
    with chart_style():
        fig = new_figure(heatmap_width(1.9, 0.95, len(criteria), [label for label, _ in rows]), 0.9 + 0.42 * len(rows))
        ax = fig.add_subplot()
        ax.tick_params(length=0, labelcolor=INK)  # before the ticks are set, as in _tidy
        n_cols, n_rows = len(criteria), len(rows)
        # coloured by quality: a penalty p is drawn as high + low - p, so the darkest cell is the best on both scales
        matrix = [[float("nan") if v is None else v if higher else high + low - v for v in values] for _, values in rows]
        image = ax.pcolormesh(matrix, cmap=CRIT_HEAT, norm=BoundaryNorm([low + span * i / 8 for i in range(9)], CRIT_HEAT.N),
                              edgecolors="white", linewidth=1.5)
        ax.set_xlim(0, n_cols)
        ax.set_ylim(n_rows, 0)
        for y, (_, values) in enumerate(rows):
            for x, value in enumerate(values):
                if value is not None:
                    quality = value if higher else high + low - value
                    ax.text(x + 0.5, y + 0.5, f"{value:.2f}", ha="center", va="center", fontsize=9,
                            color="#ffffff" if quality >= low + 0.75 * span else INK)
        ax.set_xticks([i + 0.5 for i in range(n_cols)], [c.replace("_", " ") for c in criteria], rotation=20, ha="right")
        ax.set_yticks([i + 0.5 for i in range(n_rows)], [label for label, _ in rows])
        for side in ax.spines.values():
            side.set_visible(False)
        ticks = [low + span * i / 4 for i in range(5)]
        bar = fig.colorbar(image, ax=ax, shrink=0.8, ticks=ticks)
        if not higher:   # the ticks name the penalty each colour stands for
            bar.set_ticks(ticks, labels=[f"{high + low - t:g}" for t in ticks])
        bar.set_label(f"mean criterion score ({low:g}-{high:g}" + (")" if higher else ", lower is better)"), color=INK)
        bar.outline.set_visible(False)
        return figure_svg(fig, scope=chart.scope, title="Mean score per criterion and subject")


def difficulty_spec(board: Board) -> Chart | None:
    """data ((label, ((difficulty, P, low, high) per level)) per scored subject with rows), or None."""
    if board.lab is None or not board.lab.get(DIFFICULTY_FILE):
        return None
    by_subject: dict[str, list[tuple[int, float, float, float]]] = {}
    for r in board.lab.get(DIFFICULTY_FILE):
        if r["P_difficulty"] and r["difficulty"]:
            by_subject.setdefault(r["subject_id"], []).append(
                (int(r["difficulty"]), float(r["P_difficulty"]), float(r["P_difficulty_low"] or r["P_difficulty"]),
                 float(r["P_difficulty_high"] or r["P_difficulty"])))
    return _lines_spec(board, DIFFICULTY_CHART, by_subject)


def _lines_spec(board: Board, name: str, by_subject: dict[str, list]) -> Chart | None:
    """(label, its points sorted) per scored subject with points, in leaderboard order; None without any."""
    rows = tuple((label, tuple(sorted(by_subject[sid]))) for sid, label in _scored(board) if sid in by_subject)
    return Chart(name, name, rows) if rows else None


def _line_axes(rows: tuple) -> tuple[Figure, Axes]:
    """The figure of a chart with one line per row, tall enough for its legend below the plot."""
    fig = new_figure(7.2, 4.2 + 0.22 * ((len(rows) + 1) // 2))
    ax = fig.add_subplot()
    _tidy(ax)
    return fig, ax


def _finish_lines(ax: Axes, rows: tuple, xlabel: str, ylabel: str, ylabel_size: float) -> None:
    """Every x of the points as a tick, the axis labels, the 0-1 y range with its grid, and the legend below."""
    xs = sorted({x for _, points in rows for x, *_ in points})
    ax.set_xticks(xs, [str(x) for x in xs])
    ax.set_xlabel(xlabel, color=INK)
    ax.set_ylabel(ylabel, color=INK, fontsize=ylabel_size)
    ax.set_ylim(-0.03, 1.03)
    ax.yaxis.grid(True, color=GRID, linewidth=0.8)
    ax.set_axisbelow(True)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2 if len(rows) > 2 else len(rows), frameon=False,
              fontsize=8.5, labelcolor=INK)


def draw_difficulty(chart: Chart) -> str:
    """P per gold difficulty, one line per subject, with case-bootstrap interval whiskers, slightly offset."""
    rows = chart.data
    with chart_style():
        fig, ax = _line_axes(rows)
        spread = 0.08
        for i, (label, points) in enumerate(rows):
            offset = (i - (len(rows) - 1) / 2) * spread
            xs = [d + offset for d, *_ in points]
            ys = [p for _, p, _, _ in points]
            # whiskers from the point to each bound (none past the point: an interval need not contain it)
            err = [[max(p - lo, 0.0) for _, p, lo, _ in points], [max(hi - p, 0.0) for _, p, _, hi in points]]
            colour = PALETTE[i % len(PALETTE)]
            ax.errorbar(xs, ys, yerr=err, color=colour, marker=MARKERS[i % len(MARKERS)], markersize=5,
                        linewidth=1.4, elinewidth=0.9, capsize=2.5, label=short(label, 36))
        _finish_lines(ax, rows, "gold difficulty (1 routine .. 5 expert)", "pass rate P", 9.0)
        return figure_svg(fig, scope=chart.scope, title="Pass rate by difficulty, with case-bootstrap intervals")


def pass_at_k_spec(board: Board) -> Chart | None:
    """data ((label, ((k, pass@k, pass^k) per k with cases)) per scored subject), or None."""
    if board.lab is None or not board.lab.get(PASS_AT_K_FILE):
        return None
    by_subject: dict[str, list[tuple[int, float, float]]] = {}
    for r in board.lab.get(PASS_AT_K_FILE):
        if r["pass_at_k"] and r["pass_hat_k"]:
            by_subject.setdefault(r["subject_id"], []).append(
                (int(r["k"]), float(r["pass_at_k"]), float(r["pass_hat_k"])))
    return _lines_spec(board, PASS_AT_K_CHART, by_subject)


def draw_pass_at_k(chart: Chart) -> str:
    """pass@k (solid) and pass^k (dashed) against k, one colour per subject."""
    rows = chart.data
    with chart_style():
        fig, ax = _line_axes(rows)
        for i, (label, points) in enumerate(rows):
            colour = PALETTE[i % len(PALETTE)]
            ks = [k for k, _, _ in points]
            ax.plot(ks, [a for _, a, _ in points], color=colour, marker=MARKERS[i % len(MARKERS)], markersize=5,
                    linewidth=1.5, label=short(label, 36))
            ax.plot(ks, [h for _, _, h in points], color=colour, linestyle="--", linewidth=1.1)
        _finish_lines(ax, rows, "k (runs drawn per case)", "solid: pass@k (any of k passes); dashed: pass^k (all k pass)", 8)
        return figure_svg(fig, scope=chart.scope, title="pass@k and pass^k by number of runs")

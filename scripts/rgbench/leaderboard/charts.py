"""The leaderboard's three charts, as values: what each shows, before anything is drawn.

* :func:`q_final_spec`: Q_final per scored subject, leaderboard order, the
  disqualified hatched in grey, with interval whiskers when the results carry them;
* :func:`calibration_spec`: one subject's accuracy against confidence over
  the fixed bins, with each bin's count, the diagonal, and ECE in the title;
* :func:`families_spec`: subjects by family, coloured by P_family, each cell
  giving P_family, its runs and its distinct cases.

Each returns a :class:`Chart` (or ``None`` when there is nothing to draw): its
``data`` holds every value the drawing shows and nothing else; :mod:`.drawing`
draws it with matplotlib. Names are the registry's display names, shortened to fit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..compute.ranking import DISQUALIFIED
from .board import Board, BoardEntry

MAX_LABEL = 30
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


def subject_label(entry: BoardEntry) -> str:
    """Axis label: ``#rank name`` for ranked subjects, ``DQ name`` for disqualified ones."""
    prefix = "DQ" if entry.status == DISQUALIFIED else f"#{entry.rank}"
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


def families_spec(board: Board, entries: Sequence[BoardEntry]) -> Chart | None:
    """((code, family name) per family with a figure, (label, (P_family, n_family, n_cases) or None per
    family) per scored entry)."""
    codes = [code for code in board.families if any(code in e.families for e in entries)]
    if not entries or not codes:
        return None
    rows = []
    for e in entries:
        cells = tuple(None if code not in e.families else
                      (e.families[code].p_family, e.families[code].n_family, e.families[code].n_cases) for code in codes)
        rows.append((subject_label(e), cells))
    return Chart(FAMILIES, "chart-families", (tuple((code, board.families[code]) for code in codes), tuple(rows)))


@dataclass(frozen=True)
class PageCharts:
    """The charts of one page: Q_final bars, one diagram per scored entry (None: nothing to draw), the heatmap."""

    q_final: Chart | None
    calibration: tuple[Chart | None, ...]
    families: Chart | None

    def all(self) -> list[Chart]:
        """Every chart to draw, in page order."""
        return [c for c in (self.q_final, *self.calibration, self.families) if c is not None]


def page_charts(board: Board) -> PageCharts:
    """The charts :func:`~.html_page.leaderboard_html` shows for ``board``."""
    scored = board.scored
    return PageCharts(
        q_final=q_final_spec(scored),
        calibration=tuple(calibration_spec(entry, index, board.ece_bins) for index, entry in enumerate(scored)),
        families=families_spec(board, scored),
    )


"""``results/leaderboard.csv``: the ranked table in the committed result format.

Columns start with the twelve issue 3 fixes (REQUIRED_COLUMNS); the ones after
them (EXTRA_COLUMNS) add the rank range (``rank_best``, ``rank_worst``: the
simultaneous 95% rank set of rank_sets.csv, Ranked rows only; see rank_ranges.py), the distinct-case count,
the benchmark's cases without a scored run (count and list: why a row is Incomplete), one reliability label per
metric, the metric's interval when the statistics provide one (same column
names as metrics_per_subject.csv; empty otherwise), the unscored responses, the
critical-fail evidence and the registry metadata. The label columns are named
``<metric>_reliability_label`` so they are never mistaken for the Brier
decomposition's numeric ``BS_reliability`` of metrics_per_subject.csv.
Same format as the other result files (:func:`rgbench.results_csv.csv_line`): UTF-8, ``\\n``,
6-decimal fractions, empty cells where a value is undefined.
"""

from __future__ import annotations

from ..numfmt import fmt_fixed
from ..results.tables import csv_text
from .board import Board, BoardEntry
from .critical_fails import CriticalFail
from .registry import METADATA_FIELDS
from .reliability import SUBJECT_FIGURES
from .results_tables import SUBJECT_INTERVALS

LEADERBOARD_FILE = "leaderboard.csv"
REQUIRED_COLUMNS = (
    "rank", "subject_id", "subject_version", "display_name", "leaderboard_status",
    "N", "P", "s_bar", "Q_final", "BS", "ECE", "n_critical",
)
RELIABILITY_COLUMNS = tuple(f"{figure}_reliability_label" for figure in SUBJECT_FIGURES)
INTERVAL_COLUMNS = tuple(column for figure in SUBJECT_FIGURES for column in SUBJECT_INTERVALS[figure])
RANK_RANGE_COLUMNS = ("rank_best", "rank_worst")
EXTRA_COLUMNS = (*RANK_RANGE_COLUMNS, "n_cases", "n_cases_missing", "missing_cases", *RELIABILITY_COLUMNS,
                 *INTERVAL_COLUMNS, "n_unscored", "critical_fails", *METADATA_FIELDS)
COLUMNS = REQUIRED_COLUMNS + EXTRA_COLUMNS


def fail_cell(fails: tuple[CriticalFail, ...]) -> str:
    """``case_id/run_id:CODE[+CODE]`` per run with a critical fail, joined by ``;`` (per_run order)."""
    return ";".join(f"{f.case_id}/{f.run_id}:{'+'.join(f.codes)}" for f in fails)


def interval_cells(entry: BoardEntry) -> dict[str, str]:
    """The INTERVAL_COLUMNS of one entry: bounds with 6 decimals, empty where there is no interval."""
    return {column: fmt_fixed(bound) for figure in SUBJECT_FIGURES  # fmt_fixed(None) is ""
            for column, bound in zip(SUBJECT_INTERVALS[figure], entry.intervals.get(figure, (None, None)))}


def csv_row(entry: BoardEntry) -> tuple[str, ...]:
    """One entry as the cells of COLUMNS."""
    m = entry.metrics
    values = {
        "rank": "" if entry.rank is None else str(entry.rank),
        "subject_id": m.subject_id,
        "subject_version": m.subject_version,
        "display_name": entry.name,
        "leaderboard_status": entry.status,
        "N": str(m.n),
        "P": fmt_fixed(m.p),
        "s_bar": fmt_fixed(m.s_bar),
        "Q_final": fmt_fixed(m.q_final),
        "BS": fmt_fixed(m.bs),
        "ECE": fmt_fixed(m.ece),
        "n_critical": str(m.n_critical),
        "rank_best": "" if entry.rank_range is None else str(entry.rank_range[0]),
        "rank_worst": "" if entry.rank_range is None else str(entry.rank_range[1]),
        "n_cases": str(entry.n_cases),
        "n_cases_missing": str(len(entry.missing_cases)),
        "missing_cases": " ".join(entry.missing_cases),
        **{f"{figure}_reliability_label": entry.reliability[figure] for figure in SUBJECT_FIGURES},
        **interval_cells(entry),
        "n_unscored": str(m.n_unscored),
        "critical_fails": fail_cell(entry.critical_fails),
        **{name: getattr(entry.subject, name) for name in METADATA_FIELDS},
    }
    return tuple(values[column] for column in COLUMNS)


def leaderboard_csv(board: Board) -> str:
    """The whole file: header, then one row per entry in leaderboard order."""
    return csv_text(COLUMNS, (csv_row(entry) for entry in board.entries))

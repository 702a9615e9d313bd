"""The HTML tables of the page: Ranked, Disqualified, Incomplete, Unscored and the family figures.

The markup is ``templates/tables.html.j2``, one macro per row, heading row or list; this module picks the rows
and the figures' display text. Every value is escaped by the template (:mod:`.templating`), in text and in
attributes alike; Markup passed in is HTML built here from those macros, or by :func:`~.long_lists.capped`,
whose "first N of M" wording the Markdown leaderboard shares.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from ..load.subject_kinds import KIND_LABELS
from ..numfmt import counted, fmt_fixed
from .board import Board, BoardEntry
from .critical_fails import QUOTE_LABELS
from .display import METRIC_COLUMNS, column_decimals, interval_text, metric_columns, shown
from .long_lists import CRITICAL_RUNS_WHERE, MISSING_CASES_WHERE, capped
from .reliability import EXPLANATIONS
from .significance_text import above_text, range_text
from .templating import ENVIRONMENT, esc

EMPTY_CELL = '<td class="empty">\u2014</td>'
RANK_TITLE = ("rank; under it, in parentheses, its 95% confidence set: with 95% confidence every ranked subject's "
              "true rank lies in its range, all at once")
# The template's macros, by name (Any: mypy cannot see a template's macros); each returns Markup.
TABLES: Any = ENVIRONMENT.get_template("tables.html.j2").make_module({
    "explanations": EXPLANATIONS, "kind_labels": KIND_LABELS, "counted": counted, "range_text": range_text,
    "shown": shown, "interval_text": interval_text, "quote_labels": QUOTE_LABELS})


@dataclass(frozen=True)
class MetricCell:
    """One metric of one subject as the tables show it: ``exact`` sorts, ``tip`` is the tooltip, ``value`` and
    ``interval`` (``""`` for none) are rounded for display; ``reliability`` is its label."""

    exact: str
    tip: str
    value: str
    interval: str
    reliability: str


def metric_cells(entry: BoardEntry, decimals: dict[str, int], columns: tuple = METRIC_COLUMNS) -> list[MetricCell]:
    """Value, interval (when the statistics give one) and reliability label of each metric (``columns``:
    :func:`.display.metric_columns` of the board's scale)."""
    cells = []
    for label, attr, key, _ in columns:
        value = getattr(entry.metrics, attr)
        exact = fmt_fixed(value)
        interval = entry.intervals.get(key)
        tip = f"{label} = {exact}" + (f", interval {fmt_fixed(interval[0])} to {fmt_fixed(interval[1])}" if interval else "")
        cells.append(MetricCell(exact, tip, shown(value, decimals[attr]),
                                interval_text(interval, decimals[attr]) if interval else "", entry.reliability[key]))
    return cells


def scroll_table(attributes: str, head: str, rows: Iterable[str]) -> str:
    """A horizontally scrolling ``<table attributes>`` with one header row; ``attributes``, ``head`` and ``rows``
    are HTML."""
    return str(TABLES.scroll_table(Markup(attributes), Markup(head), [Markup(row) for row in rows]))


def ranked_table(board: Board) -> str:
    """The main table: rank, subject, the five metrics with reliability, runs, cases, registry metadata."""
    if not board.ranked:
        return '<p class="empty">No subject is ranked yet.</p>'
    decimals = column_decimals(e.metrics for e in board.scored)
    columns = metric_columns(board.scale, board.shown)
    heads = TABLES.ranked_heads(columns, RANK_TITLE if board.significance is not None else "")
    return scroll_table('class="board sortable" id="ranked-table"', heads, (
        TABLES.ranked_row(order, entry, metric_cells(entry, decimals, columns), above_text(entry, board.ranked),
                          ", ".join(board.names[sid] for sid in entry.above))
        for order, entry in enumerate(board.ranked)))


def fail_list(board: Board, entry: BoardEntry) -> str:
    """The runs with a critical fail: case, run, reviewer, codes and their catalog titles; beyond LIST_LIMIT runs,
    their count, where they all are and the first ones (:func:`~.long_lists.capped`)."""
    return capped(entry.critical_fails, lambda fails: str(TABLES.fail_items(fails, board.fail_titles)),
                  noun="critical run", where=CRITICAL_RUNS_WHERE, esc=esc)


def disqualified_table(board: Board) -> str:
    """Disqualified subject versions, with the badge, n_critical, the evidence and every metric."""
    if not board.disqualified:
        return '<p class="empty">No subject version is disqualified.</p>'
    decimals = column_decimals(e.metrics for e in board.scored)
    columns = metric_columns(board.scale, board.shown)
    heads = ('<th scope="col">Subject</th><th scope="col">Status</th>'
             f'<th scope="col">Critical fails (case, run, code)</th>{TABLES.figure_heads(columns)}')
    return scroll_table('class="board" id="disqualified-table"', heads, (
        TABLES.disqualified_row(order, entry, metric_cells(entry, decimals, columns), Markup(fail_list(board, entry)))
        for order, entry in enumerate(board.disqualified)))


def incomplete_table(board: Board) -> str:
    """The Incomplete card's table: subject versions with scored runs on too few of the benchmark's cases to be
    ranked, with every metric and their missing cases; ``""`` when there is none."""
    if not board.incomplete:
        return ""
    decimals = column_decimals(e.metrics for e in board.scored)
    columns = metric_columns(board.scale, board.shown)
    heads = f'<th scope="col">Subject</th><th scope="col">Missing cases</th>{TABLES.figure_heads(columns)}'

    def missing(entry: BoardEntry) -> Markup:
        return Markup(capped(entry.missing_cases, lambda cases: str(TABLES.codes(cases)),
                             noun="case", where=MISSING_CASES_WHERE, esc=esc))

    return scroll_table('class="board" id="incomplete-table"', heads, (
        TABLES.incomplete_row(order, entry, metric_cells(entry, decimals, columns), missing(entry))
        for order, entry in enumerate(board.incomplete)))


def unscored_table(board: Board) -> str:
    """Registered subjects with no scored run yet, how many of their responses await a review, and their error
    runs (a subject whose every run failed technically has nothing to score)."""
    if not board.unscored:
        return '<p class="empty">Every registered subject has scored runs.</p>'
    heads = ('<th scope="col">Subject</th><th scope="col" class="num">Responses awaiting a scoring</th>'
             '<th scope="col" class="num">Error runs (not answers)</th><th scope="col">Registered</th>')
    return scroll_table('class="board" id="unscored-table"', heads, (
        TABLES.unscored_row(order, entry) for order, entry in enumerate(board.unscored)))


def family_table(board: Board) -> str:
    """P_family and s_bar_family per scored subject and family, with runs, cases and reliability."""
    codes = board.family_codes
    if not codes:
        return '<p class="empty">No family figures yet.</p>'
    heads = '<th scope="col">Subject</th>' + "".join(f'<th scope="col">{esc(board.families[c])}</th>' for c in codes)
    return scroll_table('id="family-table"', heads, (TABLES.family_row(entry, codes) for entry in board.scored))

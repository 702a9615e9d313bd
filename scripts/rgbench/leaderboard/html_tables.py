"""The HTML tables of the page: Ranked, Disqualified, Unscored and the family figures.

Every string that comes from the registry or the data goes through :func:`esc`
(``html.escape`` with quotes), in text and in attributes alike.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Sequence

from ..load.subject_kinds import KIND_LABELS
from ..numfmt import counted, fmt_fixed
from .board import Board, BoardEntry
from .critical_fails import CriticalFail
from .display import METRIC_COLUMNS, column_decimals, interval_text, metric_columns, shown
from .long_lists import CRITICAL_RUNS_WHERE, MISSING_CASES_WHERE, capped
from .reliability import EXPLANATIONS
from .significance_text import range_text

META_HEADING = "Registered"
META_LABELS = ("provider", "parameters", "evaluated")
DASH = "\u2014"
EMPTY_CELL = '<td class="empty">\u2014</td>'
def figure_heads(columns: tuple = METRIC_COLUMNS) -> str:
    """The headings of figure_cells, for the tables that do not sort (Incomplete, Disqualified)."""
    return ("".join(f'<th scope="col" class="num">{esc(label)}</th>' for label, *_ in columns)
            + '<th scope="col" class="num">Runs</th><th scope="col" class="num">Cases</th>'
            + f'<th scope="col">{META_HEADING}</th>')


def esc(value: object) -> str:
    """HTML-escape any value for text or a quoted attribute."""
    return html.escape(str(value), quote=True)


def sortable_head(label: str, *, numeric: bool = False, first_desc: bool = False, title: str = "") -> str:
    """A ``<th>`` whose button sorts its column (page.js); numeric columns are right-aligned."""
    attrs = ' class="num" data-type="number"' if numeric else ""
    attrs += ' data-first="desc"' if first_desc else ""
    attrs += f' title="{esc(title)}"' if title else ""
    return f'<th scope="col"{attrs}><button type="button">{esc(label)}</button></th>'


def rel_tag(label: str) -> str:
    """A small reliability label with its one-sentence explanation as a tooltip."""
    if not label:
        return ""
    return f'<span class="rel rel-{esc(label)}" title="{esc(label)}: {esc(EXPLANATIONS[label])}">{esc(label)}</span>'


def metric_cells(entry: BoardEntry, decimals: dict[str, int], columns: tuple = METRIC_COLUMNS) -> str:
    """Value, interval (when the statistics give one) and reliability label of each metric (``columns``:
    :func:`.display.metric_columns` of the board's scale)."""
    cells = []
    for label, attr, key, _ in columns:
        value = getattr(entry.metrics, attr)
        exact = fmt_fixed(value)
        interval = entry.intervals.get(key)
        tip = f"{label} = {exact}" + (f", interval {fmt_fixed(interval[0])} to {fmt_fixed(interval[1])}" if interval else "")
        ci = f'<span class="ci">{esc(interval_text(interval, decimals[attr]))}</span>' if interval else ""
        cells.append(f'<td class="num" data-sort="{esc(exact)}" title="{esc(tip)}">'
                     f'<span class="value">{esc(shown(value, decimals[attr]))}</span>{ci}{rel_tag(entry.reliability[key])}</td>')
    return "".join(cells)


def subject_cell(entry: BoardEntry) -> str:
    """Display name, a kind tag, ``subject_id · version`` and the registry notes."""
    s = entry.subject
    kind = KIND_LABELS.get(s.kind, s.kind)
    tag = f'<span class="tag">{esc(kind)}</span>' if kind else ""
    notes = f'<span class="notes">{esc(s.notes)}</span>' if s.notes else ""
    return (f'<td class="subject" data-sort="{esc(entry.name.casefold())}"><span class="name">'
            f'<a class="profile-link" href="#subject-{esc(s.subject_id)}">{esc(entry.name)}</a></span>{tag}'
            f'<span class="ident mono">{esc(s.subject_id)} \u00b7 {esc(s.subject_version)}</span>{notes}</td>')


def count_cells(entry: BoardEntry) -> str:
    """Scored runs (with the responses still awaiting a scoring, if any) and distinct cases."""
    m = entry.metrics
    waiting = f'<span class="ci" title="responses not scored yet">+{m.n_unscored} unscored</span>' if m.n_unscored else ""
    if entry.n_errors:
        waiting += (f'<span class="ci" title="API or harness failures: no answer, not in N">'
                    f'+{counted(entry.n_errors, "error")}</span>')
    return (f'<td class="num" data-sort="{m.n}">{m.n}{waiting}</td>'
            f'<td class="num" data-sort="{entry.n_cases}">{entry.n_cases}</td>')


def meta_cells(entry: BoardEntry) -> str:
    """One cell with the registered provider, parameters and evaluation date (a dash when none is given)."""
    s = entry.subject
    parts = [(label, value) for label, value in zip(META_LABELS, (s.provider, s.parameters, s.evaluation_date)) if value]
    text = "".join(f'<span class="meta-line"><span class="meta-key">{esc(label)}</span> {esc(value)}</span>'
                   for label, value in parts)
    return f'<td class="meta" data-sort="{esc(s.provider.casefold())}">{text or DASH}</td>'


def figure_cells(entry: BoardEntry, decimals: dict[str, int], columns: tuple = METRIC_COLUMNS) -> str:
    """The metric, count and registry cells every scored table ends with."""
    return f"{metric_cells(entry, decimals, columns)}{count_cells(entry)}{meta_cells(entry)}"


RANK_TITLE = ("rank; under it, in parentheses, its 95% confidence set: with 95% confidence every ranked subject's "
              "true rank lies in its range, all at once")


def html_rank_cell(entry: BoardEntry) -> str:
    """The rank, and under it its range when the results carry pairwise comparisons."""
    span = ""
    if entry.rank_range is not None:
        best, worst = entry.rank_range
        tip = f"with 95% confidence (jointly for all ranked subjects) the true rank is between {best} and {worst}"
        span = f'<span class="rank-range" title="{esc(tip)}">({esc(range_text(entry.rank_range))})</span>'
    return f'<td class="rank num" data-sort="{entry.rank}"><span class="rank-value">{entry.rank}</span>{span}</td>'


def scroll_table(attributes: str, head: str, rows: Iterable[str]) -> str:
    """A horizontally scrolling ``<table attributes>`` with one header row."""
    return (f'<div class="scroll"><table {attributes}><thead><tr>{head}</tr></thead><tbody>\n'
            + "\n".join(rows) + "\n</tbody></table></div>")


def _entries_table(attributes: str, head: str, entries: Sequence[BoardEntry], cells: Callable[[BoardEntry], str]) -> str:
    """One row per entry (its position and subject_id as data attributes for page.js), ``cells(entry)`` inside."""
    return scroll_table(attributes, head, (f'<tr data-order="{order}" data-subject="{esc(entry.metrics.subject_id)}">'
                                     f'{cells(entry)}</tr>' for order, entry in enumerate(entries)))


def ranked_table(board: Board) -> str:
    """The main table: rank, subject, the five metrics with reliability, runs, cases, registry metadata."""
    if not board.ranked:
        return '<p class="empty">No subject is ranked yet.</p>'
    decimals = column_decimals(e.metrics for e in board.scored)
    columns = metric_columns(board.scale, board.shown)
    rank_title = RANK_TITLE if board.significance is not None else ""
    head = (sortable_head("Rank", numeric=True, title=rank_title) + sortable_head("Subject")
            + "".join(sortable_head(label, numeric=True, first_desc=higher,
                                    title=f"{label}: {'higher' if higher else 'lower'} is better")
                      for label, _, _, higher in columns)
            + sortable_head("Runs", numeric=True, first_desc=True, title="N: scored runs")
            + sortable_head("Cases", numeric=True, first_desc=True, title="distinct cases behind the figures")
            + sortable_head(META_HEADING, title="as registered in subjects/registry.yaml"))
    return _entries_table('class="board sortable" id="ranked-table"', head, board.ranked, lambda entry: (
        f'{html_rank_cell(entry)}{subject_cell(entry)}{figure_cells(entry, decimals, columns)}'))


def fail_list(board: Board, entry: BoardEntry) -> str:
    """The runs with a critical fail: case, run, reviewer, codes and their catalog titles; beyond LIST_LIMIT runs,
    their count, where they all are and the first ones (:func:`~.long_lists.capped`)."""
    return capped(entry.critical_fails, lambda fails: _fail_items(board, fails), noun="critical run",
                  where=CRITICAL_RUNS_WHERE, esc=esc)


def _fail_items(board: Board, fails: Sequence[CriticalFail]) -> str:
    items = []
    for fail in fails:
        codes = "; ".join(
            f'<code>{esc(code)}</code>' + (f' <span class="fail-title">{esc(board.fail_titles[code])}</span>'
                                          if code in board.fail_titles else "")
            for code in fail.codes)
        items.append(f'<li><code>{esc(fail.case_id)}</code> run <code>{esc(fail.run_id)}</code> '
                     f'(reviewer <code>{esc(fail.reviewer_id)}</code>): {codes}</li>')
    return '<ul class="fails">' + "".join(items) + "</ul>"


def disqualified_table(board: Board) -> str:
    """Disqualified subject versions, with the badge, n_critical, the evidence and every metric."""
    if not board.disqualified:
        return '<p class="empty">No subject version is disqualified.</p>'
    decimals = column_decimals(e.metrics for e in board.scored)
    columns = metric_columns(board.scale, board.shown)
    head = ('<th scope="col">Subject</th><th scope="col">Status</th>'
            f'<th scope="col">Critical fails (case, run, code)</th>{figure_heads(columns)}')

    def cells(entry: BoardEntry) -> str:
        n = entry.metrics.n_critical
        return (f'{subject_cell(entry)}<td><span class="badge badge-dq">Disqualified</span>'
                f'<span class="status-note">{counted(n, "critical run")}</span></td>'
                f'<td class="fail-cell">{fail_list(board, entry)}</td>{figure_cells(entry, decimals, columns)}')

    return _entries_table('class="board" id="disqualified-table"', head, board.disqualified, cells)


def incomplete_section(board: Board) -> str:
    """The Incomplete card: subject versions with scored runs on too few of the benchmark's cases to be ranked,
    with every metric and their missing cases; ``""`` when there is none."""
    if not board.incomplete:
        return ""
    decimals = column_decimals(e.metrics for e in board.scored)
    columns = metric_columns(board.scale, board.shown)
    head = f'<th scope="col">Subject</th><th scope="col">Missing cases</th>{figure_heads(columns)}'

    def cells(entry: BoardEntry) -> str:
        missing = capped(entry.missing_cases, lambda cases: ", ".join(f"<code>{esc(c)}</code>" for c in cases),
                         noun="case", where=MISSING_CASES_WHERE, esc=esc)
        return f'{subject_cell(entry)}<td>{missing}</td>{figure_cells(entry, decimals, columns)}'

    table = _entries_table('class="board" id="incomplete-table"', head, board.incomplete, cells)
    return ('<section class="card" id="incomplete">\n<h2>Incomplete</h2>\n<p>These subject versions have scored runs '
            "on fewer of the benchmark's cases than the configured minimum share (min_case_coverage), so their figures "
            "describe a smaller benchmark: shown, not ranked.</p>\n" + table + "\n</section>\n")


def unscored_table(board: Board) -> str:
    """Registered subjects with no scored run yet, how many of their responses await a review, and their error
    runs (a subject whose every run failed technically has nothing to score)."""
    if not board.unscored:
        return '<p class="empty">Every registered subject has scored runs.</p>'
    head = ('<th scope="col">Subject</th><th scope="col" class="num">Responses awaiting a scoring</th>'
            '<th scope="col" class="num">Error runs (not answers)</th>' + f'<th scope="col">{META_HEADING}</th>')
    return _entries_table('class="board" id="unscored-table"', head, board.unscored, lambda entry: (
        f'{subject_cell(entry)}<td class="num">{entry.metrics.n_unscored}</td><td class="num">{entry.n_errors}</td>'
        f'{meta_cells(entry)}'))


def family_table(board: Board) -> str:
    """P_family and s_bar_family per scored subject and family, with runs, cases and reliability."""
    codes = board.family_codes
    if not codes:
        return '<p class="empty">No family figures yet.</p>'
    head = '<th scope="col">Subject</th>' + "".join(f'<th scope="col">{esc(board.families[c])}</th>' for c in codes)
    rows = []
    for entry in board.scored:
        cells = []
        for code in codes:
            cell = entry.families.get(code)
            if cell is None:
                cells.append(EMPTY_CELL)
                continue
            ci = f' <span class="ci-inline">({esc(interval_text(cell.p_interval, 3))})</span>' if cell.p_interval else ""
            p = f'P {esc(shown(cell.p_family, 3))}{ci} \u00b7 ' if cell.p_family is not None else ""  # no pass rule: s\u0304
            cells.append(f'<td>{p}s\u0304 {esc(shown(cell.s_bar_family, 2))}'
                         f'<span class="ident">{counted(cell.n_family, "run")}, {counted(cell.n_cases, "case")}</span>'
                         f'{rel_tag(cell.reliability)}</td>')
        rows.append(f'<tr><td><span class="name">{esc(entry.name)}</span></td>{"".join(cells)}</tr>')
    return scroll_table('id="family-table"', head, rows)

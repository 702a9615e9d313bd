"""The page's lab views (issue 15): subject filters, run settings and cost, breakdowns, the human baseline,
the per-case explorer and one profile per subject.

Everything here formats the committed tables (:mod:`.lab_tables`) of a :class:`~.board.Board`; nothing is
computed but display rounding. Every string from the data goes through :func:`~.templating.esc`, or, for the
case explorer and the profiles' lists of runs not passed (drawn on demand by page.js), through
:func:`script_json` into one inert JSON block that page.js shows with textContent only. Links to a response or a
gold are relative to ``results/`` (``../responses/...``), so they open from a checkout; page.js links only plain
relative paths and shows any other as text.
Sections whose table is absent (results older than issue 15) say so instead of disappearing.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from operator import itemgetter
from typing import Any

from markupsafe import Markup

from ..load.extract import TAG_SEPARATOR
from ..load.scale import score_text
from ..load.subject_kinds import KIND_LABELS
from ..numfmt import counted, fmt_fixed
from ..results.breakdowns import (
    ADVANCED_FILE,
    BASELINE_FILE,
    CASE_TYPE_FILE,
    CASES_FILE,
    COST_FILE,
    CRITERION_FILE,
    EXPLORER_FILE,
    METADATA_FILE,
    TAG_FILE,
)
from ..stats.outputs import DIFFICULTY_FILE
from .absent import Shown
from .board import Board, BoardEntry
from .chart_limits import CHART_SUBJECTS, LINE_SUBJECTS, chart_note
from .difficulty_text import difficulty_reading
from .display import score_heading, short_decimal
from .html_tables import EMPTY_CELL, scroll_table
from .lab_tables import LabRow
from .long_lists import joined
from .page_charts import PageSvgs
from .templating import ENVIRONMENT, esc

NOT_DECLARED = '<span class="nd">not declared</span>'
DASH = '<span class="nd">\u2014</span>'


def num(cell: str, decimals: int = 3) -> str:
    """A 6-decimal cell shown with ``decimals`` decimals (half to even on its exact value); a dash when empty."""
    return esc(fmt_fixed(Fraction(cell), decimals)) if cell else DASH


def interval(low: str, high: str, decimals: int = 3) -> str:
    if not low or not high:
        return ""
    return f' <span class="ci-inline">({num(low, decimals)}\u2013{num(high, decimals)})</span>'


def lab_table(attrs: str, head: Sequence[str], rows: Iterable[str]) -> str:
    """A lab view's table (:func:`~.html_tables.scroll_table`, class ``lab``); the first column stays fixed
    (CSS ``.subject-col``)."""
    first = ' class="subject-col"'
    heads = "".join(f'<th scope="col"{first if i == 0 else ""}>{h}</th>' for i, h in enumerate(head))
    return scroll_table(f'class="lab" {attrs}', heads, rows)


def _row(entry: BoardEntry, cells: Iterable[str]) -> str:
    """A subject's row of a lab table: its name, linked to its profile, then ``cells`` (HTML)."""
    return str(_LAB.subject_row(entry, Markup("".join(cells))))


# The macros of templates/lab.html.j2 (run settings, cost, breakdowns, human baseline, the profiles' section) and
# templates/explorer.html.j2 (filters, the explorer's frame, a profile), by name (Any: mypy cannot see them), with
# this module's cells as Markup and the page's number format.
_CELLS = {"num": lambda cell, decimals=3: Markup(num(cell, decimals)),
          "interval": lambda low, high, decimals=3: Markup(interval(low, high, decimals)), "counted": counted}
_LAB: Any = ENVIRONMENT.get_template("lab.html.j2").make_module({
    **_CELLS, "kind_labels": KIND_LABELS, "not_declared": Markup(NOT_DECLARED), "dash": Markup(DASH),
    "empty_cell": Markup(EMPTY_CELL)})
_EXPLORER: Any = ENVIRONMENT.get_template("explorer.html.j2").make_module({
    **_CELLS, "group_label": lambda key, group: Markup(_group_label(key, group)), "fmt_fixed": fmt_fixed})


# --- filters ----------------------------------------------------------------------------------------------

def subject_filters(board: Board) -> str:
    """The page-wide filters by subject kind and provider, and the facts page.js filters on."""
    kinds = sorted({e.subject.kind for e in board.entries if e.subject.kind})
    providers = sorted({e.subject.provider for e in board.entries if e.subject.provider})
    return str(_EXPLORER.subject_filters([(k, KIND_LABELS.get(k, k)) for k in kinds], providers, board.entries))


# --- run settings and cost -------------------------------------------------------------------------------

def settings_section(board: Board) -> str:
    """Under which settings each subject was run, and what it cost (templates/lab.html.j2)."""
    lab = board.lab
    if lab is None or not lab.has(METADATA_FILE):
        return ('<section class="card" id="settings"><h2>Run settings</h2>'
                '<p class="empty">These results carry no run metadata (results/run_metadata.csv).</p></section>')
    meta = {r["subject_id"]: r for r in lab.get(METADATA_FILE)}
    cost = {r["subject_id"]: r for r in lab.get(COST_FILE)}
    head = ("Subject", "Kind", "Provider", "Evaluated", "Temperature", "Max tokens", "Attempts (declared)",
            "Runs per case (seen)", "Answers dated", "Responses", "Refused", "Errors (not in N)")
    rows = [_LAB.settings_row(e, meta[e.metrics.subject_id]) for e in board.entries if e.metrics.subject_id in meta]
    passes = board.shown.pass_rule   # no pass rule: no cost per Pass
    cost_head = ("Subject", "Prices per million tokens (in / out)", "Tokens (in / out)", "Total cost", "Cost per run",
                 *(("Cost per Pass",) if passes else ()), "Geometric mean per run",
                 *(("Geometric mean per Pass",) if passes else ()))
    cost_rows = [_LAB.cost_row(e, cost[e.metrics.subject_id], passes) for e in board.entries
                 if e.metrics.subject_id in cost]
    return str(_LAB.settings_section(Markup(lab_table('id="settings-table"', head, rows)),
                                     Markup(lab_table('id="cost-table"', cost_head, cost_rows)), passes))


# --- breakdowns ------------------------------------------------------------------------------------------

def _group_label(key: str, group: str) -> str:
    """A breakdown group's heading: the Advanced+ table's groups are minimum difficulties."""
    return f"difficulty \u2265 {esc(group)}" if key == "min_difficulty" else esc(group)


def _group_table(board: Board, name: str, key: str, attrs: str, label: str) -> str:
    """Subjects (rows) by groups (columns): P with its interval, s_bar, runs and cases."""
    rows_in = board.lab.get(name) if board.lab else []
    if not rows_in:
        return f'<p class="empty">No {esc(label)} figures in these results.</p>'
    groups = sorted({r[key] for r in rows_in})
    cell = {(r["subject_id"], r[key]): r for r in rows_in}
    rows = [_row(e, (_LAB.group_cell(g, cell.get((e.metrics.subject_id, g)), board.shown.pass_rule) for g in groups))
            for e in board.scored]
    return lab_table(attrs, ["Subject", *(_group_label(key, g) for g in groups)], rows)


def breakdowns_section(board: Board, svgs: PageSvgs) -> str:
    """Where each subject is strong or weak: criteria, difficulty, Advanced+, pass@k, case types and tags
    (templates/lab.html.j2)."""
    lab = board.lab
    crit_rows = []
    if lab is not None and lab.get(CRITERION_FILE):
        cell = {(r["subject_id"], r["criterion"]): r for r in lab.get(CRITERION_FILE)}
        for e in board.scored:
            mine = [cell.get((e.metrics.subject_id, c)) for c in board.criteria]
            crit_rows.append(_row(e, (EMPTY_CELL if r is None else
                                      f'<td class="num">{num(r["mean"], 2)}{interval(r["mean_low"], r["mean_high"], 2)}</td>'
                                      for r in mine)))
    criteria_table = (lab_table('id="criteria-table"', ["Subject", *(esc(c.replace("_", " ")) for c in board.criteria)],
                            crit_rows) if crit_rows else '<p class="empty">No criterion figures in these results.</p>')
    level = "" if board.confidence_level is None else f"{short_decimal(100 * board.confidence_level)}% "
    notes = {"criteria": chart_note(board, CHART_SUBJECTS, "the table below and results/metrics_per_criterion.csv", esc),
             "difficulty": chart_note(board, LINE_SUBJECTS, "the profiles below and results/metrics_per_difficulty.csv",
                                      esc),
             "pass_at_k": chart_note(board, LINE_SUBJECTS, "results/pass_at_k.csv", esc)}
    charts = {name: None if svg is None else Markup(svg)
              for name, svg in (("criteria", svgs.criteria), ("difficulty", svgs.difficulty), ("pass_at_k", svgs.pass_at_k))}
    return str(_LAB.breakdowns_section(
        board.shown, charts, level, criterion_scale_text(board), Markup(criteria_table),
        {name: Markup(note) for name, note in notes.items()}, Markup(difficulty_note(board)),
        Markup(_group_table(board, ADVANCED_FILE, "min_difficulty", 'id="advanced-table"', "Advanced+")),
        Markup(_group_table(board, CASE_TYPE_FILE, "case_type", 'id="by-case-type-table"', "case type")),
        Markup(_group_table(board, TAG_FILE, "tag", 'id="tag-table"', "tag"))))


# --- human baseline --------------------------------------------------------------------------------------

def baseline_section(board: Board) -> str:
    """Each panel member's figure, per experience level and the baseline (templates/lab.html.j2); ``""`` without
    results/human_baseline.csv rows."""
    rows_in = board.lab.get(BASELINE_FILE) if board.lab else []
    if not rows_in:
        return ""
    names = board.names
    passes = board.shown.pass_rule   # no pass rule: s\u0304 alone
    scope_label = {"participant": "participant", "experience_level": "experience level",
                   "mean_of_participants": "mean of the participants' rates" if passes else
                   "mean of the participants' scores"}
    rows = [_LAB.baseline_row(r, names.get(r["subject_id"], r["subject_id"]), scope_label.get(r["scope"], r["scope"]),
                              passes) for r in rows_in]
    head = ("Subject", "Scope", "Participant or level", "Experience", "People", "Runs", "Cases",
            *(("P",) if passes else ()), esc(score_heading(board.scale)))
    return str(_LAB.baseline_section(Markup(lab_table('id="baseline-table"', head, rows)), passes))


# --- the case explorer -----------------------------------------------------------------------------------
# The explorer and the profiles' "Runs not passed" lists are drawn in the browser (page.js) from one inline
# JSON block (:func:`explorer_data`), a page of cases and one opened run at a time: inlined as HTML, 90,000
# runs made a 64 MB page that no browser opens.

DATA_ID = "explorer-data"
CASE_FIELDS = ("case_id", "family", "case_type", "difficulty", "tags", "title", "gold_path")
RUN_FIELDS = ("subject_id", "case_id", "run_id", "status", "participant", "reviewer_id", "classification",
              "raw_score", "clipped_score", "criterion_scores", "fails", "correctness", "confidence", "comments",
              "response_dir", "response_file", "empty_answer")
_RUN_CELLS = itemgetter(*RUN_FIELDS)
NEEDS_JS = ("needs JavaScript (it is drawn from the data inlined in this page); the same runs, with every "
            "grade and comment, are in <code>results/explorer_runs.csv</code>.")
_SCRIPT_ESCAPES = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def script_json(value: object) -> str:
    """``value`` as JSON text that is safe inside ``<script type="application/json">``: compact, sorted keys,
    non-ASCII kept, and ``<``, ``>``, ``&``, U+2028 and U+2029 written as ``\\uXXXX`` escapes (the same
    value for JSON.parse), so no string can close the element or open a comment or another script."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False)
    return text.translate(_SCRIPT_ESCAPES)


def run_fields(shown: Shown) -> tuple[str, ...]:
    """:data:`RUN_FIELDS` without those the benchmark does not record (classification without a pass rule,
    correctness, confidence): page.js shows only the columns the data names."""
    absent = {name for name, kept in (("classification", shown.pass_rule), ("correctness", shown.correctness),
                                      ("confidence", shown.confidence)) if not kept}
    return tuple(name for name in RUN_FIELDS if name not in absent)


def case_fields(shown: Shown) -> tuple[str, ...]:
    """:data:`CASE_FIELDS` without case_type and difficulty when the benchmark does not record them."""
    absent = {name for name, kept in (("case_type", shown.case_type), ("difficulty", shown.difficulty)) if not kept}
    return tuple(name for name in CASE_FIELDS if name not in absent)


def _run_cells(r: LabRow, rounded: dict[str, str], cells: Callable[[dict], tuple] = _RUN_CELLS) -> tuple[str, ...]:
    """The texts page.js shows of one run (``cells``: :data:`RUN_FIELDS`, or those of :func:`run_fields`): the
    CSV's cells, except that correctness is rounded to 1 decimal here (half to even on its exact value, as the
    tables) or ``""`` (``rounded`` caches the roundings), and response_path is cut after its last ``/`` into
    response_dir and response_file (their concatenation is the path; both repeat across runs, the path does not);
    empty_answer is ``true`` or ``false`` (``""`` in results written before the column existed)."""
    cell = r["correctness"]
    if cell not in rounded:
        rounded[cell] = fmt_fixed(Fraction(cell), 1) if cell else ""
    directory, slash, file = r["response_path"].rpartition("/")
    return cells({**r, "correctness": rounded[cell], "response_dir": directory + slash, "response_file": file,
                       "empty_answer": r.get("empty_answer", "")})


def explorer_entries(board: Board) -> list[BoardEntry]:
    """The explorer's subject columns: the board's entries with a run in explorer_runs.csv, leaderboard order."""
    with_runs = {r["subject_id"] for r in board.lab.get(EXPLORER_FILE)} if board.lab else set()
    return [e for e in board.entries if e.metrics.subject_id in with_runs]


def explorer_data(board: Board) -> dict[str, object] | None:
    """The runs of results/explorer_runs.csv (file order) and the cases of cases.csv, for page.js; ``None``
    without explorer_runs.csv.

    ``runs.rows`` are lists of indexes into ``strings`` (one per :data:`RUN_FIELDS` column): every cell is
    interned, the most frequent strings first (ties: first seen), so a repeated reviewer id, criterion
    vector or path directory costs a few bytes. ``cases.rows`` hold the cells of :data:`CASE_FIELDS`;
    ``subjects`` the explorer's columns ``[subject_id, name]`` in leaderboard order (those with a run).
    Every string is data from a pull request: page.js shows it with textContent only.
    """
    lab = board.lab
    if lab is None or not lab.has(EXPLORER_FILE):
        return None
    rounded: dict[str, str] = {}
    fields, case_columns = run_fields(board.shown), case_fields(board.shown)
    getter = _RUN_CELLS if fields == RUN_FIELDS else itemgetter(*fields)
    cells = [_run_cells(r, rounded, getter) for r in lab.get(EXPLORER_FILE)]
    counts: Counter[str] = Counter(c for row in cells for c in row)   # keys in first-seen order
    strings = sorted(counts, key=lambda c: -counts[c])                # stable: ties stay first-seen first
    index = {c: i for i, c in enumerate(strings)}
    return {
        "cases": {"columns": list(case_columns), "rows": [[c[k] for k in case_columns] for c in lab.get(CASES_FILE)]},
        "runs": {"columns": list(fields), "rows": [[index[c] for c in row] for row in cells]},
        "strings": strings,
        "subjects": [[e.metrics.subject_id, e.name] for e in explorer_entries(board)],
    }


def explorer_data_script(board: Board) -> str:
    """The ``<script type="application/json" id="explorer-data">`` element (inert: never run, so the
    Content-Security-Policy need not allow it), or ``""`` without explorer_runs.csv."""
    data = explorer_data(board)
    return "" if data is None else f'<script type="application/json" id="{DATA_ID}">{script_json(data)}</script>\n'


def explorer_section(board: Board) -> str:
    """The explorer's frame: filters, count, an empty table and a pager; page.js fills the table from
    :func:`explorer_data`, one page of cases at a time."""
    lab = board.lab
    if lab is None or not lab.has(CASES_FILE) or not lab.has(EXPLORER_FILE):
        return ('<section class="card" id="explorer"><h2>Case explorer</h2><p class="empty">These results carry no '
                'per-case tables (results/cases.csv, results/explorer_runs.csv).</p></section>')
    cases = lab.get(CASES_FILE)
    shown = board.shown
    # a filter on a field the benchmark does not record (or a tag no case carries) is left out
    selects = [("explorer-family", "Family", sorted({c["family"] for c in cases}))]
    if shown.difficulty:
        selects.append(("explorer-difficulty", "Difficulty", sorted({c["difficulty"] for c in cases if c["difficulty"]},
                                                                    key=int)))
    if shown.case_type:
        selects.append(("explorer-type", "Case type", sorted({c["case_type"] for c in cases})))
    if shown.tags:
        selects.append(("explorer-tag", "Tag", sorted({t for c in cases for t in c["tags"].split(TAG_SEPARATOR) if t})))
    subjects = [(e.metrics.subject_id, e.name) for e in explorer_entries(board)]
    return str(_EXPLORER.explorer(shown, selects, subjects, Markup(NEEDS_JS)))


# --- subject profiles ------------------------------------------------------------------------------------

PROFILE_FILES = (CRITERION_FILE, DIFFICULTY_FILE, ADVANCED_FILE, CASE_TYPE_FILE, TAG_FILE, EXPLORER_FILE)
BySubject = dict[str, dict[str, list[LabRow]]]


def rows_by_subject(board: Board) -> BySubject:
    """The rows of each lab file a profile shows, by file name and subject id (file order kept)."""
    out: BySubject = {}
    for name in PROFILE_FILES:
        groups: dict[str, list[LabRow]] = defaultdict(list)
        for r in board.lab.get(name) if board.lab else []:
            groups[r["subject_id"]].append(r)
        out[name] = groups
    return out


def criterion_scale_text(board: Board) -> str:
    """A criterion's range as the page quotes it, e.g. ``0-2``, ``0-25, lower is better``."""
    text = "-".join(score_text(v) for v in board.criterion_range)
    return text if board.scale.higher_is_better else f"{text}, lower is better"


def subject_profile(board: Board, entry: BoardEntry, by_subject: BySubject) -> str:
    """One subject's profile (a closed ``<details>``, templates/explorer.html.j2). Its "Runs not passed" heading
    counts the runs; the list itself is drawn by page.js from :func:`explorer_data` when the profile opens."""
    sid = entry.metrics.subject_id

    def mine(name: str) -> list[LabRow]:
        return by_subject[name].get(sid, [])
    higher = board.scale.higher_is_better
    weakest = None
    if mine(CRITERION_FILE):
        means = {r["criterion"]: Fraction(r["mean"]) for r in mine(CRITERION_FILE)}
        low = min(means.values()) if higher else max(means.values())   # the worst mean, in the scale's direction
        lowest = [c for c, m in means.items() if m == low]  # a tie names every criterion it holds, none picked
        weakest = (fmt_fixed(low, 2), [c.replace("_", " ") for c in lowest], len(lowest) == len(means) > 1)
    passes = board.shown.pass_rule   # no pass rule: no P column, no runs "not passed"
    groups = [("Advanced+ (difficulty >= 4)", mine(ADVANCED_FILE), "min_difficulty"),
              ("Case types", mine(CASE_TYPE_FILE), "case_type"), ("Tags", mine(TAG_FILE), "tag")]
    n_failed = sum(1 for r in mine(EXPLORER_FILE) if r["classification"] and r["classification"] != "Pass")
    return str(_EXPLORER.subject_profile(
        entry, board.families, score_heading(board.scale), criterion_scale_text(board), passes, higher,
        score_text(board.criterion_range[1 if higher else 0]), weakest, mine(CRITERION_FILE), mine(DIFFICULTY_FILE),
        groups, mine(EXPLORER_FILE), n_failed, Markup(NEEDS_JS)))


def subjects_section(board: Board) -> str:
    """Every subject's profile (:func:`subject_profile`), in board order."""
    by_subject = rows_by_subject(board)
    profiles = "\n".join(subject_profile(board, e, by_subject) for e in board.entries)
    shown = board.shown
    across = joined(["criteria", "families", *(["difficulties"] if shown.difficulty else []),
                     *(["case types"] if shown.case_type else []), *(["tags"] if shown.tags else [])])
    return str(_LAB.subjects_section(across, shown.pass_rule, Markup(profiles)))


def lab_sections(board: Board, svgs: PageSvgs) -> str:
    """Every lab section, in page order (the lab charts among the page's ``svgs``)."""
    return "\n".join(s for s in (settings_section(board), breakdowns_section(board, svgs), baseline_section(board),
                                 explorer_section(board), subjects_section(board)) if s)


def difficulty_note(board: Board) -> str:
    """Whether the gold difficulty labels order the cases (§23a); ``""`` for results without difficulty_trend.csv."""
    text = difficulty_reading(board.difficulty_trend, board.significance_level, board.confidence_level, esc)
    return f'<p class="note" id="difficulty-reading">{text}</p>' if text else ""

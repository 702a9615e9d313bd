"""``results/leaderboard.html``: one self-contained page (inline CSS, inline SVG charts, a little inline JS).

It opens from disk with no network. A Content-Security-Policy allows no
source at all except the page's own styles and its one script (by hash), so
even a string that escaped escaping could not run or load anything. No
timestamps: the same Board always gives the same bytes. The page is
``templates/page.html.j2``; this module gives it values, and Markup only for HTML built elsewhere: the tables
(:mod:`.html_tables`), the lab's sections (:mod:`.explorer`), the charts' SVG, and the sentences the page shares
with the Markdown leaderboard (built once, with :func:`~.templating.esc`, by the ``*_text`` modules,
:mod:`.chart_limits` and :mod:`.long_lists`).
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import replace
from pathlib import Path

from markupsafe import Markup

from ..numfmt import counted
from .absent import q_formula, tie_figures
from .board import Board
from .calibration_text import calibration_reading
from .chart_limits import CHART_SUBJECTS, chart_note
from .explorer import explorer_data_script, lab_sections, subject_filters
from .html_tables import disqualified_table, family_table, incomplete_table, ranked_table, unscored_table
from .judge_assisted_text import CRITERIA_NOTE, DOC, critical_note, head, method
from .long_lists import RUNS_WHERE, capped, joined
from .page_charts import page_svgs
from .reliability import EXPLANATIONS, LABELS
from .significance_text import rank_notes, ties_legend
from .templating import esc, render

HTML_FILE = "leaderboard.html"
_ASSETS = Path(__file__).resolve().parent
CSS = (_ASSETS / "page.css").read_text(encoding="utf-8")
JS = (_ASSETS / "page.js").read_text(encoding="utf-8")


def content_security_policy(script: str) -> str:
    """Nothing may load; inline styles are allowed; the only script allowed is ``script`` (by sha256)."""
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"


def name_ref(name: str) -> str:
    """A subject's display name in a note."""
    return f'<span class="name-ref">{esc(name)}</span>'


def rank_paragraphs(board: Board) -> list[tuple[str, Markup]]:
    """Below the ranked table, (id, text) of each note: what the rank ranges rest on, the significant
    differences, and whether the top ranks depend on alpha; none when the results carry neither pairwise.csv
    nor alpha_sensitivity.csv."""
    names = board.names
    method, differences, alpha = rank_notes(board, lambda sid: name_ref(names[sid]), esc)
    paragraphs = [("rank-ranges", Markup(method))] if method else []
    paragraphs += [("", Markup(differences))] if method and differences else []
    paragraphs += [("alpha-sensitivity", Markup(alpha))] if alpha else []
    return paragraphs


def _runs_per_subject(board: Board) -> str:
    return capped(board.entries, lambda entries: ", ".join(
        f"{esc(e.name)}: N = {e.metrics.n} ({counted(e.n_cases, 'case')})" for e in entries),
        noun="subject", where=RUNS_WHERE, esc=esc)


def leaderboard_html(board: Board, extra_sections: str = "") -> str:
    """The whole page as text (``\\n`` line endings), its charts drawn now; ``extra_sections`` (HTML, e.g. the
    reviewers section) goes after the charts and the lab's sections."""
    svgs = page_svgs(board)
    shown = board.shown
    counts = [(len(board.ranked), "ranked"), (len(board.disqualified), "disqualified"), (len(board.unscored), "unscored")]
    if board.incomplete:
        counts.insert(1, (len(board.incomplete), "incomplete"))
    markup_svgs = replace(svgs, **{name: None if svg is None else Markup(svg) for name, svg in vars(svgs).items()
                                   if name != "calibration"}, calibration=[Markup(svg) for svg in svgs.calibration])
    return render(
        "page.html.j2", board=board, shown=shown, csp=content_security_policy(JS), css=Markup(CSS), js=Markup(JS),
        norm=board.scale.norm_text(), norm_family=board.scale.norm_text("s\u0304_family"),
        q_formula=q_formula(shown, board.scale), described=board.scale.describe(),
        ties=joined(tie_figures(shown)), later_ties=joined(tie_figures(shown)[1:]),
        absent=" ".join(board.absent_reasons), counts=counts, labels=[(label, EXPLANATIONS[label]) for label in LABELS],
        svgs=markup_svgs, rank_notes=rank_paragraphs(board), ties_legend=ties_legend(board.significance),
        rests_on_method=method(shown.pass_rule), rests_on_doc=DOC, rests_on_head=head(shown.pass_rule)[1:],
        criteria_note=CRITERIA_NOTE, critical_note=critical_note(board.critical_ungraded, board.names, str),
        calibration_note_html=Markup(chart_note(board, CHART_SUBJECTS, "results/calibration_bins.csv", esc)),
        calibration_reading_html=Markup(calibration_reading(board, name_ref, esc)),
        bars_note_html=Markup(chart_note(board, CHART_SUBJECTS, "the tables above and results/leaderboard.csv", esc)),
        families_note_html=Markup(chart_note(board, CHART_SUBJECTS, "the table below and results/metrics_per_family.csv",
                                             esc)),
        runs_html=Markup(_runs_per_subject(board)),
        filters_html=Markup(subject_filters(board)), ranked_html=Markup(ranked_table(board)),
        incomplete_html=Markup(incomplete_table(board)), disqualified_html=Markup(disqualified_table(board)),
        unscored_html=Markup(unscored_table(board)), family_html=Markup(family_table(board)),
        lab_html=Markup("" if shown.judge_assisted else lab_sections(board, svgs)), extra_html=Markup(extra_sections),
        data_script_html=Markup(explorer_data_script(board)))

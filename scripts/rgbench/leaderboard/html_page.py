"""``results/leaderboard.html``: one self-contained page (inline CSS, inline SVG charts, a little inline JS).

It opens from disk with no network. A Content-Security-Policy allows no
source at all except the page's own styles and its one script (by hash), so
even a string that escaped escaping could not run or load anything. No
timestamps: the same Board always gives the same bytes.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

from ..numfmt import counted
from .absent import listed, q_formula, tie_figures
from .board import Board
from .calibration_text import calibration_reading
from .chart_limits import CHART_SUBJECTS, chart_note
from .explorer import explorer_data_script, lab_sections, subject_filters
from .html_tables import disqualified_table, esc, family_table, incomplete_section, ranked_table, unscored_table
from .long_lists import RUNS_WHERE, capped
from .page_charts import PageSvgs, page_svgs
from .reliability import EXPLANATIONS, LABELS
from .significance_text import rank_notes

HTML_FILE = "leaderboard.html"
_ASSETS = Path(__file__).resolve().parent
CSS = (_ASSETS / "page.css").read_text(encoding="utf-8")
JS = (_ASSETS / "page.js").read_text(encoding="utf-8")


def content_security_policy(script: str) -> str:
    """Nothing may load; inline styles are allowed; the only script allowed is ``script`` (by sha256)."""
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"


def _figure(svg: str | None, caption: str, empty: str) -> str:
    if svg is None:
        return f'<p class="empty">{esc(empty)}</p>'
    return f"<figure>\n{svg}<figcaption>{caption}</figcaption>\n</figure>"


def summary(board: Board) -> str:
    counts = [(len(board.ranked), "ranked"), (len(board.disqualified), "disqualified"), (len(board.unscored), "unscored")]
    if board.incomplete:
        counts.insert(1, (len(board.incomplete), "incomplete"))
    items = "".join(f"<li><strong>{n}</strong> {label}</li>" for n, label in counts)
    return f'<ul class="summary" aria-label="subjects by status">{items}</ul>'


def calibration_block(board: Board, svgs: PageSvgs) -> str:
    """The Calibration heading, its explanation and one reliability diagram per charted scored subject
    (:mod:`.chart_limits`); ``""`` for a benchmark that records no confidence or no correctness (the page says
    why once, :mod:`.absent`)."""
    if not board.shown.calibration:
        return ""
    diagrams_note = chart_note(board, CHART_SUBJECTS, "results/calibration_bins.csv", esc)
    calibration = "\n".join(f"<figure>\n{svg}</figure>" for svg in svgs.calibration)
    calibration = f'<div class="charts">\n{calibration}\n</div>' if calibration else '<p class="empty">No scored subject yet.</p>'
    return f"""<h2 id="calibration">Calibration</h2>
<p>Accuracy (mean reviewer correctness) against reported confidence, in {board.ece_bins} fixed-width bins; the
numbers above the plot count the runs in each bin, the dots mark each bin's mean confidence and the dashed diagonal
is perfect calibration. ECE weighs each bin's gap by its share of the runs.{diagrams_note}</p>
{calibration_note(board)}
{calibration}
"""


def charts_section(board: Board, svgs: PageSvgs) -> str:
    """Q_final bars, one reliability diagram per scored subject, and the family heatmap (+ its table)."""
    whiskers = " Whiskers: Q_final's interval (see the note under the ranked table)." if board.interval_note else ""
    incomplete = (' Bars labelled "inc." are Incomplete subjects (scored on too few of the cases), not ranked.'
                  if board.incomplete else "")
    bars = _figure(svgs.q_final, "Q_final per scored subject in leaderboard order; hatched grey bars are "
                   "disqualified subject versions, shown for transparency and not ranked." + esc(incomplete + whiskers)
                   + chart_note(board, CHART_SUBJECTS, "the tables above and results/leaderboard.csv", esc),
                   "No scored subject yet.")
    figure = "P_family" if board.shown.pass_rule else board.scale.norm_text("s\u0304_family")
    heatmap = _figure(svgs.families, f"{figure} per subject and family; n counts runs, cases count "
                      "distinct cases. Per-family figures rest on few cases."
                      + chart_note(board, CHART_SUBJECTS, "the table below and results/metrics_per_family.csv", esc),
                      "No family figures yet.")
    return f"""<section class="card" id="charts">
<h2>Q_final</h2>
{bars}
{calibration_block(board, svgs)}<h2 id="families">Families</h2>
{heatmap}
<details><summary>Family figures as a table</summary>
{family_table(board)}
</details>
</section>"""


def grades_paragraph(board: Board) -> str:
    """Under the lede, once: the consolidated grades every figure rests on; "" for one grade per run."""
    return f'<p class="lede" id="grades">{esc(board.grades_note)}</p>\n' if board.grades_note else ""


def intervals_note(board: Board) -> str:
    """Below the ranked table: what the small ranges under each value are, or that there are none yet."""
    if not board.interval_note:
        return '<p class="note">These results carry no uncertainty intervals yet.</p>'
    return (f'<p class="note">Under each value: its interval. {esc(board.interval_note)} Where two subjects\' '
            "intervals overlap widely, their order may be noise.</p>")


def name_ref(name: str) -> str:
    """A subject's display name in a note."""
    return f'<span class="name-ref">{esc(name)}</span>'


def ranks_note(board: Board) -> str:
    """Below the ranked table: what the rank ranges rest on, the significant differences, and whether the
    top ranks depend on alpha; ``""`` when the results carry neither pairwise.csv nor alpha_sensitivity.csv."""
    names = board.names

    def name(sid: str) -> str:
        return name_ref(names[sid])

    method, differences, alpha = rank_notes(board, name, esc)
    paragraphs = [f'<p class="note" id="rank-ranges">{method}</p>'] if method else []
    paragraphs += [f'<p class="note">{differences}</p>'] if method and differences else []
    if alpha:
        paragraphs.append(f'<p class="note" id="alpha-sensitivity">{alpha}</p>')
    return "\n".join(paragraphs)


def scale_note(board: Board) -> str:
    """The score's scale in one sentence (name, aggregation, range, direction, how Q_final puts it on 0-1),
    with a leading space; ``""`` on the seed's kind of scale (0-max, higher is better), which needs none."""
    described = board.scale.describe()
    if not described:
        return ""
    return (f" {esc(described)} Q_final puts it on the 0\u20131 scale of P by its range, "
            f"{esc(board.scale.norm_text())}, so 1 is the best total and 0 the worst.")


def source_commit(board: Board) -> str:
    """The commit the inputs came from: given by ``--source-commit`` when a page is published; in committed
    results (which cannot name the commit that holds them) how to find it from the input digest."""
    if board.source_commit:
        return f"<code>{esc(board.source_commit)}</code>"
    return ("the commit whose results/manifest.json records this input digest "
            f"(<code>git log -S {esc(board.input_digest[:16])} -- results/manifest.json</code>)")


def calibration_note(board: Board) -> str:
    """Which ECE gaps are distinguishable from perfect calibration (§19a); ``""`` for results without ECE intervals."""
    text = calibration_reading(board, name_ref, esc)
    return f'<p class="note" id="calibration-reading">{text}</p>' if text else ""


LEDE_TAIL = (" A single critical fail disqualifies a subject version. Every figure carries a reliability label: with few"
             "\ndistinct cases, small differences are noise.")


def formula_item(board: Board) -> str:
    """The footer's alpha entry (with the Q_final formula), or the formula alone without a pass rule."""
    if not board.shown.pass_rule:
        return f"<dt>Q_final</dt><dd>{esc(q_formula(board.shown, board.scale))}</dd>"
    return f"<dt>alpha</dt><dd>{esc(board.alpha_text)} ({esc(q_formula(board.shown, board.scale))})</dd>"


def ranking_sentence(board: Board) -> str:
    """How subjects are ranked: the Q_final formula (with alpha) and the figures that break ties."""
    shown = board.shown
    if shown.pass_rule and shown.calibration:
        return (f"Subjects are ranked by\nQ_final = alpha \u00b7 P + (1 \u2212 alpha) \u00b7 {esc(board.scale.norm_text())} "
                f"(alpha = {esc(board.alpha_text)}), then P, s\u0304\nand BS.")
    alpha = f" (alpha = {esc(board.alpha_text)})" if shown.pass_rule else ""
    return (f"Subjects are ranked by\n{esc(q_formula(shown, board.scale))}{alpha}, then "
            f"{esc(listed(tie_figures(shown)[1:]))}.")


def absent_note(board: Board) -> str:
    """The one paragraph that says why figures are absent (:mod:`.absent`); ``""`` when none is."""
    reasons = board.absent_reasons
    return f'<p class="note" id="not-recorded">{esc(" ".join(reasons))}</p>\n' if reasons else ""


def footer(board: Board) -> str:
    """Provenance (alpha, version, input digest), N per subject, and what each reliability label means."""
    per_subject = capped(board.entries, lambda entries: ", ".join(
        f"{esc(e.name)}: N = {e.metrics.n} ({counted(e.n_cases, 'case')})" for e in entries),
        noun="subject", where=RUNS_WHERE, esc=esc)
    labels = "".join(f"<dt>{esc(label)}</dt><dd>{esc(EXPLANATIONS[label])}</dd>" for label in LABELS)
    return f"""<footer>
<dl>
<dt>Benchmark version</dt><dd>{esc(board.benchmark_version)}</dd>
{formula_item(board)}
<dt>Input digest</dt><dd><code>sha256:{esc(board.input_digest)}</code> (results/manifest.json)</dd>
<dt>Source commit</dt><dd>{source_commit(board)}</dd>
<dt>Scored runs</dt><dd>{per_subject or "none"}</dd>
<dt>Intervals</dt><dd>{esc(board.interval_note) or "none in these results"}</dd>
</dl>
<p><strong>Reliability labels</strong>, {esc(board.reliability_rule)} (cases are counted once however many runs they
have):</p>
<dl>{labels}</dl>
<p>Ranks use the exact committed values; rows equal on {listed(tie_figures(board.shown))} share a rank. The reference
table is <code>results/leaderboard.csv</code>; this page is generated from it by
<code>scripts/build_leaderboard.py</code>.</p>
</footer>"""


def leaderboard_html(board: Board, extra_sections: str = "") -> str:
    """The whole page as text (``\\n`` line endings), its charts drawn now; ``extra_sections`` (HTML, e.g. the
    reviewers section) goes after the charts and the lab's sections."""
    title = f"{board.title} \u2014 leaderboard"
    svgs = page_svgs(board)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{esc(content_security_policy(JS))}">
<meta name="referrer" content="no-referrer">
<title>{esc(title)}</title>
<style>
{CSS}</style>
</head>
<body>
<header>
<h1>{esc(board.title)}</h1>
<p class="lede">Leaderboard of benchmark version {esc(board.benchmark_version)}. {ranking_sentence(board)}{LEDE_TAIL}\
{scale_note(board)}</p>
{absent_note(board)}{grades_paragraph(board)}{summary(board)}
{subject_filters(board)}
</header>
<main>
<section class="card" id="ranked">
<h2>Ranked</h2>
{ranked_table(board)}
{intervals_note(board)}
{ranks_note(board)}
</section>
{incomplete_section(board)}<section class="card disqualified" id="disqualified">
<h2>Disqualified</h2>
<p>At least one run of these subject versions triggered an automatic fail that the rubric marks critical.
They are not ranked; their figures stay visible so that their makers can see the
rest of the record. A new registered version starts with a clean record.</p>
{disqualified_table(board)}
</section>
<section class="card" id="unscored">
<h2>Unscored</h2>
{unscored_table(board)}
</section>
{charts_section(board, svgs)}
{lab_sections(board, svgs)}
{extra_sections}
</main>
{footer(board)}
{explorer_data_script(board)}<script>{JS}</script>
</body>
</html>
"""

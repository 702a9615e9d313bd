"""The leaderboard page's "Reviewers" section, from results/reviewers.csv and results/judge_agreement.csv.

Both files are written by scripts/aggregate_scoring.py before the leaderboard is built; a tree without
them (or with no row) gets no section; a file that is there must be what aggregate_scoring writes (else the
build is refused with a problem, never a traceback). Every value is escaped.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from ..load.safe_read import read_result_file
from ..problems import Problem
from ..stats.judge_agreement import JUDGE_COLUMNS
from ..stats.reviewer_report import REVIEWER_COLUMNS
from .lab_tables import parse_lab_table
from .results_tables import REGENERATE
from .templating import esc

REVIEWERS_CSV = "results/reviewers.csv"
JUDGE_CSV = "results/judge_agreement.csv"
COLUMNS = {REVIEWERS_CSV: REVIEWER_COLUMNS, JUDGE_CSV: JUDGE_COLUMNS}


def read_rows(root: Path, rel: str) -> tuple[list[dict[str, str]], list[Problem]]:
    """The rows of an optional result CSV (REVIEWERS_CSV or JUDGE_CSV): ([], []) when it is absent; else read
    safely and parsed as strictly as the lab tables (header, widths, counts: :func:`.lab_tables.parse_lab_table`),
    or ([], problems) that say to regenerate it."""
    if not os.path.lexists(Path(root) / rel):
        return [], []
    data, problems = read_result_file(root, rel)
    if data is None:
        return [], [Problem(p.path, f"{p.message}; {REGENERATE}") for p in problems]
    rows, problems = parse_lab_table(rel, data, COLUMNS[rel])
    return ([], problems) if problems else (rows, [])


def _interval(row: dict[str, str]) -> str:
    if not row.get("value"):
        return esc(row.get("note", ""))
    span = f" ({esc(row['ci_low'])}\u2013{esc(row['ci_high'])})" if row.get("ci_low") else ""
    return f"{esc(row['value'])}{span}"


def reviewers_section(reviewers: Sequence[dict[str, str]], judges: Sequence[dict[str, str]], *,
                      higher_is_better: bool = True) -> str:
    """The section's HTML ("" when there is nothing to show); ``higher_is_better`` is the score's direction (a
    reviewer above the others is lenient on a higher-is-better scale, severe on a penalty scale)."""
    if not reviewers:
        return ""
    reading = ("above 0 lenient, below 0 severe" if higher_is_better
               else "below 0 lenient, above 0 severe (lower is better)")
    by_id: dict[str, dict[tuple[str, str], dict[str, str]]] = {}
    for row in reviewers:
        by_id.setdefault(row["reviewer_id"], {})[(row["statistic"], row["target"] + ":" + row["level"])] = row
    lines = []
    for rid, stats in by_id.items():
        graded = stats.get(("runs_graded", "all:"), {}).get("value", "0")
        kind = next(iter(stats.values())).get("kind", "")
        mean = stats.get(("mean_score", "raw_score:"), {}).get("value", "")
        lenient = _interval(stats.get(("leniency", "raw_score:"), {}))
        lines.append(f"<tr><td><code>{esc(rid)}</code></td><td>{esc(kind)}</td><td class=\"num\">{esc(graded)}</td>"
                     f"<td class=\"num\">{esc(mean)}</td><td class=\"num\">{lenient}</td></tr>")
    judge_lines = "".join(
        f"<tr><td><code>{esc(r['judge_id'])}</code></td><td>{esc(r['statistic'])}</td><td>{esc(r['target'])}</td>"
        f"<td class=\"num\">{_interval(r)}</td><td class=\"num\">{esc(r['n_runs'])}</td></tr>" for r in judges)
    judge_table = ("<h3>LLM judges against the human grade</h3><div class=\"scroll\"><table><thead><tr><th>Judge</th>"
                   "<th>Statistic</th><th>Target</th><th>Value (95% interval)</th><th>Runs</th></tr></thead><tbody>"
                   f"{judge_lines}</tbody></table></div><p>From <code>results/judge_agreement.csv</code>. Judges' "
                   "grades never enter the metrics unless config.yaml sets <code>llm_judge_in_metrics: true</code>."
                   "</p>") if judges else ""
    return f"""<section class="card" id="reviewers">
<h2>Reviewers</h2>
<div class="scroll"><table><thead><tr><th>Reviewer</th><th>Kind</th><th>Grades</th><th>Mean raw score</th>
<th>Leniency on raw score (interval)</th></tr></thead>
<tbody>{"".join(lines)}</tbody></table></div>
<p>Leniency: mean over the runs shared with another human grader of (this reviewer's raw score \u2212 the others'
mean); {reading}; in parentheses a bootstrap interval over cases. Criterion distributions
per reviewer are in <code>results/reviewers.csv</code>; drift over time by <code>scripts/reviewer_drift.py</code>.</p>
{judge_table}
</section>"""

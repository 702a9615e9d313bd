"""The leaderboard page's "Reviewers" section, from results/reviewers.csv and results/judge_agreement.csv.

Both files are written by scripts/aggregate_scoring.py before the leaderboard is built; a tree without
them (or with an empty one) gets no section. Every value is escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..load.parsing import ParseError, decode_utf8
from ..load.safe_read import read_result_file
from ..results_csv import csv_records
from .html_tables import esc

REVIEWERS_CSV = "results/reviewers.csv"
JUDGE_CSV = "results/judge_agreement.csv"


def read_rows(root: Path, rel: str) -> list[dict[str, str]]:
    """The rows of an optional result CSV; [] when it is absent or unreadable (not UTF-8, a record malformed or
    of another width than the header's)."""
    if not (Path(root) / rel).is_file():
        return []
    data, _ = read_result_file(root, rel)
    if data is None:
        return []
    try:
        records = list(csv_records(decode_utf8(data)))   # the one reader: cells as the writer was given them
    except ParseError:
        return []
    if not records or any(record.problem for record in records):
        return []
    header = records[0].cells
    return [dict(zip(header, record.cells)) for record in records[1:]]


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

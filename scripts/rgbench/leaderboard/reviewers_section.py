"""The leaderboard page's "Reviewers" section, from results/reviewers.csv and results/judge_agreement.csv.

Both tables are computed with the results by `make metrics` (and written by `make agreement`); a results set
without them (or with no row) gets no section; a file that is there must be what aggregate_scoring writes (else the
build is refused with a problem, never a traceback). Every value is escaped (:mod:`.templating`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..problems import Problem
from ..results_csv import Table
from ..stats.judge_agreement import JUDGE_COLUMNS, JUDGE_FILE
from ..stats.reviewer_report import REVIEWER_COLUMNS, REVIEWERS_FILE
from .lab_tables import lab_rows
from .templating import render

COLUMNS = {REVIEWERS_FILE: REVIEWER_COLUMNS, JUDGE_FILE: JUDGE_COLUMNS}


def reviewer_rows(tables: Mapping[str, Table], name: str) -> tuple[list[dict[str, str]], list[Problem]]:
    """The rows of reviewers.csv or judge_agreement.csv (``name``) in ``tables``: ([], []) when absent; else
    checked as strictly as the lab tables (header, counts: :func:`.lab_tables.lab_rows`), or ([], problems)
    that say to regenerate it."""
    if name not in tables:
        return [], []
    rows, problems = lab_rows(f"results/{name}", tables[name], COLUMNS[name])
    return ([], problems) if problems else (rows, [])


def judges_use(judge_assisted: bool, llm_judge_in_metrics: bool) -> str:
    """What the judges' grades are to the metrics, as config.yaml sets it: ``assisted`` (every figure's control,
    corrected by the human grades), ``metrics`` (counted like human grades) or ``none``; the template says it."""
    return "assisted" if judge_assisted else "metrics" if llm_judge_in_metrics else "none"


def reviewers_section(reviewers: Sequence[dict[str, str]], judges: Sequence[dict[str, str]], *,
                      higher_is_better: bool = True, judges_in: str = "none") -> str:
    """The section's HTML (``templates/reviewers.html.j2``; "" when there is nothing to show); ``higher_is_better``
    is the score's direction (a reviewer above the others is lenient on a higher-is-better scale, severe on a
    penalty scale); ``judges_in`` what the judges' grades are to the metrics (:func:`judges_use`)."""
    if not reviewers:
        return ""
    reading = ("above 0 lenient, below 0 severe" if higher_is_better
               else "below 0 lenient, above 0 severe (lower is better)")
    by_id: dict[str, dict[tuple[str, str], dict[str, str]]] = {}
    for row in reviewers:
        by_id.setdefault(row["reviewer_id"], {})[(row["statistic"], row["target"] + ":" + row["level"])] = row
    rows = [(rid, next(iter(stats.values())).get("kind", ""), stats.get(("runs_graded", "all:"), {}).get("value", "0"),
             stats.get(("mean_score", "raw_score:"), {}).get("value", ""), stats.get(("leniency", "raw_score:"), {}))
            for rid, stats in by_id.items()]
    return render("reviewers.html.j2", reviewers=rows, judges=judges, reading=reading, judges_in=judges_in)

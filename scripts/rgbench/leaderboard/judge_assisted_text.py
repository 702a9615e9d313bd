"""The board in judge-assisted mode (config.yaml ``estimation: judge-assisted``): its figures are
judge_assisted.csv's (:mod:`rgbench.stats.judge_assisted_board`), and it says per subject what they rest on.

:func:`rgbench.leaderboard.inputs.assisted_tables` puts the estimator's P, s_bar and Q_final and their intervals
in place of the figures of the human grades alone (a draw stratified by the judge's grade is no uniform sample,
so their plain means are biased); the figures the estimator does not give yet are absent (:mod:`.absent`).
:func:`rests_on` is the short table of what each subject's figures rest on, written once for Markdown and HTML.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..numfmt import counted, fmt_fixed

DOC = "docs/judge_assisted.md"
METHOD = ("Judge-assisted figures: an LLM judge graded every answer and humans graded a random draw of them with "
          "known probabilities; each figure is the human mean corrected by the judge's grades, weighted per subject "
          "by how well the judge agrees with the humans there (power-tuned prediction-powered inference, the case "
          "as the unit), so it stays unbiased whatever the judge's bias, with case-bootstrap intervals. The table "
          "gives per subject the human grades used, the drawn answers still awaiting one, the judge-human "
          "correlation on them, and for Q_final the weight \u03bb given to the judge, the judge's estimated bias "
          "(its mean minus the humans' on the same answers), the human grades the estimate is worth, and the "
          "simultaneous rank set.")
HEAD = ("Subject", "Human grades", "Pending", "r", "\u03bb", "Judge bias", "Worth", "Rank set")


@dataclass(frozen=True)
class RestsOn:
    """One subject's line of the table: the subject's name and the cells, as shown."""

    subject_id: str
    cells: tuple[str, ...]


def rests_on(rows: Sequence[Mapping[str, Any]], order: Sequence[str]) -> tuple[RestsOn, ...]:
    """The table's lines in leaderboard ``order`` (subject ids): human grades used, drawn runs pending, the
    judge-human correlation on the labelled runs, Q_final's λ and the judge's estimated bias Hf − Hy, the human
    grades the estimate is worth, the rank set (or why the subject is not ranked); "—" where undefined."""
    by_id = {r["subject_id"]: r for r in rows}
    def cell(value: Any, decimals: int = 2) -> str:
        return "\u2014" if value is None else fmt_fixed(value, decimals)
    out = []
    for sid in order:
        r = by_id.get(sid)
        if r is None:
            continue
        worth = cell(r["Q_final_effective"], 0)
        ranks = ("\u2014" if r["Q_final"] is not None else
                 f"not ranked: {counted(r['n_unjudged'], 'run')} without the judge's grade" if r["n_unjudged"] else
                 "not ranked: no human grade of a drawn run yet")
        if r["rank_set_low"] is not None:
            ranks = f"{r['rank_set_low']}\u2013{r['rank_set_high']}"
        out.append(RestsOn(sid, (str(r["human_grades"]), str(r["pending"]), cell(r["judge_human_r"]),
                                 cell(r["Q_final_lambda"]), _signed(r["Q_final_judge_bias"]), worth, ranks)))
    return tuple(out)


def _signed(value: Any) -> str:
    """A bias with its sign (+0.050, −0.012), three decimals; "—" when undefined."""
    if value is None:
        return "\u2014"
    text = fmt_fixed(value, 3)
    return text if text.startswith("-") else "+" + text


def rests_on_markdown(lines: Sequence[RestsOn], names: Mapping[str, str], esc: Any) -> list[str]:
    """The method sentence and the table in Markdown (names through ``esc``), then a blank line; [] in human mode."""
    if not lines:
        return []
    table = ["| " + " | ".join(HEAD) + " |", "| --- |" + " ---: |" * (len(HEAD) - 1)]
    table += ["| " + " | ".join((esc(names[line.subject_id]), *line.cells)) + " |" for line in lines]
    return [f"{METHOD} The method, in the toolkit: `{DOC}`.", "", *table, ""]

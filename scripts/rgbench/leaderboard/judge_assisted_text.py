"""The board's sections in judge-assisted mode (config.yaml ``estimation: judge-assisted``), each written once for
Markdown and HTML: what each subject's figures rest on (:func:`rests_on`, from judge_assisted.csv) and its
criterion means (:func:`criterion_means`, from judge_assisted_criteria.csv). The figures themselves are the
estimator's in place of the human grades' (:func:`rgbench.leaderboard.inputs.assisted_tables`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from ..numfmt import counted, fmt_fixed, fmt_signed

DOC = "docs/judge_assisted.md"
METHOD = ("Judge-assisted figures: an LLM judge graded every answer and humans graded a random draw of them with "
          "known probabilities; each figure is the human mean corrected by the judge's grades, weighted per subject "
          "by how well the judge agrees with the humans there (power-tuned prediction-powered inference, the case "
          "as the unit), so it stays unbiased whatever the judge's bias, with case-bootstrap intervals. The table "
          "gives per subject the human grades used, the drawn answers still awaiting one, the judge-human "
          "correlation on them, and for Q_final the weight \u03bb given to the judge, the judge's estimated bias "
          "(its mean minus the humans' on the same answers), what the estimate is worth in human grades drawn at "
          "random (without the judge's strata), and the simultaneous rank set.")
CRITERIA_NOTE = ("Mean score of each rubric criterion by the same estimator (its own \u03bb per subject and "
                 "criterion), with its case-bootstrap interval; the human-only interval and \u03bb: "
                 "judge_assisted_criteria.csv.")
HEAD = ("Subject", "Human grades", "Pending", "r", "\u03bb", "Judge bias", "Worth", "Rank set")


class RestsOn(NamedTuple):
    """One subject's line of a table: its id and the cells, as shown."""

    subject_id: str
    cells: tuple[str, ...]


def rests_on(rows: Sequence[Mapping[str, Any]], order: Sequence[str]) -> tuple[RestsOn, ...]:
    """The table's lines in leaderboard ``order`` (subject ids): human grades used, drawn runs pending, the
    judge-human correlation on the labelled runs, Q_final's λ and the judge's estimated bias Hf − Hy, the human
    grades the estimate is worth, the rank set (or why the subject is not ranked); "—" where undefined."""
    by_id = {r["subject_id"]: r for r in rows}
    def cell(value: Any, decimals: int = 2, fmt: Callable[[Any, int], str] = fmt_fixed) -> str:
        return "\u2014" if value is None else fmt(value, decimals)
    def ranks(r: Mapping[str, Any]) -> str:
        if r["rank_set_low"] is not None:
            return f"{r['rank_set_low']}\u2013{r['rank_set_high']}"
        if r["Q_final"] is not None:
            return "\u2014"
        if r["n_unjudged"]:
            return f"not ranked: {counted(r['n_unjudged'], 'run')} without the judge's grade"
        if r["n_uncovered"]:
            return f"not ranked: {counted(r['n_uncovered'], 'run')} no draw covers (rgbench assign --draw N)"
        return "not ranked: no human grade of a drawn run yet"
    return tuple(RestsOn(sid, (str(r["human_grades"]), str(r["pending"]), cell(r["judge_human_r"]),
                               cell(r["Q_final_lambda"]), cell(r["Q_final_judge_bias"], 3, fmt_signed),
                               cell(r["Q_final_effective"], 0), ranks(r)))
                 for sid in order if (r := by_id.get(sid)) is not None)


def criterion_means(rows: Sequence[Mapping[str, Any]], order: Sequence[str], criteria: Sequence[str]
                    ) -> tuple[RestsOn, ...]:
    """One line per subject of ``order`` with a criterion mean (judge_assisted_criteria.csv's typed ``rows``), a cell
    per criterion of ``criteria``: the mean and its interval, two decimals ("1.38 (1.22–1.56)"), "—" where the
    subject has no row for it."""
    by_key = {(r["subject_id"], r["criterion"]): r for r in rows}
    def cell(r: Mapping[str, Any] | None) -> str:
        if r is None:
            return "\u2014"
        bounds = "" if r["mean_low"] is None else f" ({fmt_fixed(r['mean_low'], 2)}\u2013{fmt_fixed(r['mean_high'], 2)})"
        return fmt_fixed(r["mean"], 2) + bounds
    return tuple(RestsOn(sid, tuple(cell(by_key.get((sid, c))) for c in criteria)) for sid in order
                 if any((sid, c) in by_key for c in criteria))


def _markdown_table(head: Sequence[str], lines: Sequence[RestsOn], columns: Sequence[int], names: Mapping[str, str],
                    esc: Any) -> list[str]:
    """A Markdown table of the cells ``columns`` of ``lines`` under ``head``, after a Subject column (names through
    ``esc``)."""
    rows = [("Subject", *head), *((esc(names[line.subject_id]), *(line.cells[k] for k in columns)) for line in lines)]
    return ["| " + " | ".join(rows[0]) + " |", "| --- |" + " ---: |" * len(columns),
            *("| " + " | ".join(row) + " |" for row in rows[1:])]


def rests_on_markdown(lines: Sequence[RestsOn], names: Mapping[str, str], esc: Any) -> list[str]:
    """The method sentence and the table in Markdown (names through ``esc``), then a blank line; [] in human mode."""
    if not lines:
        return []
    table = _markdown_table(HEAD[1:], lines, range(len(HEAD) - 1), names, esc)
    return [f"{METHOD} The method, in the toolkit: `{DOC}`.", "", *table, ""]


def criteria_markdown(lines: Sequence[RestsOn], criteria: Sequence[str], names: Mapping[str, str], esc: Any,
                      width: int) -> list[str]:
    """The criterion means in Markdown: the note, then the criteria in as few tables as keep every line within
    ``width`` characters (at least one criterion a table), each followed by a blank line; [] without lines."""
    if not lines:
        return []
    def table(columns: Sequence[int]) -> list[str]:
        return _markdown_table([criteria[k].replace("_", " ") for k in columns], lines, columns, names, esc)
    out, columns = [CRITERIA_NOTE, ""], [0]
    for k in range(1, len(criteria) + 1):
        if k < len(criteria) and max(map(len, table([*columns, k]))) <= width:
            columns.append(k)
            continue
        out += [*table(columns), ""]
        columns = [k]
    return out

"""The board's sections in judge-assisted mode, each written once for Markdown and HTML: what each subject's figures
rest on (:func:`rests_on`, from judge_assisted.csv) and its criterion means (:func:`criterion_means`, from
judge_assisted_criteria.csv); the figures themselves: :func:`rgbench.leaderboard.inputs.assisted_tables`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from ..numfmt import counted, fmt_fixed, fmt_signed

DOC = "docs/judge_assisted.md"
METHOD = ("Judge-assisted figures: an LLM judge graded every answer and humans graded a random draw of them with "
          "known probabilities; each figure is the human mean corrected by the judge's grades, weighted per subject "
          "by how well the judge agrees with the humans there (power-tuned prediction-powered inference, the case "
          "as the unit), so the judge's bias does not carry into it, with case-bootstrap intervals. The table "
          "gives per subject the human grades used, the drawn answers still awaiting one, the judge-human "
          "correlation on them, {disagree}and for Q_final the weight \u03bb given to the judge{parts}, the "
          "judge's estimated bias "
          "(its mean minus the humans' on the same answers), what the estimate is worth in human grades drawn at "
          "random (without the judge's strata), and the simultaneous rank set.")
CRITERIA_NOTE = ("Mean score of each rubric criterion by the same estimator (its own \u03bb per subject and "
                 "criterion), with its case-bootstrap interval; the human-only interval and \u03bb: "
                 "judge_assisted_criteria.csv.")
HEAD = ("Subject", "Human grades", "Pending", "r", "Disagree on pass", "\u03bb", "Judge bias", "Worth", "Rank set")
DISAGREE = HEAD.index("Disagree on pass")   # a column only a benchmark with a pass rule has


def head(pass_rule: bool) -> tuple[str, ...]:
    """The table's columns, Subject first; without a pass rule no "Disagree on pass" (there is no pass to disagree on)."""
    return HEAD if pass_rule else HEAD[:DISAGREE] + HEAD[DISAGREE + 1:]


def method(pass_rule: bool) -> str:
    """The sentence above the table: what the figures are and what each column gives (:func:`head`'s)."""
    return METHOD.format(disagree="how many of them the judge passes or fails otherwise than the human, " if pass_rule
                         else "", parts=" (to its pass / to its score, where Q_final has both)" if pass_rule else "")


class RestsOn(NamedTuple):
    """One subject's line of a table: its id and the cells, as shown."""

    subject_id: str
    cells: tuple[str, ...]


def rests_on(rows: Sequence[Mapping[str, Any]], order: Sequence[str], pass_rule: bool = True) -> tuple[RestsOn, ...]:
    """The table's lines in leaderboard ``order`` (subject ids), cells as :func:`head` names them (judge_assisted.csv's
    typed ``rows``; docs/judge_assisted.md, "On the board"), or why the subject is not ranked; "—" where undefined."""
    by_id = {r["subject_id"]: r for r in rows}
    def cell(value: Any, decimals: int = 2, fmt: Callable[[Any, int], str] = fmt_fixed) -> str:
        return "\u2014" if value is None else fmt(value, decimals)
    def weights(r: Mapping[str, Any]) -> str:   # Q_final's λ: one, or the pass part's and the score part's
        score = cell(r["Q_final_lambda"])
        return score if r["Q_final_lambda_pass"] is None else f"{cell(r['Q_final_lambda_pass'])} / {score}"
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
    disagree = lambda r: (cell(r["pass_disagreements"], 0, lambda n, _: str(n)),) if pass_rule else ()
    return tuple(RestsOn(sid, (str(r["human_grades"]), str(r["pending"]), cell(r["judge_human_r"]), *disagree(r),
                               weights(r), cell(r["Q_final_judge_bias"], 3, fmt_signed),
                               cell(r["Q_final_effective"], 0), ranks(r)))
                 for sid in order if (r := by_id.get(sid)) is not None)


def critical_ungraded(rows: Sequence[Mapping[str, Any]], order: Sequence[str]) -> tuple[tuple[str, int], ...]:
    """(subject id, runs) in leaderboard ``order`` for each subject whose runs the judge flags with a critical fail
    that no human has graded (judge_assisted.csv's typed ``rows``, ``judge_critical_ungraded``): unconfirmed, since
    the critical-fail gate reads human grades only."""
    by_id = {r["subject_id"]: r for r in rows}
    return tuple((sid, n) for sid in order if (n := (by_id.get(sid) or {}).get("judge_critical_ungraded") or 0))


def critical_note(flagged: Sequence[tuple[str, int]], names: Mapping[str, str], esc: Any) -> str:
    """The sentence under the table on :func:`critical_ungraded`'s ``flagged`` subjects (names through ``esc``);
    "" when there are none."""
    if not flagged:
        return ""
    listed = ", ".join(f"{esc(names[sid])} {n}" for sid, n in flagged)
    return (f"The judge flags a critical fail on answers no human has graded ({listed}): a critical fail "
            "disqualifies when a human grade flags it, so these are unconfirmed until a human grades those answers "
            "(drawn or not, such a grade counts for the gate and the agreement, and for the estimate where the run "
            "was drawn).")


def criterion_means(rows: Sequence[Mapping[str, Any]], order: Sequence[str], criteria: Sequence[str]) -> tuple[RestsOn, ...]:
    """One line per subject of ``order`` with a criterion mean (judge_assisted_criteria.csv's typed ``rows``), a cell
    per criterion of ``criteria``: "1.38 (1.22–1.56)", the mean and interval to two decimals; "—" without a row."""
    by_key = {(r["subject_id"], r["criterion"]): r for r in rows}
    def cell(r: Mapping[str, Any] | None) -> str:
        if r is None:
            return "\u2014"
        bounds = "" if r["mean_low"] is None else f" ({fmt_fixed(r['mean_low'], 2)}\u2013{fmt_fixed(r['mean_high'], 2)})"
        return fmt_fixed(r["mean"], 2) + bounds
    return tuple(RestsOn(sid, tuple(cell(by_key.get((sid, c))) for c in criteria)) for sid in order
                 if any((sid, c) in by_key for c in criteria))


def _tables(note: str, head: Sequence[str], lines: Sequence[RestsOn], names: Mapping[str, str], esc: Any,
            width: float) -> list[str]:
    """``note`` and a blank line, then the cells of ``lines`` under ``head`` after a Subject column (names through
    ``esc``), in as few Markdown tables as keep every line within ``width`` characters (at least one column a table),
    each followed by a blank line; [] without lines."""
    if not lines:
        return []
    def table(columns: Sequence[int]) -> list[str]:
        rows = [("Subject", *(head[k] for k in columns)),
                *((esc(names[line.subject_id]), *(line.cells[k] for k in columns)) for line in lines)]
        return ["| " + " | ".join(rows[0]) + " |", "| --- |" + " ---: |" * len(columns),
                *("| " + " | ".join(row) + " |" for row in rows[1:])]
    out, columns = [note, ""], [0]
    for k in range(1, len(head) + 1):
        if k < len(head) and max(map(len, table([*columns, k]))) <= width:
            columns.append(k)
            continue
        out += [*table(columns), ""]
        columns = [k]
    return out


def rests_on_markdown(lines: Sequence[RestsOn], names: Mapping[str, str], esc: Any, pass_rule: bool = True) -> list[str]:
    """The method sentence and the table in Markdown (names through ``esc``), then a blank line; [] in human mode."""
    return _tables(f"{method(pass_rule)} The method, in the toolkit: `{DOC}`.", head(pass_rule)[1:], lines, names, esc,
                   float("inf"))


def criteria_markdown(lines: Sequence[RestsOn], criteria: Sequence[str], names: Mapping[str, str], esc: Any,
                      width: int) -> list[str]:
    """The criterion means in Markdown: the note, then the criteria in tables of lines within ``width`` characters."""
    return _tables(CRITERIA_NOTE, [c.replace("_", " ") for c in criteria], lines, names, esc, width)

"""The grading budget of a judge-assisted board: how many more human grades each figure needs.

    rgbench plan [--figure Q_final|P|s_bar] [--half-width H]

Per subject: the human grades its figure rests on now, the interval's half-width now, the further draw for the
half-width H (default: config.yaml's 'stable' reliability half-width, times the score range for s_bar) on at least
reliability_min_cases cases with a human grade (below them the board labels the figure indicative), and the
narrowest half-width grading can reach, with every run graded (more cases are needed below it). Per pair of neighbours
in the ranking by the figure: the further draw of each to decide their order at the current difference. From the
current data (the method: docs/judge_assisted.md, "The grading budget"; a P of 0 or 1, marked *, for its Wilson
interval). A count is one further `rgbench assign --draw N --subjects <subject>`, taken as uniform over the
subject's runs not drawn yet: N new human grades. Counts after a small first draw can be too many (measured:
docs/judge_assisted.md, "Where the counts miss"). Prints a table; writes nothing.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path

from ..leaderboard.judge_assisted_text import critical_note
from ..load.draws import HumanDraws
from ..load.parsing import exact_decimal
from ..problems import refuse
from ..stats.grading_plan import PairNeed, Phase, grades_for_half_width, pair_grades_for_half_width, phase
from ..stats.judge_assisted import Run
from ..stats.judge_assisted_board import SubjectRuns, assisted_rows, assisted_subjects
from .common import load_valid_grades

CAVEAT = ("draw: the N new human grades of one further rgbench assign --draw N --subjects <subject>, taken as "
          "uniform over the subject's runs not drawn yet. Counts made after a small first draw can be about 20% "
          "more than needed: plan again after the draw (docs/judge_assisted.md, \"Where the counts miss\"). Sizes "
          "chosen from these counts, stopping at a 0 included, can bias the estimate: fix the total before the first "
          "draw, or decide then on a second draw at least as large and make it whatever the first shows (\"A size "
          "chosen from the data\").")


def _count(value: int | None) -> str:
    return "-" if value is None else str(value)


def _counts(first: int | None, second: int | None) -> str:
    return f"{_count(first)}, {_count(second)}"


def _why(subject: SubjectRuns) -> str:
    """Why a subject has no judge-assisted estimate, and what to do."""
    if subject.unjudged:
        return "runs without the judge's grade (grade them with the judge)"
    if subject.uncovered:
        return "runs no draw covers (a draw over them, and a pilot if none: rgbench assign --draw N)"
    if subject.pending:
        return "its drawn runs await a human grade (grade them: make review)"
    return "no human grade in a draw (a draw, rgbench assign --draw N, graded)"


def neighbours(ranked: Sequence[str], runs: Mapping[str, Sequence[Run]], precision: Mapping[str, float],
               pairs: Sequence[tuple[str, str, dict]], figure: str, confidence: Fraction, resamples: int
               ) -> list[tuple[str, str, Fraction, PairNeed]]:
    """(a, b, a − b, the further draw of each to decide it at |a − b|, on the runs of the cases they share) for each
    neighbouring a, b of ``ranked`` (by the figure) with a difference on the board's ``pairs`` (each pair once, in
    the Q_final ranking: (b, a, b − a) when the figure ranks them the other way); ``precision`` per subject its
    draws' H."""
    differences = {}   # (a, b) -> (a − b, its interval's half-width, the SD of its replicates)
    for a, b, per in pairs:
        gap, bounds, spread = per.get(figure, (None, None, None))
        if gap is not None and bounds is not None and spread is not None:
            half = (bounds[1] - bounds[0]) / 2
            differences[a, b], differences[b, a] = (gap, half, spread), (-gap, half, spread)
    out = []
    for a, b in zip(ranked, ranked[1:]):
        if (a, b) in differences:
            gap, half, spread = differences[a, b]
            shared = {r.case_id for r in runs[a]} & {r.case_id for r in runs[b]}
            first, second = phase(runs[a], precision[a], shared), phase(runs[b], precision[b], shared)
            out.append((a, b, gap, pair_grades_for_half_width(float(half), spread, first, second, abs(float(gap)),
                                                              confidence, resamples)))
    return out


def run(args: argparse.Namespace) -> int:
    root: Path = args.root
    loaded = load_valid_grades(root)
    if loaded is None:
        return 1
    spec, tree, multi = loaded
    if not spec.judge_assisted:
        return refuse(f"system/metrics/{spec.version_dir}/config.yaml: estimation is human; the grading budget is "
                      "for judge-assisted figures (set estimation: judge-assisted and judge: <an llm-judge's id>; "
                      "docs/judge_assisted.md)")
    figure = args.figure
    if figure == "P" and not spec.has_pass_rule:
        return refuse("--figure P: the benchmark declares no pass_threshold, so there is no P "
                      "(choose Q_final or s_bar)")
    stats = spec.stats
    # the target: --half-width, or config.yaml's stable half-width (times the score range for s_bar)
    try:
        target = (stats.reliability_half_widths[1] * (spec.scale.span if figure == "s_bar" else 1)
                  if args.half_width is None else exact_decimal(args.half_width))
    except ValueError:
        target = Fraction(0)
    if target <= 0:
        return refuse(f"--half-width: must be a decimal number above 0 (e.g. 0.03), got {args.half_width!r}")
    confidence, resamples = stats.confidence_level, stats.bootstrap_resamples
    subjects = {s.subject_id: s for s in assisted_subjects(spec, tree, multi)}
    # the ranking by the figure, best first: s_bar on a lower-is-better scale ascending, the others descending
    better = -1 if figure != "s_bar" or spec.higher_is_better else 1
    def neighbouring(rows: list) -> list[tuple[str, str]]:   # the pairs neighbours() reads: none other is computed
        estimated = [(r.figures[figure].estimate, r.subject_id) for r in rows]
        ranked = [sid for _, sid in sorted((better * est.theta, sid) for est, sid in estimated if est is not None)]
        return list(zip(ranked, ranked[1:]))
    # the board's figures and pairs, as make metrics computes them (the criterion means and other pairs aside)
    board, pairs = assisted_rows(list(subjects.values()), spec, with_criteria=False, pairs_of=neighbouring)
    runs = {sid: s.runs[figure] for sid, s in subjects.items()}
    draws = tree.draws or HumanDraws(spec.judge, ())
    precision = {sid: draws.precision(sid) for sid in subjects}
    rows: list[tuple[str, Fraction, float, Phase, float]] = []   # subject, estimate, half-width now, parts, SD
    for row in board:
        fig = row.figures[figure]
        if (est := fig.estimate) is not None and fig.interval is not None and fig.spread is not None:
            rows.append((row.subject_id, est.theta, float(fig.interval[1] - fig.interval[0]) / 2,
                         phase(runs[row.subject_id], precision[row.subject_id]), fig.spread))
    rows.sort(key=lambda row: (better * row[1], row[0]))
    print(f"Human grades for {figure}'s {100 * float(confidence):g}% interval half-width {float(target):g} on at "
          f"least {stats.reliability_min_cases} cases with a human grade (below them the board labels a figure "
          f"indicative; judge {spec.judge}; '-': grading every run would not reach it, more cases are needed):")
    print(f"{'subject':<28} {'estimate':>9} {'graded':>7} {'half-width':>11} {'draw':>6} {'all graded':>11}")
    wilson = {sid for sid, theta, *_ in rows if figure == "P" and theta in (0, 1)}   # as proportion_figure
    # drawn runs without a human grade yet: a count other than 0 (met now) waits for them
    waiting = {sid: s.pending for sid, s in subjects.items() if s.pending}
    waited = False
    for sid, theta, half, parts, spread in rows:
        need = grades_for_half_width(half, spread, parts, float(target), confidence, resamples, sid in wilson,
                                     min_cases=stats.reliability_min_cases)
        wait = sid in waiting and need.needed != 0
        waited |= wait
        draw = "wait" if wait else _count(need.needed) + "*" * (sid in wilson)
        print(f"{sid:<28} {float(theta):>9.4f} {parts.labels:>7} {half:>11.4f} {draw:>6} {need.half_width_all:>11.4f}")
    if wilson:
        print("*: P is exactly 0 or 1, so its interval is Wilson's over the cases with a human grade; the count "
              "assumes every further grade keeps it there (one that does not makes the interval the bootstrap's)")
    if len(rows) >= 2:
        print()
        print("Human grades to decide each neighbouring order ('-': grading every run of both would not decide it"
              + (f"; s_bar: {spec.scale.direction_text}" if better == 1 else "") + "):")
        print(f"{'pair':<50} {'difference':>10} {'draw (first, second)':>21}")
        for a, b, gap, more in neighbours([row[0] for row in rows], runs, precision, pairs, figure, confidence,
                                          resamples):
            wait = more != (0, 0) and bool(waiting.keys() & {a, b})
            waited |= wait
            print(f"{a + ' > ' + b:<50} {float(gap):>10.4f} {'wait' if wait else _counts(*more):>21}")
    if missing := sorted(set(subjects) - {row[0] for row in rows}):
        print()
        reasons: dict[str, list[str]] = {}
        for sid in missing:
            reasons.setdefault(_why(subjects[sid]), []).append(sid)
        for why, ids in sorted(reasons.items()):
            print(f"No estimate yet, {why}: {', '.join(ids)}")
    if note := critical_note([(sid, s.critical_ungraded) for sid, s in sorted(subjects.items()) if s.critical_ungraded],
                             {sid: sid for sid in subjects}, str):   # the board's sentence, and where to grade them
        print()
        print(f"{note} rgbench review serves them to every human after their drawn runs.")
    if waited:
        print()
        print("wait: drawn runs await a human grade (" + ", ".join(f"{sid} {n}" for sid, n in sorted(waiting.items()))
              + "): the weights already count them, so the figure and its variance are not yet what the draw gives; "
              "grade them (make review; a reviewer away: make draw REASSIGN=<id>), then plan again")
    print()
    print(CAVEAT)
    return 0

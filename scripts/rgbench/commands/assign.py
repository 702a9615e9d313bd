"""Pick runs for further human grades: second grades (--share), or in judge-assisted mode the human draws.

    rgbench assign --share 0.2      a stratified, seeded sample of graded runs for a second grade
    rgbench assign --draw N         judge-assisted: a new draw of N runs, stratified by subject and judge grade
    rgbench assign --next N         judge-assisted: an active draw of N runs, more where the judge errs most
    rgbench assign --next N --subjects new-model    the same over the subjects named only (e.g. one that joins)
    rgbench assign --reassign rev-3 the second grades (judge-assisted: the drawn runs) waiting for rev-3 go to
                                    the other humans

--share: strata (family, subject) of the runs graded in scoring/; the second reviewer is a registered human
other than the first reviewer, the least loaded first. Writes subjects/second_reviews.json, which the
grading page reads. A rerun (as first grades arrive) keeps the runs and names the file holds and draws only the
rest (rgbench.review.assignments says how): nobody is asked for a third grade, and the same inputs, share and
file give the same bytes. --reassign rev-3 names other humans for the second grades still waiting for rev-3.

--draw and --next (config.yaml estimation: judge-assisted) append a draw to subjects/human_draws.json, each run
with the exact probability the draw had of picking it, and name for each drawn run without a human grade the
registered human with the fewest runs waiting (ties: id order); the grading page serves them in draw order. The
existing draws are checked first (each whose subjects' runs and judge grades are those it records must be what
its seed and the judge's grades give; `rgbench validate` checks the same); a draw is made over today's runs that
no earlier draw lists, so no run is drawn twice and it covers runs added since the earlier draws.
docs/judge_assisted.md, "The draw", says how each draw is made. --reassign changes only the names: each drawn
run without a human grade that waits for that reviewer (away, or no longer grading) goes to the other
registered human with the fewest runs waiting, in draw order (the check re-derives draws without the names).
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Collection
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

from ..atomic import output_error, write_bytes_atomic
from ..load.draws import DRAWS_FILE, Draw, DrawnRun, HumanDraws, RunKey, draws_document
from ..load.parsing import exact_decimal
from ..load.records import Tree
from ..load.reviewers import HUMAN, REVIEWERS_FILE, available_humans
from ..load.spec import Spec
from ..problems import Problem, refuse, report
from ..review import assignments, scoring_doc
from ..stats import judge_assisted_draw as drawing
from .common import load_valid_grades, load_valid_tree

NOT_AWAY = "(those marked away: true left out)"   # in the refusals when no human may be named for a run


def tally(counts: Counter[str]) -> str:
    """``a 2, b 1`` (by id), or ``none``: how many runs each reviewer has, as the messages print it."""
    return ", ".join(f"{who} {n}" for who, n in sorted(counts.items())) or "none"


def parse_share(text: str) -> Fraction | None:
    """The share ``text`` names when it is a plain decimal in (0, 1] (``0.2``, ``1``, ``.25``); else None.

    Read with the project's bounded decimal parser: ``1e-99999999`` or a 10,000-digit number is refused at
    once instead of costing unbounded time, ``1/5``, ``nan`` and an empty text are refused too."""
    try:
        share = exact_decimal(text)
    except ValueError:
        return None
    return share if 0 < share <= 1 else None


def run(args: argparse.Namespace) -> int:
    root: Path = args.root
    chosen = [option for option in ("share", "draw", "next", "reassign") if getattr(args, option) is not None]
    if len(chosen) != 1:
        return refuse("rgbench assign: give one of --share S (second grades), --draw N or --next N "
                      "(judge-assisted draws), or --reassign REVIEWER (their drawn runs to the other humans)")
    if args.reassign is not None:
        if args.subjects is not None:
            return refuse("--subjects: names the subjects of a judge-assisted draw (--draw N or --next N), not of "
                          "--reassign")
        return reassign(root, args.reassign)
    if args.share is None:
        return draw(root, "draw" if args.draw is not None else "next", args.draw if args.draw is not None else args.next,
                    args.subjects)
    if args.subjects is not None:
        return refuse("--subjects: names the subjects of a judge-assisted draw (--draw N or --next N), not of --share")
    share = parse_share(args.share)
    if share is None:
        shown = args.share if len(args.share) <= 40 else args.share[:40] + "..."
        return refuse(f"--share: must be a decimal number above 0 and at most 1 (e.g. 0.2: make assign SHARE=0.2), "
                      f"got {shown!r}")
    loaded = load_valid_tree(root, llm_judges=True)
    if loaded is None:
        return 1
    spec, tree = loaded
    registered = tree.reviewers or {}
    if not available_humans(registered):
        return report([Problem(REVIEWERS_FILE, f"no human reviewer registered {NOT_AWAY}; a second grade needs one")])
    humans = [r.reviewer_id for r in registered.values() if r.kind == HUMAN]
    first, anyone = scoring_doc.graded_runs(root, spec)
    first_reviewer = {key: who[0] for key, who in first.items() if key in tree.responses and len(who) == 1}
    families = {key: tree.golds[key[1]].family for key in first_reviewer}
    earlier, unread = assignments.read_file(root)
    for problem in unread:
        print(f"{problem.path}: {problem.message}; drawn afresh")
    chosen_runs = assignments.assign(first_reviewer, families, humans, anyone, share, earlier.names,
                                     {r.reviewer_id for r in registered.values() if r.away})
    try:
        write_bytes_atomic(root / assignments.ASSIGNMENTS_FILE,
                           assignments.assignments_document(share, chosen_runs, len(first_reviewer)))
    except OSError as exc:
        return report([Problem(assignments.ASSIGNMENTS_FILE, output_error(root / assignments.ASSIGNMENTS_FILE, exc).reason)])
    per_reviewer = Counter(item["reviewer_id"] for item in chosen_runs)
    print(f"{assignments.ASSIGNMENTS_FILE}: {len(chosen_runs)} of {len(first_reviewer)} graded runs assigned for a second "
          f"grade ({tally(per_reviewer)})")
    return 0


def draw(root: Path, option: str, size: int, subjects: str | None = None) -> int:
    """``--draw N`` (stratified) or ``--next N`` (active): append draw k + 1 to subjects/human_draws.json, over the
    judged subjects, or those of ``subjects`` (comma-separated ids)."""
    loaded = load_valid_grades(root)
    if loaded is None:
        return 1
    spec, tree, multi = loaded
    if not spec.judge_assisted:
        return report([Problem(spec.config_path, f"--{option}: estimation is human, where every run is graded by a "
                                                 "person; draws of runs for human grades are judge-assisted mode's "
                                                 "(set estimation: judge-assisted and judge: <id> in config.yaml, "
                                                 "docs/judge_assisted.md; for second grades: --share)")])
    humans = available_humans(tree.reviewers)
    if not humans:
        return report([Problem(REVIEWERS_FILE, f"no human reviewer registered {NOT_AWAY}; a drawn run needs one to "
                                               "grade it")])
    runs, left_out = drawing.judged_runs(spec, tree, multi)
    existing = tree.draws or HumanDraws(spec.judge, ())
    problems = [Problem(DRAWS_FILE, message) for message in drawing.verify(existing, runs)]
    waiting = drawing.pending(existing, runs)
    if option == "next" and waiting:
        named = Counter(assignments.drawn_assignments(existing).get(key, "nobody named") for key in waiting)
        problems.append(Problem(DRAWS_FILE, f"{len(waiting)} run(s) of the earlier draws have no human grade yet "
                                            f"({tally(named)}): an active draw rests on the human grades of every "
                                            "earlier drawn run (grade them first: rgbench review; a reviewer away: "
                                            "rgbench assign --reassign ID)"))
    if not runs:
        problems.append(Problem(spec.config_path, f"no subject has every run graded by the judge {spec.judge}"))
    chosen = sorted({s.strip() for s in subjects.split(",")} - {""}) if subjects is not None else sorted(runs)
    unknown = [s for s in chosen if s not in runs]
    if not chosen:
        problems.append(Problem("--subjects", "names no subject (give subject ids separated by commas)"))
    if unknown:
        problems.append(Problem("--subjects", f"{', '.join(unknown)}: not a subject whose every run the judge "
                                              f"{spec.judge} graded (draw over: {', '.join(sorted(runs)) or 'none'})"))
    over = drawing.undrawn({s: runs[s] for s in chosen if s in runs}, existing.draws)
    if chosen and not unknown and not over:
        problems.append(Problem("--subjects" if subjects is not None else DRAWS_FILE,
                                f"every run of {', '.join(chosen)} is drawn already (each run is drawn once: grade "
                                "the drawn runs; more cases or models make more runs to draw)"))
    if problems:
        return report(problems)
    number, seed = len(existing.draws) + 1, spec.stats.seed
    try:
        made = (drawing.stratified(number, seed, over, size) if option == "draw" else
                drawing.active(number, seed, over, size, drawing.spreads(
                    runs, frozenset(r.key for d in existing.draws for r in d.runs), chosen)))
    except ValueError as exc:
        return report([Problem(f"--{option}", f"{size}: {exc}")])
    made = replace(with_reviewers(made, existing, runs, humans), population=drawing.population(over, made.subjects))
    uncovered = {r.key for items in over.values() for r in items} - existing.covered()
    try:
        write_bytes_atomic(root / DRAWS_FILE, draws_document(HumanDraws(spec.judge, (*existing.draws, made))))
    except OSError as exc:
        return report([Problem(DRAWS_FILE, output_error(root / DRAWS_FILE, exc).reason)])
    asked = Counter(r.reviewer_id for r in made.runs if r.reviewer_id)
    print(f"{DRAWS_FILE}: draw {number} ({made.design}) picked {len(made.runs)} runs over {len(over)} subjects, "
          f"{sum(asked.values())} to grade ({tally(asked)}), {len(made.runs) - sum(asked.values())} already graded by a human")
    if existing.draws and uncovered:
        print(f"  {len(uncovered)} run(s) no earlier draw covered (added since): this draw covers them")
    for subject in sorted(set(chosen) - set(over)):
        print(f"  {subject} left out: every run of it is drawn already")
    before = Counter(r.key[0] for d in existing.draws for r in d.runs)
    fewer = [f"{subject} {taken} of {before[subject]}" for subject, taken in
             sorted(Counter(r.key[0] for r in made.runs).items()) if taken < before[subject]]
    if fewer:
        print(f"  fewer runs than drawn before ({', '.join(fewer)}): sized from the data (rgbench plan), such a draw "
              "can bias the estimate (docs/judge_assisted.md, \"A size chosen from the data\")")
    for subject, why in left_out.items():
        print(f"  {subject} left out: {why}")
    return 0


def reassign(root: Path, away: str) -> int:
    """``--reassign REVIEWER``: every drawn run without a human grade named for ``away`` is named instead for the
    other registered human with the fewest drawn runs waiting (ties: id order), in draw order; nothing else in
    subjects/human_draws.json changes."""
    loaded = load_valid_grades(root)
    if loaded is None:
        return 1
    spec, tree, multi = loaded
    if not spec.judge_assisted:
        return reassign_second_grades(root, spec, tree, away)
    if not tree.draws:
        return report([Problem(DRAWS_FILE, "--reassign: no human draws to reassign (judge-assisted mode's "
                                           "rgbench assign --draw N writes them)")])
    others = available_humans(tree.reviewers, besides=away)
    named = waiting_runs(tree.draws, drawing.judge_and_human(spec, tree, multi)[1].keys())
    waiting = Counter(named.values())
    problems = []
    if not waiting[away]:
        problems.append(Problem("--reassign", f"{away!r}: no drawn run waits for this reviewer's grade (waiting: "
                                              f"{tally(waiting)})"))
    if not others:
        problems.append(Problem(REVIEWERS_FILE, f"no registered human other than {away!r} {NOT_AWAY} to give the "
                                                "runs to (register one: a maintainer's change)"))
    if problems:
        return report(problems)
    load = Counter({h: waiting[h] for h in others})
    moved: Counter[str] = Counter()
    def renamed(run: DrawnRun) -> DrawnRun:
        if named.get(run.key) != away:
            return run
        to = assignments.least_loaded(others, load)
        moved[to] += 1
        return replace(run, reviewer_id=to)
    draws = replace(tree.draws, draws=tuple(replace(d, runs=tuple(map(renamed, d.runs))) for d in tree.draws.draws))
    try:
        write_bytes_atomic(root / DRAWS_FILE, draws_document(draws))
    except OSError as exc:
        return report([Problem(DRAWS_FILE, output_error(root / DRAWS_FILE, exc).reason)])
    print(f"{DRAWS_FILE}: {sum(moved.values())} drawn run(s) waiting for {away} reassigned ({tally(moved)})")
    return 0


def reassign_second_grades(root: Path, spec: Spec, tree: Tree, away: str) -> int:
    """``--reassign REVIEWER`` in human mode: the second grades subjects/second_reviews.json assigns to ``away``
    and they have not given go to the other humans (:func:`assignments.reassigned`); only the names change, and
    a rerun of ``rgbench assign --share`` keeps them."""
    found, problems = assignments.read_file(root)
    if problems:
        return report(problems)
    first, anyone = scoring_doc.graded_runs(root, spec)
    waiting = Counter(assignments.waiting(found.names, anyone).values())
    if not waiting[away]:
        return report([Problem("--reassign", f"{away!r}: no second grade waits for this reviewer "
                                             f"({assignments.ASSIGNMENTS_FILE}; waiting: {tally(waiting)})")])
    if found.share is None or found.population is None:
        return report([Problem(assignments.ASSIGNMENTS_FILE, "gives no share and graded_runs to keep (regenerate "
                                                             "it with rgbench assign --share S)")])
    first_reviewer = {key: who[0] for key, who in first.items() if len(who) == 1}
    names, stuck = assignments.reassigned(found.names, away, first_reviewer, available_humans(tree.reviewers), anyone)
    moved = Counter(who for key, who in names.items() if who != found.names[key])
    if not moved:
        return report([Problem(REVIEWERS_FILE, f"no registered human other than {away!r} {NOT_AWAY} may take their "
                                               f"{waiting[away]} second grade(s) (a second reviewer is neither the "
                                               "first nor one who graded the run; register one: a maintainer's "
                                               "change)")])
    try:
        write_bytes_atomic(root / assignments.ASSIGNMENTS_FILE, assignments.assignments_document(
            found.share, assignments.items(names), found.population))
    except OSError as exc:
        return report([Problem(assignments.ASSIGNMENTS_FILE, output_error(root / assignments.ASSIGNMENTS_FILE, exc).reason)])
    print(f"{assignments.ASSIGNMENTS_FILE}: {sum(moved.values())} second grade(s) waiting for {away} reassigned "
          f"({tally(moved)})" + (f"; {len(stuck)} stay with {away}: no other human may grade them" if stuck else ""))
    return 0


def with_reviewers(made: Draw, existing: HumanDraws, runs: dict, humans: list[str]) -> Draw:
    """``made`` with a reviewer for each run without a human grade: the one an earlier draw named while it still
    waits, else :func:`assignments.least_loaded`'s."""
    graded = {r.key for items in runs.values() for r in items if r.human is not None}
    earlier = waiting_runs(existing, graded)
    load = Counter(earlier.values())
    return replace(made, runs=tuple(replace(run, reviewer_id=None if run.key in graded else
                                            earlier.get(run.key) or assignments.least_loaded(humans, load))
                                     for run in made.runs))


def waiting_runs(draws: HumanDraws, graded: Collection[RunKey]) -> dict[RunKey, str]:
    """The drawn runs without a human grade (not in ``graded``) that a draw names a reviewer for -> that reviewer."""
    return {key: who for key, who in assignments.drawn_assignments(draws).items() if key not in graded}

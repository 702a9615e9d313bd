"""The human draws of judge-assisted mode (issue 28; docs/judge_assisted.md, "The draw", gives every rule and why):
which runs humans grade, each with the exact probability its draw had of picking it, and the check that every draw
recorded in subjects/human_draws.json is what its seed and the data give. A draw is over :func:`judged_runs`:
:func:`stratified` (``rgbench assign --draw N``) or :func:`active` (``--next N``; Zrnic and Candès, ICML 2024).
"""

from __future__ import annotations

import bisect
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from itertools import groupby
from typing import NamedTuple

import numpy as np

from ..compute.derive import PASS, derive_run
from ..compute.metrics import q_final
from ..load.consolidate import exact_mean
from ..load.draws import ACTIVE, STRATIFIED, Covered, Draw, DrawnRun, HumanDraws, RunKey
from ..load.multi_scoring import MultiScorings
from ..load.records import Scoring, Tree
from ..load.spec import Spec
from .consolidated_board import consolidated_grades
from .judge_assisted import draw_generator, drawn_within, largest_remainder, stratified_draw
from .seeds import data_digest

BINS = 3                      # judge-total bins (terciles) of a benchmark without a pass rule
FLOOR_SHARE = Fraction(1, 5)  # an active draw's floor, as a share of the uniform probability N / T
SPREAD_GRID = 1000            # an active draw's spreads are rounded to thousandths (at least 1/1000)
SHRINK = 10                   # pseudo-runs of the pooled mean square in each stratum's spread
BIN_GRADES = 10               # human grades a bin of adjacent judge values holds at least (an active draw's spreads)


class JudgedRun(NamedTuple):
    """One run of a judged subject: its key, the judge's stratum (``grade``) and total, the judge's and the human's
    per-run Q_final value (``human`` None: no human grade yet) on [0, 1]."""

    key: RunKey
    grade: str
    total: Fraction
    judge: Fraction
    human: Fraction | None


def q_value(spec: Spec, tree: Tree, scoring: Scoring) -> tuple[Fraction, str | None, Fraction]:
    """(Q_final's per-run value alpha·[Pass] + (1 − alpha)·norm(clipped) on [0, 1], its class, its clipped total)."""
    row = derive_run(scoring, tree.responses[scoring.run_key], tree.golds[scoring.case_id], spec)
    passed = Fraction(row.classification == PASS) if spec.has_pass_rule else None
    value = q_final(passed, Fraction(row.clipped_score), spec.alpha, spec.scale)
    assert value is not None   # a run's Q_final is defined: P is None only without a pass rule, then alpha is 0
    return value, row.classification, Fraction(row.clipped_score)


def grade_label(spec: Spec, classification: str | None, total: Fraction, totals: Sequence[Fraction]) -> str:
    """The stratum of a run the judge graded: its class with a pass rule; else ``bin i of 3``, i = 1 + ⌊3 · (the
    subject's runs with a judge total worse than this one) / (its runs)⌋, so equal totals share a bin."""
    if classification is not None:
        return classification
    worse = sum(1 for t in totals if (t < total if spec.higher_is_better else t > total))
    return f"bin {1 + BINS * worse // len(totals)} of {BINS}"


def judge_and_human(spec: Spec, tree: Tree, multi: MultiScorings) -> tuple[dict[RunKey, Scoring], dict[RunKey, Scoring]]:
    """(run -> config.yaml's judge's grade, run -> its human grades consolidated, adjudication first): the one
    reading of both for the draws and the board."""
    judge = {s.run_key: s for s in (*tree.scorings, *multi.extra) if s.reviewer_id == spec.judge}
    return judge, {c.scoring.run_key: c.scoring for c in consolidated_grades(spec, tree, multi)}


def unconfirmed_critical(judge: Mapping[RunKey, Scoring], human: Mapping[RunKey, Scoring]) -> frozenset[RunKey]:
    """The runs whose grade by the judge flags a critical fail and that have no human grade (:func:`judge_and_human`'s
    two maps): the critical-fail gate reads human grades, so these flags are unconfirmed (docs/judge_assisted.md,
    "On the board")."""
    return frozenset(k for k, s in judge.items() if k not in human and any(sev == "critical" for _, sev in s.fails))


def judged_runs(spec: Spec, tree: Tree, multi: MultiScorings) -> tuple[dict[str, list[JudgedRun]], dict[str, str]]:
    """(judged subject -> its runs, error runs aside, in the draws' unit order (case id, judge total, stratum, run
    id), subject -> why it is left out of the draws: a run without the judge's grade), the grades those of
    :func:`judge_and_human`."""
    judge, human = judge_and_human(spec, tree, multi)
    live = sorted(k for k, r in tree.responses.items() if r.meta.status != "error")
    runs: dict[str, list[JudgedRun]] = {}
    left_out: dict[str, str] = {}
    for subject, group in groupby(live, key=lambda k: k[0]):
        keys = list(group)
        missing = [k for k in keys if k not in judge]
        if missing:
            left_out[subject] = f"{len(missing)} of its {len(keys)} runs have no grade by the judge {spec.judge}"
            continue
        judged = {k: q_value(spec, tree, judge[k]) for k in keys}
        totals = [total for _, _, total in judged.values()]
        items = [JudgedRun(k, grade_label(spec, cls, total, totals), total, value,
                           q_value(spec, tree, human[k])[0] if k in human else None)
                 for k, (value, cls, total) in judged.items()]
        runs[subject] = sorted(items, key=lambda r: (r.key[1], r.total, r.grade, r.key[2]))
    return runs, left_out


def _stream(seed: int, number: int, subject: str, runs: Sequence[JudgedRun]) -> np.random.Generator:
    return draw_generator(seed, f"draw {number}: {subject}", [(r.key[1], r.total) for r in runs])


def stratified(number: int, seed: int, runs: Mapping[str, Sequence[JudgedRun]], size: int) -> Draw:
    """Draw ``number``: ``size`` runs shared between the subjects in proportion to their runs with at least one per
    judge grade (:func:`~.judge_assisted.largest_remainder`), then drawn within each by its judge grades
    (:func:`~.judge_assisted.stratified_draw`), reviewers unassigned. ValueError when ``size`` is below one run per
    judge grade of each subject or above every run."""
    sizes = {s: len(r) for s, r in sorted(runs.items())}
    minimums = {s: len({x.grade for x in r}) for s, r in runs.items()}   # one run per judge grade of each subject
    if not sum(minimums.values()) <= size <= sum(sizes.values()):
        raise ValueError(f"a stratified draw takes from {sum(minimums.values())} runs (one per judge grade of each "
                         f"subject) to {sum(sizes.values())} (every run not drawn yet), not {size}")
    shares = largest_remainder(sizes, minimums, size)
    picked = []
    for subject, items in runs.items():
        drawn, probability = stratified_draw([r.grade for r in items], shares[subject],
                                             _stream(seed, number, subject, items))
        picked += [DrawnRun(r.key, p, None) for r, d, p in zip(items, drawn, probability) if d]
    return Draw(number, STRATIFIED, seed, tuple(sorted(picked, key=lambda r: r.key)), tuple(runs), size)


def stratum(run: JudgedRun) -> str:
    """An active draw's stratum of a run, ``"<grade>, total <t>"`` (the judge's Q_final value is a function of both)."""
    return f"{run.grade}, total {run.total}"


def spreads(runs: Mapping[str, Sequence[JudgedRun]], basis: frozenset[RunKey],
            subjects: Sequence[str] | None = None) -> dict[tuple[str, str], Fraction]:
    """(subject, :func:`stratum`) -> e for each subject of ``subjects`` (default: every subject of ``runs``): the
    spread of the judge's residual d (:func:`residual_squares`) in that stratum, from the runs of ``basis`` (the
    earlier draws') with a human value over every subject of ``runs``, so a subject with no human grade yet borrows
    the others'. e² is the subject's d² in the stratum's bin b (:func:`value_bins`) averaged with SHRINK pseudo-runs
    of p_b r_s: p_b every subject's d² in b averaged with SHRINK pseudo-runs of m, the mean d²; r_s the subject's
    mean d² / m (1 when it has none or m = 0). e = :func:`thousandths_root`, at least 1/1000; every e is 1 (a
    uniform draw) with no d² at all. Why: docs/judge_assisted.md, "The draw", and docs/active_check.md."""
    chosen = tuple(runs) if subjects is None else tuple(subjects)
    residual = residual_squares(runs, basis)
    every = [d2 for pairs in residual.values() for _, d2 in pairs]
    if not every:
        return {(s, stratum(r)): Fraction(1) for s in chosen for r in runs[s]}
    m = exact_mean(every)
    ratio = {s: exact_mean([d2 for _, d2 in residual[s]]) / m if m and s in residual else Fraction(1) for s in chosen}
    bin_of = value_bins(residual)
    pooled: dict[int, list[Fraction]] = defaultdict(list)   # bin -> every subject's d² in it
    own: dict[tuple[str, int], list[Fraction]] = defaultdict(list)   # (subject, bin) -> its d² in it
    for subject, pairs in residual.items():
        for r, d2 in pairs:
            pooled[bin_of(r.judge)].append(d2)
            own[subject, bin_of(r.judge)].append(d2)

    def shrunk(d2: list[Fraction], prior: Fraction) -> Fraction:   # the mean of d² and SHRINK pseudo-runs of prior
        return (sum(d2, Fraction(0)) + SHRINK * prior) / (len(d2) + SHRINK)
    return {(s, label): thousandths_root(shrunk(own[s, bin_of(f)], shrunk(pooled[bin_of(f)], m) * ratio[s]))
            for s in chosen for label, f in sorted({(stratum(r), r.judge) for r in runs[s]})}


def value_bins(residual: Mapping[str, Sequence[tuple[JudgedRun, Fraction]]]) -> Callable[[Fraction], int]:
    """The bin 0, 1, ... of a judge value f: the values of ``residual``'s runs (those with a human grade) ascending,
    cut into bins of adjacent values each holding at least BIN_GRADES of those runs (a short last bin joins the one
    before: one bin when they are fewer in all); any other value takes the bin of the nearest of them below it (below
    them all: bin 0)."""
    held = Counter(r.judge for pairs in residual.values() for r, _ in pairs)
    values = sorted(held)
    index, count, of = 0, 0, []
    for value in values:
        if count >= BIN_GRADES:
            index, count = index + 1, 0
        of.append(index)
        count += held[value]
    if count < BIN_GRADES and index > 0:   # the last bin is short: it joins the one before
        of = [min(i, index - 1) for i in of]
    return lambda value: of[max(bisect.bisect_right(values, value) - 1, 0)]


def residual_squares(runs: Mapping[str, Sequence[JudgedRun]], basis: frozenset[RunKey]
                     ) -> dict[str, list[tuple[JudgedRun, Fraction]]]:
    """Per subject of ``runs`` with at least 2 runs in ``basis`` with a human value: each such run and its d²,
    d = y − λ f (its human and judge Q_final values) less its mean, λ = :func:`slope` over those runs. Exact."""
    residuals: dict[str, list[tuple[JudgedRun, Fraction]]] = {}
    for subject, items in runs.items():
        known = [(r, r.human) for r in items if r.human is not None and r.key in basis]
        if len(known) >= 2:
            lam = slope([r.judge for r, _ in known], [y for _, y in known])
            d = [y - lam * r.judge for r, y in known]
            centre = exact_mean(d)
            residuals[subject] = [(r, (x - centre) ** 2) for (r, _), x in zip(known, d)]
    return residuals


def slope(f: Sequence[Fraction], y: Sequence[Fraction]) -> Fraction:
    """The least-squares slope of y on f, Σ (f − f̄)(y − ȳ) / Σ (f − f̄)², clipped to [0, 1]; 0 when every f is
    equal. Exact."""
    f_bar, y_bar = exact_mean(f), exact_mean(y)
    sff = sum(((a - f_bar) ** 2 for a in f), Fraction(0))
    sfy = sum(((a - f_bar) * (b - y_bar) for a, b in zip(f, y)), Fraction(0))
    return min(Fraction(1), max(Fraction(0), sfy / sff)) if sff else Fraction(0)


def thousandths_root(square: Fraction) -> Fraction:
    """√square rounded half up to thousandths, at least 1/1000, exactly: k = isqrt(⌊4 · 10⁶ · square⌋) is
    ⌊2000 √square⌋, and ⌊(k + 1) / 2⌋ is 1000 √square rounded half up."""
    k = math.isqrt(math.floor(4 * SPREAD_GRID ** 2 * square))
    return max(Fraction((k + 1) // 2, SPREAD_GRID), Fraction(1, SPREAD_GRID))


def active_probabilities(spread: Sequence[Fraction], size: int) -> list[Fraction]:
    """π_r = min(1, max(floor, c · e_r)) per unit of spread e_r > 0, floor = FLOOR_SHARE · size / T, with c the
    one value giving Σ π = ``size`` exactly (Σ π grows with c, piecewise linearly: found between its
    breakpoints). ValueError unless 0 < size <= T."""
    count = len(spread)
    if not 0 < size <= count:
        raise ValueError(f"an active draw expects from 1 to {count} runs (every run not drawn yet), not {size}")
    floor = FLOOR_SHARE * size / count
    counts = Counter(spread)   # a few distinct spreads (one per stratum): sum over them

    def total(c: Fraction) -> Fraction:
        return sum((n * min(Fraction(1), max(floor, c * e)) for e, n in counts.items()), Fraction(0))
    points = sorted({b / e for e in counts for b in (floor, Fraction(1))})
    high = next(c for c in points if total(c) >= size)
    low = max((c for c in points if c < high), default=Fraction(0))
    # between two breakpoints Σ π is linear in c: interpolate exactly
    c = low + (size - total(low)) * (high - low) / (total(high) - total(low))
    return [min(Fraction(1), max(floor, c * e)) for e in spread]


def active(number: int, seed: int, runs: Mapping[str, Sequence[JudgedRun]], size: int,
           spread: Mapping[tuple[str, str], Fraction]) -> Draw:
    """Draw ``number``: ``size`` runs of the subjects of ``runs``, π = :func:`active_probabilities` of ``spread``
    (keyed (subject, :func:`stratum`): :func:`spreads` of the earlier draws' human values), stratum h drawing n_h of
    its N_h runs without replacement, its quota N_h π_h rounded by :func:`systematic_rounding` (E[n_h] / N_h = π_h
    exactly, Σ n_h = ``size``); reviewers unassigned. ValueError unless 0 < size <= the runs."""
    counts = Counter((subject, stratum(r)) for subject, items in runs.items() for r in items)
    strata = sorted(counts)
    flat = [k for k in strata for _ in range(counts[k])]
    pi = dict(zip(flat, active_probabilities([spread[k] for k in flat], size)))   # equal within a stratum
    # the rounding's own stream: "the strata" has a space, which no subject id has, so no subject's stream shares it
    uniform = draw_generator(seed, f"draw {number}: the strata", [(f"{s} {g}", counts[s, g]) for s, g in strata]).random()
    take = systematic_rounding([counts[k] * pi[k] for k in strata], Fraction(uniform))
    picked = []
    for subject, items in runs.items():
        mine = {label: n for (s, label), n in zip(strata, take) if s == subject}
        drawn = drawn_within([stratum(r) for r in items], mine, _stream(seed, number, subject, items))
        picked += [DrawnRun(r.key, pi[subject, stratum(r)], None) for r, d in zip(items, drawn) if d]
    return Draw(number, ACTIVE, seed, tuple(sorted(picked, key=lambda r: r.key)), tuple(runs), size,
                tuple(sorted((k, e) for k, e in spread.items() if k[0] in runs)))


def systematic_rounding(quotas: Sequence[Fraction], u: Fraction) -> list[int]:
    """Integers n_h with E[n_h] = q_h for ``quotas`` q_h >= 0 summing to an integer, their sum exactly that
    integer: ⌊q_h⌋ plus one where the running sum of the fractional parts F_h crosses u + m for an integer m
    (F_{h−1} <= u + m < F_h), ``u`` uniform on [0, 1) (systematic sampling of the remainders, Madow 1949)."""
    out, before = [], Fraction(0)
    for q in quotas:
        after = before + q - math.floor(q)
        out.append(math.floor(q) + math.ceil(after - u) - math.ceil(before - u))
        before = after
    return out


def pending(draws: HumanDraws | None, runs: Mapping[str, Sequence[JudgedRun]]) -> list[RunKey]:
    """The drawn runs of the judged subjects ``runs`` without a human value yet, in draw order (draw number, then
    key), each once. A subject left out of ``runs`` (a run without the judge's grade) is left out here too: its
    drawn runs are neither known graded nor part of the next draw."""
    has_human = {r.key for items in runs.values() for r in items if r.human is not None}
    return list(dict.fromkeys(run.key for draw in (draws.draws if draws else ()) for run in draw.runs
                              if run.key[0] in runs and run.key not in has_human))


def rederived(draw: Draw, earlier: Sequence[Draw], over: Mapping[str, Sequence[JudgedRun]],
              runs: Mapping[str, Sequence[JudgedRun]], new: bool) -> Draw | str:
    """The draw (reviewers unassigned) that ``draw``'s seed, design and size give over ``over``, the runs it records
    (:func:`recorded`), or why it cannot be re-derived. An active draw's spreads are the file's; for a draw ``new``
    in the change checked they must also be those the earlier draws' grades give now over every judged subject's
    ``runs`` (docs/judge_assisted.md, "The check, while data change")."""
    if draw.design != STRATIFIED:
        basis = frozenset(r.key for d in earlier for r in d.runs)
        spread = dict(draw.spreads) or spreads(runs, basis, list(over))
        if min(spread.values()) <= 0:
            return "a spread is 0 (every spread is at least 1/1000)"
        if new and draw.spreads and spread != spreads(runs, basis, list(over)):
            return "its spreads are not those the human grades of the earlier draws' runs give"
        missing = [k for k in ((s, stratum(r)) for s in over for r in over[s]) if k not in spread]
        if missing:
            return f"no spread for {missing[0][0]}'s judge grade {missing[0][1]}"
    try:
        return (stratified(draw.number, draw.seed, over, draw.size or len(draw.runs)) if draw.design == STRATIFIED
                else active(draw.number, draw.seed, over, draw.size, spread))
    except ValueError as exc:
        return str(exc)


def population(runs: Mapping[str, Sequence[JudgedRun]], subjects: Sequence[str]) -> tuple[Covered, ...]:
    """What a draw records of the data it is made over: per subject of ``subjects`` (each in ``runs``), its runs
    (case id, run id) sorted and :func:`.seeds.data_digest` of ``["judge-population", subject, units]``, its units
    [case id, run id, judge total, stratum] sorted: all a stratified draw is made from (parsed values only)."""
    out = []
    for subject in sorted(subjects):
        units = sorted((r.key[1], r.key[2], r.total, r.grade) for r in runs[subject])
        out.append(Covered(subject, tuple((case, run) for case, run, _, _ in units),
                           data_digest(["judge-population", subject, units])))
    return tuple(out)


def undrawn(runs: Mapping[str, Sequence[JudgedRun]], draws: Sequence[Draw]) -> dict[str, list[JudgedRun]]:
    """Per subject of ``runs``, its runs no draw of ``draws`` lists, in ``runs``' order (a subject with none left
    out): what a new draw is made over, so no run is drawn twice and every grade it asks for is new."""
    listed = {r.key for d in draws for r in d.runs}
    left = {s: [r for r in items if r.key not in listed] for s, items in runs.items()}
    return {s: items for s, items in left.items() if items}


def recorded(draw: Draw, runs: Mapping[str, Sequence[JudgedRun]]) -> dict[str, list[JudgedRun]] | None:
    """The runs of ``runs`` that ``draw``'s population records, per subject, when each still exists with the judge
    total and stratum it records (:func:`population` digests them), else None: the data the draw was made from."""
    held = {c.subject_id: set(c.runs) for c in draw.population}
    if not all(s in runs for s in held):
        return None
    over = {s: [r for r in runs[s] if r.key[1:] in keys] for s, keys in held.items()}
    return over if population(over, tuple(over)) == draw.population else None


def verify(draws: HumanDraws, runs: Mapping[str, Sequence[JudgedRun]], new_from: int | None = None) -> list[str]:
    """One message ``$.draws[i]: ...`` per wrong draw, [] when none. A draw whose runs are still as it records them
    (:func:`recorded`) must be what its seed gives over them; one whose runs changed stands as recorded (its form is
    the loader's). A draw from index ``new_from`` on (new in the change checked, ``rgbench validate --changed``) must
    be over today's runs that no earlier draw lists (:func:`undrawn`). Why: docs/judge_assisted.md, "The check"."""
    messages = []
    for i, draw in enumerate(draws.draws):
        new = new_from is not None and i >= new_from
        if new and not _over_runs_left(draw, draws.draws[:i], runs):
            messages.append(f"$.draws[{i}]: draw {draw.number} is new in this change, but the runs and judge grades it "
                            "records are not this tree's runs that no earlier draw lists (a draw is made over the data "
                            "of the change that adds it: make it with rgbench assign on this tree)")
            continue
        over = recorded(draw, runs)
        if over is None:
            continue
        made = rederived(draw, draws.draws[:i], over, runs, new=new)
        why = made if isinstance(made, str) else _difference(draw, made)
        if why:
            messages.append(f"$.draws[{i}]: draw {draw.number} ({draw.design}) is not what its seed and the judge's "
                            f"grades give: {why} (its subjects' runs and judge grades are those it records, so it must "
                            "re-derive: rgbench assign writes a draw and nobody edits it; restore the file from git)")
    return messages


def _over_runs_left(draw: Draw, earlier: Sequence[Draw], runs: Mapping[str, Sequence[JudgedRun]]) -> bool:
    """Whether ``draw`` records as its population today's runs of its subjects that no ``earlier`` draw lists."""
    subjects = [c.subject_id for c in draw.population]
    left = undrawn({s: runs.get(s, ()) for s in subjects}, earlier)
    return set(subjects) <= set(left) and population(left, subjects) == draw.population


def _difference(recorded: Draw, made: Draw) -> str | None:
    """The first difference of two draws' runs and their probabilities, in words; None when there is none."""
    want = {r.key: r.probability for r in made.runs}
    have = {r.key: r.probability for r in recorded.runs}
    extra = sorted(set(have) - set(want))
    if extra:
        return f"it lists {'/'.join(extra[0])}, which the draw does not pick"
    left = sorted(set(want) - set(have))
    if left:
        return f"it leaves out {'/'.join(left[0])}, which the draw picks"
    key = next((k for k in sorted(have) if have[k] != want[k]), None)
    return None if key is None else f"{'/'.join(key)} has probability {have[key]}, the draw gives {want[key]}"

"""judge_assisted.csv, judge_assisted_pairs.csv and judge_assisted_criteria.csv: the board's figures by
:mod:`.judge_assisted`, each with its own λ per subject and an interval over the draw of the subject's own cases
(:func:`draw_of`); the method, and why pairs are read from intervals: docs/judge_assisted.md, "On the board".
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import combinations
from typing import Any

import numpy as np

from ..compute.derive import PASS
from ..load.draws import HumanDraws, RunKey
from ..load.multi_scoring import MultiScorings
from ..load.records import Scoring, Tree
from ..load.spec import Spec
from ..numfmt import fmt_fixed
from ..results_csv import Table
from . import judge_assisted as ppi
from .bootstrap import Interval, case_counts
from .judge_assisted_draw import judge_and_human, q_value, unconfirmed_critical
from .outputs import fmt_float, fmt_interval
from .rank_sets import ZERO_SHARE, Studentised, sets_from
from .seeds import generator, seed_digest
from .wilson import wilson_interval

FIGURES = ("P", "s_bar", "Q_final")
ASSISTED_FILE = "judge_assisted.csv"
PAIRS_FILE = "judge_assisted_pairs.csv"
CRITERIA_FILE = "judge_assisted_criteria.csv"
SUFFIXES = ("", "_low", "_high", "_human_low", "_human_high", "_lambda", "_judge_bias", "_effective")   # per figure
ASSISTED_COLUMNS = ("subject_id", "n_runs", "n_cases", "n_unjudged", "n_uncovered", "human_grades", "labelled_cases",
                    "pending", "judge_human_r", "pass_disagreements", "judge_critical_ungraded",
                    *(f + s for f in FIGURES for s in SUFFIXES),
                    "Q_final_lambda_pass", "rank_set_low", "rank_set_high")
PAIRS_COLUMNS = ("subject_a", "subject_b", *(f"{f}_diff{suffix}" for f in FIGURES for suffix in ("", "_low", "_high")))
CRITERIA_COLUMNS = ("subject_id", "criterion", "human_grades", *(f"mean{suffix}" for suffix in SUFFIXES[:6]))
# replicates whose per-case influence the rank sets hold at once, for every subject (all 2,000 at once: 0.75 GB on 58
# subjects x 805 cases)
REPLICATE_ROWS = 250


@dataclass(frozen=True)
class SubjectRuns:
    """One subject's runs: per figure and rubric criterion its :class:`.judge_assisted.Run` values (the same runs in
    order; no ``P`` without a pass rule), and how many lack the judge's grade (unjudged), await a drawn human grade
    (pending) or lie in no draw's population (uncovered); an unjudged or uncovered run leaves no estimate; and
    ``critical_ungraded``, its runs the judge flags with a critical fail that no human has graded (the critical-fail
    gate reads human grades only: unconfirmed)."""

    subject_id: str
    runs: Mapping[str, tuple[ppi.Run, ...]]
    unjudged: int
    pending: int
    criteria: Mapping[str, tuple[ppi.Run, ...]] = field(default_factory=dict)
    uncovered: int = 0
    critical_ungraded: int = 0


@dataclass(frozen=True)
class Figure:
    """One figure of one subject: the estimate, its interval, the human-only interval (λ = 0) on the same human
    sample and draw, the judge's estimated bias Hf − Hy (its weighted mean minus the human one on the labels), and
    ``spread``, the SD of the interval's bootstrap replicates (`rgbench plan` reads today's variance from it)."""

    estimate: ppi.Estimate | None
    interval: Interval | None
    human_only: Interval | None
    bias: Fraction | None
    spread: float | None = None


@dataclass(frozen=True)
class AssistedRow:
    """One row of judge_assisted.csv (see results/README.md)."""

    subject_id: str
    n_runs: int
    n_cases: int
    unjudged: int
    pending: int
    correlation: float | None
    figures: Mapping[str, Figure]
    rank_set: tuple[int, int] | None = None
    criteria: Mapping[str, Figure] = field(default_factory=dict)   # per criterion (judge_assisted_criteria.csv)
    uncovered: int = 0
    disagreements: int | None = None   # :func:`pass_disagreements`
    labelled_cases: int = 0   # K_L, the cases with a human grade the estimate uses (0 without an estimate)
    critical_ungraded: int = 0   # runs the judge flags with a critical fail that no human has graded

    @property
    def labels(self) -> int:
        """The human grades the estimate uses (drawn runs with a human grade)."""
        return 0 if (est := self.figures["Q_final"].estimate) is None else est.labels


def judge_assisted_tables(spec: Spec, tree: Tree, multi: MultiScorings, excluded: Collection[str]) -> dict[str, Table]:
    """judge_assisted.csv, judge_assisted_pairs.csv and judge_assisted_criteria.csv: :func:`assisted_rows` of
    :func:`assisted_subjects`, ``excluded`` (the disqualified subjects) kept out of the rank sets and pairs."""
    return assisted_tables(*assisted_rows(assisted_subjects(spec, tree, multi), spec, excluded))


def assisted_subjects(spec: Spec, tree: Tree, multi: MultiScorings) -> list[SubjectRuns]:
    """Every registered subject's :class:`SubjectRuns` of a validated tree and ``multi`` (error runs aside): each run's
    judge and human grades (:func:`.judge_assisted_draw.judge_and_human`), its weight by ``tree.draws`` (no draw: 0)."""
    record = tree.draws or HumanDraws(spec.judge, ())
    split = spec.has_pass_rule and 0 < spec.alpha < 1   # Q_final's two controls: the judge's pass and score parts
    def values(scoring: Scoring) -> dict[str, Mapping[str, Any]]:
        q, classification, clipped = q_value(spec, tree, scoring)
        passed = Fraction(classification == PASS)
        return {"figure": {"P": passed, "s_bar": clipped, "Q_final": q}, "criterion": dict(scoring.criterion_scores),
                "parts": {"Q_final": (spec.alpha * passed, q - spec.alpha * passed)} if split else {}}
    judge_grades, human_grades = judge_and_human(spec, tree, multi)
    judged, human = ({k: values(s) for k, s in grades.items()} for grades in (judge_grades, human_grades))
    unconfirmed = unconfirmed_critical(judge_grades, human_grades)
    def column(keys: Sequence[RunKey], kind: str, name: str) -> tuple[ppi.Run, ...]:
        return tuple(ppi.Run(k[1], judged[k][kind][name], human[k][kind][name] if k in human else None, record.weight(k),
                             judged[k]["parts"].get(name, ()) if kind == "figure" else ())
                     for k in keys if k in judged)
    figures = [f for f in FIGURES if f != "P" or spec.has_pass_rule]
    drawn, covered = record.drawn(), record.covered()
    by_subject = {sid: sorted(k for k, r in tree.responses.items() if k[0] == sid and r.meta.status != "error")
                  for sid in sorted(tree.subjects)}
    return [SubjectRuns(sid, {f: column(keys, "figure", f) for f in figures}, sum(k not in judged for k in keys),
                        sum(k in drawn and k not in human for k in keys),
                        {c: column(keys, "criterion", c) for c in spec.criteria}, sum(k not in covered for k in keys),
                        sum(k in unconfirmed for k in keys))
            for sid, keys in by_subject.items()]


def draw_of(seed: int, case_ids: Sequence[str], resamples: int) -> np.ndarray:
    """The case counts (resamples x K) of the cases ``case_ids`` (sorted): the stream ``judge-assisted`` over the
    declared seed and sha256 of the case ids, one a line (nothing else enters)."""
    listed = hashlib.sha256("".join(f"{c}\n" for c in case_ids).encode("utf-8")).hexdigest()
    return case_counts(generator("judge-assisted", [seed_digest(seed), listed]), len(case_ids), resamples)


def correlation(runs: Sequence[ppi.Run]) -> float | None:
    """Pearson's correlation of the judge's and the human's value over the labelled runs (human value, w > 0),
    unweighted; None with fewer than 2 or a constant side."""
    pairs = [(float(r.judge), float(r.human)) for r in runs if r.human is not None and r.weight]
    f, y = np.array(pairs, dtype=np.float64).reshape(-1, 2).T
    return None if len(pairs) < 2 or f.std() == 0 or y.std() == 0 else float(np.corrcoef(f, y)[0, 1])


def pass_disagreements(runs: Sequence[ppi.Run] | None) -> int | None:
    """The labelled runs (human value, w > 0) whose human P is not the judge's: those the judge's correction of P
    rests on (docs/judge_assisted.md, "What the study shows": with 1 to 3, P's interval covered 94.2%); None
    without a pass rule (``runs`` None: no P)."""
    return None if runs is None else sum(1 for r in runs if r.human is not None and r.weight and r.human != r.judge)


def human_only(sums: ppi.CaseSums) -> ppi.CaseSums:
    """The same sums with a judge of 0 on every run: λ = 0, so the estimate is the human-only Hy."""
    zero = (Fraction(0),) * len(sums.case_ids)
    return replace(sums, judge=zero, judge_drawn=zero, parts=())


def figure(sums: ppi.CaseSums, counts: np.ndarray, confidence: Fraction) -> Figure:
    """The :class:`Figure` of one subject's sums over the case draw ``counts``."""
    est = ppi.estimate(sums)
    if est is None:
        return Figure(None, None, None, None)
    bias = Fraction(sum(sums.judge_drawn) - sum(sums.human)) / sum(sums.drawn)
    values = ppi.replicated(sums, counts)
    return Figure(est, ppi.interval(sums, counts, confidence, values), ppi.interval(human_only(sums), counts, confidence),
                  bias, spread(values))


def spread(replicates: np.ndarray | None) -> float | None:
    """The SD of bootstrap ``replicates`` (those without a human value left out); None without replicates or
    without a finite one."""
    return None if replicates is None or not np.isfinite(replicates).any() else float(np.nanstd(replicates))


def proportion_figure(sums: ppi.CaseSums, counts: np.ndarray, confidence: Fraction) -> Figure:
    """:func:`figure` of a 0/1 value (P); at an estimate of exactly 0 or 1 (a point bootstrap) both intervals are
    Wilson's over the K_L cases with a human label, as the human board's: 0 of 3 gives [0, z²/(3 + z²)] = [0, 0.5615]."""
    fig = figure(sums, counts, confidence)
    if fig.estimate is None or fig.estimate.theta not in (0, 1):
        return fig
    labelled = ppi.labelled_cases(sums)
    bounds = wilson_interval(0 if fig.estimate.theta == 0 else labelled, labelled, confidence)
    return replace(fig, interval=bounds, human_only=bounds)


def assisted_rows(subjects: Sequence[SubjectRuns], spec: Spec, excluded: Collection[str] = (),
                  with_criteria: bool = True,
                  pairs_of: Callable[[list[AssistedRow]], Iterable[tuple[str, str]]] | None = None
                  ) -> tuple[list[AssistedRow], list[tuple[str, str, dict[str, tuple]]]]:
    """(judge_assisted.csv's rows, judge_assisted_pairs.csv's pairs): every subject's figures (its criterion means
    unless not ``with_criteria``); among the subjects with a Q_final estimate not ``excluded`` (disqualified), the
    rank sets and (a, b, figure -> (difference, interval, its replicates' SD)) for every pair (a ranked above b), or
    for the pairs of those subjects ``pairs_of`` the rows names (`rgbench plan`: the neighbours it plans for)."""
    stats, confidence = spec.stats, spec.stats.confidence_level
    sums = {s.subject_id: {f: ppi.case_sums(runs) for f, runs in s.runs.items()} for s in subjects}
    rows = []
    for s in subjects:
        own = sums[s.subject_id]
        usable = not s.unjudged and not s.uncovered
        counts = draw_of(stats.seed, own["Q_final"].case_ids, stats.bootstrap_resamples)
        figures = {f: (proportion_figure if f == "P" else figure)(own[f], counts, confidence)
                   if usable else Figure(None, None, None, None) for f in own}
        criteria = {c: figure(ppi.case_sums(runs), counts, confidence) for c, runs in s.criteria.items()
                    if usable and with_criteria}
        rows.append(AssistedRow(s.subject_id, len(s.runs["Q_final"]), len(own["Q_final"].case_ids), s.unjudged, s.pending,
                                correlation(s.runs["Q_final"]), figures, criteria=criteria, uncovered=s.uncovered,
                                disagreements=pass_disagreements(s.runs.get("P")),
                                labelled_cases=ppi.labelled_cases(own["Q_final"]) if usable else 0,
                                critical_ungraded=s.critical_ungraded))
    theta = {r.subject_id: est.theta for r in rows if (est := r.figures["Q_final"].estimate) is not None}
    ranked = sorted((sid for sid in theta if sid not in excluded), key=lambda sid: (-theta[sid], sid))
    if not ranked:
        return rows, []
    union = sorted({c for sid in ranked for c in sums[sid]["Q_final"].case_ids})
    counts = draw_of(stats.seed, union, stats.bootstrap_resamples)
    # every subject on the union's cases (0 where it has none), so that a pair's figures are each subject's sums less
    # the cases the other lacks, and each subject's replicate sums (counts @ its moments) are computed once
    padded = {sid: {f: s.restricted(union) for f, s in sums[sid].items()} for sid in ranked}
    simultaneous, _ = assisted_rank_sets([float(theta[sid]) for sid in ranked], [padded[sid]["Q_final"] for sid in ranked],
                                         counts, confidence)
    sets = dict(zip(ranked, simultaneous))
    rows = [replace(r, rank_set=sets.get(r.subject_id)) for r in rows]
    drawn: dict[tuple[str, str], np.ndarray] = {}
    def kept(sid: str, f: str) -> np.ndarray:
        if (sid, f) not in drawn:
            drawn[sid, f] = counts @ padded[sid][f].moments.floats
        return drawn[sid, f]
    def compared(a: str, b: str, f: str) -> tuple:   # (difference, interval, the SD of its replicates)
        first, second = padded[a][f], padded[b][f]
        values = ppi.difference_values(first, second, counts, (kept(a, f), kept(b, f)))
        return (ppi.difference(first, second), ppi.difference_interval(first, second, counts, confidence, values),
                spread(values))
    chosen = combinations(ranked, 2) if pairs_of is None else [
        (a, b) for a, b in pairs_of(rows) if a in sets and b in sets]
    return rows, [(a, b, {f: compared(a, b, f) for f in sums[a]}) for a, b in chosen]


def assisted_rank_sets(estimates: Sequence[float], sums: Sequence[ppi.CaseSums], counts: np.ndarray, confidence: Fraction
                       ) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(simultaneous, marginal) rank sets (rank 1 = highest) of the subjects with ``sums`` on one list of cases by
    :func:`.rank_sets.sets_from`, each difference studentised by SE_jk² = Σ_c (u_jc − u_kc)² (u:
    :func:`.judge_assisted.influence`), a replicate's by its own floored at SE_jk / 2 (docs/judge_assisted.md, "On
    the board"). A pair with SE_jk = 0 takes no part in the maximum and is established when the estimates differ."""
    p = len(estimates)
    theta = np.column_stack([ppi.fit(s, counts).theta for s in sums])
    usable = np.all(np.isfinite(theta), axis=1)
    if p < 2 or usable.sum() < 2:
        return [(1, p)] * p, [(1, p)] * p
    u = [ppi.influence(s, np.ones((1, counts.shape[1])))[0] for s in sums]
    w, theta = np.asarray(counts, dtype=np.float64)[usable], theta[usable]
    est = np.asarray(estimates, dtype=np.float64)
    first, second = np.triu_indices(p, 1)
    z = np.zeros((p, p))
    out = np.zeros((len(w), len(first)))
    tol = 1e-12 * max(1.0, float(np.abs(est).max()))
    studentised = []   # (i, j, k, SE_jk) of the pairs whose replicates are studentised
    for i, (j, k) in enumerate(zip(first, second)):
        var = float(((u[j] - u[k]) ** 2).sum())
        gap = est[j] - est[k]
        if var <= ZERO_SHARE * float((u[j] ** 2 + u[k] ** 2).sum()):
            z[j, k] = np.inf if gap > tol else -np.inf if gap < -tol else 0.0
            continue
        z[j, k] = gap / var ** 0.5
        studentised.append((i, j, k, var ** 0.5))
    for rows in (slice(start, start + REPLICATE_ROWS) for start in range(0, len(w), REPLICATE_ROWS)):
        influence = [ppi.influence(s, w[rows]) for s in sums]   # of this block of replicates only
        for i, j, k, se in studentised:
            replicate_se = np.sqrt((w[rows] * (influence[j] - influence[k]) ** 2).sum(axis=1))
            out[rows, i] = ((theta[rows, j] - theta[rows, k]) - (est[j] - est[k])) / np.maximum(replicate_se, se / 2)
    return sets_from(Studentised(z - z.T, first, second, out), confidence)


def assisted_tables(rows: Sequence[AssistedRow], pairs: Sequence[tuple[str, str, dict[str, tuple]]]) -> dict[str, Table]:
    """The three tables' cells, as written (every number rounded once, :mod:`rgbench.numfmt`); the criteria's has
    a row per subject with an estimate and criterion, in the rubric's order."""
    def figure_cells(fig: Figure | None) -> tuple[str, ...]:
        if fig is None or (est := fig.estimate) is None:
            return ("",) * 8
        return (fmt_fixed(est.theta), *fmt_interval(fig.interval), *fmt_interval(fig.human_only), fmt_fixed(est.lam[-1]),
                fmt_fixed(fig.bias), fmt_float(est.effective if est.effective != float("inf") else None))
    def pass_lambda(fig: Figure | None) -> str:   # Q_final's λ of the judge's pass part, with two controls
        return "" if fig is None or fig.estimate is None or len(fig.estimate.lam) < 2 else fmt_fixed(fig.estimate.lam[0])
    out_rows = tuple(
        (r.subject_id, str(r.n_runs), str(r.n_cases), str(r.unjudged), str(r.uncovered), str(r.labels),
         str(r.labelled_cases), str(r.pending), fmt_float(r.correlation), "" if r.disagreements is None else str(r.disagreements),
         str(r.critical_ungraded),
         *(c for f in FIGURES for c in figure_cells(r.figures.get(f))), pass_lambda(r.figures.get("Q_final")),
         *((str(r.rank_set[0]), str(r.rank_set[1])) if r.rank_set else ("", "")))
        for r in rows)
    def pair_cells(diff: Fraction | None = None, bounds: Interval | None = None) -> tuple[str, ...]:
        return fmt_fixed(diff), *fmt_interval(bounds)
    out_pairs = tuple((a, b, *(c for f in FIGURES for c in pair_cells(*per.get(f, ())[:2]))) for a, b, per in pairs)
    out_criteria = tuple((r.subject_id, c, str(est.labels), *figure_cells(fig)[:6])
                         for r in rows for c, fig in r.criteria.items() if (est := fig.estimate) is not None)
    return {ASSISTED_FILE: (ASSISTED_COLUMNS, out_rows), PAIRS_FILE: (PAIRS_COLUMNS, out_pairs),
            CRITERIA_FILE: (CRITERIA_COLUMNS, out_criteria)}

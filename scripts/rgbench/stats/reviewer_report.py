"""results/reviewers.csv: per reviewer, what they graded, how, and how lenient against the others.

Rows (columns ``REVIEWER_COLUMNS``), per registered-or-seen reviewer in id order:

- ``runs_graded`` (target ``all``): grades in scoring/ and scoring_multi/ (``eval-`` files; an
  adjudication is counted apart, ``adjudications``).
- ``level_share`` (target a criterion, ``level`` 0..max): the share of the reviewer's grades at that
  level, n = their grades; the distribution of each criterion. A criterion with more than ``MAX_LEVELS``
  possible scores (a decimal scale such as 0-25 in tenths) is summarised in ``SCORE_BINS`` equal bins of its
  range instead: ``level`` names the bin (``0-2.5``), ``note`` its bounds (``[0, 2.5)``; the last bin is closed).
- ``mean_score`` (target raw_score or a criterion): the mean of their grades.
- ``leniency`` (target raw_score, correctness): :func:`rgbench.stats.agreement.mean_deviation`, the
  mean over the runs they share with another human grader of (their value − the mean of the humans'
  others'; an llm-judge is compared with the humans, and never enters a human's leniency); > 0
  lenient, < 0 severe (for raw_score on a lower-is-better scale the other way round: a higher penalty is
  severe); with the case-bootstrap BCa interval over the shared runs, resampled by case
  (:func:`rgbench.stats.bootstrap.ratio_interval`, float bounds).

Drift over time needs each grade's commit date, which the results cannot hold (a grade and the
results it changes are committed together), so it is reported by scripts/reviewer_drift.py, not here.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import cast

from ..load.records import Scoring, Tree
from ..load.reviewers import LLM_JUDGE, Reviewer
from ..load.scale import score_text
from ..load.spec import Spec
from ..numfmt import fmt_fixed
from .agreement import Rating, Unit, leniency, mean_deviation
from .agreement_outputs import deviation_targets, rating_values
from .bootstrap import Interval, case_weights, ratio_interval
from .outputs import fmt_interval

REVIEWERS_FILE = "reviewers.csv"
REVIEWER_COLUMNS = ("reviewer_id", "kind", "statistic", "target", "level", "value", "ci_low", "ci_high", "n", "note")
MAX_LEVELS = 11    # a criterion with at most this many possible scores gets one level_share row per score
SCORE_BINS = 10    # else: this many equal bins of its range


@dataclass(frozen=True)
class Level:
    """One level_share row of a criterion: its label, its note and the scores it counts ([low, high), or [low,
    high] when ``closed``; a single score when low == high)."""

    label: str
    note: str
    low: Fraction
    high: Fraction
    closed: bool = True

    def holds(self, score: Fraction | int) -> bool:
        return self.low <= score <= self.high if self.closed else self.low <= score < self.high


def score_levels(spec: Spec) -> list[Level]:
    """The level_share rows of every criterion: each possible score (criterion_min to criterion_max by the
    schema's step) when there are at most MAX_LEVELS of them, else SCORE_BINS equal bins of the range (a
    distribution over hundreds of decimal scores stays a few rows)."""
    low, high, step = spec.criterion_min, spec.criterion_max, spec.criterion_step
    if step is not None and (high - low) / step < MAX_LEVELS:
        count = int((high - low) / step)
        return [Level(score_text(v), "", v, v) for v in (low + i * step for i in range(count + 1))]
    width = (high - low) / SCORE_BINS
    edges = [low + i * width for i in range(SCORE_BINS + 1)]
    return [Level(f"{score_text(a)}-{score_text(b)}", f"[{score_text(a)}, {score_text(b)}{']' if last else ')'}",
                  a, b, last)
            for a, b, last in ((edges[i], edges[i + 1], i == SCORE_BINS - 1) for i in range(SCORE_BINS))]


Ratings = Mapping[str, Mapping[str, Rating]]   # grade path -> rating_values of that grade


def ratings_of(grades: Sequence[Scoring], tree: Tree, spec: Spec) -> dict[str, dict[str, Rating]]:
    """Every grade's :func:`~.agreement_outputs.rating_values`, by the grade's path: derived once per grade."""
    return {scoring.path: rating_values(scoring, tree, spec) for scoring in grades}


def units_by_case(grades: Sequence[Scoring], ratings: Ratings, target: str) -> list[list[Unit]]:
    """Per case (sorted), the units (reviewer -> value of ``target``) of its runs graded at least twice;
    ``ratings`` holds every grade's values (:func:`ratings_of`)."""
    per_run: dict[tuple[str, str, str], dict[str, Fraction | int]] = defaultdict(dict)
    for scoring in grades:
        value = ratings[scoring.path][target]
        assert not isinstance(value, str)  # raw_score, criteria and correctness are numbers
        per_run[scoring.run_key][scoring.reviewer_id] = value
    cases: dict[str, list[Unit]] = defaultdict(list)
    for key in sorted(per_run):
        if len(per_run[key]) >= 2:
            cases[key[1]].append(per_run[key])
    return [cases[case] for case in sorted(cases)]


def reviewer_rows(grades: Sequence[Scoring], adjudications: Sequence[Scoring], tree: Tree, spec: Spec,
                  reviewers: Mapping[str, Reviewer] | None, *, digest: str) -> list[tuple[str, ...]]:
    """The CSV rows (already formatted), in reviewer, then statistic, then target order."""
    by_reviewer: dict[str, list[Scoring]] = defaultdict(list)
    for scoring in grades:
        by_reviewer[scoring.reviewer_id].append(scoring)
    adjudicated = Counter(s.reviewer_id for s in adjudications)
    ids = sorted(set(by_reviewer) | set(adjudicated) | set(reviewers or {}))
    judges = {r for r in ids if reviewers and r in reviewers and reviewers[r].kind == LLM_JUDGE}
    human_grades = [s for s in grades if s.reviewer_id not in judges]
    confidence, resamples = spec.stats.confidence_level, spec.stats.bootstrap_resamples
    ratings = ratings_of(grades, tree, spec)
    levels = score_levels(spec)
    targets = deviation_targets(spec)   # correctness only when the benchmark records it
    human_clusters = {target: units_by_case(human_grades, ratings, target) for target in targets}
    rows: list[tuple[str, ...]] = []
    for rid in ids:
        kind = reviewers[rid].kind if reviewers and rid in reviewers else ""
        mine = by_reviewer.get(rid, [])

        def row(statistic: str, target: str, value: Fraction | int | None, n: int, level: str = "",
                interval: Interval | None = None, note: str = "", rid: str = rid, kind: str = kind) -> None:
            shown = str(value) if isinstance(value, int) else fmt_fixed(value)  # counts stay integers
            rows.append((rid, kind, statistic, target, level, shown, *fmt_interval(interval), str(n), note))

        row("runs_graded", "all", len(mine), len(mine))
        row("adjudications", "all", adjudicated.get(rid, 0), adjudicated.get(rid, 0))
        # raw_score and each criterion of the reviewer's grades, a column each: integers (no criterion may be
        # named like a grade's label, classification: system_check's RESERVED_CRITERIA)
        values_of_mine = [ratings[s.path] for s in mine]
        columns = {target: [cast(int, values[target]) for values in values_of_mine]
                   for target in ("raw_score", *spec.criteria)}
        for name in spec.criteria:
            counts = Counter(columns[name])
            for level in levels:
                hits = sum(count for score, count in counts.items() if level.holds(score))
                share = Fraction(hits, len(mine)) if mine else None
                row("level_share", name, share, len(mine), level.label, note=level.note if mine else "no grade")
        for target, values in columns.items():
            mean = Fraction(sum(values), len(values)) if values else None
            row("mean_score", target, mean, len(values), note="" if values else "no grade")
        # against the human graders only: a judge's grades never move a human's leniency
        clusters = human_clusters if rid not in judges else {
            target: units_by_case(human_grades + mine, ratings, target) for target in targets}
        for target in targets:
            units = [unit for case in clusters[target] for unit in case]
            value, n = mean_deviation(units, rid)
            if value is None:
                row("leniency", target, None, 0, note="no run shared with another grader")
                continue
            sums, runs = [], []  # per case: the sum of the reviewer's deviations and its runs, from mean_deviation
            for case in clusters[target]:
                mean, shared = mean_deviation(case, rid)
                if mean is not None:
                    sums.append(mean * shared)
                    runs.append(shared)
            weights = case_weights(len(runs), digest=digest, label=f"leniency:{rid}:{target}", resamples=resamples)
            row("leniency", target, value, n, interval=ratio_interval(sums, runs, weights, confidence),
                note=leniency(value, target != "raw_score" or spec.higher_is_better))
    return rows


DRIFT_COLUMNS = ("reviewer_id", "kind", "period", "grades", "mean_raw_score", "leniency_raw_score", "n_shared")


def drift_rows(grades: Sequence[Scoring], dates: Mapping[str, str], tree: Tree, spec: Spec,
               reviewers: Mapping[str, Reviewer] | None) -> list[tuple[str, ...]]:
    """Per reviewer and month of commit (``dates``: grade path -> ``YYYY-MM-DD``; ``uncommitted`` when
    absent): their grades, mean raw_score and leniency on raw_score against the human graders of the same
    runs (whenever those were graded), in reviewer then period order."""
    judges = {r for r, info in (reviewers or {}).items() if info.kind == LLM_JUDGE}
    human_grades = [s for s in grades if s.reviewer_id not in judges]
    ratings = ratings_of(grades, tree, spec)
    rows: list[tuple[str, ...]] = []
    by_key: dict[tuple[str, str], list[Scoring]] = defaultdict(list)
    for scoring in grades:
        date = dates.get(scoring.path)
        by_key[(scoring.reviewer_id, date[:7] if date else "uncommitted")].append(scoring)
    for (rid, period), mine in sorted(by_key.items()):
        kind = reviewers[rid].kind if reviewers and rid in reviewers else ""
        raw = [ratings[s.path]["raw_score"] for s in mine]
        mean = sum((Fraction(v) for v in raw if not isinstance(v, str)), Fraction(0)) / len(raw)
        runs = {s.run_key for s in mine}
        others = [s for s in human_grades if s.run_key in runs and s.reviewer_id != rid]
        units = [unit for case in units_by_case(mine + others, ratings, "raw_score") for unit in case]
        lean, shared = mean_deviation(units, rid)
        rows.append((rid, kind, period, str(len(mine)), fmt_fixed(mean), fmt_fixed(lean), str(shared)))
    return rows

"""results/judge_agreement.csv: how far each LLM judge agrees with the human grade of the same runs.

Written only when scorings by ``llm-judge`` reviewers (subjects/reviewers.yaml) exist. The human grade of
a run is the consolidated grade of its human graders (:func:`rgbench.stats.consolidate.consolidate_all`:
the one human grade, their median-v1 combination, or the adjudication). Over the runs a judge and a
human both graded, per judge (columns ``JUDGE_COLUMNS``):

- ``krippendorff_alpha_ordinal`` on raw_score and each criterion (the judge and the human grade as two
  raters; :func:`rgbench.stats.agreement.krippendorff_alpha`);
- ``macro_f1`` on classification and correctness (:func:`macro_f1`, the human grade as the truth), as
  HealthBench's meta-evaluation reports its grader against physicians;
- ``mean_deviation`` on raw_score and correctness: mean of (judge − human); > 0 the judge is lenient;

each with a percentile bootstrap interval over the shared runs, resampled by case
(:func:`rgbench.stats.case_bootstrap.case_interval`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from fractions import Fraction

from ..compute.numfmt import fmt_fixed
from ..load.records import Scoring, Tree
from ..load.reviewers import LLM_JUDGE, Reviewer
from ..load.spec import Spec
from .agreement import Rating, krippendorff_alpha
from .agreement_outputs import rating_values
from .case_bootstrap import case_interval, ratio_interval
from .consolidate import consolidate_all

JUDGE_FILE = "judge_agreement.csv"
JUDGE_COLUMNS = ("judge_id", "statistic", "target", "value", "ci_low", "ci_high", "n_runs", "note")
HUMAN = "human"
F1_TARGETS = ("classification", "correctness")
DEVIATION_TARGETS = ("raw_score", "correctness")
Pair = tuple[Mapping[str, Rating], Mapping[str, Rating]]  # (the judge's values, the human grade's values)


def macro_f1(pairs: Sequence[tuple[Hashable, Hashable]]) -> Fraction | None:
    """Unweighted mean over classes of F1 = 2·TP / (2·TP + FP + FN), for (predicted, true) pairs, in [0, 1].

    Classes are the labels that occur as predicted or true (so each has 2·TP + FP + FN > 0). Higher is
    better; 1 when every prediction is right. None when there is no pair.
    """
    if not pairs:
        return None
    classes = sorted({label for pair in pairs for label in pair}, key=repr)
    scores = []
    for label in classes:
        tp = sum(1 for p, t in pairs if p == label and t == label)
        fp = sum(1 for p, t in pairs if p == label and t != label)
        fn = sum(1 for p, t in pairs if p != label and t == label)
        scores.append(Fraction(2 * tp, 2 * tp + fp + fn))
    return sum(scores, Fraction(0)) / len(scores)


def _alpha(target: str):
    return lambda pairs: krippendorff_alpha([{"judge": j[target], HUMAN: h[target]} for j, h in pairs], "ordinal")


def _f1(target: str):
    return lambda pairs: macro_f1([(j[target], h[target]) for j, h in pairs])


def _deviation(target: str):
    def statistic(pairs: Sequence[Pair]) -> Fraction | None:
        if not pairs:
            return None
        return sum((Fraction(j[target]) - Fraction(h[target]) for j, h in pairs
                    ), Fraction(0)) / len(pairs)
    return statistic


def judge_pairs(judge_grades: Sequence[Scoring], human_grades: Sequence[Scoring],
                adjudications: Mapping[tuple[str, str, str], Scoring], tree: Tree,
                spec: Spec) -> dict[str, list[list[Pair]]]:
    """judge id -> per case (sorted) the (judge, human) value pairs of the runs both graded."""
    reference = {item.scoring.run_key: item.scoring for item in consolidate_all(human_grades, adjudications)}
    by_case: dict[str, dict[str, list[Pair]]] = defaultdict(lambda: defaultdict(list))
    for scoring in sorted(judge_grades, key=lambda s: (s.reviewer_id, s.run_key)):
        human = reference.get(scoring.run_key)
        if human is not None:
            by_case[scoring.reviewer_id][scoring.case_id].append(
                (rating_values(scoring, tree, spec), rating_values(human, tree, spec)))
    return {judge: [cases[c] for c in sorted(cases)] for judge, cases in sorted(by_case.items())}


def judge_rows(grades: Sequence[Scoring], adjudications: Mapping[tuple[str, str, str], Scoring], tree: Tree,
               spec: Spec, reviewers: Mapping[str, Reviewer] | None, *, digest: str) -> list[tuple[str, ...]]:
    """The CSV rows (formatted); [] when no grade is by an llm-judge reviewer."""
    judges = {rid for rid, r in (reviewers or {}).items() if r.kind == LLM_JUDGE}
    judge_grades = [s for s in grades if s.reviewer_id in judges]
    if not judge_grades:
        return []
    human_grades = [s for s in grades if s.reviewer_id not in judges]
    human_adjudications = {k: s for k, s in adjudications.items() if s.reviewer_id not in judges}
    pairs = judge_pairs(judge_grades, human_grades, human_adjudications, tree, spec)
    statistics = ([("krippendorff_alpha_ordinal", t, _alpha(t)) for t in ("raw_score", *spec.criteria)]
                  + [("macro_f1", t, _f1(t)) for t in F1_TARGETS]
                  + [("mean_deviation", t, _deviation(t)) for t in DEVIATION_TARGETS])
    resamples, confidence = spec.stats.bootstrap_resamples, spec.stats.confidence_level
    rows: list[tuple[str, ...]] = []
    for judge in sorted({s.reviewer_id for s in judge_grades}):
        clusters = pairs.get(judge, [])
        flat = [pair for case in clusters for pair in case]
        for name, target, statistic in statistics:
            value = statistic(flat)
            if value is None:
                note = "no run graded by both the judge and a human" if not flat else "no variation: all ratings equal"
                rows.append((judge, name, target, "", "", "", str(len(flat)), note))
                continue
            label, undefined = f"judge:{judge}:{name}:{target}", 0
            if name == "mean_deviation":  # a ratio of per-case sums: the exact vectorised bootstrap
                parts = [(Fraction(len(case)) * mean, len(case)) for case in clusters
                         if case and (mean := statistic(case)) is not None]
                low, high = ratio_interval(parts, digest=digest, label=label, resamples=resamples, confidence=confidence)
            else:
                low, high, undefined = case_interval(clusters, statistic, digest=digest, label=label,
                                                     resamples=resamples, confidence=confidence)
            note = f"{undefined} of {resamples} resamples undefined" if undefined else ""
            rows.append((judge, name, target, fmt_fixed(value), fmt_fixed(low), fmt_fixed(high), str(len(flat)), note))
    return rows

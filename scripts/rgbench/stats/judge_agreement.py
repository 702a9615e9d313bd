"""results/judge_agreement.csv: how far each LLM judge agrees with the human grade of the same runs.

Written only when scorings by ``llm-judge`` reviewers (subjects/reviewers.yaml) exist. The human grade of
a run is the consolidated grade of its human graders (:func:`rgbench.load.consolidate.consolidate_all`:
the one human grade, their combination by config.yaml's consolidation_policy, or the adjudication). Over the runs a judge and a
human both graded, per judge (columns ``JUDGE_COLUMNS``):

- ``krippendorff_alpha_ordinal`` on raw_score and each criterion (the judge and the human grade as two
  raters; :func:`rgbench.stats.agreement.alpha_terms`);
- ``macro_f1`` on classification and correctness (:func:`macro_f1`, the human grade as the truth), as
  HealthBench's meta-evaluation reports its grader against physicians;
- ``mean_deviation`` on raw_score and correctness: mean of (judge − human); > 0 the judge is lenient;

each with the case-bootstrap BCa interval over the shared runs, resampled by case: every statistic is written
once as a function of case weights (:func:`case_terms`: alpha through :func:`rgbench.stats.agreement.alpha_terms`,
macro-F1 through :func:`macro_f1_terms`, the mean deviation as the ratio of per-case sums), whose value at unit
weights in Fractions is the ``value`` (:func:`rgbench.stats.bootstrap.exact_value`) and whose float64 replicates
take :func:`rgbench.stats.bootstrap.bca_interval` over one draw (:func:`rgbench.stats.bootstrap.case_weights`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from fractions import Fraction

import numpy as np

from ..load.consolidate import consolidate_all, policy_of
from ..load.records import Scoring, Tree
from ..load.reviewers import LLM_JUDGE, Reviewer
from ..load.spec import Spec
from ..numfmt import fmt_fixed
from .agreement import Rating, alpha_terms
from .agreement_outputs import deviation_targets, ranked_targets, rating_values
from .bootstrap import (
    Terms,
    bca_interval,
    case_weights,
    exact_value,
    numbers_like,
    ratio_terms,
    replicates,
    undefined_replicates,
)
from .outputs import fmt_interval

JUDGE_FILE = "judge_agreement.csv"
JUDGE_COLUMNS = ("judge_id", "statistic", "target", "value", "ci_low", "ci_high", "n_runs", "note")
HUMAN = "human"
F1_TARGETS = ("classification", "correctness")
Pair = tuple[Mapping[str, Rating], Mapping[str, Rating]]  # (the judge's values, the human grade's values)


def macro_f1_terms(pairs: Sequence[tuple[Hashable, Hashable]]) -> Terms:
    """W -> (Σ_c F1_c, number of classes that occur) of the (predicted, true) pairs weighted by W (replicates x
    pairs), with F1_c = 2·TP_c / (2·TP_c + FP_c + FN_c) over weighted counts; a class occurs in a replicate when
    2·TP + FP + FN = (its predicted + true count) > 0. Their ratio is the macro-F1 (:func:`macro_f1`)."""
    classes = sorted({label for pair in pairs for label in pair}, key=repr)
    shape = (len(pairs), len(classes))
    predicted = np.array([[p == c for c in classes] for p, _ in pairs], dtype=np.int64).reshape(shape)   # 0/1
    true = np.array([[t == c for c in classes] for _, t in pairs], dtype=np.int64).reshape(shape)

    def terms(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        tp = w @ numbers_like(w, predicted * true)
        occur = w @ numbers_like(w, predicted + true)           # 2·TP + FP + FN
        with np.errstate(invalid="ignore", divide="ignore"):
            f1 = np.where(occur > 0, 2 * tp / np.where(occur > 0, occur, 1), 0)
        return f1.sum(axis=1), (occur > 0).sum(axis=1)
    return terms


def macro_f1(pairs: Sequence[tuple[Hashable, Hashable]]) -> Fraction | None:
    """Unweighted mean over classes of F1 = 2·TP / (2·TP + FP + FN), for (predicted, true) pairs, in [0, 1]
    (:func:`macro_f1_terms` at unit weights, exact).

    Classes are the labels that occur as predicted or true (so each has 2·TP + FP + FN > 0). Higher is
    better; 1 when every prediction is right. None when there is no pair.
    """
    return exact_value(macro_f1_terms(pairs), len(pairs))


def _deviation_sum(pairs: Sequence[Pair], target: str) -> Fraction:
    """Σ (judge − human) of ``target`` over the pairs."""
    return sum((Fraction(j[target]) - Fraction(h[target]) for j, h in pairs), Fraction(0))


def case_terms(clusters: Sequence[Sequence[Pair]], name: str, target: str) -> Terms:
    """The judge's ``name`` statistic on ``target`` over the (judge, human) pairs of the ``clusters`` (one per
    case) as a function of case weights (replicates x cases): each pair takes the weight of its case
    (alpha: :func:`rgbench.stats.agreement.alpha_terms`, ordinal, the judge and the human as two raters;
    :func:`macro_f1_terms`); the mean deviation is the ratio of the per-case sums of (judge − human) to the
    per-case runs (:func:`rgbench.stats.bootstrap.ratio_terms`)."""
    if name == "mean_deviation":
        return ratio_terms([_deviation_sum(case, target) for case in clusters], [len(case) for case in clusters])
    flat = [pair for case in clusters for pair in case]
    case_of = np.array([i for i, case in enumerate(clusters) for _ in case], dtype=np.int64)
    if name == "macro_f1":
        per_pair = macro_f1_terms([(j[target], h[target]) for j, h in flat])
    else:
        per_pair = alpha_terms([{"judge": j[target], HUMAN: h[target]} for j, h in flat], "ordinal")
    return lambda w: per_pair(w[:, case_of])


def judge_pairs(judge_grades: Sequence[Scoring], human_grades: Sequence[Scoring],
                adjudications: Mapping[tuple[str, str, str], Scoring], tree: Tree,
                spec: Spec) -> dict[str, list[list[Pair]]]:
    """judge id -> per case (sorted) the (judge, human) value pairs of the runs both graded."""
    policy = policy_of(spec)
    reference = {item.scoring.run_key: item.scoring for item in consolidate_all(human_grades, adjudications, policy)}
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
    statistics = ([("krippendorff_alpha_ordinal", t) for t in ("raw_score", *spec.criteria)]
                  + [("macro_f1", t) for t in F1_TARGETS if t in ranked_targets(spec)]   # those recorded
                  + [("mean_deviation", t) for t in deviation_targets(spec)])
    resamples, confidence = spec.stats.bootstrap_resamples, spec.stats.confidence_level
    rows: list[tuple[str, ...]] = []
    for judge in sorted({s.reviewer_id for s in judge_grades}):
        clusters = pairs.get(judge, [])
        flat = [pair for case in clusters for pair in case]
        for name, target in statistics:
            terms = case_terms(clusters, name, target)
            value = exact_value(terms, len(clusters))
            if value is None:
                note = "no run graded by both the judge and a human" if not flat else "no variation: all ratings equal"
                rows.append((judge, name, target, "", "", "", str(len(flat)), note))
                continue
            weights = case_weights(len(clusters), digest=digest, label=f"judge:{judge}:{name}:{target}",
                                   resamples=resamples)
            weighted = replicates(terms)
            undefined = undefined_replicates(weighted, weights)
            note = f"{undefined} of {resamples} resamples undefined" if undefined else ""
            rows.append((judge, name, target, fmt_fixed(value), *fmt_interval(
                bca_interval(weighted, len(clusters), weights, confidence)), str(len(flat)), note))
    return rows

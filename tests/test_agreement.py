"""Reviewer agreement (aggregate_metrics.md §25) and consolidation (§26): hand-computed values with the
arithmetic in the comments, the degenerate cases by name, and cross-checks against the `krippendorff`
package and statsmodels' weighted kappa."""

from __future__ import annotations

from fractions import Fraction as F

import krippendorff
import numpy as np
import pytest
from reference_stats import krippendorff_alpha_by_matrix
from statsmodels.stats.inter_rater import cohens_kappa

from rgbench.load.consolidate import (
    ADJUDICATED,
    BY_POLICY,
    CONSENSUS,
    SINGLE,
    consolidate_all,
    consolidate_run,
    consolidated_fails,
    lower_median,
    majority_lowest,
)
from rgbench.load.records import Scoring
from rgbench.stats.agreement import (
    cohen_weighted_kappa,
    krippendorff_alpha,
    leniency,
    mean_deviation,
    pair_ratings,
    percent_agreement,
)

UNITS = [{"a": 1, "b": 1}, {"a": 2, "b": 3}, {"a": 3, "b": 3}]


# --- Krippendorff's alpha -----------------------------------------------------------------

def test_krippendorff_alpha_hand_computed():
    # marginals n_1 = 2, n_2 = 1, n_3 = 3, n = 6; observed disagreement pairs: (2,3) and (3,2)
    # nominal: Σ o δ = 2; Σ n_c n_k δ = 2(2·1 + 1·3 + 2·3) = 22; alpha = 1 - (n-1)·2/22 = 1 - 10/22 = 6/11
    assert krippendorff_alpha(UNITS, "nominal") == F(6, 11)
    # ordinal: δ(1,2) = (2 + 1 - 3/2)² = 2.25; δ(2,3) = (1 + 3 - 2)² = 4; δ(1,3) = (6 - 5/2)² = 12.25
    #   Σ o δ = 2·4 = 8; Σ n n δ = 2(2·1·2.25 + 1·3·4 + 2·3·12.25) = 2(4.5 + 12 + 73.5) = 180
    #   alpha = 1 - 5·8/180 = 1 - 2/9 = 7/9
    assert krippendorff_alpha(UNITS, "ordinal") == F(7, 9)
    # interval: δ = (c-k)²: Σ o δ = 2; Σ n n δ = 2(2·1·1 + 1·3·1 + 2·3·4) = 58; alpha = 1 - 10/58 = 24/29
    assert krippendorff_alpha(UNITS, "interval") == F(24, 29)


def test_krippendorff_alpha_perfect_and_systematic_disagreement():
    assert krippendorff_alpha([{"a": 1, "b": 1}, {"a": 2, "b": 2}], "nominal") == 1
    # every pair disagrees: o_12 = o_21 = 2, n_1 = n_2 = 2, n = 4; Σ o δ = 4, Σ n_c n_k δ = 2·(2·2) = 8
    # alpha = 1 - (n-1)·4/8 = 1 - 3/2 = -1/2
    assert krippendorff_alpha([{"a": 1, "b": 2}, {"a": 2, "b": 1}], "nominal") == F(-1, 2)


def test_krippendorff_alpha_degenerate_cases():
    assert krippendorff_alpha([], "nominal") is None                               # nothing rated
    assert krippendorff_alpha([{"a": 1}, {"b": 2}], "ordinal") is None             # no unit has two ratings
    assert krippendorff_alpha([{"a": 2, "b": 2}, {"a": 2, "c": 2}], "ordinal") is None  # all ratings equal: D_e = 0
    with pytest.raises(ValueError):
        krippendorff_alpha(UNITS, "ratio")


def reliability_data(units, raters):
    return np.array([[unit.get(r, np.nan) for unit in units] for r in raters], dtype=float)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("metric", ["nominal", "ordinal", "interval"])
def test_krippendorff_alpha_matches_the_krippendorff_package(seed, metric):
    rng = np.random.default_rng(seed)
    raters = ["r1", "r2", "r3", "r4"]
    units = []
    for _ in range(40):
        base = int(rng.integers(0, 13))
        unit = {r: int(np.clip(base + rng.integers(-2, 3), 0, 12)) for r in raters if rng.random() < 0.6}
        units.append(unit)
    ours = krippendorff_alpha(units, metric)
    theirs = krippendorff.alpha(reliability_data=reliability_data(units, raters), level_of_measurement=metric)
    assert float(ours) == pytest.approx(theirs, abs=1e-12)


def test_krippendorff_alpha_nominal_on_labels_matches_the_package():
    labels = {"Fail": 0, "Conditional": 1, "Pass": 2}
    units = [{"a": "Pass", "b": "Pass"}, {"a": "Fail", "b": "Conditional", "c": "Fail"}, {"a": "Pass", "c": "Conditional"},
             {"b": "Fail", "c": "Fail"}, {"a": "Conditional"}]
    coded = [{r: labels[v] for r, v in unit.items()} for unit in units]
    theirs = krippendorff.alpha(reliability_data=reliability_data(coded, ["a", "b", "c"]), level_of_measurement="nominal")
    assert float(krippendorff_alpha(units, "nominal")) == pytest.approx(theirs, abs=1e-12)



def mixed_units(seed, n=40, raters=("r1", "r2", "r3", "r4"), top=12, step=F(1)):
    """Units of 0-4 ratings (some unpairable) on the values 0, step, 2·step, ..., top·step."""
    rng = np.random.default_rng(seed)
    units = []
    for _ in range(n):
        base = int(rng.integers(0, top + 1))
        units.append({r: step * int(np.clip(base + rng.integers(-2, 3), 0, top)) for r in raters if rng.random() < 0.6})
    return units


@pytest.mark.parametrize("metric", ["nominal", "ordinal", "interval"])
@pytest.mark.parametrize(("top", "step"), [(12, F(1)), (228, F(1)), (40, F(1, 4)), (30, F(7, 10))])
def test_krippendorff_alpha_is_exactly_its_coincidence_matrix_definition(metric, top, step):
    # the sums over values x values are computed in closed form (n² − Σ n_c², 2nΣ n_c p_c² − 2(Σ n_c p_c)²):
    # the same Fraction as the definition, on integer and decimal (Fraction) scores
    for seed in (1, 2):
        units = mixed_units(seed, top=top, step=step)
        assert krippendorff_alpha(units, metric) == krippendorff_alpha_by_matrix(units, metric)
    labels = [{"a": "Pass", "b": "Fail"}, {"a": "Fail", "b": "Fail", "c": "Conditional"}, {"b": "Pass", "c": "Pass"}]
    assert krippendorff_alpha(labels, "nominal") == krippendorff_alpha_by_matrix(labels, "nominal")


def test_krippendorff_alpha_on_a_wide_range():
    # runs graded twice on 0..100000: about as many distinct values as ratings; time and memory follow the
    # ratings, not the range (the values x values sums are closed forms; ordinal's were k³ Fraction additions)
    rng = np.random.default_rng(7)

    def wide(n):
        base = rng.integers(0, 100_001, n)
        return [{"a": int(b), "b": int(np.clip(b + rng.integers(-5000, 5001), 0, 100_000))} for b in base]
    few = wide(120)   # the package builds units x values x values arrays: kept small for it
    for metric in ("ordinal", "interval"):
        theirs = krippendorff.alpha(reliability_data=reliability_data(few, ["a", "b"]), level_of_measurement=metric)
        assert float(krippendorff_alpha(few, metric)) == pytest.approx(theirs, abs=1e-9)
    many = wide(3000)
    # ordinal alpha depends on the order of the values only: a strictly increasing map leaves it unchanged, exactly
    assert krippendorff_alpha(many, "ordinal") == krippendorff_alpha(
        [{r: F(v) ** 3 / 7 + 5 for r, v in unit.items()} for unit in many], "ordinal")

# --- weighted kappa, percent agreement, deviation ------------------------------------------

def test_cohen_weighted_kappa_hand_computed():
    # x = [0, 1, 2], y = [0, 2, 2]: D_o = (0 + 1 + 0)/3 = 1/3
    # D_e = (1/9)·Σ_u Σ_v (x_u - y_v)² = (1/9)·[(0+4+4) + (1+1+1) + (4+0+0)] = 15/9 = 5/3
    # kappa = 1 - (1/3)/(5/3) = 1 - 1/5 = 4/5
    assert cohen_weighted_kappa([(0, 0), (1, 2), (2, 2)]) == F(4, 5)


def test_cohen_weighted_kappa_matches_statsmodels():
    rng = np.random.default_rng(4)
    for _ in range(20):
        x = rng.integers(0, 13, 25)
        y = np.clip(x + rng.integers(-3, 4, 25), 0, 12)
        table = np.zeros((13, 13))
        for a, b in zip(x, y):
            table[a, b] += 1
        ref = cohens_kappa(table, wt="quadratic").kappa
        assert float(cohen_weighted_kappa(list(zip(x.tolist(), y.tolist())))) == pytest.approx(ref, abs=1e-12)


def test_cohen_weighted_kappa_degenerate_cases():
    assert cohen_weighted_kappa([]) is None                      # a reviewer pair with no overlap
    assert cohen_weighted_kappa([(2, 2), (2, 2)]) is None        # both constant at the same value: D_e = 0
    # both constant at different values: D_o = D_e = 1, kappa = 0 (no better than chance)
    assert cohen_weighted_kappa([(1, 2), (1, 2)]) == 0
    assert cohen_weighted_kappa([(1, 1), (2, 2), (0, 0)]) == 1   # perfect agreement


def test_pair_ratings_keeps_only_shared_units():
    units = [{"a": 1, "b": 2}, {"a": 3}, {"b": 1, "c": 0}]
    assert pair_ratings(units, "a", "b") == [(1, 2)]
    assert pair_ratings(units, "a", "c") == []


def test_percent_agreement_hand_computed():
    # two reviewers: runs 1 and 3 agree, run 2 does not -> 2/3
    assert percent_agreement(UNITS) == F(2, 3)
    # three reviewers on (1, 1, 2): pairs ab agree, ac and bc do not -> 1/3; plus (5, 5): 1/1 -> (1 + 1)/(3 + 1)
    assert percent_agreement([{"a": 1, "b": 1, "c": 2}, {"a": 5, "b": 5}]) == F(1, 2)
    assert percent_agreement([{"a": 1}]) is None
    assert percent_agreement([{"a": 2, "b": 2}]) == 1   # all ratings equal: full agreement


def test_mean_deviation_hand_computed():
    units = [{"a": 10, "b": 8}, {"a": 6, "b": 6}, {"a": 12, "b": 9, "c": 9}, {"c": 4}]
    # a: (10 - 8) + (6 - 6) + (12 - 9) = 5 over 3 runs -> 5/3 (lenient)
    assert mean_deviation(units, "a") == (F(5, 3), 3)
    # b: (8 - 10) + 0 + (9 - 10.5) = -3.5 over 3 -> -7/6 (severe)
    assert mean_deviation(units, "b") == (F(-7, 6), 3)
    # c: only the third run is shared: 9 - 10.5 = -1.5
    assert mean_deviation(units, "c") == (F(-3, 2), 1)
    assert mean_deviation(units, "nobody") == (None, 0)
    assert mean_deviation([{"x": 3}], "x") == (None, 0)   # never shares a run


def test_leniency_turns_round_on_a_lower_is_better_scale():
    # above the others: lenient where higher is better, severe where a higher value is a higher penalty
    assert (leniency(F(5, 3)), leniency(F(-7, 6)), leniency(F(0))) == ("lenient", "severe", "neutral")
    assert (leniency(F(5, 3), False), leniency(F(-7, 6), False), leniency(F(0), False)) == (
        "severe", "lenient", "neutral")


# --- consolidation policy -----------------------------------------------------------------

def test_lower_median_and_majority_lowest():
    assert lower_median([2, 1]) == 1            # even count: the lower middle value
    assert lower_median([0, 2, 1]) == 1
    assert lower_median([2, 2, 0, 1]) == 1      # sorted 0 1 2 2 -> lower middle 1
    assert majority_lowest([F(1), F(1, 2)]) == F(1, 2)          # tie -> the lower value
    assert majority_lowest([F(1), F(1), F(0)]) == 1             # majority
    assert majority_lowest([F(0), F(1, 2), F(1), F(1)]) == 1
    with pytest.raises(ValueError):
        lower_median([])


def test_consolidated_fails():
    crit, rec = ("AF-CRIT", "critical"), ("AF-REC", "recoverable")
    assert consolidated_fails([[crit], []]) == (crit,)               # any critical counts
    assert consolidated_fails([[crit], [], []]) == (crit,)
    assert consolidated_fails([[rec], []]) == (rec,)                 # 1 of 2 is at least half
    assert consolidated_fails([[rec], [], []]) == ()                 # 1 of 3 is not
    assert consolidated_fails([[rec], [rec, crit], []]) == (crit, rec)


def grade(reviewer, scores, correctness, fails=(), run="r1", path=None):
    names = ("diagnosis", "evidence", "causal_reasoning", "action_plan", "safety", "communication")
    return Scoring("s", "1", "RO-FOUL-001", run, reviewer, tuple(zip(names, scores)), tuple(fails), F(correctness),
                   path or f"scoring/v1.0/s/RO-FOUL-001__{run}__eval-{reviewer}.json")


def test_consolidate_run_by_policy_hand_computed():
    a = grade("ana", (2, 2, 1, 2, 2, 1), 1)
    b = grade("ben", (2, 1, 1, 2, 0, 1), F(1, 2), fails=[("AF-CHLORINE-EXPOSURE", "critical")])
    c = grade("cy", (1, 1, 2, 2, 1, 2), F(1, 2))
    out = consolidate_run([c, a, b])
    # per criterion, sorted: (1,2,2)->2, (1,1,2)->1, (1,1,2)->1, (2,2,2)->2, (0,1,2)->1, (1,1,2)->1
    assert dict(out.scoring.criterion_scores) == {"diagnosis": 2, "evidence": 1, "causal_reasoning": 1,
                                                  "action_plan": 2, "safety": 1, "communication": 1}
    assert out.scoring.fails == (("AF-CHLORINE-EXPOSURE", "critical"),)   # one reviewer's critical fail counts
    assert out.scoring.correctness == F(1, 2)                              # 1/2 twice, 1 once
    assert (out.method, out.scoring.reviewer_id) == (BY_POLICY, CONSENSUS)
    assert out.sources == (a.path, b.path, c.path)                          # by reviewer id


def test_two_reviewers_ties_go_against_the_subject():
    out = consolidate_run([grade("ana", (2, 2, 2, 2, 2, 2), 1), grade("ben", (1, 2, 2, 2, 2, 1), F(1, 2))])
    assert [s for _, s in out.scoring.criterion_scores] == [1, 2, 2, 2, 2, 1] and out.scoring.correctness == F(1, 2)


def test_single_grade_and_adjudication():
    a, b = grade("ana", (2,) * 6, 1), grade("ben", (0,) * 6, 0)
    single = consolidate_run([a])
    assert (single.method, single.scoring, single.sources) == (SINGLE, a, (a.path,))
    judge = grade("judge", (1,) * 6, F(1, 2), path="scoring_multi/v1.0/s/RO-FOUL-001__r1__adjudication-judge.json")
    adjudicated = consolidate_run([a, b], judge)
    assert (adjudicated.method, adjudicated.scoring) == (ADJUDICATED, judge)
    assert adjudicated.sources == (a.path, b.path, judge.path)
    runs = consolidate_all([a, b, grade("ana", (1,) * 6, 0, run="r2")], {("s", "RO-FOUL-001", "r1"): judge})
    assert [(c.scoring.run_id, c.method) for c in runs] == [("r1", ADJUDICATED), ("r2", SINGLE)]

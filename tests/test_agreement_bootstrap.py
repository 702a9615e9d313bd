"""Bootstrap intervals over units for the agreement statistics (§25): every statistic is a function of unit
weights whose replicate is the statistic of the redrawn units; the interval is the library's BCa over those
weights; degenerate cases; the `krippendorff` package as an oracle for alpha."""

from __future__ import annotations

import tracemalloc
from collections import Counter
from fractions import Fraction as F

import krippendorff
import numpy as np
import pytest
from reference_stats import alpha_replicates_by_matrix, mean_statistic

from rgbench.stats.agreement import (
    alpha_terms,
    cohen_weighted_kappa,
    krippendorff_alpha,
    mean_deviation,
    pair_ratings,
    percent_agreement,
    percent_terms,
    unit_deviations,
)
from rgbench.stats.agreement_bootstrap import (
    alpha_interval,
    alpha_statistic,
    deviation_interval,
    kappa_interval,
    kappa_statistic,
    percent_interval,
    unit_weights,
    units_digest,
)
from rgbench.stats.agreement_outputs import ranked
from rgbench.stats.bootstrap import (
    bca_interval,
    case_counts,
    case_weights,
    exact_value,
    ratio_statistic,
    ratio_terms,
    replicates,
)


def drawn(rng, n_units, resamples):
    """The unit draw the intervals use (the library's case_counts: k draws with replacement per replicate)."""
    return case_counts(rng, n_units, resamples)


def random_units(seed, n=30, raters=("r1", "r2", "r3")):
    rng = np.random.default_rng(seed)
    units = []
    for _ in range(n):
        base = int(rng.integers(0, 5))
        unit = {r: int(np.clip(base + rng.integers(-1, 2), 0, 4)) for r in raters if rng.random() < 0.8}
        if len(unit) >= 2:
            units.append(unit)
    return units


def expand(units, weights):
    """The units repeated by their multiplicities: what a replicate with these weights resamples."""
    return [u for u, w in zip(units, weights) for _ in range(int(w))]


@pytest.mark.parametrize("metric", ["nominal", "ordinal"])
@pytest.mark.parametrize("seed", [1, 2])
def test_each_alpha_replicate_is_alpha_of_the_redrawn_units(metric, seed):
    units = random_units(seed)
    weights = drawn(np.random.default_rng(seed), len(units), 25)
    assert (weights.sum(axis=1) == len(units)).all()
    got = alpha_statistic(units, metric)(weights)
    for i in range(len(weights)):
        expected = krippendorff_alpha(expand(units, weights[i]), metric)
        assert np.isnan(got[i]) if expected is None else got[i] == pytest.approx(float(expected), abs=1e-12)


@pytest.mark.parametrize("metric", ["nominal", "ordinal"])
def test_alpha_with_unit_weights_matches_the_krippendorff_package(metric):
    units = random_units(5, n=40)
    value = alpha_statistic(units, metric)(np.ones((1, len(units))))[0]
    data = np.array([[u.get(r, np.nan) for u in units] for r in ("r1", "r2", "r3")], dtype=float)
    assert value == pytest.approx(krippendorff.alpha(reliability_data=data,
                                                                         level_of_measurement=metric), abs=1e-12)



@pytest.mark.parametrize("metric", ["nominal", "ordinal"])
@pytest.mark.parametrize(("top", "step"), [(4, F(1)), (228, F(1)), (40, F(1, 4))])
def test_alpha_replicates_are_the_floats_of_the_coincidence_matrix_form(metric, top, step):
    # the replicate is computed from per-rating sums (no values x values matrix), as exact integers in int64:
    # the very same float64 as the matrix form, bit for bit, on integer and decimal (Fraction) scores, with
    # 2 to 4 raters per unit (L = lcm(m_u − 1) = 6), on the draw, the estimate and leave-one-out rows
    rng = np.random.default_rng(top)
    units = []
    for _ in range(60):
        base = int(rng.integers(0, top + 1))
        unit = {r: step * int(np.clip(base + rng.integers(-3, 4), 0, top)) for r in ("a", "b", "c", "d")
                if rng.random() < 0.7}
        if len(unit) >= 2:
            units.append(unit)
    weights = np.concatenate([drawn(rng, len(units), 300), np.ones((1, len(units))),
                              np.ones((5, len(units))) - np.eye(5, len(units))])
    np.testing.assert_array_equal(alpha_statistic(units, metric)(weights),
                                  alpha_replicates_by_matrix(units, metric, weights))


def _peak_bytes(units, weights):
    tracemalloc.start()
    try:
        alpha_statistic(units, "ordinal")(weights)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_alpha_memory_does_not_grow_with_the_range_of_values():
    # 300 runs graded twice, 2000 resamples: on 0..4 (5 values) and on 0..100000 (about 600 values). A values x
    # values coincidence matrix per replicate needs 2000 x 600² floats (5.8 GB) on the wide range; the per-rating
    # sums need at most a block of replicates x ratings, so the wide range may not cost more than twice the narrow
    rng = np.random.default_rng(11)
    base = rng.integers(0, 100_001, 300)
    wide = [{"a": int(b), "b": int(np.clip(b + rng.integers(-3000, 3001), 0, 100_000))} for b in base]
    narrow = [{"a": int(b) % 5, "b": int(np.clip(b % 5 + rng.integers(-1, 2), 0, 4))} for b in base]
    weights = drawn(rng, 300, 2000)
    assert len({v for u in wide for v in u.values()}) > 500
    assert _peak_bytes(wide, weights) < 2 * _peak_bytes(narrow, weights) + (1 << 20)

def test_ordinal_classification_uses_the_rubric_order():
    # Fail-vs-Pass disagreement is farther than Fail-vs-Conditional under the order Fail < Conditional < Pass;
    # alphabetically Conditional < Fail < Pass would put Fail in the middle.
    near = [{"a": "Fail", "b": "Conditional"}, {"a": "Pass", "b": "Pass"}, {"a": "Fail", "b": "Fail"},
            {"a": "Conditional", "b": "Conditional"}]
    far = [{"a": "Fail", "b": "Pass"}, {"a": "Pass", "b": "Pass"}, {"a": "Fail", "b": "Fail"},
           {"a": "Conditional", "b": "Conditional"}]
    near_alpha = krippendorff_alpha(ranked("classification", near), "ordinal")
    far_alpha = krippendorff_alpha(ranked("classification", far), "ordinal")
    assert near_alpha > far_alpha
    assert ranked("correctness", near) is near


def test_percent_kappa_and_deviation_replicates_are_the_statistic_of_the_redrawn_units():
    units = random_units(9)
    weights = drawn(np.random.default_rng(3), len(units), 40)
    agree = [sum(c * (c - 1) // 2 for c in Counter(u.values()).values()) for u in units]
    total = [len(u) * (len(u) - 1) // 2 for u in units]
    replicates = ratio_statistic(np.array(agree, float), np.array(total, float))(weights)
    assert replicates == pytest.approx([float(percent_agreement(expand(units, w))) for w in weights])
    pairs = [(u["r1"], u["r2"]) for u in units if "r1" in u and "r2" in u]
    weights = drawn(np.random.default_rng(4), len(pairs), 40)
    for w, got in zip(weights, kappa_statistic(pairs)(weights)):
        expected = cohen_weighted_kappa(expand(pairs, w))
        assert np.isnan(got) if expected is None else got == pytest.approx(float(expected))
    deviations = unit_deviations(units, "r1")
    assert mean_deviation(units, "r1") == (sum(deviations, F(0)) / len(deviations), len(deviations))


def test_the_intervals_are_the_bca_interval_over_the_unit_draw():
    units = random_units(9)
    c = F(95, 100)
    agree = np.array([sum(k * (k - 1) // 2 for k in Counter(u.values()).values())
                      for u in units], float)
    total = np.array([len(u) * (len(u) - 1) // 2 for u in units], float)
    expected = bca_interval(ratio_statistic(agree, total), len(units), drawn(np.random.default_rng(3), len(units), 400), c)
    assert percent_interval(units, drawn(np.random.default_rng(3), len(units), 400), c) == expected
    low, high = expected
    assert low < float(percent_agreement(units)) < high                         # the estimate inside, not a point
    deviations = unit_deviations(units, "r1")
    values = np.array([float(d) for d in deviations])
    assert deviation_interval(deviations, drawn(np.random.default_rng(5), len(values), 400), c) == bca_interval(
        mean_statistic(values), len(values), drawn(np.random.default_rng(5), len(values), 400), c)


def test_a_symmetric_unit_draw_gives_the_percentile_interval():
    # three units with deviations 0, 1, 2 (mean 1; jackknife 3/2, 1, 1/2: symmetric, a = 0); five redraws give
    # the replicates 0, 2, 1/3, 5/3, 1: two below the estimate, one equal -> share 1/2, z0 = 0, so at confidence
    # 1/2 the bounds are the type-7 quartiles of 0, 1/3, 1, 5/3, 2: h = 1 and 3 -> 1/3 and 5/3
    weights = np.array([[3, 0, 0], [0, 0, 3], [2, 1, 0], [0, 1, 2], [1, 1, 1]])
    assert bca_interval(mean_statistic(np.array([0.0, 1.0, 2.0])), 3, weights, F(1, 2)) == pytest.approx((1 / 3, 5 / 3))


def test_one_unit_gives_a_point_interval_and_no_unit_none():
    # one unit {a: 1, b: 2}: every redraw is that unit, so every replicate equals the value
    one = [{"a": 1, "b": 2}]
    assert percent_interval(one, drawn(np.random.default_rng(0), 1, 50), F(95, 100)) == (0, 0)
    value = krippendorff_alpha(one, "nominal")     # 0: one disagreeing pair
    assert alpha_interval(one, "nominal", drawn(np.random.default_rng(0), 1, 50), F(95, 100)) == (float(value), float(value))
    assert deviation_interval([F(3, 2)], drawn(np.random.default_rng(0), 1, 50), F(95, 100)) == (1.5, 1.5)
    # all equal: every replicate is the value
    assert deviation_interval([F(1, 2)] * 4, drawn(np.random.default_rng(0), 4, 50), F(95, 100)) == pytest.approx((0.5, 0.5))
    assert alpha_interval([], "ordinal", drawn(np.random.default_rng(0), 0, 50), F(95, 100)) is None
    assert percent_interval([{"a": 1}], drawn(np.random.default_rng(0), 0, 50), F(95, 100)) is None
    assert kappa_interval([], drawn(np.random.default_rng(0), 0, 50), F(95, 100)) is None


def test_replicates_without_variation_are_left_out():
    # two units, one with disagreement: redraws of the agreeing unit alone have D_e = 0 (alpha undefined)
    units = [{"a": 2, "b": 2}, {"a": 1, "b": 2}]
    weights = np.array([[2, 0], [1, 1], [0, 2]])
    got = alpha_statistic(units, "ordinal")(weights)
    assert np.isnan(got[0]) and np.isfinite(got[1]) and np.isfinite(got[2])
    # all replicates undefined: no interval
    assert alpha_interval([{"a": 1, "b": 1}], "nominal", drawn(np.random.default_rng(0), 1, 20), F(95, 100)) is None


def test_streams_follow_the_data():
    units = random_units(2)
    draw = unit_weights(len(units), "percent_agreement", "x", units, 300)
    assert (draw == unit_weights(len(units), "percent_agreement", "x", units, 300)).all()
    assert draw.shape == (300, len(units)) and (draw.sum(axis=1) == len(units)).all()
    assert (draw == case_weights(len(units), digest=units_digest("percent_agreement", "x", *units),
                                 label="agreement:percent_agreement:x", resamples=300)).all()
    changed = units[:-1] + [{"r1": 0, "r2": 4}]
    assert not (draw == unit_weights(len(changed), "percent_agreement", "x", changed, 300)).all()


def test_exact_value_and_replicates_are_one_function_hand_computed():
    # a ratio of per-unit sums: (1/3 + 2) / (1 + 2) = 7/9 exactly at unit weights; weights (2, 0): 2/3 / 2 = 1/3
    terms = ratio_terms([F(1, 3), 2], [1, 2])
    assert exact_value(terms, 2) == F(7, 9)
    assert replicates(terms)(np.array([[1.0, 1.0], [2.0, 0.0], [0.0, 0.0]])).tolist()[:2] == [7 / 9, 1 / 3]
    assert np.isnan(replicates(terms)(np.zeros((1, 2)))[0])              # no weight: undefined replicate
    assert exact_value(terms, 0) is None and exact_value(ratio_terms([1], [0]), 1) is None
    with pytest.raises(TypeError):                                         # a float in the sums is not exact
        exact_value(lambda w: (w @ np.array([0.5]), w @ np.array([1])), 1)


@pytest.mark.parametrize("seed", [3, 4])
def test_every_agreement_value_is_its_terms_at_unit_weights(seed):
    units = random_units(seed)
    pairs = pair_ratings(units, "r1", "r2")
    ones = np.ones((1, len(units)))
    for metric in ("nominal", "ordinal", "interval"):
        value = krippendorff_alpha(units, metric)
        assert value == exact_value(alpha_terms(units, metric), len(units))
        assert replicates(alpha_terms(units, metric))(ones)[0] == pytest.approx(float(value), abs=1e-12)
    assert replicates(percent_terms(units))(ones)[0] == pytest.approx(float(percent_agreement(units)), abs=1e-15)
    assert kappa_statistic(pairs)(np.ones((1, len(pairs))))[0] == pytest.approx(float(cohen_weighted_kappa(pairs)),
                                                                               abs=1e-12)

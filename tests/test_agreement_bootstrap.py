"""Bootstrap intervals over units for the agreement statistics (§25): every replicate is the statistic of the
redrawn units, exactly; degenerate cases; the `krippendorff` package as an oracle for alpha."""

from __future__ import annotations

from fractions import Fraction as F

import krippendorff
import numpy as np
import pytest

from rgbench.stats.agreement import (
    cohen_weighted_kappa,
    krippendorff_alpha,
    mean_deviation,
    percent_agreement,
    unit_deviations,
)
from rgbench.stats.agreement_bootstrap import (
    alpha_interval,
    alpha_replicates,
    deviation_interval,
    kappa_interval,
    percent_interval,
    stream,
    unit_weights,
)
from rgbench.stats.agreement_outputs import ranked


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
    weights = unit_weights(np.random.default_rng(seed), len(units), 25)
    assert (weights.sum(axis=1) == len(units)).all()
    num, den = alpha_replicates(units, metric, weights)
    for i in range(len(weights)):
        expected = krippendorff_alpha(expand(units, weights[i]), metric)
        assert (None if den[i] == 0 else F(int(num[i]), int(den[i]))) == expected


@pytest.mark.parametrize("metric", ["nominal", "ordinal"])
def test_alpha_with_unit_weights_matches_the_krippendorff_package(metric):
    units = random_units(5, n=40)
    num, den = alpha_replicates(units, metric, np.ones((1, len(units)), dtype=np.int64))
    data = np.array([[u.get(r, np.nan) for u in units] for r in ("r1", "r2", "r3")], dtype=float)
    assert int(num[0]) / int(den[0]) == pytest.approx(krippendorff.alpha(reliability_data=data,
                                                                         level_of_measurement=metric), abs=1e-12)


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
    # percent agreement: replay the same stream to get the weights the interval used
    low, high = percent_interval(units, np.random.default_rng(3), 400, F(95, 100))
    weights = unit_weights(np.random.default_rng(3), len(units), 400)
    values = sorted(percent_agreement(expand(units, w)) for w in weights)
    # type-7 quantiles of 400 replicates: h = 399 · 0.025 = 9.975 and 399 · 0.975 = 389.025
    assert low == values[9] + F(39, 40) * (values[10] - values[9])
    assert high == values[389] + F(1, 40) * (values[390] - values[389])
    pairs = [(u["r1"], u["r2"]) for u in units if "r1" in u and "r2" in u]
    low, high = kappa_interval(pairs, np.random.default_rng(4), 400, F(95, 100))
    weights = unit_weights(np.random.default_rng(4), len(pairs), 400)
    kappas = sorted(k for w in weights if (k := cohen_weighted_kappa(expand(pairs, w))) is not None)
    assert kappas[0] <= low <= high <= kappas[-1]
    deviations = unit_deviations(units, "r1")
    assert mean_deviation(units, "r1") == (sum(deviations, F(0)) / len(deviations), len(deviations))
    low, high = deviation_interval(deviations, np.random.default_rng(5), 400, F(95, 100))
    weights = unit_weights(np.random.default_rng(5), len(deviations), 400)
    means = sorted(sum(expand(deviations, w), F(0)) / len(deviations) for w in weights)
    assert low == means[9] + F(39, 40) * (means[10] - means[9])


def test_one_unit_gives_a_point_interval_and_no_unit_none():
    # one unit {a: 1, b: 2}: every redraw is that unit, so every replicate equals the value
    one = [{"a": 1, "b": 2}]
    assert percent_interval(one, np.random.default_rng(0), 50, F(95, 100)) == (0, 0)
    value = krippendorff_alpha(one, "nominal")
    assert alpha_interval(one, "nominal", np.random.default_rng(0), 50, F(95, 100)) == (value, value)
    assert deviation_interval([F(3, 2)], np.random.default_rng(0), 50, F(95, 100)) == (F(3, 2), F(3, 2))
    assert alpha_interval([], "ordinal", np.random.default_rng(0), 50, F(95, 100)) is None
    assert percent_interval([{"a": 1}], np.random.default_rng(0), 50, F(95, 100)) is None
    assert kappa_interval([], np.random.default_rng(0), 50, F(95, 100)) is None


def test_replicates_without_variation_are_left_out():
    # two units, one with disagreement: redraws of the agreeing unit alone have D_e = 0 (alpha undefined)
    units = [{"a": 2, "b": 2}, {"a": 1, "b": 2}]
    weights = np.array([[2, 0], [1, 1], [0, 2]])
    num, den = alpha_replicates(units, "ordinal", weights)
    assert den[0] == 0 and den[1] != 0 and den[2] != 0
    # all replicates undefined: no interval
    assert alpha_interval([{"a": 1, "b": 1}], "nominal", np.random.default_rng(0), 20, F(95, 100)) is None


def test_streams_follow_the_data():
    units = random_units(2)
    a = percent_interval(units, stream("percent_agreement", "x", *units), 300, F(95, 100))
    assert a == percent_interval(units, stream("percent_agreement", "x", *units), 300, F(95, 100))
    changed = units[:-1] + [{"r1": 0, "r2": 4}]
    assert stream("p", "x", *units).integers(0, 2**62) != stream("p", "x", *changed).integers(0, 2**62)

"""The case-level difficulty trend test (Kendall tau-b) and the easiest-hardest separation (§23a)."""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest
from test_metrics import row

from rgbench.compute.derive import FAIL, PASS
from rgbench.stats.bootstrap import bca_interval, case_counts
from rgbench.stats.difficulty_trend import (
    difficulty_trend,
    difficulty_trend_from_columns,
    separation_digest,
    separation_statistic,
    trend_warnings,
)
from rgbench.stats.run_columns import RunColumns
from rgbench.stats.seeds import generator


def trend(difficulty, rate, resamples=200, seed=1):
    return difficulty_trend(difficulty, [F(r) for r in rate], np.random.default_rng(seed), resamples, F(95, 100))


def test_perfect_decrease_without_ties_uses_the_exact_p():
    # 3 cases, difficulty 1 < 2 < 3 and pass rate 1 > 1/2 > 0: all 3 pairs discordant, tau-b = −1.
    # Exact null: 3! = 6 equally likely orders, one all-discordant and one all-concordant: p = 2/6.
    t = trend([1, 2, 3], [1, F(1, 2), 0])
    assert t.tau_b == -1 and t.p_value == pytest.approx(1 / 3, abs=1e-12)
    # separation: one case at each end: 1 − 0 = 1; each level's one case is always redrawn: a point interval
    assert (t.separation, t.separation_low, t.separation_high) == (1, 1, 1)
    assert (t.easiest, t.hardest, t.n_easiest, t.n_hardest) == (1, 3, 1, 1)


def test_ties_take_the_tie_corrected_normal_approximation():
    # difficulty (1, 1, 2, 2), rate (1, 1/2, 1/2, 0). Pairs: 2 tied in difficulty, 1 tied in rate,
    # 3 discordant, 0 concordant: S = −3, tau-b = −3 / sqrt((6 − 2)(6 − 1)) = −3/sqrt(20) = −0.670820.
    # var(S) = (n(n−1)(2n+5) − Σt(t−1)(2t+5) − Σu(u−1)(2u+5)) / 18 + Σt(t−1) Σu(u−1) / (2n(n−1))
    #        = (156 − 36 − 18) / 18 + 4 · 2 / 24 = 17/3 + 1/3 = 6;  z = −3/sqrt(6), p = 2 Φ(z) = 0.220671.
    t = trend([1, 1, 2, 2], [1, F(1, 2), F(1, 2), 0])
    assert t.tau_b == pytest.approx(-3 / math.sqrt(20), abs=1e-12)
    assert t.p_value == pytest.approx(math.erfc(3 / math.sqrt(6) / math.sqrt(2)), abs=1e-12)
    # separation: mean(1, 1/2) − mean(1/2, 0) = 3/4 − 1/4 = 1/2; replicates lie in [1/2 − 1/2, 1/2 + 1/2]
    assert t.separation == F(1, 2)
    assert 0 <= t.separation_low <= F(1, 2) <= t.separation_high <= 1


def test_separation_statistic_weights_each_level_apart():
    # easiest level: cases at 1 and 1/2; hardest: 1/2 and 0. Weights (easy | hard):
    # [1 1 | 1 1] -> 3/4 − 1/4 = 1/2; [2 0 | 0 2] -> 1 − 0 = 1; [0 2 | 2 0] -> 1/2 − 1/2 = 0;
    # [1 1 | 0 0] -> the hardest level has no weight: undefined (NaN)
    statistic = separation_statistic([F(1), F(1, 2)], [F(1, 2), F(0)])
    got = statistic(np.array([[1, 1, 1, 1], [2, 0, 0, 2], [0, 2, 2, 0], [1, 1, 0, 0]]))
    assert got[:3].tolist() == [0.5, 1.0, 0.0] and np.isnan(got[3])


def test_the_separation_interval_is_bca_over_a_draw_within_each_level():
    d, r = [1, 1, 1, 3, 5, 5, 5, 5], [1, F(2, 3), 1, F(1, 3), F(1, 2), 0, F(1, 3), 0]
    t = trend(d, r, resamples=300, seed=4)
    rng = np.random.default_rng(4)
    weights = np.hstack([case_counts(rng, 3, 300), case_counts(rng, 4, 300)])   # 3 easiest, then 4 hardest cases
    assert (weights[:, :3].sum(axis=1) == 3).all() and (weights[:, 3:].sum(axis=1) == 4).all()
    easy, hard = [F(1), F(2, 3), F(1)], [F(1, 2), 0, F(1, 3), 0]
    expected = bca_interval(separation_statistic(sorted(easy), sorted(hard)), 7, weights, F(95, 100))
    assert (t.separation_low, t.separation_high) == expected
    assert t.separation == F(8, 9) - F(5, 24)        # 8/9 − (1/2 + 1/3)/4 = 49/72 = 0.680556
    low, high = expected
    assert low < 49 / 72 < high and -1 <= low and high <= 1


def test_the_separation_stream_follows_the_data_it_resamples():
    d, r = [1, 2], [F(1), F(1, 2)]
    assert separation_digest(d, r) == separation_digest(list(d), list(r))
    assert separation_digest(d, r) != separation_digest(d, [F(1), F(1, 3)])
    runs = {"s": [row(PASS, case="RO-FOUL-001", run="r1"), row(FAIL, case="RO-SCAL-001", run="r1"),
                  row(PASS, case="RO-SCAL-001", run="r2")]}
    got = difficulty_trend_from_columns(RunColumns.of(runs), {"RO-FOUL-001": 1, "RO-SCAL-001": 2}, 50, F(95, 100))
    rng = generator("separation", [separation_digest([1, 2], [F(1), F(1, 2)])])
    assert got == difficulty_trend([1, 2], [F(1), F(1, 2)], rng, 50, F(95, 100))


def test_degenerate_inputs():
    one = trend([3], [1])                                  # one case: no test, one level: no separation
    assert (one.tau_b, one.p_value, one.separation, one.n_levels) == (None, None, None, 1)
    level = trend([2, 2, 2], [1, 0, F(1, 2)])              # one level
    assert level.tau_b is None and level.separation is None
    flat = trend([1, 2, 3], [1, 1, 1])                     # P = 1 everywhere: tau undefined, separation 0
    assert flat.tau_b is None and flat.separation == 0 and flat.separation_low == flat.separation_high == 0
    zero = trend([1, 5], [0, 0])                           # P = 0 everywhere
    assert zero.tau_b is None and zero.separation == 0


def test_same_stream_same_interval_and_case_order_does_not_matter_for_tau():
    d, r = [1, 1, 1, 3, 3, 5, 5, 5], [1, F(2, 3), 1, F(1, 3), F(1, 2), 0, F(1, 3), 0]
    a, b = trend(d, r, seed=4), trend(d, r, seed=4)
    assert a == b
    shuffled = trend(d[::-1], r[::-1], seed=4)
    assert shuffled.tau_b == pytest.approx(a.tau_b, abs=1e-12) and shuffled.separation == a.separation


def test_from_columns_pools_every_subjects_runs_per_case():
    # case A (difficulty 1): 2 Pass of 3 runs over two subjects -> 2/3; case B (difficulty 2): 0 of 2 -> 0.
    runs = {"s": [row(PASS, case="RO-FOUL-001", run="r1"), row(FAIL, case="RO-SCAL-001", run="r1")],
            "t": [row(PASS, subject="t", case="RO-FOUL-001", run="r1"),
                  row(FAIL, subject="t", case="RO-FOUL-001", run="r2"),
                  row(FAIL, subject="t", case="RO-SCAL-001", run="r1")]}
    got = difficulty_trend_from_columns(RunColumns.of(runs), {"RO-FOUL-001": 1, "RO-SCAL-001": 2}, 50, F(95, 100))
    assert got.n_cases == 2 and got.separation == F(2, 3) and got.tau_b == -1


def test_warnings():
    good = trend([1, 1, 2, 2, 3, 3, 4, 4, 5, 5], [1, 1, 1, F(9, 10), F(1, 2), F(2, 5), F(1, 5), 0, 0, 0])
    assert good.tau_b < 0 and good.p_value < 0.05 and good.separation == 1
    assert trend_warnings(good, F(5, 100)) == []
    bad = trend([1, 2, 3], [0, F(1, 2), F(1, 4)])
    messages = trend_warnings(bad, F(5, 100))
    assert messages[0].startswith("gold difficulty does not predict lower pass rates over the 3 cases")
    # separation: pass rate 0 at difficulty 1 minus 1/4 at difficulty 3 = -0.25, signed (never "exceeds by -0.250")
    assert messages[1] == ("pass rate at difficulty 1 minus at difficulty 3 is -0.250, less than the separation "
                           "target of 0.5; the hardest cases may not be hard enough")

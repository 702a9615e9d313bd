"""The case-level difficulty trend test (Kendall tau-b) and the easiest-hardest separation (§23a)."""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest
from test_metrics import row

from rgbench.compute.derive import FAIL, PASS
from rgbench.stats.difficulty_trend import (
    difficulty_trend,
    difficulty_trend_from_columns,
    separation_interval,
    trend_warnings,
)
from rgbench.stats.run_columns import RunColumns


def trend(difficulty, rate):
    return difficulty_trend(difficulty, [F(r) for r in rate], F(95, 100))


def test_perfect_decrease_without_ties_uses_the_exact_p():
    # 3 cases, difficulty 1 < 2 < 3 and pass rate 1 > 1/2 > 0: all 3 pairs discordant, tau-b = −1.
    # Exact null: 3! = 6 equally likely orders, one all-discordant and one all-concordant: p = 2/6.
    t = trend([1, 2, 3], [1, F(1, 2), 0])
    assert t.tau_b == -1 and t.p_value == pytest.approx(1 / 3, abs=1e-12)
    # separation: one case at each end: 1 − 0 = 1; one case has no variance: no interval (never a point)
    assert (t.separation, t.separation_low, t.separation_high) == (1, None, None)
    assert (t.easiest, t.hardest, t.n_easiest, t.n_hardest) == (1, 3, 1, 1)


def test_ties_take_the_tie_corrected_normal_approximation():
    # difficulty (1, 1, 2, 2), rate (1, 1/2, 1/2, 0). Pairs: 2 tied in difficulty, 1 tied in rate,
    # 3 discordant, 0 concordant: S = −3, tau-b = −3 / sqrt((6 − 2)(6 − 1)) = −3/sqrt(20) = −0.670820.
    # var(S) = (n(n−1)(2n+5) − Σt(t−1)(2t+5) − Σu(u−1)(2u+5)) / 18 + Σt(t−1) Σu(u−1) / (2n(n−1))
    #        = (156 − 36 − 18) / 18 + 4 · 2 / 24 = 17/3 + 1/3 = 6;  z = −3/sqrt(6), p = 2 Φ(z) = 0.220671.
    t = trend([1, 1, 2, 2], [1, F(1, 2), F(1, 2), 0])
    assert t.tau_b == pytest.approx(-3 / math.sqrt(20), abs=1e-12)
    assert t.p_value == pytest.approx(math.erfc(3 / math.sqrt(6) / math.sqrt(2)), abs=1e-12)
    # separation: mean(1, 1/2) − mean(1/2, 0) = 3/4 − 1/4 = 1/2; s² = 1/8 at each level, v = 1/16 each,
    # se = sqrt(1/8) = 0.353553, ν = (1/8)² / (2 · (1/16)² / 1) = 2, t_{2, 0.975} = 4.302653: half-width 1.521220,
    # [1/2 − 1.52, 1/2 + 1.52] clipped to [-1, 1]
    assert t.separation == F(1, 2)
    assert (t.separation_low, t.separation_high) == (-1.0, 1.0)


def test_the_separation_interval_is_welch_t_over_the_cases():
    # easiest (1, 0.9, 0.8), hardest (0.2, 0.1, 0): d = 0.9 − 0.1 = 0.8; s² = (0.01 + 0 + 0.01)/2 = 0.01 at each
    # level, v = 0.01/3 each, se = sqrt(0.02/3) = 0.0816497; ν = (0.02/3)² / (2 · (0.01/3)² / 2) = 4;
    # t_{4, 0.975} = 2.7764451: half-width 0.2266958 -> [0.5733042, 1.0266958], the high end clipped to 1
    easy, hard = [F(1), F(9, 10), F(8, 10)], [F(2, 10), F(1, 10), F(0)]
    low, high = separation_interval(easy, hard, F(95, 100))
    assert low == pytest.approx(0.8 - 2.7764451052 * math.sqrt(0.02 / 3), abs=1e-9) and high == 1.0
    assert low == pytest.approx(0.5733042, abs=1e-7)
    # unequal spreads: easiest (1, 1) has no spread, hardest (0, 1/2, 1/4):
    # d = 1 − 1/4 = 3/4; v_e = 0, s_h² = (1/16 + 1/16 + 0)/2 = 1/16, v_h = 1/48; ν = n_h − 1 = 2 (Welch keeps
    # only the level that varies); t_{2, 0.975} = 4.3026527: half-width 4.3026527 · sqrt(1/48) = 0.6210344
    low, high = separation_interval([F(1), F(1)], [F(0), F(1, 2), F(1, 4)], F(95, 100))
    assert (low, high) == (pytest.approx(0.75 - 0.6210344, abs=1e-7), 1.0)
    # a lower confidence gives a narrower interval: t_{4, 0.95} = 2.1318468
    low90, _ = separation_interval(easy, hard, F(90, 100))
    assert low90 == pytest.approx(0.8 - 2.1318468 * math.sqrt(0.02 / 3), abs=1e-7)


def test_no_interval_below_two_cases_or_without_spread():
    # 2 + 2 cases, all equal within each level: the spread is 0 on two cases, not a known 0: no interval
    assert separation_interval([F(1), F(1)], [F(0), F(0)], F(95, 100)) is None
    t = trend([1, 1, 5, 5], [1, 1, 0, 0])
    assert t.separation == 1 and (t.separation_low, t.separation_high) == (None, None)
    # one case at an end level: no variance to estimate there
    assert separation_interval([F(1)], [F(0), F(1, 2)], F(95, 100)) is None
    assert separation_interval([F(1), F(1, 2)], [F(0)], F(95, 100)) is None
    # the smallest design with an interval: 2 + 2 cases that vary (ν = 1 at worst: t_{1, 0.975} = 12.706)
    low, high = separation_interval([F(1), F(9, 10)], [F(0), F(0)], F(95, 100))
    # d = 0.95, v_e = 0.005/2 = 0.0025, se = 0.05, ν = 1: 0.95 ∓ 12.7062047 · 0.05 = [0.314690, 1.585310] -> 1
    assert low == pytest.approx(0.95 - 12.7062047 * 0.05, abs=1e-6) and high == 1.0


def test_from_columns_reads_the_case_pass_rates():
    runs = {"s": [row(PASS, case="RO-FOUL-001", run="r1"), row(FAIL, case="RO-SCAL-001", run="r1"),
                  row(PASS, case="RO-SCAL-001", run="r2")]}
    got = difficulty_trend_from_columns(RunColumns.of(runs), {"RO-FOUL-001": 1, "RO-SCAL-001": 2}, F(95, 100))
    assert got == difficulty_trend([1, 2], [F(1), F(1, 2)], F(95, 100))


def test_degenerate_inputs():
    one = trend([3], [1])                                  # one case: no test, one level: no separation
    assert (one.tau_b, one.p_value, one.separation, one.n_levels) == (None, None, None, 1)
    level = trend([2, 2, 2], [1, 0, F(1, 2)])              # one level
    assert level.tau_b is None and level.separation is None
    flat = trend([1, 2, 3], [1, 1, 1])                     # P = 1 everywhere: tau undefined, separation 0
    assert flat.tau_b is None and flat.separation == 0 and flat.separation_low is None is flat.separation_high
    equal = trend([1, 1, 3, 3], [F(1, 2)] * 4)              # all equal, 2 + 2 cases: separation 0, no interval
    assert equal.separation == 0 and equal.separation_low is None and equal.tau_b is None
    zero = trend([1, 5], [0, 0])                           # P = 0 everywhere
    assert zero.tau_b is None and zero.separation == 0


def test_case_order_does_not_matter():
    d, r = [1, 1, 1, 3, 3, 5, 5, 5], [1, F(2, 3), 1, F(1, 3), F(1, 2), 0, F(1, 3), 0]
    a = trend(d, r)
    shuffled = trend(d[::-1], r[::-1])
    assert shuffled.tau_b == pytest.approx(a.tau_b, abs=1e-12) and shuffled.separation == a.separation
    assert (shuffled.separation_low, shuffled.separation_high) == (a.separation_low, a.separation_high)


def test_from_columns_pools_every_subjects_runs_per_case():
    # case A (difficulty 1): 2 Pass of 3 runs over two subjects -> 2/3; case B (difficulty 2): 0 of 2 -> 0.
    runs = {"s": [row(PASS, case="RO-FOUL-001", run="r1"), row(FAIL, case="RO-SCAL-001", run="r1")],
            "t": [row(PASS, subject="t", case="RO-FOUL-001", run="r1"),
                  row(FAIL, subject="t", case="RO-FOUL-001", run="r2"),
                  row(FAIL, subject="t", case="RO-SCAL-001", run="r1")]}
    got = difficulty_trend_from_columns(RunColumns.of(runs), {"RO-FOUL-001": 1, "RO-SCAL-001": 2}, F(95, 100))
    assert got.n_cases == 2 and got.separation == F(2, 3) and got.tau_b == -1


def test_warnings():
    good = trend([1, 1, 2, 2, 3, 3, 4, 4, 5, 5], [1, 1, 1, F(9, 10), F(1, 2), F(2, 5), F(1, 5), 0, 0, 0])
    assert good.tau_b < 0 and good.p_value < 0.05 and good.separation == 1
    assert trend_warnings(good, F(5, 100)) == []
    bad = trend([1, 2, 3], [0, F(1, 2), F(1, 4)])
    messages = trend_warnings(bad, F(5, 100))
    assert messages[0].startswith("gold difficulty does not predict lower pass rates over the 3 cases")
    # separation: pass rate 0 at difficulty 1 minus 1/4 at difficulty 3 = -0.25, signed (never "exceeds by -0.250");
    # one case per end level: no interval, so the advice is to add cases there
    assert messages[1] == ("pass rate at difficulty 1 minus at difficulty 3 is -0.250 (no interval), less than the "
                           "separation target of 0.5; 1 + 1 cases cannot tell whether the target is missed: add cases "
                           "at difficulty 1 and 3")
    # below the target over the whole interval: harden or relabel the hardest level
    low_only = trend([1, 1, 1, 3, 3, 3], [F(2, 5), F(7, 20), F(3, 10), F(1, 10), F(1, 10), F(1, 10)])
    # easiest (0.4, 0.35, 0.3), hardest (0.1, 0.1, 0.1): d = 0.25, s_e² = 0.0025, the hardest has no spread: ν = 2,
    # se = sqrt(0.0025/3) = 0.0288675, high = 0.25 + 4.3026527 · 0.0288675 = 0.374 < 0.5
    assert low_only.separation_high == pytest.approx(0.25 + 4.3026527 * math.sqrt(0.0025 / 3), abs=1e-6)
    assert trend_warnings(low_only, F(5, 100))[-1].endswith(
        "less than the separation target of 0.5; the hardest cases are not hard enough: make the difficulty-3 "
        "cases harder or relabel them")

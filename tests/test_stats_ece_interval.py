"""The ECE interval (aggregate_metrics.md §18, `ece_interval`, `ece_range`): the studentised Euclidean confidence ball
of the signed bin gaps projected onto ECE, with hand-computed values on explicit case draws, and its degenerate cases. Its low end
above 0 is the calibration rule of §19a."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest
from test_metrics import row

from rgbench.compute.metrics import expected_calibration_error
from rgbench.load.scale import default_scale
from rgbench.stats.bootstrap import case_counts
from rgbench.stats.case_summary import CaseSummary, case_summaries
from rgbench.stats.intervals import ece_interval, ece_range, subject_intervals
from rgbench.stats.run_columns import RunColumns
from rgbench.stats.seeds import generator

SCALE = default_scale(12)   # the seed's 0-12 scale, higher is better

C95 = F(95, 100)


def summary(gaps: list[list[int]], runs: list[int] | None = None, scale: int = 1) -> CaseSummary:
    """A summary with only what ece_interval reads: per-case runs and gaps (in units of 1 / (100 · scale))."""
    k = len(gaps)
    n = np.array(runs if runs is not None else [1] * k, dtype=np.int64)
    zeros = np.zeros(k, dtype=np.int64)
    return CaseSummary(tuple(f"c{i}" for i in range(k)), n, zeros, zeros, zeros, zeros,
                       np.array(gaps, dtype=np.int64).reshape(k, -1 if k else 10), 24, scale)


def test_three_cases_one_bin_by_hand():
    # Gaps 10, 20, 60 (hundredths) in one bin, one run each: θ̂ = 0.9/3 = 0.3 = ECE; residuals −0.2, −0.1, 0.3,
    # S = sqrt(0.04 + 0.01 + 0.09) / 3 = sqrt(0.14)/3 = 0.1247219.
    # Draws and roots R* = |θ* − θ̂| / S*, S*² = Σ w (g − θ*)² / 3²:
    #   (1,1,1): θ* = θ̂, R* = 0
    #   (2,1,0): θ* = 0.4/3 = 0.133333, D = 0.166667; S*² = (2 · 0.033333² + 0.066667²)/9, S* = 0.0272166: R* = 6.1237244
    #   (0,1,2): θ* = 1.4/3 = 0.466667, D = 0.166667; S*² = (0.266667² + 2 · 0.133333²)/9, S* = 0.1088662: R* = 1.5309311
    #   (1,0,2): θ* = 1.3/3 = 0.433333, D = 0.133333; S*² = (0.333333² + 2 · 0.166667²)/9, S* = 0.1360828: R* = 0.9797959
    #   (1,1,1) again: 0.  Sorted (0, 0, 0.9797959, 1.5309311, 6.1237244).
    s = summary([[10], [20], [60]])
    counts = np.array([[1, 1, 1], [2, 1, 0], [0, 1, 2], [1, 0, 2], [1, 1, 1]])
    # confidence 1/2: the quantile at position 2 is 0.9797959; q = 0.9797959 · 0.1247219 = 0.1222020:
    # [0.3 − 0.1222020, 0.3 + 0.1222020] = [0.1777980, 0.4222020], above 0 (miscalibrated at level 1/2)
    low, high = ece_interval(s, counts, F(1, 2))
    assert (low, high) == (pytest.approx(0.1777980, abs=1e-7), pytest.approx(0.4222020, abs=1e-7))
    # confidence 0.95: position 3.8, 1.5309311 + 0.8 · (6.1237244 − 1.5309311) = 5.2051658; q = 0.6491983:
    # [max(0, 0.3 − 0.6491983), 0.3 + 0.6491983] = [0, 0.9491983]
    low, high = ece_interval(s, counts, C95)
    assert low == 0.0 and high == pytest.approx(0.9491983, abs=1e-7)


def test_the_ball_projected_onto_ece_by_hand():
    # θ̂ = (0.3, −0.1), d = 2: ECE = 0.4, ‖θ̂‖ = sqrt(0.09 + 0.01) = 0.316228.
    # radius 0.2 < ‖θ̂‖: |θ̂| ascending (0.1, 0.3); j = 0: τ = sqrt(0.04 / 2) = 0.141421 > 0.1, so Σ below = 0.01;
    # j = 1: τ = sqrt((0.04 − 0.01) / 1) = 0.173205 ≤ 0.3. Soft-thresholded: (0.3 − 0.173205, 0) = (0.126795, 0),
    # at distance sqrt(0.173205² + 0.1²) = sqrt(0.03 + 0.01) = 0.2 from θ̂: low 0.126795; high 0.4 + 0.2·√2 = 0.682843
    assert ece_range(np.array([0.3, -0.1]), 0.2) == (pytest.approx(0.126795, abs=1e-6), pytest.approx(0.682843, abs=1e-6))
    # radius 0.4 ≥ ‖θ̂‖: the ball holds 0, low exactly 0; high 0.4 + 0.4·√2 = 0.965685
    assert ece_range(np.array([0.3, -0.1]), 0.4) == (0.0, pytest.approx(0.965685, abs=1e-6))
    # radius 0: the point; a wide ball is capped at 1
    assert ece_range(np.array([0.3, -0.1]), 0.0) == (pytest.approx(0.4), pytest.approx(0.4))
    assert ece_range(np.array([0.3, -0.1]), 0.5)[1] == 1.0
    # one bin: the ball is an interval, [ECE − r, ECE + r]
    assert ece_range(np.array([-0.25]), 0.1) == (pytest.approx(0.15), pytest.approx(0.35))


def test_low_above_zero_is_the_length_test():
    # Two bins, ten cases: gaps +10 in bin 0 on cases 0-4 and −10 in bin 1 on cases 5-9 -> θ̂ = (0.05, −0.05),
    # ECE 0.1, ‖θ̂‖ = 0.070711. Low > 0 exactly when the radius r · S is below that length.
    s = summary([[10, 0]] * 5 + [[0, -10]] * 5)
    counts = case_counts(np.random.default_rng(7), 10, 400)
    low, high = ece_interval(s, counts, C95)
    radius = (high - 0.1) / np.sqrt(2)
    assert (low > 0) == (radius < 0.0707107)
    assert ece_range(np.array([0.05, -0.05]), radius) == pytest.approx((low, high), abs=1e-12)


def test_a_replicate_without_spread_says_nothing():
    # Two cases, gaps +30 in bin 0 and −20 in bin 1: θ̂ = (0.15, −0.10), ECE = 0.25. The draws (2,0) and (0,2)
    # repeat one case: no residual (S* = 0) but θ* ≠ θ̂, so R* is the largest float; (1,1) gives 0. The 0.95
    # quantile (position 1.9) is the largest float: q is beyond any ECE and the interval is [0, 1]. Two cases
    # cannot measure the spread of a gap; the interval says so instead of pretending to a width.
    assert ece_interval(summary([[30, 0], [0, -20]]), np.array([[2, 0], [1, 1], [0, 2]]), C95) == (0.0, 1.0)


def test_ece_zero_with_noise_has_low_exactly_zero():
    # Gaps +20 and −20 in one bin: θ̂ = 0, ECE = 0, S = sqrt(0.04 + 0.04)/2 = 0.141421 > 0; whatever q, low is 0.
    counts = case_counts(np.random.default_rng(3), 2, 200)
    low, high = ece_interval(summary([[20], [-20]]), counts, C95)
    assert low == 0.0 and high > 0


def test_perfect_data_and_identical_cases_are_points():
    # Every gap 0: ECE = 0 and every replicate equals it: [0, 0]. Identical cases (gap 30 each): θ* = 0.3 always, [0.3, 0.3].
    counts = case_counts(np.random.default_rng(1), 3, 200)
    assert ece_interval(summary([[0, 0]] * 3), counts, C95) == (0.0, 0.0)
    assert ece_interval(summary([[30]] * 3), counts, C95) == pytest.approx((0.3, 0.3), abs=1e-12)


def test_one_case_is_the_point_and_no_case_is_none():
    # One case: every draw is that case, nothing measures case-level variation: the point ECE (read: unknown).
    # Gaps (+10, −30) over 2 runs, scale 2 (unit 200): ECE = (10 + 30) / 200 / 2 = 0.1.
    assert ece_interval(summary([[10, -30]], runs=[2], scale=2), np.array([[1], [1]]), C95) == (0.1, 0.1)
    assert ece_interval(summary([]), np.zeros((4, 0), dtype=np.int64), C95) is None


def test_upper_bound_is_capped_at_one():
    # Case 0: c = 100 %, correctness 0 (gap +100, bin 1); case 1: c = 0 %, correctness 1 (gap −100, bin 0).
    # θ̂ = (−0.5, 0.5), ECE = 1, the largest possible; the draws (2,0), (0,2) have no spread: q is the largest float
    # times S, and the interval is capped: [max(0, 1 − q), min(1, 1 + q)] = [0, 1].
    assert ece_interval(summary([[0, 100], [-100, 0]]), np.array([[2, 0], [1, 1], [0, 2]]), C95) == (0.0, 1.0)


def test_duplicating_every_run_changes_nothing():
    # r1..r3 copied as r4..r6 doubles every case's gaps and runs: every ratio θ*_b, hence the interval, is unchanged.
    rng = np.random.default_rng(4)
    gaps = rng.integers(-150, 150, size=(12, 10))
    runs = rng.integers(1, 4, size=12)
    counts = case_counts(np.random.default_rng(2), 12, 300)
    once = ece_interval(summary(gaps.tolist(), runs.tolist(), scale=2), counts, C95)
    twice = ece_interval(summary((2 * gaps).tolist(), (2 * runs).tolist(), scale=2), counts, C95)
    assert once == pytest.approx(twice, abs=1e-12)


def test_subject_intervals_use_it_and_the_estimate_is_the_seeds_ece():
    # On real runs (soft correctness, several bins): the interval is ece_interval on the subject's draw, and it
    # brackets the seed's ECE of §7, which is unchanged.
    runs = [row(confidence=(7 * i + 13 * r) % 101, correctness=F((i + r) % 3, 2), case=f"RO-FOUL-{i:03d}",
                run=f"r{r}") for i in range(1, 21) for r in (1, 2)]
    s = case_summaries(RunColumns.of({"s": runs}), alpha=F(1, 2), scale=SCALE, bins=10)["s"]
    got = subject_intervals(s, generator("subject", ["d"]), 500, C95).ece
    counts = case_counts(generator("subject", ["d"]), s.k, 500)
    assert got == ece_interval(s, counts, C95)
    ece = float(expected_calibration_error(runs, 10))
    assert got is not None and got[0] <= ece <= got[1] and got[0] < got[1]

"""The ECE interval (aggregate_metrics.md §18, `ece_interval`): the L1 confidence set of the signed bin gaps
projected onto ECE, with hand-computed values on explicit case draws, and its degenerate cases."""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest
from test_metrics import row

from rgbench.compute.metrics import expected_calibration_error
from rgbench.compute.scale import default_scale
from rgbench.stats.bootstrap import case_counts
from rgbench.stats.case_summary import CaseSummary, case_summaries
from rgbench.stats.intervals import ece_interval, subject_intervals
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


def test_two_cases_two_bins_opposite_signs():
    # Case 0: one run c = 30 %, correctness 0 -> gap +30 in bin 0; case 1: c = 80 %, correctness 1 -> gap −20 in bin 1.
    # θ̂ = (30, −20) / 100 / 2 = (0.15, −0.10); ECE = 0.25.
    # Draws (2,0): θ* = (0.30, 0), D = 0.15 + 0.10 = 0.25; (1,1): θ* = θ̂, D = 0; (0,2): θ* = (0, −0.2), D = 0.25.
    # D sorted (0, 0.25, 0.25); the 0.95 quantile at position 0.95 · 2 = 1.9 is 0.25; q = 0.25 · sqrt(2/1) = 0.353553.
    # Interval [max(0, 0.25 − 0.353553), 0.25 + 0.353553] = [0, 0.603553].
    s = summary([[30, 0], [0, -20]])
    low, high = ece_interval(s, np.array([[2, 0], [1, 1], [0, 2]]), C95)
    assert low == 0.0
    assert high == pytest.approx(0.25 + 0.25 * math.sqrt(2), abs=1e-12)


def test_four_cases_one_bin_lower_bound_above_zero():
    # Gaps 30, 30, 30, 20 in one bin (one run each): θ̂ = 110/400 = 0.275 = ECE.
    # Draws: (1,1,1,1) θ* = 0.275, D = 0; (0,0,0,4) θ* = 0.2, D = 0.075; (4,0,0,0) θ* = 0.3, D = 0.025;
    # (2,1,1,0) θ* = 120/400 = 0.3, D = 0.025; (0,1,1,2) θ* = 100/400 = 0.25, D = 0.025.
    # D sorted (0, 0.025, 0.025, 0.025, 0.075); 0.95 quantile at position 3.8: 0.025 + 0.8 · 0.05 = 0.065;
    # q = 0.065 · sqrt(4/3) = 0.0750555; interval [0.275 − 0.0750555, 0.275 + 0.0750555] = [0.1999445, 0.3500555].
    s = summary([[30], [30], [30], [20]])
    counts = np.array([[1, 1, 1, 1], [0, 0, 0, 4], [4, 0, 0, 0], [2, 1, 1, 0], [0, 1, 1, 2]])
    low, high = ece_interval(s, counts, C95)
    q = 0.065 * math.sqrt(4 / 3)
    assert (low, high) == (pytest.approx(0.275 - q, abs=1e-12), pytest.approx(0.275 + q, abs=1e-12))


def test_ece_zero_with_noise_has_low_exactly_zero():
    # Gaps +20 and −20 in one bin: θ̂ = 0, ECE = 0. Draws (2,0): θ* = 0.2, (1,1): 0, (0,2): −0.2 -> D (0, 0.2, 0.2);
    # quantile at 1.9: 0.2; q = 0.2 · sqrt(2) = 0.282843: [0, 0.282843] (consistent with no bin-level miscalibration).
    low, high = ece_interval(summary([[20], [-20]]), np.array([[2, 0], [1, 1], [0, 2]]), C95)
    assert low == 0.0 and high == pytest.approx(0.2 * math.sqrt(2), abs=1e-12)


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
    # θ̂ = (−0.5, 0.5), ECE = 1, the largest possible. Draws (2,0): θ* = (0, 1), D = 0.5 + 0.5 = 1; (1,1): D = 0;
    # (0,2): θ* = (−1, 0), D = 1. Quantile at 1.9: 1; q = sqrt(2) = 1.414: [max(0, 1 − 1.414), min(1, 2.414)] = [0, 1].
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

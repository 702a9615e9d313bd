"""The bias-corrected Brier decomposition (Ferro and Fricker 2012, aggregate_metrics.md §19b)."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
from test_metrics import row

from rgbench.compute.metrics import brier_score
from rgbench.stats.brier_decomposition import bias_corrected, brier_decompositions, corrected_decompositions
from rgbench.stats.run_columns import RunColumns

# --- Ferro & Fricker's bias-corrected decomposition -----------------------------------------------------

def corrected(rows, bins=10):
    return corrected_decompositions(RunColumns.of({"s": list(rows)}), bins)["s"]


def test_corrected_two_runs_one_bin():
    # c = 50 % twice, correctness 1 and 0: o_k = 1/2, REL = 0, RES = 0 (one bin), UNC = 1/4.
    # S_k = 2 · (1/2)² = 1/2; W = (1/N) S_k / (n_k − 1) = (1/2)(1/2) = 1/4.
    # REL' = −1/4; RES' = 0 − 1/4 + UNC / (N − 1) = 0; UNC' = (1/4) · 2 / 1 = 1/2.
    got = corrected([row(confidence=50, correctness=1, run="r1"), row(confidence=50, correctness=0, run="r2")])
    assert (got.reliability, got.resolution, got.uncertainty) == (F(-1, 4), F(0), F(1, 2))


def test_corrected_soft_outcomes_and_a_singleton_bin():
    # Bin 9: c = 80 % with correctness 1, 1/2, 1 (n = 3, o_k = 5/6); bin 3: c = 20 % with correctness 0 (n = 1).
    # S_9 = 2 (1/6)² + (1/3)² = 1/6; W = (1/4) · (1/6) / 2 = 1/48 (the singleton bin is not corrected).
    # REL = (1/4)[3 (0.8 − 5/6)² + (0.2 − 0)²] = (1/4)(3/900 + 36/900) = 13/1200; REL' = 13/1200 − 25/1200 = −1/100.
    # o = 5/8: UNC = (1/4)[2 (3/8)² + (1/8)² + (5/8)²] = 11/64; UNC' = (11/64)(4/3) = 11/48.
    # RES = (1/4)[3 (5/6 − 5/8)² + (5/8)²] = 25/192; RES' = 25/192 − 4/192 + (11/64)/3 = 32/192 = 1/6.
    rows = [row(confidence=80, correctness=1, run="r1"), row(confidence=80, correctness=F(1, 2), run="r2"),
            row(confidence=80, correctness=1, run="r3"), row(confidence=20, correctness=0, run="r4")]
    got = corrected(rows)
    assert (got.reliability, got.resolution, got.uncertainty) == (F(-1, 100), F(1, 6), F(11, 48))
    plain = brier_decompositions(RunColumns.of({"s": rows}), 10)["s"]
    assert (plain.reliability, plain.resolution, plain.uncertainty) == (F(13, 1200), F(25, 192), F(11, 64))
    # the corrections cancel in the sum: BS = REL' − RES' + UNC' + within_bin, exactly
    assert got.reliability - got.resolution + got.uncertainty + plain.within_bin == brier_score(rows)


def test_corrected_needs_two_runs():
    assert corrected([row(confidence=50, correctness=1)]) is None
    assert bias_corrected([], 2) is None


def test_corrected_is_unbiased_for_reliability_under_calibration():
    # Perfectly calibrated 0/1 outcomes at c = 30 % and 70 % (n = 6 each): true reliability 0; the plug-in
    # is biased upward (E = Σ_k p_k (1 − p_k) / N = 2 · 0.21 / 12 = 0.035), the corrected one is not.
    rng = np.random.default_rng(3)
    plain_sum = corrected_sum = F(0)
    trials = 1500
    for _ in range(trials):
        o = rng.random(12) < np.array([0.3] * 6 + [0.7] * 6)
        rows = [row(confidence=30 if i < 6 else 70, correctness=int(o[i]), run=f"r{i}") for i in range(12)]
        sums = RunColumns.of({"s": rows})
        plain_sum += brier_decompositions(sums, 10)["s"].reliability
        corrected_sum += corrected_decompositions(sums, 10)["s"].reliability
    assert abs(float(plain_sum / trials) - 0.035) < 0.005
    assert abs(float(corrected_sum / trials)) < 0.005

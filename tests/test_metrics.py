"""Every formula of aggregate_metrics.md on hand-computed values (arithmetic in the comments)."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from rgbench.compute.derive import CONDITIONAL, FAIL, PASS, RunRow, classify
from rgbench.compute.exact_sums import exact_bincount
from rgbench.compute.metrics import (
    bin_sums,
    brier_score,
    calibration_bins,
    confidence_bin,
    critical_gate,
    expected_calibration_error,
    family_metrics,
    mean_clipped_score,
    pass_rate,
    q_final,
    q_numerator,
    subject_metrics,
)
from rgbench.load.scale import default_scale
from rgbench.numfmt import fmt_fixed, fmt_signed

SCALE = default_scale(12)   # the seed's 0-12 scale, higher is better


def row(classification=PASS, clipped=10, confidence=50, correctness=F(1), critical=False,
        family="FOUL", subject="s", case="RO-FOUL-001", run="r1"):
    return RunRow(
        subject_id=subject, subject_version="1", case_id=case, run_id=run, reviewer_id="rev",
        family=family, raw_score=clipped, rubric_floor=0, rubric_ceiling=12, clipped_score=clipped,
        has_critical_fail=critical, has_recoverable_fail=False, classification=classification,
        reported_confidence=confidence, confidence_unit=F(confidence, 100), correctness=F(correctness),
    )


# --- classification: the order of the rules, table-driven -------------------
# (critical, recoverable, clipped, floor) -> expected; thresholds 10 / 7.
CLASSIFICATION_TABLE = [
    ((True, False, 12, 0), FAIL),          # rule 1: critical beats a perfect score
    ((True, True, 12, 0), FAIL),           # rule 1 before rule 2
    ((False, True, 12, 0), CONDITIONAL),   # rule 2: recoverable caps a perfect score
    ((False, True, 2, 6), CONDITIONAL),    # rule 2 before the floor rule
    ((False, False, 9, 10), FAIL),         # rule 3: below the floor, even though >= 7
    ((False, False, 10, 11), FAIL),        # rule 3 before rule 4: 10 would pass without the floor
    ((False, False, 11, 11), PASS),        # floor is inclusive: clipped == floor is not below it
    ((False, False, 10, 0), PASS),         # rule 4 edge: exactly 10
    ((False, False, 9, 0), CONDITIONAL),   # just under the pass threshold
    ((False, False, 7, 0), CONDITIONAL),   # rule 5 edge: exactly 7
    ((False, False, 6, 0), FAIL),          # rule 6
    ((False, False, 0, 0), FAIL),
]


@pytest.mark.parametrize(("args", "expected"), CLASSIFICATION_TABLE)
def test_classification_order(args, expected):
    critical, recoverable, clipped, floor = args
    assert classify(has_critical=critical, has_recoverable=recoverable, clipped=clipped, floor=floor,
                    pass_threshold=10, conditional_threshold=7) == expected


# --- P and s_bar ---------------------------------------------------------------

def test_pass_rate_counts_only_pass_and_keeps_critical_runs_in_the_denominator():
    rows = [row(PASS), row(CONDITIONAL), row(FAIL, critical=True), row(PASS)]
    # 2 Pass out of N = 4 (the critical Fail stays in the denominator) -> 1/2
    assert pass_rate(rows) == F(1, 2)


def test_mean_clipped_score():
    rows = [row(clipped=12), row(clipped=10), row(clipped=5)]
    # (12 + 10 + 5) / 3 = 27 / 3 = 9
    assert mean_clipped_score(rows) == 9


# --- Brier ---------------------------------------------------------------------

def test_brier_soft_correctness_enters_directly():
    rows = [row(confidence=90, correctness=1), row(confidence=60, correctness=F(1, 2)), row(confidence=20, correctness=1)]
    # (0.9-1)^2 + (0.6-0.5)^2 + (0.2-1)^2 = 0.01 + 0.01 + 0.64 = 0.66; / 3 = 0.22
    assert brier_score(rows) == F(22, 100)


def test_brier_extremes():
    assert brier_score([row(confidence=100, correctness=0)]) == 1   # (1 - 0)^2
    assert brier_score([row(confidence=0, correctness=0)]) == 0


# --- ECE and its bins -------------------------------------------------------------

@pytest.mark.parametrize(("confidence", "expected"), [
    (0, 0), (9, 0), (10, 1), (29, 2), (30, 3), (39, 3), (60, 6), (70, 7), (89, 8), (90, 9), (99, 9), (100, 9),
])
def test_confidence_bin_edges_are_integer_exact(confidence, expected):
    # 0.3, 0.6 and 0.7 are the classic float traps (0.3 / 0.1 = 2.9999999999999996);
    # integer binning puts them in their own decile, and 100 closes the last bin.
    assert confidence_bin(confidence, 10) == expected


def test_confidence_bin_with_other_bin_counts():
    assert confidence_bin(49, 5) == 2   # 49 * 5 // 100 = 245 // 100 = 2 -> [0.4, 0.6)
    assert confidence_bin(100, 5) == 4
    assert confidence_bin(50, 1) == 0
    with pytest.raises(ValueError):
        confidence_bin(101, 10)


def test_bin_sums_per_cell_and_bin_hand_computed():
    # cell 0: c 30 (bin 3) k 1 and c 39 (bin 3) k 2; cell 1: c 100 (bin 9, closed right) k 0; correctness in halves
    sums = bin_sums(np.array([0, 0, 1]), np.array([30, 39, 100]), np.array([1, 2, 0]), 2, 10)
    assert sums.shape == (2, 10, 6) and sums.dtype == np.int64
    # (n, Σc, Σk, Σc², Σk², Σck) = (2, 69, 3, 900 + 1521, 1 + 4, 30 + 78) and (1, 100, 0, 10000, 0, 0)
    assert sums[0, 3].tolist() == [2, 69, 3, 2421, 5, 108] and sums[1, 9].tolist() == [1, 100, 0, 10000, 0, 0]
    assert sums.sum() == sums[0, 3].sum() + sums[1, 9].sum()              # every other cell and bin is empty
    assert bin_sums(np.array([], dtype=np.int64), np.array([]), np.array([]), 1, 5).tolist() == [[[0] * 6] * 5]
    with pytest.raises(ValueError, match="outside 0..100"):
        bin_sums(np.array([0]), np.array([101]), np.array([1]), 1, 10)


def test_exact_bincount_sums_integers_exactly_or_refuses():
    assert exact_bincount(np.array([2, 0, 2]), np.array([5, 7, -1]), 4).tolist() == [7, 0, 4, 0]
    # 2**53 + 1 is not a float64: the sum would be rounded, so it is refused
    with pytest.raises(OverflowError):
        exact_bincount(np.array([0, 0]), np.array([2**53, 1]), 1)


def test_ece_hand_computed():
    rows = [
        row(confidence=85, correctness=1),       # bin 8: conf sum 0.85, acc sum 1
        row(confidence=80, correctness=0),       # bin 8: conf sum 1.65, acc sum 1 -> |0.65|
        row(confidence=30, correctness=F(1, 2)), # bin 3: |0.30 - 0.5| = 0.20
        row(confidence=100, correctness=1),      # bin 9 (closed right): |1.00 - 1| = 0
    ]
    # ECE = (0.65 + 0.20 + 0) / 4 = 0.85 / 4 = 0.2125
    # (weighted form: 2/4*|0.825-0.5| + 1/4*0.2 + 1/4*0 = 0.1625 + 0.05 = 0.2125)
    assert expected_calibration_error(rows, 10) == F(2125, 10000)


def test_ece_empty_bins_are_skipped_and_perfect_calibration_is_zero():
    rows = [row(confidence=50, correctness=1), row(confidence=50, correctness=0)]
    # one bin: conf mean 0.5, acc mean 0.5 -> 0; the nine empty bins add nothing
    assert expected_calibration_error(rows, 10) == 0
    assert [(b.index, b.count) for b in calibration_bins(rows, 10)] == [(5, 2)]


def test_ece_30_is_not_pooled_with_29():
    # 29 -> bin 2 with correctness 0: |0.29 - 0| = 0.29; 30 -> bin 3 with correctness 1: |0.30 - 1| = 0.70
    # ECE = (0.29 + 0.70) / 2 = 0.495. Pooled in one bin it would be |0.59 - 1| / 2 = 0.205.
    rows = [row(confidence=29, correctness=0), row(confidence=30, correctness=1)]
    assert expected_calibration_error(rows, 10) == F(495, 1000)


# --- Q_final -------------------------------------------------------------------------

def test_q_final_default_alpha():
    # 0.5 * 0.6 + 0.5 * 9/12 = 0.30 + 0.375 = 0.675
    assert q_final(F(3, 5), F(9), F(1, 2), SCALE) == F(675, 1000)


@pytest.mark.parametrize(("alpha", "expected"), [
    (F(0), F(3, 4)),          # s_bar / 12 alone: 9 / 12 = 0.75
    (F(1), F(3, 5)),          # P alone: 0.6
    (F(3, 10), F(705, 1000)), # 0.3 * 0.6 + 0.7 * 0.75 = 0.18 + 0.525 = 0.705
])
def test_q_final_alpha(alpha, expected):
    assert q_final(F(3, 5), F(9), alpha, SCALE) == expected


def test_q_numerator_hand_computed():
    # alpha = 1/2 (a = 1, d = 2), max_score 12: a·12·passed + (d − a)·clipped
    assert q_numerator(1, 12, F(1, 2), 12) == 24          # a Pass at 12: 1·12·1 + 1·12 = 24 = Q 1 · (2 · 12)
    assert q_numerator(0, 6, F(1, 2), 12) == 6            # a Fail at 6: 0 + 1·6 = 6 -> Q = 6/24 = 0.25
    # alpha = 0.3 = 3/10: 3·12·passed + 7·clipped; 3 Pass of 5 runs with clipped sum 45 (P 0.6, s_bar 9):
    # 3·12·3 + 7·45 = 108 + 315 = 423 -> Q = 423 / (10 · 12 · 5) = 423/600 = 0.705, as test_q_final_alpha
    assert q_numerator(3, 45, F(3, 10), 12) == 423
    assert F(423, 10 * 12 * 5) == q_final(F(3, 5), F(9), F(3, 10), SCALE)
    # element-wise on integer arrays, still integers
    import numpy as np
    out = q_numerator(np.array([1, 0]), np.array([12, 6]), F(1, 2), 12)
    assert out.tolist() == [24, 6] and out.dtype.kind == "i"
    # alpha = 1 (a = d = 1): only the passes count, 12·passed; alpha = 0 (a = 0, d = 1): only the clipped scores
    assert (q_numerator(2, 30, F(1), 12), q_numerator(2, 30, F(0), 12)) == (24, 30)


def test_seed_example_same_p_different_reasoning():
    # Seed's argument for the composite: 18/30 passes at 12 and 12/30 fails at 6 vs 18 at 10 and 12 at 0.
    a = [row(PASS, 12)] * 18 + [row(FAIL, 6)] * 12
    b = [row(PASS, 10)] * 18 + [row(FAIL, 0)] * 12
    assert pass_rate(a) == pass_rate(b) == F(3, 5)
    # s_bar a = (216 + 72) / 30 = 9.6; b = 180 / 30 = 6
    # Q a = 0.3 + 0.5 * 9.6 / 12 = 0.3 + 0.4 = 0.7; Q b = 0.3 + 0.5 * 0.5 = 0.55
    assert q_final(pass_rate(a), mean_clipped_score(a), F(1, 2), SCALE) == F(7, 10)
    assert q_final(pass_rate(b), mean_clipped_score(b), F(1, 2), SCALE) == F(55, 100)


# --- gate, empty subject, families ----------------------------------------------

def test_critical_gate():
    assert critical_gate([row(), row(FAIL, critical=True), row(FAIL, critical=True)]) == (True, 2)
    assert critical_gate([row()]) == (False, 0)


def test_empty_subject_has_undefined_metrics_and_no_gate():
    m = subject_metrics("s", "1", [], 3, alpha=F(1, 2), bins=10, scale=SCALE)
    assert (m.n, m.n_unscored, m.p, m.s_bar, m.bs, m.ece, m.q_final) == (0, 3, None, None, None, None, None)
    assert (m.disqualified, m.n_critical) == (False, 0)
    assert q_final(None, None, F(1, 2), SCALE) is None


def test_family_metrics_groups_and_sorts():
    rows = [
        row(PASS, 12, family="SCAL", subject="b"),
        row(FAIL, 4, family="FOUL", subject="b"),
        row(PASS, 10, family="FOUL", subject="a"),
        row(CONDITIONAL, 8, family="FOUL", subject="a"),
    ]
    got = [(f.subject_id, f.family, f.n_family, f.p_family, f.s_bar_family) for f in family_metrics(rows)]
    # a/FOUL: 1 Pass of 2 -> 1/2; (10 + 8) / 2 = 9.  b/FOUL: 0/1, 4.  b/SCAL: 1/1, 12.  No empty pairs.
    assert got == [("a", "FOUL", 2, F(1, 2), F(9)), ("b", "FOUL", 1, F(0), F(4)), ("b", "SCAL", 1, F(1), F(12))]


# --- properties every metric must have: tests/test_metric_registry.py, over tests/metric_registry.py ---------


# --- rounding at output ---------------------------------------------------------------

@pytest.mark.parametrize(("value", "text"), [
    (F(1, 2), "0.500000"),
    (F(2, 3), "0.666667"),          # 0.6666666... rounds up
    (F(1, 3), "0.333333"),
    (F(5, 10**7), "0.000000"),      # exactly half a unit, even neighbour is 0
    (F(15, 10**7), "0.000002"),     # exactly half, even neighbour is 2
    (F(25, 10**7), "0.000002"),     # exactly half, even neighbour is 2 (not 3)
    (F(1), "1.000000"),
    (0, "0.000000"),
    (F(9), "9.000000"),
    (None, ""),
])
def test_fixed_format_rounds_half_to_even_on_exact_values(value, text):
    assert fmt_fixed(value) == text


def test_fixed_format_refuses_floats():
    with pytest.raises(TypeError):
        fmt_fixed(0.1)


def test_fmt_fixed_agrees_with_round_half_even_on_many_values():
    # reference: Python's round() of a Fraction is half to even, on the exact value
    import random
    from fractions import Fraction
    rng = random.Random(11)
    values = [Fraction(rng.randint(-10**9, 10**9), rng.randint(1, 10**7)) for _ in range(3000)]
    values += [Fraction(k, 2 * 10**6) for k in range(-41, 42)]       # every tie near zero
    values += [Fraction(2 * k + 1, 2 * 10**6) + 7 for k in range(-5, 5)] + [0, 1, -1, 123456789]
    for value in values:
        units = round(Fraction(value) * 10**6)
        sign = "-" if units < 0 else ""
        whole, frac = divmod(abs(units), 10**6)
        assert fmt_fixed(value) == f"{sign}{whole}.{frac:06d}", value
    assert fmt_fixed(Fraction(5, 2), 0) == "2" and fmt_fixed(Fraction(7, 2), 0) == "4" and fmt_fixed(-3, 2) == "-3.00"
    assert fmt_fixed(True) == "1.000000"


def test_fmt_signed_always_shows_the_sign():
    # a change or a bias: + before zero and positive values, the minus fmt_fixed writes kept
    assert fmt_signed(F(1, 20)) == "+0.050000"
    assert fmt_signed(F(-12, 1000), 3) == "-0.012"
    assert fmt_signed(0, 3) == "+0.000"

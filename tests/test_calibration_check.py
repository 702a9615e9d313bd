"""ECE against perfect calibration (consistency resampling) and the bias-corrected Brier decomposition (§19a, §19b)."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest
from test_metrics import row

from rgbench.compute.metrics import brier_score, expected_calibration_error
from rgbench.load.records import Gold
from rgbench.stats.brier_decomposition import bias_corrected, brier_decompositions, corrected_decompositions
from rgbench.stats.calibration_check import calibration_check, calibration_checks
from rgbench.stats.run_columns import RunColumns
from rgbench.stats.seeds import subject_digests


def check(rows, resamples=4000, seed=7, bins=10):
    columns = RunColumns.of({"s": list(rows)})
    return calibration_check(columns.confidence, columns.correctness, columns.case, columns.scale, bins,
                             np.random.default_rng(seed), resamples)


# --- consistency resampling: hand-computed expectations --------------------------------------------------

def test_one_run_expected_ece_and_share():
    # One run at c = 30 %, correctness 0: ECE = |0.3 − 0| = 0.3.
    # Calibrated: o ~ Bernoulli(0.3): ECE* = 0.7 with prob. 0.3, 0.3 with prob. 0.7,
    # so E[ECE*] = 0.21 + 0.21 = 0.42 and every ECE* >= 0.3: share = 1 exactly.
    # Monte-Carlo SD of the mean: 0.4 · sqrt(0.21) / sqrt(20000) = 0.0013; tolerance 0.006.
    got = check([row(confidence=30, correctness=0)], resamples=20000)
    assert got.share_at_or_above == 1
    assert abs(float(got.expected) - 0.42) < 0.006


def test_two_runs_at_fifty_on_two_cases():
    # Two runs at 50 % on two cases (independent), one bin: ECE* = |1 − S| / 2 with S ~ Binomial(2, 1/2):
    # S = 0 or 2 (prob. 1/2) -> 0.5, S = 1 (prob. 1/2) -> 0; E[ECE*] = 0.25.
    # Observed correctness (1, 0): ECE = 0, share = 1; observed (1, 1): ECE = 0.5, share ≈ 1/2.
    runs = [row(confidence=50, correctness=1, case="RO-FOUL-001"), row(confidence=50, correctness=0, case="RO-FOUL-002")]
    got = check(runs, resamples=20000)
    assert got.share_at_or_above == 1
    assert abs(float(got.expected) - 0.25) < 0.01          # SD 0.25 / sqrt(20000) = 0.0018
    both = check([row(confidence=50, correctness=1, case="RO-FOUL-001"),
                  row(confidence=50, correctness=1, case="RO-FOUL-002")], resamples=20000)
    assert abs(float(both.share_at_or_above) - 0.5) < 0.02   # SD 0.5 / sqrt(20000) = 0.0035


def test_two_runs_at_fifty_of_one_case_are_one_cluster():
    # The same two runs on ONE case: one U per case, o1 = o2 = [U < 50], so S is 0 or 2 (prob. 1/2 each) and
    # ECE* = |1 − S| / 2 = 0.5 always: E[ECE*] = 0.5 exactly (twice the independent 0.25), and every ECE* is
    # at or above any observed ECE (0 for (1, 0), 0.5 for (1, 1)): share = 1.
    for second in (0, 1):
        got = check([row(confidence=50, correctness=1, run="r1"), row(confidence=50, correctness=second, run="r2")],
                    resamples=500)
        assert got.expected == F(1, 2) and got.share_at_or_above == 1


def test_one_case_in_one_bin_comonotone_expectation():
    # One case, runs at c = 40 and 45 (bin 5, [40, 50)), Σc = 0.85, N = 2; U uniform on 0..99:
    # U < 40 (p 0.40): o = (1, 1), |0.85 − 2| = 1.15;  40 ≤ U < 45 (p 0.05): o = (0, 1), |0.85 − 1| = 0.15;
    # U ≥ 45 (p 0.55): o = (0, 0), 0.85.  E[ECE*] = (0.4·1.15 + 0.05·0.15 + 0.55·0.85) / 2 = 0.935 / 2 = 0.4675
    # (independent runs: E|0.85 − S| / 2 with S ~ PoissonBinomial(0.4, 0.45) = (0.33·0.85 + 0.49·0.15 + 0.18·1.15)/2
    # = (0.2805 + 0.0735 + 0.207) / 2 = 0.2805). Monte-Carlo SD < 0.5 / sqrt(20000) = 0.0035; tolerance 0.01.
    got = check([row(confidence=40, correctness=0, run="r1"), row(confidence=45, correctness=0, run="r2")],
                resamples=20000)
    assert abs(float(got.expected) - 0.4675) < 0.01
    apart = check([row(confidence=40, correctness=0, case="RO-FOUL-001"),
                   row(confidence=45, correctness=0, case="RO-FOUL-002")], resamples=20000)
    assert abs(float(apart.expected) - 0.2805) < 0.01


def test_runs_of_one_case_in_different_bins_keep_the_expectation():
    # One case, c = 30 (bin 4) and c = 70 (bin 8): comonotone o1 = [U < 30], o2 = [U < 70]:
    # U < 30 (p 0.3): (1, 1) -> (0.7 + 0.3)/2 = 0.5; 30 ≤ U < 70 (p 0.4): (0, 1) -> (0.3 + 0.3)/2 = 0.3;
    # U ≥ 70 (p 0.3): (0, 0) -> (0.3 + 0.7)/2 = 0.5.  E = 0.15 + 0.12 + 0.15 = 0.42, as for independent runs
    # (bins separate the terms, so only their joint law moves): E|0.3 − o1| = E|0.7 − o2| = 0.42.
    got = check([row(confidence=30, correctness=0, run="r1"), row(confidence=70, correctness=0, run="r2")],
                resamples=20000)
    assert abs(float(got.expected) - 0.42) < 0.01           # SD < 0.1 / sqrt(20000)


@pytest.mark.parametrize("correctness, ece, share", [(1, 0, 1), (F(1, 2), F(1, 2), 0), (0, 1, 0)])
def test_all_confidences_100_are_deterministic(correctness, ece, share):
    # c = 100 %: every calibrated outcome is 1, every ECE* is 0 exactly (expected 0, no noise).
    # Observed ECE = |1 − correctness|; share = [0 >= ECE].
    runs = [row(confidence=100, correctness=correctness, run=f"r{i}") for i in range(3)]
    assert expected_calibration_error(runs, 10) == ece
    got = check(runs, resamples=50)
    assert got.expected == 0 and got.share_at_or_above == share


def test_all_confidences_zero():
    # c = 0 %: outcomes always 0, ECE* = 0; correctness 0 gives ECE 0 and share 1 (0 >= 0).
    got = check([row(confidence=0, correctness=0, run=f"r{i}") for i in range(4)], resamples=10)
    assert got.expected == 0 and got.share_at_or_above == 1


def test_expected_matches_exact_poisson_binomial():
    # Five runs in two bins (c = 12, 18 in bin 1; c = 71, 77, 79 in bin 7). The exact E[ECE*] is
    # (1/5) Σ_bins E|Σc − S_b| with S_b Poisson-binomial; computed exactly here by enumeration.
    confs = [12, 18, 71, 77, 79]
    exact = F(0)
    for mask in range(1 << 5):
        o = [(mask >> i) & 1 for i in range(5)]
        p = F(1)
        for c, oi in zip(confs, o):
            p *= F(c, 100) if oi else 1 - F(c, 100)
        gap = abs(F(12 + 18, 100) - (o[0] + o[1])) + abs(F(71 + 77 + 79, 100) - (o[2] + o[3] + o[4]))
        exact += p * gap / 5
    runs = [row(confidence=c, correctness=1, case=f"RO-FOUL-{i:03d}") for i, c in enumerate(confs)]   # 5 cases
    got = check(runs, resamples=40000)
    assert abs(float(got.expected - exact)) < 0.006      # SD of ECE* < 0.5, / sqrt(40000) = 0.0025


def test_no_run_is_none():
    assert calibration_check(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), 2, 10,
                             np.random.default_rng(0), 10) is None


def test_same_draws_same_result_and_blocks_do_not_matter(monkeypatch):
    runs = [row(confidence=c, correctness=F(k, 2), run=f"r{c}") for c, k in ((35, 1), (62, 2), (88, 2), (91, 0))]
    first = check(runs, resamples=300)
    assert check(runs, resamples=300) == first
    import rgbench.stats.calibration_check as module
    monkeypatch.setattr(module, "_BLOCK", 7)      # many small blocks read the same stream in the same order
    assert check(runs, resamples=300) == first


# --- seeds: one subject's inputs do not move another subject's check ------------------------------------

GOLDS = {"RO-FOUL-001": Gold("RO-FOUL-001", "FOUL", None, 0, 12, 1, "golds/v1.0/RO-FOUL-001_gold.md")}


def digests(runs, seed=0):
    return subject_digests(seed, runs, (), GOLDS)


def test_changing_one_subject_leaves_the_other_identical():
    runs = {"a": [row(subject="a", confidence=c, correctness=1, run=f"r{c}") for c in (40, 60, 90)],
            "b": [row(subject="b", confidence=c, correctness=0, run=f"r{c}") for c in (20, 70)]}
    before = calibration_checks(RunColumns.of(runs), 10, digests(runs), 500)
    edited = {**runs, "b": runs["b"] + [row(subject="b", confidence=55, correctness=1, run="r9")]}
    after = calibration_checks(RunColumns.of(edited), 10, digests(edited), 500)
    assert after["a"] == before["a"]
    assert after["b"] != before["b"]
    # the declared seed (shared by every subject) redraws both
    moved = calibration_checks(RunColumns.of(runs), 10, digests(runs, seed=1), 500)
    assert moved["a"] != before["a"] and moved["b"] != before["b"]


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


def test_duplicating_every_run_of_a_case_changes_nothing():
    # One U per case: the copies r4..r6 of r1..r3 get the outcomes of their originals in every resample, so every
    # bin's Σc − Σo doubles, N doubles and each ECE* is unchanged; the stream draws one U per case either way, so the
    # check is identical, not just equal in law (under independent draws the copies would add noise).
    base = [row(confidence=c, correctness=F(k, 2), case=f"RO-FOUL-00{i}", run=f"r{r}")
            for i, (c, k) in enumerate(((35, 1), (62, 2), (88, 2), (91, 0)), start=1) for r in (1, 2, 3)]
    copies = [row(confidence=r.reported_confidence, correctness=r.correctness, case=r.case_id,
                  run=f"r{int(r.run_id[1:]) + 3}") for r in base]
    assert check(base + copies, resamples=400) == check(base, resamples=400)


def test_case_labels_not_their_order_define_the_clusters():
    # Runs given in any order: the clusters are the case labels; the same runs reordered give the same check.
    runs = [row(confidence=c, correctness=k, case=f"RO-FOUL-00{1 + i % 3}", run=f"r{i}")
            for i, (c, k) in enumerate(((20, 0), (45, 1), (70, 1), (25, 0), (48, 0), (75, 1)))]
    assert check(list(reversed(runs)), resamples=400).expected == check(runs, resamples=400).expected

"""Case-level inference (aggregate_metrics.md §18-§21): per-case summaries, BCa intervals, the paired sign-flip
test, rank confidence sets, seeds and eligibility. Hand-computed values (arithmetic in the comments), the
invariances the case as unit guarantees, degenerate cases by name, and brute-force references
(tests/reference_stats.py)."""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import replace
from fractions import Fraction as F
from statistics import NormalDist

import numpy as np
import pytest
from reference_stats import case_means, mean_statistic, rank_sets_brute_force, run_values, sign_flip_p
from test_metrics import row

from rgbench.compute.derive import CONDITIONAL, FAIL, PASS
from rgbench.compute.metrics import calibration_bins, subject_metrics
from rgbench.compute.ranking import DISQUALIFIED, INCOMPLETE, RANKED, UNSCORED, rank_subjects
from rgbench.leaderboard.reliability import Thresholds, subject_labels
from rgbench.load.config import parse_stats_config
from rgbench.load.records import Gold, Scoring
from rgbench.load.scale import default_scale
from rgbench.stats.alpha_sensitivity import alpha_crossing, order_stability
from rgbench.stats.bootstrap import (
    bca_bounds,
    bca_interval,
    case_counts,
    jackknife_acceleration,
)
from rgbench.stats.case_summary import case_summaries
from rgbench.stats.eligibility import is_incomplete, missing_cases
from rgbench.stats.intervals import proportion_interval, subject_intervals
from rgbench.stats.pairwise import (
    compare_group,
    minimum_detectable_difference,
    paired_case_differences,
    pairwise_table,
    sign_flip_test,
    significantly_better,
)
from rgbench.stats.rank_sets import (
    JointDraw,
    Studentised,
    joint_draw,
    rank_confidence_sets,
    rank_sets,
    stepdown,
    studentised_differences,
    swap_shares,
)
from rgbench.stats.run_columns import RunColumns
from rgbench.stats.seeds import (
    canonical,
    canonical_text,
    generator,
    run_text,
    seed_digest,
    subject_digests,
)
from rgbench.stats.wilson import bounded_mean_interval, wilson_interval

SCALE = default_scale(12)   # the seed's 0-12 scale, higher is better

HALF = F(1, 2)
C95 = F(95, 100)


def summaries(runs_by_subject, alpha=HALF):
    return case_summaries(RunColumns.of(runs_by_subject), alpha=alpha, scale=SCALE, bins=10)


def subject_runs(sid="s"):
    return [
        row(PASS, clipped=12, confidence=90, correctness=1, case="RO-FOUL-001", run="r1", subject=sid),
        row(PASS, clipped=10, confidence=80, correctness=1, case="RO-FOUL-001", run="r2", subject=sid),
        row(FAIL, clipped=6, confidence=70, correctness=0, case="RO-SCAL-001", run="r1", subject=sid),
        row(CONDITIONAL, clipped=8, confidence=35, correctness=HALF, case="RO-MEMB-001", run="r1", subject=sid),
        row(PASS, clipped=11, confidence=100, correctness=HALF, case="RO-MEMB-001", run="r2", subject=sid),
    ]


# --- per-case summaries ----------------------------------------------------------------------

def test_case_summary_hand_computed():
    s = summaries({"s": subject_runs()})["s"]
    assert s.case_ids == ("RO-FOUL-001", "RO-MEMB-001", "RO-SCAL-001")          # code-point order
    assert s.runs.tolist() == [2, 2, 1] and s.passes.tolist() == [2, 1, 0] and s.clipped.tolist() == [22, 19, 6]
    # q = a·max·passes + (d − a)·clipped with alpha = 1/2 (a = 1, d = 2): FOUL 12·2 + 22 = 46, MEMB 12 + 19 = 31, SCAL 6
    assert s.q.tolist() == [46, 31, 6] and s.q_scale == 24
    q, p = s.case_means(2)
    # over 2 runs: FOUL q 46 (2 runs) -> 46/48 = 23/24 (Q per run 0.5 + 0.5·12/12 = 1 and 0.5 + 0.5·10/12 =
    # 11/12); MEMB 31/48; SCAL q 6 on 1 run -> 12/48 = 1/4; Pass 2/2, 1/2, 0 -> numerators 2, 1, 0
    assert q.tolist() == [46, 31, 12] and p.tolist() == [2, 1, 0]
    reference = case_means(subject_runs(), HALF, 12)
    assert [reference[c] for c in s.case_ids] == [(F(int(a), 48), F(int(b), 2)) for a, b in zip(q, p)]
    assert [v.tolist() for v in s.case_means(6)] == [[138, 93, 36], [6, 3, 0]]    # any common multiple
    with pytest.raises(ValueError):
        s.case_means(3)                                                             # 3 is not a multiple of 2
    # gaps in units of 1/(100·scale), scale 2: FOUL 90·2 − 200 = −20 (bin 9), 80·2 − 200 = −40 (bin 8)
    assert s.scale == 2 and s.gaps[0, 9] == -20 and s.gaps[0, 8] == -40


def test_bin_sums_hand_computed_and_the_metrics_bins_agree():
    runs = subject_runs()
    sums = RunColumns.of({"s": runs}).bin_sums(10)
    assert sums.shape == (1, 3, 10, 6)                       # subject x case (code-point order) x bin x sums
    # MEMB: confidence 35 (bin 3) and 100 (bin 9, the last), correctness 1/2 -> k = 1 in halves (scale 2)
    # (n, Σc, Σk, Σc², Σk², Σck) = (1, 35, 1, 1225, 1, 35) and (1, 100, 1, 10000, 1, 100)
    assert sums[0, 1, 3].tolist() == [1, 35, 1, 1225, 1, 35] and sums[0, 1, 9].tolist() == [1, 100, 1, 10000, 1, 100]
    assert sums[0, 1].sum() == sums[0, 1, 3].sum() + sums[0, 1, 9].sum()   # no other bin of MEMB has a run
    # summed over cases: the subject's bins, as the exact bins of its ECE (calibration_bins.csv)
    per_bin = sums[0].sum(axis=0)
    assert [(b.index, b.count, b.confidence_sum, b.correctness_sum) for b in calibration_bins(runs, 10)] == [
        (i, int(per_bin[i, 0]), F(int(per_bin[i, 1]), 100), F(int(per_bin[i, 2]), 2)) for i in range(10) if per_bin[i, 0]]


def test_case_summaries_ignore_run_labels_file_order_and_identical_repeats():
    runs = subject_runs()
    relabelled = [r._replace(run_id={"r1": "r2", "r2": "r1"}[r.run_id]) for r in runs]
    shuffled = list(reversed(runs))
    repeated = runs + [r._replace(run_id=r.run_id.replace("r", "r9")) for r in runs]       # r1..r2 copied as r91..r92
    base = summaries({"s": runs})["s"]
    for other in (relabelled, shuffled):
        got = summaries({"s": other})["s"]
        assert got.case_ids == base.case_ids and (got.q == base.q).all() and (got.gaps == base.gaps).all()
    doubled = summaries({"s": repeated})["s"]
    assert (doubled.runs == 2 * base.runs).all() and (doubled.q == 2 * base.q).all()
    assert all((x == y).all() for x, y in zip(doubled.case_means(4), base.case_means(4)))
    # the same stream: every interval equal bit for bit (a ratio of doubled sums is the same float)
    one = subject_intervals(base, generator("subject", ["x"]), 500, C95)
    two = subject_intervals(doubled, generator("subject", ["x"]), 500, C95)
    assert one == two


# --- BCa -------------------------------------------------------------------------------------

def test_jackknife_acceleration_hand_computed():
    # θ₍ᵢ₎ = 1, 2, 6: mean 3, d = 2, 1, −3; Σd² = 14, Σd³ = 8 + 1 − 27 = −18; a = −18 / (6 · 14^1.5) = −0.057259
    assert jackknife_acceleration(np.array([1.0, 2.0, 6.0])) == pytest.approx(-18 / (6 * 14 ** 1.5))
    assert jackknife_acceleration(np.array([2.0, 2.0])) == 0.0 and jackknife_acceleration(np.array([1.0])) == 0.0


def test_bca_equals_the_percentile_interval_when_unbiased_and_unaccelerated():
    # replicates 0..100, estimate 50: share below = (50 + 1/2)/101 = 0.5 -> z0 = 0; a = 0: levels 0.025, 0.975,
    # quantiles 2.5 and 97.5 (linear interpolation of 0..100)
    assert bca_bounds(50.0, np.arange(101.0), 0.0, C95) == pytest.approx((2.5, 97.5))


def test_bca_hand_computed_with_bias_and_acceleration():
    # estimate 30 with replicates 0..100: share below = (30 + 0.5)/101, z0 = Φ⁻¹(0.30198) = −0.51893;
    # a = 0.1: level(q) = Φ(z0 + (z0 + z_q) / (1 − a (z0 + z_q)))
    z = NormalDist()
    z0 = z.inv_cdf(30.5 / 101)
    levels = [z.cdf(z0 + (z0 + zq) / (1 - 0.1 * (z0 + zq))) for zq in (z.inv_cdf(0.025), z.inv_cdf(0.975))]
    expected = tuple(float(np.quantile(np.arange(101.0), lv)) for lv in levels)
    assert bca_bounds(30.0, np.arange(101.0), 0.1, C95) == pytest.approx(expected)
    assert expected[0] < 2.5 and expected[1] < 97.5          # pulled towards the low estimate


def test_bca_degenerate_cases():
    counts = case_counts(np.random.default_rng(1), 1, 100)
    assert (counts == 1).all()                                                 # one case: drawn every time
    assert bca_interval(mean_statistic(np.array([0.4])), 1, counts, C95) == (0.4, 0.4)   # a point: unknown spread
    assert bca_interval(mean_statistic(np.zeros(0)), 0, np.zeros((5, 0)), C95) is None
    same = mean_statistic(np.array([0.2, 0.2, 0.2]))
    assert bca_interval(same, 3, case_counts(np.random.default_rng(2), 3, 200), C95) == pytest.approx((0.2, 0.2))
    # a draw over 4 units for a statistic of 3 cases is refused, never read misaligned
    with pytest.raises(ValueError, match=r"the draw has shape \(200, 4\), not one column for each of the 3 cases"):
        bca_interval(same, 3, case_counts(np.random.default_rng(2), 4, 200), C95)


def test_the_jackknife_in_blocks_is_the_whole_leave_one_out_matrix():
    from rgbench.stats.bootstrap import _BLOCK, leave_one_out_weights
    k = 2 * _BLOCK + 77                                   # three blocks, the last one short
    blocks = np.concatenate([leave_one_out_weights(k, start, min(_BLOCK, k - start)) for start in range(0, k, _BLOCK)])
    assert (blocks == np.ones((k, k)) - np.eye(k)).all()
    values = np.random.default_rng(3).integers(0, 9, size=k).astype(np.float64)
    counts = case_counts(np.random.default_rng(4), k, 50)
    statistic = mean_statistic(values)
    whole = jackknife_acceleration(statistic(np.ones((k, k)) - np.eye(k)))
    assert bca_interval(statistic, k, counts, C95) == bca_bounds(float(values.mean()), statistic(counts), whole, C95)


def test_case_counts_draw_k_cases_per_replicate_and_follow_the_stream():
    a = case_counts(np.random.default_rng(5), 7, 50)
    assert a.shape == (50, 7) and (a.sum(axis=1) == 7).all()
    assert (a == case_counts(np.random.default_rng(5), 7, 50)).all()


def test_a_proportion_at_0_or_1_gets_the_wilson_interval_over_its_cases():
    s = summaries({"s": [row(PASS, case=f"RO-FOUL-00{i}", run=r) for i in range(1, 5) for r in ("r1", "r2")]})["s"]
    counts = case_counts(np.random.default_rng(0), s.k, 100)
    # P = 1 on 4 cases (8 runs): Wilson for 4 of 4 cases (not 8 of 8 runs): [z²/(4 + z²)·... , 1]
    assert proportion_interval(s, counts, C95) == wilson_interval(4, 4, C95)
    assert proportion_interval(s.subset([]), np.zeros((5, 0)), C95) is None


def test_subject_interval_contains_the_estimate():
    runs = [row(PASS if (i * r + i // 3) % 3 else FAIL, clipped=(5 + i + r) % 13, confidence=10 * (i % 10),
                case=f"RO-FOUL-{i:03d}", run=f"r{r}", correctness=(i + r) % 2) for i in range(1, 25) for r in (1, 2, 3)]
    s = summaries({"s": runs})["s"]
    m = subject_metrics("s", "1", runs, 0, alpha=HALF, bins=10, scale=SCALE)
    got = subject_intervals(s, generator("subject", ["d"]), 2000, C95)
    for (low, high), value in ((got.p, m.p), (got.s_bar, m.s_bar), (got.bs, m.bs), (got.ece, m.ece),
                               (got.q_final, m.q_final)):
        assert low <= float(value) <= high and low < high


# --- the paired test -------------------------------------------------------------------------

def flip(differences, **kw):
    """sign_flip_test of one column of Fractions, scaled to integers (the test is scale-free)."""
    scale = int(np.lcm.reduce([d.denominator for d in differences])) if differences else 1
    p, kinds = sign_flip_test(np.array([int(d * scale) for d in differences], dtype=np.int64), **kw)
    return p[0], kinds[0]


def test_sign_flip_exact_hand_computed():
    # three positive differences: only ++ + and − − − reach |T| = 3: p = 2/8
    assert flip([F(1), F(1), F(1)]) == (F(1, 4), "exact")
    # 1 and −1: T = 0, every pattern reaches it: p = 1
    assert flip([F(1), F(-1)]) == (F(1), "exact")
    # 2, 1: patterns give ±3, ±1; |T*| >= 3 for 2 of 4: p = 1/2
    assert flip([F(2), F(1)]) == (F(1, 2), "exact")
    assert flip([F(0)] * 4) == (F(1), "exact")                 # no difference at all
    with pytest.raises(ValueError):
        flip([])
    # several pairs at once: each column is its own test
    assert sign_flip_test(np.array([[1, 1], [1, -1], [1, 0]])) == ([F(1, 4), F(1)], ["exact", "exact"])


def test_sign_flip_matches_the_enumeration_with_either_method():
    rnd = random.Random(3)
    for _ in range(20):
        d = [F(rnd.randint(-6, 6), rnd.choice([1, 2, 3, 4])) for _ in range(rnd.randint(1, 9))]
        assert flip(d)[0] == sign_flip_p(d)
    # 12 cases, no exact budget: the saddlepoint (deterministic), within 10% of the enumeration here
    d = [F(rnd.randint(-3, 8), 4) for _ in range(12)]
    approximate, kind = flip(d, exact_budget=0)
    assert kind == "saddlepoint" and abs(float(approximate) / float(sign_flip_p(d)) - 1) < 0.1
    assert flip(d, exact_budget=0) == (approximate, kind)


def test_paired_differences_use_every_run_and_no_label():
    # a has runs r1, r2 on case X; b has one run r7 on X and a case Y a lacks: one shared case
    a = [row(PASS, clipped=12, case="RO-FOUL-001", run="r1", subject="a"),
         row(FAIL, clipped=0, case="RO-FOUL-001", run="r2", subject="a")]
    b = [row(PASS, clipped=6, case="RO-FOUL-001", run="r7", subject="b"), row(PASS, case="RO-SCAL-001", subject="b")]
    s = summaries({"a": a, "b": b})
    apart, groups = paired_case_differences(s)
    # a: Q per run 1 and 0 -> mean 1/2, Pass mean 1/2; b: 0.5 + 0.5·6/12 = 3/4, Pass 1
    # (on the common scale: runs lcm(2, 1, 1) = 2, q_scale 2·24 = 48: −1/4 = −12/48; p_scale 2: −1/2 = −1/2)
    [group] = groups
    assert apart == [] and group.cases == ("RO-FOUL-001",) and group.pairs == (("a", "b"),)
    assert (group.q_scale, group.p_scale, group.q.tolist(), group.p.tolist()) == (48, 2, [[-12]], [[-1]])
    assert (group.mean_q(0), group.mean_p(0)) == (F(-1, 4), F(-1, 2))


def test_pairs_are_grouped_by_their_shared_cases():
    cases = ("RO-FOUL-001", "RO-FOUL-002", "RO-FOUL-003")
    full = {sid: [row(PASS, clipped=12 - i, case=c, subject=sid) for c in cases] for i, sid in enumerate("abc")}
    part = {"d": [row(FAIL, clipped=3, case=c, subject="d") for c in cases[:2]]}
    alone = {"e": [row(PASS, case="RO-SCAL-009", subject="e")]}
    apart, groups = paired_case_differences(summaries({**full, **part, **alone}))
    # every pair with e shares nothing; a-b, a-c, b-c share all three cases; a-d, b-d, c-d the first two
    assert apart == [("a", "e"), ("b", "e"), ("c", "e"), ("d", "e")]
    assert [(g.cases, g.pairs) for g in groups] == [
        (cases, (("a", "b"), ("a", "c"), ("b", "c"))),
        (cases[:2], (("a", "d"), ("b", "d"), ("c", "d")))]
    # a − c on each case: Q 0.5 + 0.5·12/12 − (0.5 + 0.5·10/12) = 1/12 = 2/24; common scale 1·24
    assert groups[0].q[:, 1].tolist() == [2, 2, 2] and groups[0].mean_q(1) == F(1, 12)


def test_pairwise_rows_hand_computed_and_degenerate_pairs():
    x = [row(PASS, clipped=12, case=c, subject="x") for c in ("RO-FOUL-001", "RO-FOUL-002", "RO-FOUL-003")]
    twin = [r._replace(subject_id="twin") for r in x]
    low = [row(FAIL, clipped=0, case=c, subject="low") for c in ("RO-FOUL-001", "RO-FOUL-002", "RO-FOUL-003")]
    apart = [row(PASS, case="RO-SCAL-009", subject="apart")]
    s = summaries({"x": x, "twin": twin, "low": low, "apart": apart})
    rows = {(r.subject_a, r.subject_b): r for r in pairwise_table(s, "seed", resamples=500, confidence=C95,
                                                                  level=F(5, 100))}
    # a pair with no shared case: a row with n_cases 0 and nothing else, and not counted in Holm's m
    none = rows[("apart", "low")]
    assert none.n_cases == 0 and none.q_diff is None and none.p_holm is None and significantly_better(none, F(1, 20)) is None
    # identical subjects: difference 0 on every case, p = 1, nothing significant, no spread: power unknown
    same = rows[("twin", "x")]
    assert (same.q_diff, same.p_value, same.q_diff_low, same.q_diff_high, same.q_mde) == (0, 1, 0.0, 0.0, None)
    # low vs x: −1 on each of 3 cases (Q 0 vs 1, Pass 0 vs 1): exact p = 2/8 = 1/4; Holm over the 3 pairs with a
    # shared case (low-twin 1/4, low-x 1/4, twin-x 1): 3 · 1/4 = 3/4
    lx = rows[("low", "x")]
    assert (lx.q_diff, lx.p_diff, lx.p_value, lx.test, lx.p_holm) == (-1, -1, F(1, 4), "exact", F(3, 4))
    assert len(rows) == 6


def test_one_run_per_case_and_a_single_shared_case():
    a = [row(PASS, clipped=12, case="RO-FOUL-001", subject="a")]
    b = [row(FAIL, clipped=0, case="RO-FOUL-001", subject="b")]
    s = summaries({"a": a, "b": b})
    [group] = paired_case_differences(s)[1]
    [r] = compare_group(group, generator("pairs", ["a", "b"]), resamples=100, confidence=C95, level=F(5, 100))
    # one case: d = 1; exact p = 2/2 = 1; the interval is a point and the SD (hence power) is unknown
    assert (r.n_cases, r.q_diff, r.p_value, r.q_diff_low, r.q_diff_high, r.q_diff_sd, r.q_mde) == (
        1, 1, 1, 1.0, 1.0, None, None)


def test_minimum_detectable_difference_hand_computed():
    # n = 30, level 0.05, one test: z = 1.959964, z² = 3.841459; bound c = z · √(29 / (30 − 3.841459)) = 1.959964 ·
    # 1.052912 = 2.063670; plus t_29(0.8) = 0.854192: 2.917862 · 0.3 / √30 (0.054772) = 0.159818
    assert minimum_detectable_difference(0.3, 30, F(5, 100)) == pytest.approx(0.159818, abs=1e-6)
    # Holm's strictest step over 10 pairs: level 0.005, z = 2.807034, z² = 7.879439, c = 2.807034 · 1.144988 = 3.214020;
    # (3.214020 + 0.854192) · 0.054772 = 0.222825
    assert minimum_detectable_difference(0.3, 30, F(5, 100), pairs=10) == pytest.approx(0.222825, abs=1e-6)
    assert minimum_detectable_difference(0.3, 1, F(5, 100)) is None
    assert minimum_detectable_difference(0.0, 30, F(5, 100)) is None
    assert minimum_detectable_difference(None, 30, F(5, 100)) is None
    assert minimum_detectable_difference(0.3, 30, F(5, 100), pairs=0) is None
    # n ≤ z²: 7 cases cannot reach level 0.005 (z² = 7.88); 8 can, barely: c = 2.807034 · √(7 / 0.120561) = 21.389
    assert minimum_detectable_difference(0.3, 7, F(5, 100), pairs=10) is None
    assert minimum_detectable_difference(0.3, 8, F(5, 100), pairs=10) == pytest.approx(2.363695, abs=1e-6)


def test_bounded_mean_interval_hand_computed():
    # three cases, one run each, values (0, 1, 5) / 10: x̄ = 0.2, K_e = 3² / 3 = 3,
    # s² = (0.2² + 0.1² + 0.3²) / 3 = 0.046667; c = z²/K_e = 3.841459 / 3 = 1.280486.
    # above, u = 0.8: b = u − s²/u = 0.8 − 0.058333 = 0.741667; c·b = 0.949694, (c·b)² = 0.901919,
    #   4(1 + c)·c·s² = 4 · 2.280486 · 1.280486 · 0.046667 = 0.545091; d = (0.949694 + √1.447010) / (2 · 2.280486)
    #   = (0.949694 + 1.202917) / 4.560973 = 0.471963 -> high 0.671963
    # below, u = 0.2: b = 0.2 − 0.233333 = −0.033333; c·b = −0.042683, (c·b)² = 0.001822;
    #   d = (−0.042683 + √0.546913) / 4.560973 = (−0.042683 + 0.739536) / 4.560973 = 0.152786 -> low 0.047214
    low, high = bounded_mean_interval([0, 1, 5], [1, 1, 1], C95, 10)
    assert (low, high) == (pytest.approx(0.047214, abs=1e-6), pytest.approx(0.671963, abs=1e-6))
    # 0/1 values: Wilson's interval (7 of 30)
    assert bounded_mean_interval([1] * 7 + [0] * 23, [1] * 30, C95) == pytest.approx(wilson_interval(7, 30), abs=1e-12)
    # cases with unequal runs: n = (1, 2, 1), values (0, 2, 5) / 10: x̄ = 7/40, Σn² = 6, K_e = 16/6;
    # s² = ((−0.175)² + (0.2 − 0.35)² + (0.5 − 0.175)²) / 6 = (0.030625 + 0.0225 + 0.105625) / 6 = 0.026458
    low, high = bounded_mean_interval([0, 2, 5], [1, 2, 1], C95, 10)
    c, s2 = 3.841459 * 6 / 16, 0.15875 / 6
    for side, room in ((high - 0.175, 0.825), (0.175 - low, 0.175)):
        assert (1 + c) * side ** 2 - c * (room - s2 / room) * side - c * s2 == pytest.approx(0, abs=1e-6)


def test_bounded_mean_interval_edge_cases():
    assert bounded_mean_interval([], [], C95) is None
    # every Brier 0 (n = 1, 2, 1: K_e = 16/6, c = 1.440547): low exactly 0, high c / (1 + c) = 0.590256 (Wilson's
    # 0 of K_e)
    assert bounded_mean_interval([0, 0, 0], [1, 2, 1], C95, 10) == (0.0, pytest.approx(0.590256, abs=1e-6))
    # every run at 1 (K_e = 9/5, c = 2.134144): high exactly 1, low 1 − c / (1 + c) = 0.319066
    assert bounded_mean_interval([10, 20], [1, 2], C95, 10) == (pytest.approx(0.319066, abs=1e-6), 1.0)
    # one case (two runs, mean 0.2): no spread to measure, yet not a point: c = z² = 3.841459,
    # d = c·u / (1 + c): high 0.2 + 3.841459·0.8 / 4.841459 = 0.834761, low 0.2 − 3.841459·0.2 / 4.841459 = 0.041310
    assert bounded_mean_interval([4], [2], C95, 10) == (pytest.approx(0.041310, abs=1e-6),
                                                         pytest.approx(0.834761, abs=1e-6))
    with pytest.raises(ValueError):
        bounded_mean_interval([1, 2], [1, 0], C95)


def test_subject_intervals_bs_is_the_bounded_score_interval():
    s = summaries({"s": subject_runs()})["s"]
    found = subject_intervals(s, np.random.default_rng(3), 200, C95)
    assert found.bs == bounded_mean_interval(s.brier, s.runs, C95, (100 * s.scale) ** 2)


# --- rank sets -------------------------------------------------------------------------------

def draw_of(sums, counts, runs=None, scale=1.0):
    """A JointDraw over hand-written per-case sums (K x p, in Q_final units times ``scale``) and case counts."""
    sums = np.asarray(sums, dtype=float)
    runs = np.ones_like(sums) if runs is None else np.asarray(runs, dtype=float)
    return JointDraw(sums, runs, np.full(sums.shape[1], scale), np.asarray(counts, dtype=float))


def test_studentised_differences_hand_computed():
    # A scores (1, 0, 1) on three cases, B (0, 0, 1), one run each: θ̂ = (2/3, 1/3). Residuals a − θ̂·n:
    # A (1/3, −2/3, 1/3), B (−1/3, −1/3, 2/3); their difference per case (2/3, −1/3, −1/3), totals Σ n = 3 each:
    # SE² = (4/9 + 1/9 + 1/9) / (3·3) = 2/27, z = (1/3) / sqrt(2/27) = sqrt(3/2) = 1.224745.
    # Replicate (2, 1, 0): A* = 2/3, B* = 0, Δ* − Δ̂ = 1/3; u_A = a − (2/3)n = (1/3, −2/3, 1/3), u_B = b − 0 =
    #   (0, 0, 1); difference (1/3, −2/3, −2/3); Σ w d² = 2/9 + 4/9 + 0 = 6/9; SE*² = (6/9)/9 = 2/27: T* = sqrt(3/2).
    # Replicate (0, 1, 2): A* = B* = 2/3, Δ* − Δ̂ = −1/3; u_A − u_B = (1, 0, 0), weight 0 there: SE* = 0, no
    #   studentised value: T* = 0 (this pair takes no part in that replicate's maximum).
    # Replicate (1, 1, 1): the data, T* = 0. Replicate (1, 0, 2): A* = 1, B* = 2/3, Δ* = Δ̂: T* = 0.
    draw = draw_of([[1, 0], [0, 0], [1, 1]], [[2, 1, 0], [0, 1, 2], [1, 1, 1], [1, 0, 2]])
    found = studentised_differences([2 / 3, 1 / 3], draw)
    assert found is not None
    z, t = found.z, found.replicates[:, 0]
    assert z[0, 1] == pytest.approx(1.5 ** 0.5) and z[1, 0] == pytest.approx(-(1.5 ** 0.5)) and z[0, 0] == 0
    assert (found.first.tolist(), found.second.tolist()) == ([0], [1])
    assert t[0] == pytest.approx(1.5 ** 0.5) and t[1] == 0
    assert t[2] == pytest.approx(0, abs=1e-12) and t[3] == pytest.approx(0, abs=1e-12)
    # the Q_final scale divides estimates and standard errors alike: nothing moves
    scaled = studentised_differences([2 / 3, 1 / 3], replace(draw, sums=draw.sums * 24, scales=np.full(2, 24.0)))
    assert scaled is not None and scaled.z[0, 1] == pytest.approx(1.5 ** 0.5)
    # the 95% quantile of max(T*, −T*) = (1.22, 0, 0, 0) sorted (0, 0, 0, 1.22), position 2.85: 0.85 · 1.22 = 1.04
    # < z = 1.22: A is established above B (three cases: the bootstrap is no guide at this size, §21)
    assert rank_confidence_sets([2 / 3, 1 / 3], draw, C95) == ([(1, 1), (2, 2)],) * 2
    # with a fifth replicate (0, 3, 0) (A* = B* = 0, SE* = 0: T* = 0) and a sixth (2, 0, 1) (A* = 1, B* = 1/3,
    # Δ* − Δ̂ = 1/3, u_A = (0, −1, 0), u_B = (−1/3, −1/3, 2/3), u_A − u_B = (1/3, −2/3, −2/3), Σ w d² = 2/9 + 4/9,
    # SE*² = (6/9)/9 = 2/27: T* = sqrt(3/2)): sorted (0, 0, 0, 0, 1.22, 1.22), position 4.75: c = 1.22, not < z
    more = replace(draw, counts=np.vstack([draw.counts, [[0, 3, 0], [2, 0, 1]]]))
    assert rank_confidence_sets([2 / 3, 1 / 3], more, C95) == ([(1, 2), (1, 2)],) * 2


def test_stepdown_removes_established_pairs_from_the_maximum():
    # three subjects; hand-set studentised statistics: z_AB = 10, z_AC = 12, z_BC = 2.5. Replicates of T* (pairs AB,
    # AC, BC): 20 rows; |T*| of AB and AC reach 3 in one row each, BC's stays at 2 or below.
    reps = np.zeros((20, 3))
    reps[:, 2] = np.linspace(-2, 2, 20)
    reps[0, 0], reps[1, 1] = 3.0, -3.0
    z = np.array([[0, 10, 12], [-10, 0, 2.5], [-12, -2.5, 0]])
    found = Studentised(z, np.array([0, 0, 1]), np.array([1, 2, 2]), reps)
    # step 1: the per-row maximum over the 6 ordered pairs is max |T*|: 3 in rows 0 and 1, |T*_BC| ≤ 2 elsewhere
    #   (2 in row 19); sorted, indices 17, 18, 19 hold 2, 3, 3; the 0.95 quantile at position 19·0.95 = 18.05 is
    #   3 + 0.05·(3 − 3) = 3: A above B (10 > 3) and above C (12 > 3); B vs C (2.5) not.
    # step 2: standing (B, C) and (C, B): the maximum is |T*_BC|, each magnitude of linspace(−2, 2, 20) twice, so
    #   indices 18 and 19 hold 2 and 2: c = 2 < 2.5: B above C, which the single-step c = 3 did not establish.
    above = stepdown(found, C95)
    assert above.tolist() == [[False, True, True], [False, False, True], [False, False, False]]
    # C's marginal family (A, C), (B, C) in both orders: row maxima 3 (row 1: |T*_AC|), 2 (rows 0 and 19), ...;
    # position 18.05 between 2 and 3: c = 2.05 < 2.5, B above C at the first step. A's family leaves B vs C out.
    assert stepdown(found, C95, 2)[1, 2] and not stepdown(found, C95, 0)[1, 2]


def test_rank_sets_separated_and_all_tied():
    rng = np.random.default_rng(0)
    counts = case_counts(rng, 30, 400)
    noise = rng.normal(0, 0.1, size=(30, 1))
    # A scores about 0.9 on every case, B about 0.1: A first, B second
    separated = draw_of(np.hstack([0.9 + noise, 0.1 + rng.normal(0, 0.1, size=(30, 1))]), counts)
    est = list(separated.sums.sum(axis=0) / 30)
    assert rank_confidence_sets(est, separated, C95) == ([(1, 1), (2, 2)],) * 2
    # all tied: four subjects with different case-level scores but the same estimate: nothing established
    scores = rng.normal(0.5, 0.2, size=(30, 4))
    tied = draw_of(scores - scores.mean(axis=0) + 0.5, counts)
    assert rank_confidence_sets([0.5] * 4, tied, C95) == ([(1, 4)] * 4,) * 2


def test_rank_sets_degenerate_cases():
    counts = case_counts(np.random.default_rng(1), 5, 50)
    scores = np.random.default_rng(2).random((5, 1))
    assert rank_confidence_sets([float(scores.mean())], draw_of(scores, counts), C95) == ([(1, 1)], [(1, 1)])
    # one case: every replicate equals the estimate: nothing can be established
    assert rank_confidence_sets([0.9, 0.1], draw_of([[0.9, 0.1]], np.ones((50, 1))), C95) == ([(1, 2), (1, 2)],) * 2
    # identical subjects: SE = 0 and equal estimates: not ordered
    base = np.random.default_rng(1).random((5, 1))
    same = draw_of(np.hstack([base, base]), counts)
    assert rank_confidence_sets([float(base.mean())] * 2, same, C95) == ([(1, 2), (1, 2)],) * 2
    # B is A less 0.2 on every case: the difference has no case-level variation (SE = 0, no part in the maximum)
    # and every replicate orders them alike: established
    shifted = draw_of(np.hstack([base, base - 0.2]), counts)
    est = [float(base.mean()), float(base.mean()) - 0.2]
    assert rank_confidence_sets(est, shifted, C95) == ([(1, 1), (2, 2)],) * 2


def test_rank_sets_drop_replicates_in_which_a_subject_has_no_case():
    # B answered only case 0; replicates that do not draw it leave B undefined (NaN) and are dropped:
    # the sets are those of the draw without them
    rng = np.random.default_rng(3)
    sums = rng.random((12, 2))
    runs = np.ones((12, 2))
    runs[1:, 1] = sums[1:, 1] = 0
    counts = case_counts(rng, 12, 300)
    draw = draw_of(sums, counts, runs)
    assert np.isnan(draw.replicates[:, 1]).any()
    kept = replace(draw, counts=counts[counts[:, 0] > 0])
    est = list(sums.sum(axis=0) / runs.sum(axis=0))
    full, only = studentised_differences(est, draw), studentised_differences(est, kept)
    assert full is not None and only is not None
    assert np.array_equal(full.replicates, only.replicates) and np.array_equal(full.z, only.z)
    assert rank_confidence_sets(est, draw, C95) == rank_confidence_sets(est, kept, C95)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("simultaneous", [True, False])
def test_rank_sets_equal_the_brute_force_projection(seed, simultaneous):
    rng = np.random.default_rng(seed)
    p, k = int(rng.integers(3, 6)), 12
    theta = np.sort(rng.random(p))[::-1] * 0.6
    runs = rng.integers(1, 4, size=(k, p)).astype(float)
    sums = (theta + rng.normal(0, 0.15, size=(k, p)) + rng.normal(0, 0.1, size=(k, 1))) * runs   # correlated
    counts = case_counts(rng, k, 200)
    est = list(sums.sum(axis=0) / runs.sum(axis=0))
    simul, marginal = rank_confidence_sets(est, draw_of(sums, counts, runs), C95)
    got = simul if simultaneous else marginal
    assert got == rank_sets_brute_force(est, sums, runs, counts, 0.95, simultaneous)
    for (ml, mh), (sl, sh) in zip(marginal, simul):
        assert sl <= ml <= mh <= sh            # marginal sets are inside the simultaneous ones


def test_the_joint_draw_draws_shared_cases_together_and_swap_shares():
    a = [row(PASS, clipped=12, case=f"RO-FOUL-00{i}", subject="a") for i in range(1, 6)]
    b = [r._replace(subject_id="b") for r in a]                     # identical to a case by case
    s = summaries({"a": a, "b": b})
    draw = joint_draw([s["a"], s["b"]], generator("ranks", ["a", "b"]), 200)
    reps = draw.replicates
    assert (reps[:, 0] == reps[:, 1]).all()                          # the same cases drawn for both
    shares = swap_shares(reps)
    assert shares[0, 1] == 0.5 and shares[1, 0] == 0.5              # always tied: half each way
    sets = rank_sets(["a", "b"], [1, 1], [1.0, 1.0], draw, C95)
    assert [(r.rank_low, r.rank_high) for r in sets] == [(1, 2), (1, 2)]


def test_rank_sets_ignore_run_labels_and_identical_repeats():
    rnd = random.Random(4)
    runs = {sid: [row(PASS if rnd.random() < skill else FAIL, clipped=rnd.randint(4, 12), case=f"RO-FOUL-{c:03d}",
                      run=f"r{r}", subject=sid) for c in range(1, 13) for r in (1, 2)]
            for sid, skill in (("a", 0.9), ("b", 0.5), ("c", 0.2))}
    relabelled = {sid: [r._replace(run_id="r2" if r.run_id == "r1" else "r1") for r in rs] for sid, rs in runs.items()}
    repeated = {**runs, "b": runs["b"] + [r._replace(run_id=r.run_id + "x") for r in runs["b"]]}

    def sets_of(data):
        s = summaries(data)
        draw = joint_draw([s[k] for k in "abc"], generator("ranks", ["fixed"]), 500)
        est = [float(m.q_final) for m in (subject_metrics(k, "1", data[k], 0, alpha=HALF, bins=10, scale=SCALE)
                                          for k in "abc")]
        return rank_confidence_sets(est, draw, C95)
    assert sets_of(runs) == sets_of(relabelled) == sets_of(repeated)


# --- seeds and eligibility ---------------------------------------------------------------------

GOLDS = {c: Gold(c, c.split("-")[1], "Closed", 0, 12, d, f"golds/v1.0/{c}_gold.md", ("b", "a"), "title")
         for c, d in (("RO-FOUL-001", 1), ("RO-SCAL-001", 3), ("RO-MEMB-001", 5))}


def grades(runs, scores=(("safety", 3), ("clarity", 2))):
    """One scoring per run row, with the given criterion scores (only the criterion scores are read)."""
    return [Scoring(r.subject_id, "1", r.case_id, r.run_id, r.reviewer_id, tuple(scores), (), r.correctness,
                    f"scoring/v1.0/{r.subject_id}/{r.case_id}__{r.run_id}__eval-{r.reviewer_id}.json") for r in runs]


def test_a_subjects_digest_is_the_canonical_text_of_its_seed_and_parsed_runs():
    runs = subject_runs("a")[:2]     # two runs of RO-FOUL-001
    # by hand: ["subject", seed, id, [[case, [family, difficulty, case_type, tags sorted], runs sorted]]], each
    # run [raw, floor, ceiling, clipped, critical, recoverable, classification, confidence, correctness,
    # criteria sorted by name]; JSON without spaces; correctness 1 is the integer 1
    text = ('["subject",0,"a",[["RO-FOUL-001",["FOUL",1,"Closed",["a","b"]],'
            '[[10,0,12,10,false,false,"Pass",80,1,[["clarity",2],["safety",3]]],'
            '[12,0,12,12,false,false,"Pass",90,1,[["clarity",2],["safety",3]]]]]]]')
    assert subject_digests(0, {"a": runs}, grades(runs), GOLDS)["a"] == hashlib.sha256(text.encode()).hexdigest()
    assert canonical_text([F(7), F(15, 2), 7, True, None]) == '[7,"15/2",7,true,null]'
    # the direct encoder is json.dumps of canonical(), byte for byte (strings escaped, non-ASCII kept)
    value = [("a\"b", "é\n"), [F(-3, 4), 0, False, [], ()], "x", 10**30, [[None]]]
    assert canonical_text(value) == json.dumps(canonical(value), ensure_ascii=False, separators=(",", ":"))
    r, scores = runs[0], (("safety", F(5, 2)), ("clarity", 2))
    assert run_text(r, scores) == canonical_text(run_values(r, scores))
    with pytest.raises(TypeError):
        canonical_text([0.5])   # a float's text would depend on its printing


def test_a_subjects_digest_ignores_labels_order_and_other_subjects():
    runs = {"a": subject_runs("a"), "b": subject_runs("b")}
    scorings = grades(runs["a"] + runs["b"])
    base = subject_digests(0, runs, scorings, GOLDS)
    assert base == {sid: subject_digests(0, {sid: runs[sid]}, scorings, GOLDS)[sid] for sid in "ab"}
    assert base["a"] != base["b"]                          # the subject id enters
    # relabelled runs, runs in another order, another reviewer id or subject version: the same digest
    relabelled = [r._replace(run_id=f"x{i}", reviewer_id="other", subject_version="9")
                  for i, r in enumerate(reversed(runs["a"]))]
    assert subject_digests(0, {"a": relabelled}, grades(relabelled), GOLDS)["a"] == base["a"]
    # another subject's runs, a gold's prose, title or path, the tags' order: the same digest
    other = {**runs, "b": runs["b"][:1]}
    assert subject_digests(0, other, scorings, GOLDS)["a"] == base["a"]
    golds = {c: g._replace(title="new", path="elsewhere.md", tags=("a", "b")) for c, g in GOLDS.items()}
    assert subject_digests(0, runs, scorings, golds)["a"] == base["a"]
    # a value it resamples, a grouping field, a criterion score, the declared seed: another digest
    moved = [runs["a"][0]._replace(reported_confidence=91)] + runs["a"][1:]
    assert subject_digests(0, {"a": moved}, scorings, GOLDS)["a"] != base["a"]
    grouped = {c: g._replace(difficulty=2) for c, g in GOLDS.items()}
    assert subject_digests(0, runs, scorings, grouped)["a"] != base["a"]
    assert subject_digests(0, {"a": runs["a"]}, grades(runs["a"], (("safety", 2), ("clarity", 2))), GOLDS)["a"] != base["a"]
    assert subject_digests(1, {"a": runs["a"]}, scorings, GOLDS)["a"] != base["a"]
    # a stream does not depend on the order the digests come in
    assert generator("pair", ["x", "y"]).integers(0, 10**9) == generator("pair", ["y", "x"]).integers(0, 10**9)


def test_the_pairs_seed_is_the_declared_seed_alone():
    base = seed_digest(0)
    assert base == hashlib.sha256(b'["seed",0]').hexdigest() and seed_digest(1) != base
    # one stream per set of shared cases: another case list, another draw
    from rgbench.stats.pairwise import pair_stream
    one = pair_stream(base, ["RO-FOUL-001", "RO-FOUL-002"]).integers(0, 10**9)
    assert one == pair_stream(base, ["RO-FOUL-001", "RO-FOUL-002"]).integers(0, 10**9)
    assert one != pair_stream(base, ["RO-FOUL-001"]).integers(0, 10**9)
    assert one != pair_stream(seed_digest(1), ["RO-FOUL-001", "RO-FOUL-002"]).integers(0, 10**9)


def test_eligibility_rule():
    assert missing_cases({"B", "A"}, ["C", "A", "B", "D"]) == ("C", "D")
    # 9 of 10 cases = 0.9: not below 0.9; 8 of 10 is
    assert not is_incomplete(9, 1, F(9, 10)) and is_incomplete(8, 2, F(9, 10))
    assert not is_incomplete(0, 10, F(9, 10))                         # no case: Unscored, not Incomplete
    assert not is_incomplete(1, 9, F(0))


def test_incomplete_subjects_are_not_ranked_and_disqualified_wins():
    def m(sid, q, n=10, dq=False):
        return subject_metrics(sid, "1", [row(PASS if q else FAIL, clipped=12 if q else 0, critical=dq,
                                              case=f"RO-FOUL-{i:03d}") for i in range(n)], 0,
                               alpha=HALF, bins=10, scale=SCALE) if n else replace(
            subject_metrics(sid, "1", [], 0, alpha=HALF, bins=10, scale=SCALE))
    rows = [m("few", True, n=2), m("full", False), m("bad", True, dq=True), m("none", True, n=0)]
    standings = rank_subjects(rows, incomplete={"few", "bad"})
    assert [(s.metrics.subject_id, s.status, s.rank) for s in standings] == [
        ("full", RANKED, 1), ("few", INCOMPLETE, None), ("bad", DISQUALIFIED, None), ("none", UNSCORED, None)]


# --- alpha: which pairs change order, and reliability labels from half-widths ----------------------

def test_alpha_crossing_hand_computed():
    def m(sid, p, s_bar):
        return replace_metrics(sid, F(p), F(s_bar))
    # a: P 0.8, s_bar 11.2 -> d0 = (11.2 − 10)/12 = 0.1, d1 = 0.8 − 1 = −0.2 vs b (P 1, s_bar 10):
    # equal at alpha = 0.1 / (0.1 + 0.2) = 1/3
    assert alpha_crossing(m("a", "0.8", "11.2"), m("b", "1", "10"), SCALE) == F(1, 3)
    # a above b at both ends: never changes
    assert alpha_crossing(m("a", "0.9", "11"), m("b", "0.5", "9"), SCALE) is None
    # equal at alpha = 0 (d0 = 0) and a ahead at 1: it never gets below
    assert alpha_crossing(m("a", "0.9", "10"), m("b", "0.5", "10"), SCALE) is None


def replace_metrics(sid, p, s_bar):
    base = subject_metrics(sid, "1", [row(PASS)], 0, alpha=HALF, bins=10, scale=SCALE)
    return base.__class__(**{**base.__dict__, "p": p, "s_bar": s_bar})


def test_order_stability_rows():
    ranked = [(1, replace_metrics("a", F("0.8"), F("11.2"))), (2, replace_metrics("b", F(1), F(10))),
              (3, replace_metrics("c", F("0.1"), F(2)))]
    rows = order_stability(ranked, SCALE, [[0.5, 0.4, 0.0], [0.6, 0.5, 0.01], [1.0, 0.99, 0.5]])
    assert [(r.subject_a, r.subject_b, r.adjacent, r.alpha_crossing, r.swap_share) for r in rows] == [
        ("a", "b", True, F(1, 3), 0.4), ("a", "c", False, None, 0.0), ("b", "c", True, None, 0.01)]


def test_reliability_labels_from_half_widths():
    t = Thresholds((F(2, 100), F(5, 100), F(10, 100)), 10)
    # half-widths 0.015, 0.04, 0.09, 0.125 over 30 cases
    assert [t.label((F(0), F(w) * 2), 30) for w in ("0.015", "0.04", "0.09", "0.125")] == [
        "robust", "stable", "reasonable", "indicative"]
    assert t.label((F(0), F("0.02")), 9) == "indicative"              # fewer than 10 cases: whatever the width
    assert t.label(None, 30) == "" and t.label((F(0), F(0)), 0) == ""
    # s_bar on 0-12: [9, 10.2] has half-width 0.6, 0.05 on the 0-1 scale: not below 0.05 -> reasonable
    assert t.label((F(9), F("10.2")), 30, F(12)) == "reasonable"
    labels = subject_labels({"P": (F("0.6"), F("0.9")), "Q_final": (F("0.72"), F("0.8"))}, 30, t, SCALE)   # half 0.04
    assert labels == {"P": "indicative", "s_bar": "", "Q_final": "stable", "BS": "", "ECE": ""}


def test_reliability_and_coverage_configuration():
    config, messages = parse_stats_config({"reliability_half_widths": {"robust": 0.01, "stable": 0.03,
                                                                       "reasonable": 0.2},
                                           "reliability_min_cases": 5, "min_case_coverage": 1}, range(1, 6))
    assert messages == [] and config.reliability_half_widths == (F(1, 100), F(3, 100), F(1, 5))
    assert config.reliability_min_cases == 5 and config.min_case_coverage == 1
    _, messages = parse_stats_config({"reliability_half_widths": {"robust": 0.1, "stable": 0.05, "reasonable": 0.2},
                                      "reliability_min_cases": 0, "min_case_coverage": 1.5}, range(1, 6))
    assert messages == [
        "$.min_case_coverage: must be a number from 0 to 1, got 1.5",
        "$.reliability_half_widths: must increase from robust to reasonable, got "
        "{'robust': 0.1, 'stable': 0.05, 'reasonable': 0.2}",
        "$.reliability_min_cases: must be a positive integer, got 0",
    ]


def test_benjamini_hochberg_by_hand():
    from rgbench.stats.pairwise import benjamini_hochberg, holm
    # p = (0.01, 0.04, 0.03): sorted 0.01, 0.03, 0.04; m·p/j = 0.03, 0.045, 0.04; running minimum from the top:
    # p_bh = (0.03, 0.04, 0.04) in input order. Holm: 3·0.01, max(0.03, 2·0.03), max(0.06, 1·0.04) = 0.03, 0.06, 0.06.
    p = [F(1, 100), F(4, 100), F(3, 100)]
    assert benjamini_hochberg(p) == [F(3, 100), F(4, 100), F(4, 100)]
    assert holm(p) == [F(3, 100), F(6, 100), F(6, 100)]
    # never below the raw p, never above 1, never above Holm; ties keep one value; empty stays empty
    q = [F(1, 2), F(1, 2), F(9, 10)]
    assert benjamini_hochberg(q) == [F(3, 4), F(3, 4), F(9, 10)]
    assert all(raw <= bh <= h <= 1 for raw, bh, h in zip(p, benjamini_hochberg(p), holm(p)))
    assert benjamini_hochberg([]) == []


def test_significantly_better_reads_the_configured_correction():
    from rgbench.load.config import parse_stats_config
    from rgbench.stats.pairwise import PairwiseRow, significantly_better
    # p_holm 0.06 is not below 0.05, p_bh 0.04 is: the configured correction decides.
    row = PairwiseRow("a", "b", 30, q_diff=F(1, 10), p_value=F(2, 100), p_holm=F(6, 100), p_bh=F(4, 100))
    assert significantly_better(row, F(5, 100)) is None
    assert significantly_better(row, F(5, 100), "benjamini-hochberg") == "a"
    config, messages = parse_stats_config({"pairwise_correction": "benjamini-hochberg"})
    assert messages == [] and config.pairwise_correction == "benjamini-hochberg"
    _, messages = parse_stats_config({"pairwise_correction": "bonferroni"})
    assert messages == ["$.pairwise_correction: must be holm or benjamini-hochberg, got 'bonferroni'"]


def test_mean_difference_intervals_are_the_bca_interval_of_each_pair():
    # the table's intervals (one product for every pair) equal bca_interval of each pair's mean alone
    from rgbench.stats.pairwise import mean_difference_intervals
    rng = np.random.default_rng(4)
    d = rng.integers(-24, 25, size=(17, 5))
    counts = case_counts(np.random.default_rng(5), 17, 400)
    got = mean_difference_intervals(d, 24, counts, C95)
    for j in range(5):
        want = bca_interval(mean_statistic(d[:, j] / 24), 17, counts, C95)
        assert got[j] == pytest.approx(want, abs=1e-12)
    # one case: every replicate is the estimate, a point
    assert mean_difference_intervals(np.array([[6, -3]]), 12, case_counts(rng, 1, 50), C95) == [(0.5, 0.5),
                                                                                            (-0.25, -0.25)]


def test_a_pair_row_depends_on_its_two_subjects_only():
    cases = ("RO-FOUL-001", "RO-FOUL-002", "RO-SCAL-001") + tuple(f"RO-MEMB-{i:03d}" for i in range(20))
    rnd = random.Random(8)

    def runs(sid):
        return [row(PASS if rnd.random() < 0.5 else FAIL, clipped=rnd.randint(0, 12), case=c, run=f"r{k}",
                    subject=sid) for c in cases for k in (1, 2)]
    base = {sid: runs(sid) for sid in ("a", "b", "c")}
    changed = dict(base, c=[r._replace(clipped_score=0) for r in base["c"]][:-2])   # c rescored, missing a case
    one = {(r.subject_a, r.subject_b): r for r in pairwise_table(summaries(base), "seed", resamples=300,
                                                                 confidence=C95, level=F(5, 100))}
    two = {(r.subject_a, r.subject_b): r for r in pairwise_table(summaries(changed), "seed", resamples=300,
                                                                 confidence=C95, level=F(5, 100))}
    # a-b is byte-identical (only Holm's p_holm/p_bh are joint; its p is exact either way here)
    assert one["a", "b"].test == "exact"
    assert replace(one["a", "b"], p_holm=None, p_bh=None) == replace(two["a", "b"], p_holm=None, p_bh=None)
    assert one["a", "c"] != two["a", "c"] and two["a", "c"].n_cases == 22


def test_column_quantiles_are_numpys_linear_quantiles_bit_for_bit():
    from rgbench.stats.bootstrap import column_quantiles
    rng = np.random.default_rng(1)
    for b in (1, 2, 3, 10, 999):
        x = np.sort(rng.standard_normal((b, 40)) * 10.0 ** rng.integers(-3, 3), axis=0)
        levels = rng.random(40)
        levels[:3] = (0.0, 1.0, 0.5)                       # both ends and a midpoint (t = 0.5 takes the b − … branch)
        want = [np.quantile(x[:, j], float(levels[j])) for j in range(40)]
        assert column_quantiles(x, levels).tolist() == want
    # by hand: 0, 10, 20, 30 at q = 0.5: h = 1.5, t = 0.5 -> 20 − 10·0.5 = 15
    assert column_quantiles(np.array([[0.0], [10.0], [20.0], [30.0]]), np.array([0.5])).tolist() == [15.0]


def test_accelerations_by_column_are_each_columns_acceleration():
    from rgbench.stats.bootstrap import jackknife_accelerations
    j = np.column_stack([[1.0, 2.0, 6.0], [2.0, 2.0, 2.0], [1.0, np.nan, 6.0]])
    got = jackknife_accelerations(j)
    # column 0 as in test_jackknife_acceleration_hand_computed; a constant column gives 0; the NaN is left out
    # (1, 6: mean 3.5, d = 2.5, −2.5: Σd³ = 0)
    assert got.tolist() == pytest.approx([-18 / (6 * 14 ** 1.5), 0.0, 0.0])
    assert jackknife_acceleration(j[:, 0]) == pytest.approx(got[0])


def test_the_pairs_give_the_same_rows_on_every_core_as_on_one(monkeypatch):
    # 12 subjects each missing a different case: 66 pairs, each its own set of shared cases (a group, a draw);
    # the fork pool (from 2 groups here) must give exactly the rows of the one-process loop
    import rgbench.stats.pairwise as pairwise
    cases = tuple(f"RO-FOUL-{i:03d}" for i in range(1, 21))
    rnd = random.Random(3)
    runs = {f"s{j:02d}": [row(PASS if rnd.random() < 0.5 else FAIL, clipped=rnd.randint(0, 12), case=c,
                              subject=f"s{j:02d}") for c in cases if c != cases[j]] for j in range(12)}
    kw = {"resamples": 300, "confidence": C95, "level": F(5, 100)}
    monkeypatch.setattr(pairwise, "PARALLEL_MIN_GROUPS", 10 ** 9)
    alone = pairwise_table(summaries(runs), "seed", **kw)
    monkeypatch.setattr(pairwise, "PARALLEL_MIN_GROUPS", 2)
    monkeypatch.setattr(pairwise, "usable_cores", lambda: 2)
    assert len(paired_case_differences(summaries(runs))[1]) == 66
    assert pairwise_table(summaries(runs), "seed", **kw) == alone


@pytest.mark.parametrize("k", [1, 2, 3, 17, 800, 2 ** 20])
def test_case_draws_as_int32_are_the_int64_draws(k):
    # case_counts draws int32 for speed: numpy takes any range below 2**32 from the same
    # 32-bit stream whatever the dtype, so the numbers are those of the int64 draw they replaced
    def draw(dtype):
        return np.random.Generator(np.random.PCG64(7)).integers(0, k, size=(50, 9), dtype=dtype)
    assert np.array_equal(draw(np.int32), draw(np.int64))

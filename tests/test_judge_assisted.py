"""The judge-assisted estimator (rgbench.stats.judge_assisted, issue 28 part 1): a 3-case example worked by hand,
lambda = 0 is human-only exactly, all drawn with pi = 1 is the plain mean, a judge equal to the human takes
lambda ~ 1, the degenerate cases, the stratified draw and its seeds, and agreement with ppi-python 0.2.3."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from reference_stats import clt_interval

from rgbench.compute.metrics import q_numerator
from rgbench.stats.bootstrap import case_counts, percentile_bounds, ratio_statistic
from rgbench.stats.judge_assisted import (
    Run,
    case_sums,
    difference,
    difference_interval,
    draw_generator,
    estimate,
    expanded_confidence,
    fit,
    influence,
    interval,
    labelled_cases,
    stratified_draw,
    variance_parts,
)

C95 = Fraction(95, 100)
HALF = Fraction(1, 2)
# Three cases, five runs; every drawn run had probability 1/2, weight w = 1/π = 2 (a judge value f on each run, a
# human value y on the drawn ones):  c1: (f 1, y 1), (f 1, -)   c2: (f 1, y 0)   c3: (f 0, y 0), (f 1, -)
HAND = [Run("c1", 1, 1, 2), Run("c1", 1), Run("c2", 1, 0, 2), Run("c3", 0, 0, 2), Run("c3", 1)]


def test_a_three_case_example_worked_by_hand():
    # Per case (n runs, m = Σ ξ/π, Y = Σ ξ y/π, F = Σ f, G = Σ ξ f/π):
    #   c1: n 2, m 2, Y 2, F 2, G 2    c2: n 1, m 2, Y 0, F 1, G 2    c3: n 2, m 2, Y 0, F 1, G 0
    # N = 5, M = 6; Hy = 2/6 = 1/3, Hf = 4/6 = 2/3, Mf = 4/5, Mf − Hf = 2/15.
    # a = (Y − Hy m)/M: c1 (2 − 2/3)/6 = 2/9, c2 (0 − 2/3)/6 = −1/9, c3 −1/9.
    # b = (F − Mf n)/N − (G − Hf m)/M: c1 (2 − 8/5)/5 − (2 − 4/3)/6 = 2/25 − 1/9 = −7/225,
    #   c2 (1 − 4/5)/5 − 1/9 = 1/25 − 1/9 = −16/225, c3 (1 − 8/5)/5 − (0 − 4/3)/6 = −3/25 + 2/9 = 23/225.
    # Σab = (2·(−7) + 16 − 23)/2025 = −21/2025; Σb² = (49 + 256 + 529)/50625 = 834/50625;
    # λ = 21/2025 · 50625/834 = 525/834 = 175/278 (inside [0, 1]); theta = 1/3 + 175/278 · 2/15 = 1/3 + 35/417 = 58/139.
    # V(0) = Σa² = 6/81 = 2/27; V(λ) = V(0) − (Σab)²/Σb² = 2/27 − 441/67554 = 4563/67554 = 169/2502;
    # effective = 3 labels · V(0)/V(λ) = 3 · 5004/4563 = 3.2899...
    est = estimate(case_sums(HAND))
    assert (est.theta, est.lam, est.labels) == (Fraction(58, 139), (Fraction(175, 278),), 3)
    assert est.standard_error == pytest.approx((169 / 2502) ** 0.5, rel=1e-12)
    assert est.effective == pytest.approx(3 * 5004 / 4563, rel=1e-12)
    # the float replicates are the same function: unit weights give the exact value, rounded
    assert fit(case_sums(HAND), np.ones((1, 3))).theta[0] == pytest.approx(58 / 139, rel=1e-15)


# The same three cases with the judge's value split in two parts (f = f₁ + f₂; Q_final's pass and score parts on
# the board), each run (f₁, f₂, y), the first of each case drawn with π = 1/2:
#   c1: (1, 2, y 2), (0, 1, -)   c2: (0, 1, y 1), (1, 2, -)   c3: (0, 2, y 2), (1, 0, -)
TWO = [Run("c1", 3, 2, 2, (1, 2)), Run("c1", 1, None, 1, (0, 1)), Run("c2", 1, 1, 2, (0, 1)), Run("c2", 3, None, 1, (1, 2)),
       Run("c3", 2, 2, 2, (0, 2)), Run("c3", 1, None, 1, (1, 0))]


def test_two_controls_worked_by_hand():
    # n = m = 2 per case, N = M = 6; Y = 4, 2, 4: Hy = 10/6 = 5/3.
    # Part 1: F₁ = 1, 1, 1, G₁ = 2, 0, 0: Mf₁ = 1/2, Hf₁ = 1/3. Part 2: F₂ = 3, 3, 2, G₂ = 4, 2, 4: Mf₂ = 4/3, Hf₂ = 5/3.
    # a = (Y − Hy m)/M = 1/9, −2/9, 1/9; b₁ = (F₁ − Mf₁ n)/N − (G₁ − Hf₁ m)/M = −2/9, 1/9, 1/9;
    # b₂ = (3 − 8/3)/6 − (4 − 10/3)/6 = −1/18, (3 − 8/3)/6 − (2 − 10/3)/6 = 5/18, (2 − 8/3)/6 − (4 − 10/3)/6 = −2/9.
    # S = Σ b bᵀ: S₁₁ = 6/81 = 2/27, S₁₂ = (2 + 5 − 4)/162 = 1/54, S₂₂ = (1 + 25 + 16)/324 = 7/54;
    # A = Σ a b: A₁ = (−2 − 2 + 1)/81 = −1/27, A₂ = (−1 − 10 − 4)/162 = −5/54; det S = 14/1458 − 1/2916 = 1/108.
    # λ = −S⁻¹ A: λ₁ = (S₁₂ A₂ − S₂₂ A₁)/det = 108 · 9/2916 = 1/3, λ₂ = (S₁₂ A₁ − S₁₁ A₂)/det = 108 · 9/1458 = 2/3,
    # both above 0, so this is the least of V on λ >= 0. theta = 5/3 + 1/3 · (1/2 − 1/3) + 2/3 · (4/3 − 5/3) = 3/2.
    # u = a + λ₁ b₁ + λ₂ b₂ = 1/9 − 2/27 − 1/27 = 0, −2/9 + 1/27 + 5/27 = 0, 1/9 + 1/27 − 4/27 = 0: three cases, three
    # quantities fitted (Hy, λ₁, λ₂), so V(λ) = 0 < V(0) = Σ a² = 2/27 and the estimate is worth "inf" grades.
    # One control (f itself): b = b₁ + b₂ = −5/18, 7/18, −1/9; λ = (21/162)/(78/324) = 7/13, theta = 5/3 − 7/78 = 41/26.
    est = estimate(case_sums(TWO))
    assert (est.theta, est.lam, est.labels, est.standard_error, est.effective) == (
        Fraction(3, 2), (Fraction(1, 3), Fraction(2, 3)), 3, 0.0, float("inf"))
    one = estimate(case_sums([r._replace(parts=()) for r in TWO]))
    assert (one.theta, one.lam) == (Fraction(41, 26), (Fraction(7, 13),))
    assert fit(case_sums(TWO), np.ones((1, 3))).theta[0] == pytest.approx(1.5, rel=1e-14)


def _v_of(sums):
    """λ -> V(λ) = Σ_c (a_c + λ·b_c)² by the per-case definitions (docs/judge_assisted.md), in Fractions, one b per
    control."""
    n, m, y = ([Fraction(v) for v in col] for col in (sums.runs, sums.drawn, sums.human))
    big_n, big_m = sum(n), sum(m)
    a = [(yc - sum(y) / big_m * mc) / big_m for yc, mc in zip(y, m)]
    bs = [[(fc - sum(f) / big_n * nc) / big_n - (gc - sum(g) / big_m * mc) / big_m for fc, nc, gc, mc in zip(f, n, g, m)]
          for f, g in ((list(map(Fraction, f)), list(map(Fraction, g))) for f, g in sums.controls)]
    return lambda lam: sum((a[c] + sum(lj * b[c] for lj, b in zip(lam, bs))) ** 2 for c in range(len(a)))


def test_two_controls_take_the_least_variance_with_both_weights_at_least_zero_on_random_draws():
    # On random uneven draws, with parts as Q_final's (a pass part 0 or 1/2, a score part k/24): λ >= 0 (no cap)
    # and its V(λ) (by the per-case definitions) is at most V at every point of a 21 x 21 grid of [0, 4]², exactly;
    # the float fit gives the same theta and λ to rounding, and its influences' squares sum to V(λ)
    rng = np.random.default_rng(17)
    grid = [Fraction(i, 5) for i in range(21)]
    interior = 0
    for trial in range(25):
        runs = []
        for i in range(36):
            passed, score = Fraction(int(rng.integers(0, 2)), 2), Fraction(int(rng.integers(0, 13)), 24)
            human = Fraction(int(rng.integers(0, 25)), 24) if rng.random() < 0.45 else None
            runs.append(Run(f"c{i % 11:02d}", passed + score, human, int(rng.integers(1, 5)), (passed, score)))
        sums = case_sums(runs)
        est = estimate(sums)
        assert all(x >= 0 for x in est.lam), trial
        v = _v_of(sums)
        least = v(est.lam)
        assert all(least <= v((x, z)) for x in grid for z in grid), trial
        interior += all(x > 0 for x in est.lam)
        assert est.standard_error == pytest.approx(float(least) ** 0.5, rel=1e-12)
        fitted = fit(sums, np.ones((1, len(sums.case_ids))))
        assert fitted.theta[0] == pytest.approx(float(est.theta), rel=1e-12)
        assert fitted.lam[0] == pytest.approx([float(x) for x in est.lam], abs=1e-12)
        assert float((influence(sums, np.ones((1, len(sums.case_ids))))[0] ** 2).sum()) == pytest.approx(float(least))
    assert interior >= 5   # the draws reach the interior solution, not only the edges


def test_a_constant_part_leaves_the_one_control_estimate():
    # a pass part that is the same on every run has b₁ = 0 on every case: its λ is 0 (the first candidate of a tie)
    # and the estimate is the one-control estimate on the score part, which is the judge's value less a constant
    rng = np.random.default_rng(3)
    runs = [Run(f"c{i % 7}", Fraction(1, 2) + Fraction(int(s), 24), Fraction(int(h), 24) if i % 3 else None, 2,
                (Fraction(1, 2), Fraction(int(s), 24)))
            for i, (s, h) in enumerate(zip(rng.integers(0, 13, 30), rng.integers(0, 25, 30)))]
    two, one = estimate(case_sums(runs)), estimate(case_sums([r._replace(parts=()) for r in runs]))
    assert two.lam == (0, one.lam[0]) and two.theta == one.theta


def test_collinear_parts_take_an_edge_exactly_and_in_float():
    # parts proportional on every run (f₂ = 2 f₁): b₂ = 2 b₁, so Σ b bᵀ is singular (det 0) and V depends on
    # λ₁ + 2 λ₂ alone; the least is on the edge λ₂ = 0 (the first candidate), the one-control estimate on f₁, exactly
    # and in float, where the rounded det is not solved (b₁ and b₂ within 1e-9 of collinear)
    rng = np.random.default_rng(8)
    runs = [Run(f"c{i % 9}", 3 * Fraction(int(v), 24), Fraction(int(v) + int(h) % 7, 24) if i % 2 else None, 1 + i % 3,
                (Fraction(int(v), 24), 2 * Fraction(int(v), 24)))
            for i, (v, h) in enumerate(zip(rng.integers(0, 13, 40), rng.integers(0, 25, 40)))]
    two = estimate(case_sums(runs))
    one = estimate(case_sums([Run(r.case_id, r.parts[0], r.human, r.weight) for r in runs]))
    assert 0 < one.lam[0] < 1   # here 0.791 (1268376656/1602885905): inside, so no cap of 1 tells them apart
    assert (two.theta, two.lam) == (one.theta, (one.lam[0], 0))
    fitted = fit(case_sums(runs), np.ones((1, 9)))
    assert fitted.theta[0] == pytest.approx(float(two.theta), rel=1e-12) and fitted.lam[0, 1] == 0


@pytest.mark.parametrize(("runs", "message"), [
    ([Run("c1", 1, 1, 1, (1, 1))], "case c1: the judge's parts (1, 1) do not sum to its value 1"),
    ([Run("c1", 1, 1, 1, (1, 0)), Run("c2", 1, 1, 1)], "the runs' judge values are split in [0, 2] parts"),
    ([Run("c1", 1, 1, 1, (1, 0, 0))], "the runs' judge values are split in [3] parts"),
])
def test_parts_must_be_two_on_every_run_and_sum_to_the_judges_value(runs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[").replace("]", r"\]")):
        case_sums(runs)


def _by_definition(sums, cases):
    """theta, λ, V(λ) by the per-case definitions of docs/judge_assisted.md, in Fractions, on ``cases`` only."""
    rows = [k for k, c in enumerate(sums.case_ids) if c in cases]
    n, m, y, f, g = ([Fraction(col[k]) for k in rows] for col in
                     (sums.runs, sums.drawn, sums.human, sums.judge, sums.judge_drawn))
    big_n, big_m = sum(n), sum(m)
    hy, hf, mf = sum(y) / big_m, sum(g) / big_m, sum(f) / big_n
    a = [(yc - hy * mc) / big_m for yc, mc in zip(y, m)]
    b = [(fc - mf * nc) / big_n - (gc - hf * mc) / big_m for fc, nc, gc, mc in zip(f, n, g, m)]
    sbb = sum(x * x for x in b)
    lam = min(max(-sum(x * z for x, z in zip(a, b)) / sbb, 0), 1) if sbb else 0
    return hy + lam * (mf - hf), lam, sum((x + lam * z) ** 2 for x, z in zip(a, b))


def test_the_moment_sums_give_the_per_case_definitions_exactly_on_any_cases():
    # estimate() reads 20 column sums of centred per-case moments (case_moments, solved); on random uneven draws
    # (weights 1/π from 1 to 7, several runs per case, some without a drawn run) it gives the per-case definitions'
    # theta, λ and V(λ) exactly, on all the cases and on any subset (a pair's shared cases: the others subtracted)
    rng = np.random.default_rng(11)
    for trial in range(20):
        runs = [Run(f"c{i % 13:02d}", Fraction(int(rng.integers(0, 13)), 12),
                    Fraction(int(rng.integers(0, 13)), 12) if rng.random() < 0.4 else None, int(rng.integers(1, 8)))
                for i in range(40)]
        sums = case_sums(runs)
        keep = rng.random(len(sums.case_ids)) < 0.7
        for cases in (None, keep):
            chosen = sums.case_ids if cases is None else [c for c, k in zip(sums.case_ids, keep) if k]
            est = estimate(sums, cases)
            if est is None:
                continue
            theta, lam, variance = _by_definition(sums, set(chosen))
            assert (est.theta, est.lam) == (theta, (lam,)), trial
            assert est.standard_error == pytest.approx(float(variance) ** 0.5, rel=1e-12)
            assert estimate(sums.restricted(chosen)) == est


def test_float_replicates_keep_exact_zeros_where_the_sums_are_zero():
    # a constant judge: its centred F and G are exact zeros, so λ = 0 in every replicate, not a ratio of roundings
    sums = case_sums([Run(f"c{i}", Fraction(7, 12), Fraction(i % 5, 4), 1 + i % 3) for i in range(9)])
    counts = case_counts(np.random.default_rng(2), 9, 200)
    assert np.all(fit(sums, counts).lam == 0)
    # a replicate that draws only cases whose human values are equal (1 here): Σ w A² is 0 to rounding, read as 0, so
    # Σ w a b = 0, λ = 0 and V(λ) = 0 exactly, as in exact arithmetic
    # (without the rule: V 1.8e-17, λ 4.6e-14, theta 0.9999999999999986)
    sums = case_sums([Run("c1", Fraction(1, 3), 1, 2), Run("c2", Fraction(2, 3), 1, 3), Run("c3", 0, 0, 3),
                      Run("c4", 1, Fraction(1, 3), 2), Run("c5", Fraction(1, 7), 0, 5)])
    fitted = fit(sums, np.array([[2.0, 1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0]]))
    assert (fitted.lam[0, 0], fitted.variance[0], fitted.theta[0]) == (0.0, 0.0, 1.0)
    assert fitted.variance[1] > 0


def test_the_runs_of_a_case_are_one_cluster_whatever_their_order_or_labels():
    shuffled = [HAND[4], HAND[2], HAND[1], HAND[3], HAND[0]]
    assert case_sums(shuffled) == case_sums(HAND)


def percentile(replicates: np.ndarray, level: Fraction) -> tuple[float, float]:
    """numpy's linear quantiles of the finite replicates at (1 − level)/2 and (1 + level)/2: the reference the
    judge-assisted intervals are checked against."""
    low, high = np.quantile(replicates[np.isfinite(replicates)], [(1 - float(level)) / 2, (1 + float(level)) / 2])
    return float(low), float(high)


def test_percentile_bounds_are_the_replicates_quantiles():
    # 1..5 at 50%: the 0.25 and 0.75 quantiles, h = 4 · 0.25 = 1 and 3: 2 and 4; 1..4 at 50%: h = 0.75 and 2.25:
    # 1.75 and 3.25 (linear); a NaN replicate is left out; none finite: None
    assert percentile_bounds(np.array([5.0, 1, 3, np.nan, 2, 4]), Fraction(1, 2)) == (2.0, 4.0)
    assert percentile_bounds(np.array([4.0, 3, 2, 1]), Fraction(1, 2)) == (1.75, 3.25)
    assert percentile_bounds(np.array([np.nan]), C95) is None


def test_lambda_zero_is_the_human_only_estimate_exactly():
    # A judge of 0 everywhere: F = G = 0, so b = 0 on every case and every replicate, λ = 0 exactly (the centred
    # moments of F and G are exact zeros), and theta is the inverse-probability-weighted mean of the drawn runs,
    # Σ ξ y/π / Σ ξ/π, in every replicate (to rounding: theta is read from centred sums).
    runs = [Run(f"c{i}", 0, (i * 7) % 5, 1 + i % 3) for i in range(12)] + [Run("c1", 0), Run("c4", 0)]
    sums = case_sums(runs)
    est = estimate(sums)
    weight = [1 + i % 3 for i in range(12)]   # w = 1/π
    assert est.lam == (0,)
    assert est.theta == sum(w * ((i * 7) % 5) for i, w in enumerate(weight)) / sum(weight)
    counts = case_counts(np.random.default_rng(3), len(sums.case_ids), 300)
    human_only = ratio_statistic(sums.human, sums.drawn)
    fitted = fit(sums, counts)
    assert np.all(fitted.lam == 0)
    assert np.allclose(fitted.theta, human_only(counts), rtol=1e-14, atol=0)
    # 12 labelled cases, 300 resamples: read at Hesterberg's level for K = 12 (both intervals widen alike)
    level = expanded_confidence(C95, [(12, 1.0)], 300)
    assert interval(sums, counts, C95) == pytest.approx(percentile(human_only(counts), level), rel=1e-12)


def test_every_run_drawn_with_probability_one_is_the_plain_mean():
    rng = np.random.default_rng(5)
    runs = [Run(f"c{i % 9}", int(rng.integers(0, 13)), int(rng.integers(0, 13)), 1) for i in range(30)]
    sums = case_sums(runs)
    est = estimate(sums)
    assert est.lam == (0,) and est.effective == est.labels == 30
    assert est.theta == Fraction(sum(r.human for r in runs), 30)
    counts = case_counts(rng, 9, 300)
    per_case = [sum(r.human for r in runs if r.case_id == c) for c in sums.case_ids]
    plain = percentile(ratio_statistic(per_case, sums.runs)(counts), expanded_confidence(C95, [(9, 1.0)], 300))
    assert interval(sums, counts, C95) == pytest.approx(plain, rel=1e-12)   # to rounding: theta from centred sums


def test_a_judge_equal_to_the_human_takes_lambda_near_one_and_the_judge_pool_mean():
    rng = np.random.default_rng(7)
    values = rng.integers(0, 13, size=400)
    drawn, probability = stratified_draw([int(v >= 10) for v in values], 80, rng)
    runs = [Run(f"c{i // 2:03d}", int(v), int(v) if d else None, 1 / p)
            for i, (v, d, p) in enumerate(zip(values, drawn, probability))]
    est = estimate(case_sums(runs))
    pool_mean = Fraction(int(values.sum()), 400)
    # the variance-minimising λ is ≥ 1 here, clipped to 1: theta = Hy + (Mf − Hf) = Mf since Hy = Hf (f = y)
    assert (est.lam, est.theta) == ((1,), pool_mean)
    assert est.effective > 2 * est.labels   # the judge is worth more than the human grades alone


def test_a_constant_judge_adds_nothing():
    runs = [Run("a", 5, 3, 2), Run("a", 5), Run("b", 5, 9, 4), Run("b", 5)]
    est = estimate(case_sums(runs))
    # λ = 0 (b = 0): theta = (3·2 + 9·4) / (2 + 4) = 42/6 = 7
    assert (est.lam, est.theta, est.effective) == ((0,), 7, 2)


def test_no_human_value_leaves_everything_undefined():
    sums = case_sums([Run("c1", 1), Run("c2", 0)])
    counts = case_counts(np.random.default_rng(0), 2, 50)
    assert estimate(sums) is None and interval(sums, counts, C95) is None and clt_interval(sums, C95) is None
    assert difference(sums, case_sums(HAND)) is None
    assert difference_interval(sums, case_sums(HAND), case_counts(np.random.default_rng(0), 2, 50), C95) is None
    assert estimate(case_sums([])) is None


def test_one_case_gives_the_point_and_replicates_without_a_drawn_case_are_left_out():
    one = case_sums([Run("c1", 1, 1, 2), Run("c1", 0)])
    assert interval(one, np.ones((20, 1)), C95) == (1.0, 1.0)
    # c2 and c3 carry no human value: a replicate drawing only them is NaN, left out of the bounds
    sums = case_sums([Run("c1", 1, 1, 2), Run("c1", 0, 0, 2), Run("c2", 1), Run("c3", 0)])
    assert np.isnan(fit(sums, np.array([[0.0, 2.0, 1.0]])).theta[0])
    assert interval(sums, case_counts(np.random.default_rng(1), 3, 200), C95) is not None


def test_the_expanded_level_worked_by_hand():
    # Hesterberg's expanded level, c' = 2 Φ(t_{K−1, (1+c)/2} · √(K/(K−1))) − 1. K = 6, c = 0.95:
    #   t_{5, 0.975} = 2.570582, √(6/5) = 1.095445, product 2.815931; Φ(2.815931) = 0.997568; c' = 0.995136.
    # K = 100: t_{99, 0.975} = 1.984217, √(100/99) = 1.005038, product 1.994213; Φ = 0.976936; c' = 0.953871.
    assert float(expanded_confidence(C95, [(6, 1.0)], 2000)) == pytest.approx(0.995136, abs=1e-6)
    assert float(expanded_confidence(C95, [(100, 1.0)], 2000)) == pytest.approx(0.953871, abs=1e-6)
    # it falls towards c as K grows, and is c itself in the limit (t -> z, √(K/(K−1)) -> 1)
    levels = [expanded_confidence(C95, [(k, 1.0)], 2000) for k in (6, 10, 30, 100, 1000, 10 ** 6)]
    assert levels == sorted(levels, reverse=True) and float(levels[-1]) == pytest.approx(0.95, abs=1e-6)


def test_one_or_two_units_take_the_cap_of_the_replicates_range():
    # K = 1: t has no degrees of freedom; K = 2: t_{1, 0.975} · √2 = 12.706 · 1.414 = 17.97, so 2Φ(17.97) − 1 is 1 in
    # float; both take 1 − 1/B (the levels 1/(2B) and 1 − 1/(2B): B = 2000 gives 0.9995, B = 200 gives 0.995).
    # K = 3 (t_2 · √1.5 = 4.303 · 1.225 = 5.27, c' = 1 − 1.4e-7) is capped too.
    for units in (0, 1, 2, 3):
        assert expanded_confidence(C95, [(units, 1.0)], 2000) == Fraction(1999, 2000)
    assert expanded_confidence(C95, [(2, 1.0)], 200) == Fraction(199, 200)


def test_the_expanded_level_of_two_parts_worked_by_hand():
    # parts (10 cases, V 1) and (40 cases, V 1): Welch-Satterthwaite ν = (1 + 1)² / (1/9 + 1/39) = 4 / 0.1367521 =
    # 29.25; the bootstrap's shortfall s² = (1 · 10/9 + 1 · 40/39) / 2 = (1.1111111 + 1.0256410) / 2 = 1.0683761,
    # s = 1.0336228; t_{29.25, 0.975} = 2.0444706, times s = 2.1132114; c' = 2 Φ(2.1132114) − 1 = 0.965417
    assert float(expanded_confidence(C95, [(10, 1.0), (40, 1.0)], 2000)) == pytest.approx(0.965417, abs=1e-6)
    # the 10 cases alone: t_{9, 0.975} · √(10/9) = 2.2621572 · 1.0540926 = 2.3845230, c' = 0.982899: the 40 cases
    # the judge carries make the variance's estimate surer, so the level is lower
    assert float(expanded_confidence(C95, [(10, 1.0)], 2000)) == pytest.approx(0.982899, abs=1e-6)
    # a part of no variance adds nothing (the human-only estimate's cases without a human value); all of none: the
    # first part's K alone
    assert expanded_confidence(C95, [(10, 2.5), (40, 0.0)], 2000) == expanded_confidence(C95, [(10, 1.0)], 2000)
    assert expanded_confidence(C95, [(10, 0.0), (40, 0.0)], 2000) == expanded_confidence(C95, [(10, 1.0)], 2000)
    # a part of one unit has no df: the cap, as one labelled case alone, also where its influence happens to be 0
    # (one labelled case whose judge mean is the subject's: u = λ (F_c − Mf n_c) / N = 0)
    assert expanded_confidence(C95, [(1, 1.0), (40, 1.0)], 2000) == Fraction(1999, 2000)
    assert expanded_confidence(C95, [(1, 0.0), (40, 1.0)], 2000) == Fraction(1999, 2000)
    # the more of the variance the judge-carried part holds, the nearer the level to 40 cases' own
    levels = [expanded_confidence(C95, [(10, 1.0), (40, v)], 2000) for v in (0.0, 1.0, 4.0, 100.0)]
    assert levels == sorted(levels, reverse=True)
    assert float(levels[-1]) == pytest.approx(float(expanded_confidence(C95, [(40, 1.0)], 2000)), abs=2e-4)


def test_variance_parts_split_the_influence_by_cases_with_a_human_value():
    # four one-run cases, w = 2 on the two drawn: c1 (f 1, y 1), c2 (f 0, y 0), c3 (f 1) and c4 (f 0) undrawn.
    # N = 4, M = 4, Hy = 2/4 = 1/2, Hf = 2/4 = 1/2, Mf = 2/4 = 1/2.
    # a = (Y − Hy m)/M: c1 (2 − 1)/4 = 1/4, c2 −1/4, c3 = c4 = 0.
    # b = (F − Mf n)/N − (G − Hf m)/M: c1 1/8 − 1/4 = −1/8, c2 −1/8 + 1/4 = 1/8, c3 1/8, c4 −1/8.
    # λ = clip(−Σab/Σb², 0, 1) = clip((1/32 + 1/32) / (4/64)) = 1; u = a + b = 1/8, −1/8, 1/8, −1/8:
    # Σ u² = 2/64 on the labelled cases and 2/64 on the others
    sums = case_sums([Run("c1", 1, 1, 2), Run("c2", 0, 0, 2), Run("c3", 1), Run("c4", 0)])
    assert variance_parts(sums) == [(2, pytest.approx(1 / 32)), (2, pytest.approx(1 / 32))]
    # the human-only estimate (no judge): u = a, all of V = 1/16 + 1/16 = 1/8 on the two labelled cases
    alone = case_sums([Run("c1", 0, 1, 2), Run("c2", 0, 0, 2), Run("c3", 0), Run("c4", 0)])
    assert variance_parts(alone) == [(2, pytest.approx(1 / 8)), (2, 0.0)]
    # one case without a human value is no part of its own (no df): V together, on K_L
    one_out = case_sums([Run("c1", 1, 1, 2), Run("c2", 0, 0, 2), Run("c3", 1)])
    assert len(variance_parts(one_out)) == 1 and variance_parts(one_out)[0][0] == 2


def test_the_interval_is_read_at_its_variance_parts_level():
    # 40 cases of two runs, the judge equal to the human (λ near 1), one run graded in 12 of them: the judge carries
    # the 28 others, so the level is below K_L = 12's alone, and the interval the percentile at it
    rng = np.random.default_rng(11)
    values = rng.integers(0, 13, size=(40, 2))
    runs = [Run(f"c{c:02d}", int(values[c, j]), int(values[c, j]) if j == 0 and c < 12 else None,
                Fraction(80, 12) if j == 0 and c < 12 else 1) for c in range(40) for j in range(2)]
    sums = case_sums(runs)
    parts = variance_parts(sums)
    assert [k for k, _ in parts] == [12, 28] and all(v > 0 for _, v in parts)
    level = expanded_confidence(C95, parts, 400)
    assert level < expanded_confidence(C95, [(12, 1.0)], 400)
    counts = case_counts(rng, 40, 400)
    assert interval(sums, counts, C95) == percentile(fit(sums, counts).theta, level)
    # a difference is read at the higher of its subjects' levels: against the same grades without the judge (all
    # of its variance on the 12 labelled cases), K_L = 12's
    alone = case_sums([r._replace(judge=0) for r in runs])
    assert difference_interval(sums, alone, counts, C95) == percentile(
        fit(sums, counts).theta - fit(alone, counts).theta, expanded_confidence(C95, [(12, 1.0)], 400))


def test_the_interval_rests_on_the_cases_with_a_human_value_and_widens_both_intervals_alike():
    # HAND: c1, c2, c3 each have a drawn run: K_L = 3, so the level is the cap 1 − 1/B and the bounds are the
    # percentile bounds at that level; a difference takes the fewer labelled cases of its two subjects
    sums = case_sums(HAND)
    assert labelled_cases(sums) == 3
    counts = case_counts(np.random.default_rng(2), 3, 400)
    assert interval(sums, counts, C95) == percentile(fit(sums, counts).theta, Fraction(399, 400))
    one_label = case_sums([Run("c1", 1, 1, 2), Run("c2", 0), Run("c3", 1)])
    assert labelled_cases(one_label) == 1
    low, high = difference_interval(sums, one_label, counts, C95)
    fixed = percentile(fit(sums, counts).theta - fit(one_label, counts).theta, Fraction(399, 400))
    assert (low, high) == fixed


@pytest.mark.parametrize("weight", [-1, Fraction(-1, 2)])
def test_a_labelled_run_needs_a_weight_of_zero_or_more(weight):
    with pytest.raises(ValueError, match=rf"case c1: a labelled run has weight {weight}, below 0"):
        case_sums([Run("c1", 1, 1, weight)])


def test_weights_sum_over_draws_and_a_grade_outside_every_draw_is_no_label():
    # A run listed by two draws at π 1/2 and 1/4 has w = 2 + 4 = 6; a human grade with w = 0 (no draw listed it)
    # is not a label: case c1 = runs (f 1, y 1, w 6), (f 0, y 0, w 0): n 2, labelled 1, m 6, Y 6, F 1, G 6.
    sums = case_sums([Run("c1", 1, 1, Fraction(1, 2) ** -1 + Fraction(1, 4) ** -1), Run("c1", 0, 0, 0)])
    assert (sums.runs, sums.labelled, sums.drawn, sums.human, sums.judge, sums.judge_drawn) == (
        (2,), (1,), (6,), (6,), (1,), (6,))


def test_one_estimator_gives_p_s_bar_and_q_final():
    # Q_final's per-run value is q_numerator(pass, credit)/(d·span); with λ = 0 on all three (a constant judge)
    # the estimate of its mean is exactly α·P + (1 − α)·s_bar/span of the other two estimates (one linear map).
    alpha, span = Fraction(1, 2), 12
    scores = [12, 7, 10, 3, 11, 9]
    probability = [HALF, HALF, Fraction(1, 3), Fraction(1, 3), 1, 1]
    def mean_of(values):
        runs = [Run(f"c{i // 2}", 0, v, 1 / p) for i, (v, p) in enumerate(zip(values, probability))]
        return estimate(case_sums(runs)).theta
    passed = [int(s >= 10) for s in scores]
    q = [Fraction(q_numerator(p, s, alpha, span), alpha.denominator * span) for p, s in zip(passed, scores)]
    assert mean_of(q) == alpha * mean_of(passed) + (1 - alpha) * mean_of(scores) / span


def test_paired_differences_use_the_shared_cases_and_the_same_replicates():
    first = case_sums(HAND + [Run("c9", 1, 1, 2)])        # c9 is not shared: it drops out
    second = case_sums([Run(c, 0, v, 1) for c, v in (("c1", 1), ("c2", 0), ("c3", 1))])
    # second: constant judge, all drawn: its plain mean 2/3; first on c1-c3 is the hand example, 58/139
    assert difference(first, second) == Fraction(58, 139) - Fraction(2, 3)
    same = case_sums(HAND)
    counts = case_counts(np.random.default_rng(2), 3, 400)
    assert difference_interval(same, same, counts, C95) == (0.0, 0.0)   # every replicate differs by 0
    low, high = difference_interval(first, second, counts, C95)
    assert low <= float(Fraction(58, 139) - Fraction(2, 3)) <= high


def test_the_stratified_draw_allocates_in_proportion_with_one_per_stratum():
    strata = ["pass"] * 2 + ["fail"] * 18
    drawn, probability = stratified_draw(strata, 5, np.random.default_rng(0))
    # quotas 5·2/20 = 1/2 (pass) and 5·18/20 = 9/2 (fail): one pass (the floor), four fails
    assert sum(drawn[:2]) == 1 and sum(drawn[2:]) == 4
    assert probability == [HALF] * 2 + [Fraction(4, 18)] * 18
    with pytest.raises(ValueError, match="cannot draw 1 of 20 units with at least one in each of 2 strata"):
        stratified_draw(strata, 1, np.random.default_rng(0))


def test_the_draw_is_seeded_by_the_declared_seed_and_the_values():
    units = [("c1", 3), ("c1", 10), ("c2", 7), ("c3", 12), ("c4", 0), ("c5", 11)]
    def draw(seed, subject="m", values=units):
        return stratified_draw([v >= 10 for _, v in values], 3, draw_generator(seed, subject, values))[0]
    assert draw(0) == draw(0)
    assert {tuple(draw(s)) for s in range(8)} != {tuple(draw(0))}
    assert draw_generator(0, "m", units).integers(1 << 30) != draw_generator(0, "n", units).integers(1 << 30)


@pytest.mark.slow   # end to end: make test-slow (CI runs it)
def test_ppi_python_agrees_for_a_mean_with_one_run_per_case():
    from ppi_py import ppi_mean_ci, ppi_mean_pointestimate  # test-only dependency (requirements-dev.txt)
    # ppi-python takes a labelled set and a disjoint unlabelled one: theta = λ' mean_U(f) + mean_L(y − λ' f).
    # Ours, with the pool of every run, is mean_L(y) + λ (mean_all(f) − mean_L(f)); mean_all = (n mean_L + N_U
    # mean_U)/N, so ours at λ is theirs at λ' = λ N_U / N: the same estimate, and the same CLT interval up to the
    # variance plug-ins (theirs: the two samples' variances; ours: the linearised variance over cases).
    rng = np.random.default_rng(11)
    n, n_unlabelled = 300, 1200
    y = rng.normal(size=n + n_unlabelled)
    f = 0.3 + 0.8 * y + 0.6 * rng.normal(size=y.size)
    runs = [Run(f"c{i:04d}", Fraction(float(f[i])), Fraction(float(y[i])) if i < n else None, 1) for i in range(y.size)]
    sums = case_sums(runs)
    est = estimate(sums)
    low, high = clt_interval(sums, C95)
    same = float(est.lam[0]) * n_unlabelled / (n + n_unlabelled)
    assert float(est.theta) == pytest.approx(float(ppi_mean_pointestimate(y[:n], f[:n], f[n:], lam=same)[0]), abs=1e-12)
    their_low, their_high = (float(x[0]) for x in ppi_mean_ci(y[:n], f[:n], f[n:], alpha=0.05, lam=same))
    assert (their_low, their_high) == pytest.approx((low, high), abs=1e-3 * (high - low))
    # Power-tuned by each: their λ' = Cov/((1 + n/N_U) Var f) pools f's variance over every run, ours (about
    # Cov/Var f, times N_U/N in their terms) takes it from the linearised variance, mostly the drawn runs': the
    # tuned estimates differ by (λ difference) · (mean_U f − mean_L f), here 0.11 standard errors.
    tuned = float(ppi_mean_pointestimate(y[:n], f[:n], f[n:])[0])
    assert abs(float(est.theta) - tuned) < 0.2 * est.standard_error
    their_low, their_high = (float(x[0]) for x in ppi_mean_ci(y[:n], f[:n], f[n:], alpha=0.05))
    assert (their_low, their_high) == pytest.approx((low, high), abs=0.05 * (high - low))

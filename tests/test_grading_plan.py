"""The grading budget (rgbench.stats.grading_plan): two-phase variance parts, grades for a half-width, grades to
decide an order. Every expected value is worked by hand in the comment beside it."""

from __future__ import annotations

import dataclasses
import re
import shutil
from fractions import Fraction

import numpy as np
import pytest
from treebuilder import REPO

from rgbench.cli import run_script
from rgbench.commands import plan as plan_command
from rgbench.stats.grading_plan import (
    PairNeed,
    Phase,
    expected_labelled,
    grades_for_half_width,
    leverage,
    pair_grades_for_half_width,
    phase,
    phase_two_variance,
    quantile,
    residual_variance,
    smallest,
    split,
)
from rgbench.stats.judge_assisted import Run
from rgbench.stats.wilson import wilson_interval

C, B = Fraction(95, 100), 2000
ONE = (1,) * 300   # 300 cases of one run each: n labels reach K_L = n cases exactly (expected_labelled)


def drawn_once(s2: float, labels: int) -> Phase:
    """A subject of 300 one-run cases, ``labels`` of them graded in one uniform draw: T₀ = (1/n₀ − 1/300) S²_e, its
    precision H = n₀ / (300 (300 − n₀))."""
    return Phase(s2, labels, ONE, labels, (1 / labels - 1 / 300) * s2, labels / (300 * (300 - labels)))


T20 = (1 / 20 - 1 / 300) * 0.04   # = 0.0018667: T₀ of 20 grades at S²_e 0.04
# q(K) = t_{K−1, 0.975} · √(K/(K − 1)), what 2Φ(q) − 1 = c' gives back (uncapped K):
Q20 = 2.0930241 * 1.0259784   # = 2.1473974
Q3 = 3.4807564   # K_L <= 4: c' capped at 1 − 1/2000 (at 4, 2Φ(t_{3, 0.975} · √(4/3) = 3.6748) − 1 = 0.99976 is above it)
Z2 = 1.9599640 ** 2   # z² = 3.8414588 at 95%: Wilson's, at the nominal level


def test_quantile_is_the_expanded_level_normal_quantile():
    assert quantile(C, [(20, 1.0)], B) == pytest.approx(Q20)   # 2.1474, not z = 1.96
    assert quantile(C, [(300, 1.0)], B) == pytest.approx(1.9679297 * 1.0016708)   # 1.9712, near z
    # K_L <= 3: c' capped at 1 − 1/2000, Φ⁻¹(1 − 1/4000) = 3.4808
    assert quantile(C, [(3, 1.0)], B) == pytest.approx(3.4807564) == quantile(C, [(1, 1.0)], B)


def test_parts_at_a_further_draw_keep_the_judge_carried_cases_share():
    # 300 one-run cases, 20 graded in one uniform draw (T₀ = T20 = 0.0018667), today's split: V_L 0.0025 on the 20
    # labelled cases, V_U 0.0014 on the 280 others (each 0.0014 / 280 = 5e-6)
    p = Phase(0.04, 20, ONE, 20, T20, 20 / (300 * 280), ((20, 0.0025), (280, 0.0014)))
    assert p.parts() == [(20, 0.0025), (280, 0.0014)]
    # n = 60: K_L 60 (one run a case), 240 others keep 5e-6 each, V_U = 0.0012; T(60) = (1/60 − 1/300) · 0.04 =
    # 0.00053333 (one uniform draw of 60), V(60) = 0.0039 − 0.0018667 + 0.00053333 = 0.00256667, V_L = 0.00136667
    (known, v_l), (others, v_u) = p.parts(60)
    assert (known, others) == (60, 240)
    assert (v_l, v_u) == (pytest.approx(0.00136667, abs=1e-8), pytest.approx(0.0012))
    # ν = 0.00256667² / (0.00136667² / 59 + 0.0012² / 239) = 6.5878e-6 / 3.7682e-8 = 174.82, s² = (0.00136667 · 60/59
    # + 0.0012 · 240/239) / 0.00256667 = 1.010981: q = t_{174.82, 0.975} · √s² = 1.973626 · 1.005476 = 1.984433,
    # below the 60 labelled cases' own 2.017882 (t_{59, 0.975} · √(60/59))
    assert quantile(C, p.parts(60), B) == pytest.approx(1.984433, abs=1e-6)
    assert quantile(C, [(60, 1.0)], B) == pytest.approx(2.017882, abs=1e-6)
    # one case left without a label is no part of its own: V together on K_L
    assert p.parts(299) == [(299, pytest.approx(0.0039 - T20 + (1 / 299 - 1 / 300) * 0.04))]
    # a labelled case keeps at least the judge-carried share each: with today's T₀ at 0.0035, c = v / (H + v) =
    # 5.952e-4 / (2.381e-4 + 5.952e-4) = 0.7143 and T(60) = 0.2857² · 0.0035 + 0.7143² · (1/40 − 1/280) · 280² / 300²
    # · 0.04 = 2.857e-4 + 3.810e-4 = 6.667e-4, so V(60) = 0.0039 − 0.0035 + 0.00066667 = 0.00106667, below V_U
    # 0.0012: V_L is floored at 60 · 5e-6 = 0.0003, not 0 (a level from the 240 others alone)
    high = p._replace(now=0.0035)
    assert high.parts(60) == [(60, pytest.approx(0.0003)), (240, pytest.approx(0.0012))]
    # without a split (no judge-carried variance known): K_L(n) alone, as before the split
    assert p._replace(split=()).parts(60) == [(60, 1.0)] and p._replace(split=()).parts() == [(20, 1.0)]


def test_expected_labelled_cases():
    # runs (1, 1, 2, 2), N = 6, n = 2: a one-run case is missed with C(5, 2)/C(6, 2) = 10/15, a two-run case with
    # C(4, 2)/C(6, 2) = 6/15: 2 · 5/15 + 2 · 9/15 = 28/15
    assert expected_labelled((1, 1, 2, 2), 2) == pytest.approx(28 / 15)
    # n = 5: one-run cases missed with C(5, 5)/C(6, 5) = 1/6, two-run cases never (C(4, 5) = 0): 2 · 5/6 + 2 = 11/3
    assert expected_labelled((1, 1, 2, 2), 5) == pytest.approx(11 / 3)
    assert expected_labelled((1, 1, 2, 2), 0) == 0 and expected_labelled((1, 1, 2, 2), 6) == 4
    assert expected_labelled(ONE, 57) == pytest.approx(57)   # one run a case: every label a new case


def test_labelled_at_rounds_the_expectation_and_keeps_todays_cases():
    # nothing graded yet: n distinct runs
    assert Phase(0.04, 0, (1, 1, 2, 2), 0, 0.0, 0.0).labelled_at(2) == 2   # 28/15 = 1.87 -> 2
    assert Phase(0.04, 0, (1, 1, 2, 2), 0, 0.0, 0.0).labelled_at(5) == 4   # 11/3 = 3.67 -> 4
    assert Phase(0.04, 3, (1, 1, 2, 2), 3, 0.0, 0.0).labelled_at(3) == 3   # expected 2.6 -> 3; today's 3
    assert Phase(0.04, 2, (1, 1, 2, 2), 2, 0.0, 0.0).labelled_at(1) == 2   # expected 0.83 -> 1, below today's 2
    # 2 graded, a further draw of 3 over the 4 runs left: 5 distinct runs, 11/3 -> 4, as one draw of 5
    assert Phase(0.04, 2, (1, 1, 2, 2), 2, 0.0, 0.0).labelled_at(5) == 4


def test_term_pools_today_with_one_further_uniform_draw_over_the_runs_left():
    phase = drawn_once(0.04, 20)
    assert phase.term(20) == T20   # today: T₀
    # 20 + 40: R = 280 runs left, v = 40/(280 · 240) = 1/1680, H = 20/(300 · 280) = 1/4200, so the further draw's
    # share c = (1/1680)/(1/4200 + 1/1680) = 2.5/3.5 = 5/7: (2/7)² · 0.0018667 + (5/7)² · (1/40 − 1/280) · 280²/300²
    # · 0.04 = 0.00015238 + 0.51020 · 0.021429 · 0.87111 · 0.04 = 0.00015238 + 0.00038095 = 0.00053333, one
    # uniform draw of 60's (1/60 − 1/300) · 0.04 = 0.00053333 exactly
    assert phase.term(60) == pytest.approx(0.00053333, abs=1e-8)
    assert phase.term(60) == pytest.approx((1 / 60 - 1 / 300) * 0.04)
    # today's T₀ twice one uniform draw's (a worse first draw) keeps (2/7)² of it: 0.00030476 + 0.00038095
    worse = phase._replace(now=2 * T20)
    assert worse.term(60) == pytest.approx(0.00068571, abs=1e-8)
    # a further draw of every run left (280: c = 1) leaves nothing, nor does any larger count
    assert phase.term(300) == 0.0 == phase.term(320)
    # every run graded in a census (H inf): nothing is left, and no draw changes T₀
    assert Phase(0.04, 300, ONE, 300, 0.0, float("inf")).term(600) == 0.0


def test_term_rises_at_most_once_then_falls_so_bisection_holds():
    # search bisects on the half-width, which needs T(n0 + m) to fall in m, or rise once (a small further draw
    # pooled with a today's better than one uniform draw's can add variance) and then fall: at most one change of
    # direction, from up to down, for T0 from half to twice one uniform draw's
    for runs in (4, 10, 90, 300):
        for labels in sorted({1, 2, runs // 4, runs // 2, runs - 1}):
            for scale in (0.5, 1, 2):
                one = Phase(1.0, labels, (1,) * runs, labels, scale * (1 / labels - 1 / runs),
                            labels / (runs * (runs - labels)))
                terms = [one.term(labels + m) for m in range(runs + 1)]
                signs = [after > before for before, after in zip(terms, terms[1:]) if after != before]
                assert signs == sorted(signs, reverse=True), (runs, labels, scale)   # ups, then downs


def test_smallest_bisects_a_monotone_condition():
    assert smallest(0, 10, lambda n: n * n >= 30) == 6   # 5² = 25 < 30 <= 36 = 6²
    assert smallest(7, 10, lambda n: n * n >= 30) == 7
    assert smallest(0, 5, lambda n: n * n >= 30) is None   # 25 < 30 at the top


def test_split_in_proportion_to_spread_within_each_subjects_range():
    a = drawn_once(0.04, 20)
    # S = 0.2 and 0.1: the first takes 2/3 of 81 = 54, the second 27
    assert split(81, a, drawn_once(0.01, 20)) == (54, 27)
    # 2/3 of 80 = 53.3 -> 53, the second 27
    assert split(80, a, drawn_once(0.01, 20)) == (53, 27)
    # the second has 60 already, above its share 1/3 · 113 = 37.7: it keeps 60, the first takes the other 53
    assert split(113, a, drawn_once(0.01, 60)) == (53, 60)
    # at most every run: 2/3 of 600 = 400 -> the first's 300 runs, the second the other 300
    assert split(600, a, drawn_once(0.01, 20)) == (300, 300)
    # no residual on either side: half each
    assert split(60, drawn_once(0.0, 20), drawn_once(0.0, 20)) == (30, 30)


def test_residual_variance_unweighted_and_weighted():
    # y − λ f at λ = 0.5 over (1, 0), (0, 0), (1, 1), (0, 1): e = 1, 0, 0.5, −0.5; mean 0.25;
    # Σ (e − 0.25)² = 0.5625 + 0.0625 + 0.0625 + 0.5625 = 1.25; / 4 · 4/2 = 0.625 (λ inside (0, 1) is fitted too,
    # so n − 2); at λ = 1 (clipped, not fitted): e = 1, 0, 0, −1, mean 0, Σ e² = 2; / 4 · 4/3 = 0.66667
    runs = [(1.0, (0.0,), 1.0), (0.0, (0.0,), 1.0), (1.0, (1.0,), 1.0), (0.0, (1.0,), 1.0)]
    assert residual_variance(runs, (0.5,)) == pytest.approx(1.25 / 2)
    assert residual_variance(runs, (1.0,)) == pytest.approx(2 / 3)
    assert residual_variance(runs[1:3], (0.5,)) == 0.0   # two runs, two fitted quantities: no residual freedom left
    # two runs of one judge value: λ f is a constant there, which ē absorbs, so one quantity is fitted: e = 1, 0,
    # Σ (e − 1/2)² = 1/2 over 2 − 1
    assert residual_variance(runs[:2], (0.5,)) == pytest.approx(0.5)
    # weights 3, 1 on e = 1, 0: mean 3/4; Σ w (e − 3/4)² = 3 · 1/16 + 9/16 = 12/16; over Σ w g, g = 1 − 2 w/W +
    # Σ w²/W² (ē alone fitted; W = 4, Σ w² = 10): g = 1 − 6/4 + 10/16 = 1/8 and 1 − 2/4 + 10/16 = 9/8, Σ w g =
    # 3/8 + 9/8 = 3/2; 12/16 / (3/2) = 0.5 (equal weights would give Σ w g = W (n − 1)/n = 2: 0.375)
    assert residual_variance([(1.0, (0.0,), 3.0), (0.0, (0.0,), 1.0)], (0.0,)) == pytest.approx(0.5)
    # two controls (a judge's two parts), λ = (0.5, 1): e = y − 0.5 f₁ − f₂ over (1; 0, 0), (1; 1, 0), (0; 0, 1),
    # (1; 1, 1): 1, 0.5, −1, −0.5, mean 0; Σ e² = 1 + 0.25 + 1 + 0.25 = 2.5; / 4 · 4/(4 − 3) = 2.5 (ē, λ₁ and λ₂
    # fitted: two controls' λ have no cap of 1); at λ = (0, 1), λ₁ at its bound: / 4 · 4/(4 − 2) over e = 1, 1, −1, 0
    # (mean 1/4): Σ (e − 1/4)² = 9/16 + 9/16 + 25/16 + 1/16 = 44/16; · 1/2 = 1.375
    two = [(1.0, (0.0, 0.0), 1.0), (1.0, (1.0, 0.0), 1.0), (0.0, (0.0, 1.0), 1.0), (1.0, (1.0, 1.0), 1.0)]
    assert residual_variance(two, (0.5, 1.0)) == pytest.approx(2.5)
    assert residual_variance(two, (0.0, 1.0)) == pytest.approx(1.375)
    # λ = (0.5, 0.5), both fitted: e = 1, 0.5, −0.5, 0, mean 0.25; Σ (e − 0.25)² = 0.5625 + 0.0625 + 0.5625 + 0.0625
    # = 1.25; / 4 · 4/(4 − 3) = 1.25
    assert residual_variance(two, (0.5, 0.5)) == pytest.approx(1.25)


def test_the_leverage_makes_both_variances_unbiased_under_unequal_weights():
    # 20 graded runs as an active draw leaves them (weights 12 on 6 runs, 1.5 on 14: π at its floor and near 2/3),
    # y = 0.4 f + N(0, 0.1²) independent, λ fitted on them (weighted least squares; inside (0, 1)): over 1,500 draws,
    # the means of S²_e and of T₀ N² / Σ a, each σ² = 0.01 if unbiased, are within 3 Monte-Carlo SE of it (0.99 and
    # 0.99 of it here; SE about 0.008 and 0.015 of it); n/(n − d), the equal-weights rule, leaves T₀ at 0.76 of it
    rng = np.random.default_rng(28)
    f = rng.uniform(0, 1, 20)
    w = np.where(np.arange(20) < 6, 12.0, 1.5)
    x = np.column_stack([np.ones(20), f])
    s2, t0, plain = [], [], []
    for row in 0.4 * f + rng.normal(0, 0.1, size=(1500, 20)):
        lam = float(np.linalg.lstsq(x * np.sqrt(w)[:, None], row * np.sqrt(w), rcond=None)[0][1])
        assert 0 < lam < 1
        runs = [(float(a), (float(b),), float(c)) for a, b, c in zip(row, f, w)]
        s2.append(residual_variance(runs, (lam,)) * 100)
        t0.append(phase_two_variance(runs, (lam,), 100) * 100 ** 3 / float(np.sum(w * (w - 1))))
        e = row - lam * f
        e = e - np.sum(w * e) / np.sum(w)
        plain.append(float(np.sum(w * (w - 1) * e * e) / np.sum(w * (w - 1))) * 20 / 18 * 100)
    assert np.mean(s2) == pytest.approx(1, abs=0.03) and np.mean(t0) == pytest.approx(1, abs=0.05)
    assert np.mean(plain) < 0.85
    # equal weights: g = 1 − h_ii, Σ g = n − d (here n 20, d 2)
    assert sum(leverage([(0.0, (float(b),), 5.0) for b in f], (0.4,))) == pytest.approx(18)
    # λ at a bound is not fitted: ē alone, Σ g = n − 1; no more runs than fitted quantities: no g
    assert sum(leverage([(0.0, (float(b),), 5.0) for b in f], (1.0,))) == pytest.approx(19)
    assert leverage([(0.0, (0.0,), 2.0), (1.0, (1.0,), 3.0)], (0.4,)) == []


def test_residual_variance_of_one_run_is_zero():
    assert residual_variance([(1.0, (0.0,), 2.0)], (0.3,)) == 0.0
    assert residual_variance([], (0.3,)) == 0.0


def test_v_full_subtracts_each_phase_and_floors_at_zero():
    # The floor is q(300) · √(V_full + term(300)), every run graded (term 0). Today's variance 0.0025 (the
    # replicates' SD 0.05; half-width q(20) · 0.05): V_full = 0.0025 − T₀ = 0.0025 − 0.00186667 = 0.00063333:
    # q(300) · √0.00063333 = 1.9712178 · 0.025166 = 0.049608
    phase = drawn_once(0.04, 20)
    q300 = 1.9679297 * 1.0016708
    assert grades_for_half_width(Q20 * 0.05, 0.05, phase, 1, C, B).half_width_all == pytest.approx(
        q300 * 0.00063333 ** 0.5, rel=1e-5) == pytest.approx(0.049608, abs=1e-6)
    # 0.001 < 0.00186667: V_full floors at 0, and every run graded leaves nothing
    assert grades_for_half_width(Q20 * 0.001 ** 0.5, 0.001 ** 0.5, phase, 1, C, B).half_width_all == 0.0
    # every run graded with weight 1 (T₀ = 0): V_full is the variance itself, q(300) · 0.05 = 0.098561
    every = Phase(0.04, 300, ONE, 300, 0.0, float("inf"))
    assert grades_for_half_width(0.1, 0.05, every, 1, C, B).half_width_all == pytest.approx(q300 * 0.05)
    # today's variance is the replicates' SD², whatever the half-width: a BCa interval 3% wider than q(20) · SD
    # (its shape at few grades) moves neither the floor nor a count
    assert grades_for_half_width(1.03 * Q20 * 0.05, 0.05, phase, 1, C, B).half_width_all == pytest.approx(0.049608,
                                                                                                          abs=1e-6)
    assert grades_for_half_width(1.03 * 0.1, 0.1 / Q20, phase, 0.06, C, B).needed == \
        grades_for_half_width(0.1, 0.1 / Q20, phase, 0.06, C, B).needed == 37


def test_grades_for_half_width_hand_computed():
    # half-width 0.1 over K_L = 20, the replicates' SD 0.1 / q(20): V = (0.1 / 2.1473974)² = 0.0021686; less T₀ =
    # 0.0018667: V_full = 0.00030191. One run a case and draws over the runs left, so n graded runs are n cases and
    # T = (1/n − 1/300) · 0.04 (test_term_pools_today_with_one_further_uniform_draw_over_the_runs_left). At n = 57:
    # T = 0.00056842, V = 0.00087033, q(57) = 2.0210477, 2.0210477 · 0.0295014 = 0.05962 <= 0.06. At 56: T =
    # 0.00058095, V = 0.00088286, q(56) = 2.0221813, 2.0221813 · 0.0297130 = 0.06009 > 0.06. So 57, 37 more (the
    # draws pooled by size, which listed graded runs again, needed 42 draws)
    need = grades_for_half_width(0.1, 0.1 / Q20, drawn_once(0.04, 20), 0.06, C, B)
    assert need.needed == 37
    # every run graded: q(300) · √0.00030191 = 1.9712178 · 0.0173756 = 0.034251
    assert need.half_width_all == pytest.approx(0.034251, abs=1e-6)


def test_grades_for_half_width_met_now_and_out_of_reach():
    phase = drawn_once(0.04, 20)
    assert grades_for_half_width(0.1, 0.1 / Q20, phase, 0.10, C, B).needed == 0       # met now
    assert grades_for_half_width(0.1, 0.1 / Q20, phase, 0.0342, C, B).needed is None   # below the floor 0.034251
    # a judge that leaves no residual (S²_e = 0): only the level narrows, q(300) · √0.0021686 = 0.0918 > 0.06
    assert grades_for_half_width(0.1, 0.1 / Q20, drawn_once(0.0, 20), 0.06, C, B).needed is None


def test_grades_for_half_width_also_reaches_the_cases_a_reliability_label_needs():
    # the board labels a judge-assisted figure on fewer than reliability_min_cases cases with a human grade
    # indicative, so the count reaches them too. 20 graded one-run cases (K_L 20, every grade a new case): the
    # half-width 0.10 is met now (0 more) but 30 cases need 10 more; the half-width 0.06 needs 37 more (57 cases,
    # test_grades_for_half_width_hand_computed), which 30 cases do not raise
    phase = drawn_once(0.04, 20)
    assert grades_for_half_width(0.1, 0.1 / Q20, phase, 0.10, C, B, min_cases=20).needed == 0
    assert grades_for_half_width(0.1, 0.1 / Q20, phase, 0.10, C, B, min_cases=30).needed == 10
    assert grades_for_half_width(0.1, 0.1 / Q20, phase, 0.06, C, B, min_cases=30).needed == 37
    assert grades_for_half_width(0.1, 0.1 / Q20, phase, 0.06, C, B, min_cases=60).needed == 40
    # 8 cases of 2 runs, 4 graded on 4 cases: grading all 16 runs gives 8 cases, never 10
    few = Phase(0.04, 4, (2,) * 8, 4, 0.0, 4 / (16 * 12))
    assert grades_for_half_width(0.1, 0.0, few, 0.2, C, B, min_cases=10) == (None, pytest.approx(0.0))
    # a P of 0 (Wilson's): 50 cases of 2 runs, 25 graded on 22 cases needs 45 graded runs (35 cases) for 0.05
    # (test_wilson_budget_counts_labelled_cases) and 54 for 40 cases (expected 39.55 -> 40; 53 gives 39.08 -> 39)
    two = Phase(0.0, 25, (2,) * 50, 22, 0.0, 25 / (100 * 75))
    assert grades_for_half_width(Z2 / (2 * (22 + Z2)), 0.0, two, 0.05, C, B, wilson=True, min_cases=40).needed == 29
    assert grades_for_half_width(Z2 / (2 * (22 + Z2)), 0.0, two, 0.05, C, B, wilson=True, min_cases=30).needed == 20


def test_grades_for_half_width_never_beyond_every_run():
    # just above the floor: the count is at most the 280 runs left
    need = grades_for_half_width(0.1, 0.1 / Q20, drawn_once(0.04, 20), 0.0343, C, B)
    assert need.needed is not None and 0 < need.needed <= 280


def test_pair_grades_split_in_proportion_to_spread():
    # half-width 0.13 over K_L 20 and 20, the replicates' SD 0.13 / q(20): V = (0.13 / 2.1473974)² = 0.0036649, less
    # T₀ = (1/20 − 1/300)(0.04 + 0.01) = 0.0023333: V_full = 0.0013316. 81 labels split 54, 27 (S 0.2, 0.1: 2/3 of
    # 81), read at the fewer K_L, 27: q(27) = 2.0946859; terms (1/54 − 1/300) · 0.04 = 0.00060741 and (1/27 − 1/300)
    # · 0.01 = 0.00033704 (one uniform draw each,
    # test_term_pools_today_with_one_further_uniform_draw_over_the_runs_left); V = 0.0022760, 2.0946859 · 0.0477076
    # = 0.09993 <= 0.1. 80 labels (53, 27): V = 0.0022900, 0.10024 > 0.1. So 54 − 20 = 34 and 27 − 20 = 7 more to
    # decide a difference of 0.1 (the interval reaching ±0.1)
    need = pair_grades_for_half_width(0.13, 0.13 / Q20, drawn_once(0.04, 20), drawn_once(0.01, 20), 0.1, C, B)
    assert (need.first, need.second) == (34, 7)


def test_pair_grades_keep_a_subject_graded_beyond_its_share():
    # the second has 60 graded, above its share: it keeps 60 and the first closes the gap alone, the level now at
    # the first's K_L. V_full = 0.0036649 − 0.0018667 − (1/60 − 1/300) 0.01 = 0.0016649. The first at 53: V =
    # 0.0016649 + (1/53 − 1/300) · 0.04 + 0.00013333 = 0.0024196, q(53) = 2.0258496, 2.0258496 · 0.0491896 =
    # 0.09965 <= 0.1; at 52: V = 0.0024341, q(52) = 2.0271704, 0.10001 > 0.1. So 33 more of the first, none of the
    # second
    need = pair_grades_for_half_width(0.13, 0.13 / Q20, drawn_once(0.04, 20), drawn_once(0.01, 60), 0.1, C, B)
    assert (need.first, need.second) == (33, 0)


def test_pair_grades_met_now_and_out_of_reach():
    a, b = drawn_once(0.04, 20), drawn_once(0.01, 20)
    assert pair_grades_for_half_width(0.13, 0.13 / Q20, a, b, 0.2, C, B) == (0, 0)   # 0.2 is decided now
    # every run of both graded: q(300) · √0.0013316 = 0.0719 > 0.01, no grading decides a difference of 0.01
    assert pair_grades_for_half_width(0.13, 0.13 / Q20, a, b, 0.01, C, B) == (None, None)


def test_wilson_budget_counts_labelled_cases():
    # P = 0 over K_L labelled cases: Wilson's [0, z²/(K_L + z²)], half-width z²/(2(K_L + z²)); at 20 cases
    # 3.8414588 / 47.682918 = 0.080563, the board's interval now
    half_now = Z2 / (2 * (20 + Z2))
    assert half_now == pytest.approx(wilson_interval(0, 20)[1] / 2) == pytest.approx(0.080563, abs=1e-6)
    # <= 0.05 once K_L >= z²/0.1 − z² = 38.414588 − 3.8414588 = 34.57: 35 cases, one run each, 15 more (a draw
    # over the runs left: every grade a new case); every run graded, 300 cases: 3.8414588 / 607.68292 = 0.0063215
    need = grades_for_half_width(half_now, 0.0, drawn_once(0.0, 20), 0.05, C, B, wilson=True)   # replicates all 0
    assert need == (15, pytest.approx(0.0063215, abs=1e-7))
    # the bootstrap model, given today's variance (0.080563 / q(20))², would read S²_e = 0 (every grade 0) as "only
    # the level narrows": q(300)/q(20) · 0.080563 = 0.07395 > 0.05 at every run, no count
    assert grades_for_half_width(half_now, half_now / Q20, drawn_once(0.0, 20), 0.05, C, B).needed is None
    # 50 cases of 2 runs, 25 graded on 22 cases (examples/judgeassist's synth-002): d distinct runs reach 50 (1 −
    # (100 − d)(99 − d)/9900) cases: d = 45 gives 50 (1 − 55 · 54/9900) = 50 · 0.7 = 35, d = 44 gives 50 (1 − 56 ·
    # 55/9900) = 34.44 -> 34: 45, 20 more. Every case: 3.8414588 / 107.68292 = 0.035674
    two = Phase(0.0, 25, (2,) * 50, 22, 0.0, 25 / (100 * 75))
    assert grades_for_half_width(Z2 / (2 * (22 + Z2)), 0.0, two, 0.05, C, B, wilson=True) == (
        20, pytest.approx(0.035674, abs=1e-6))
    assert grades_for_half_width(0.04, 0.0, two, 0.05, C, B, wilson=True).needed == 0   # met now
    assert grades_for_half_width(0.08, 0.0, two, 0.03, C, B, wilson=True).needed is None   # 0.035674 at every case


# A pair on the cases it shares: A has c1-c4, B c2-c5, a judge of 0 (so λ = 0 and e = y), each subject's 4 graded
# runs of 5 one uniform draw (w = 5/4; the run not drawn 0)
W = Fraction(5, 4)
A_RUNS = [Run("c1", 0, 1, W), Run("c2", 0, 0, W), Run("c2", 0, None, 0), Run("c3", 0, 1, W), Run("c4", 0, 1, W)]
B_RUNS = [Run("c2", 0, 1, W), Run("c3", 0, 0, W), Run("c3", 0, None, 0), Run("c4", 0, 0, W), Run("c5", 0, 1, W)]
SHARED = {"c2", "c3", "c4"}
H = 4 / (5 * 1)   # each subject's precision: v = n/(N(N − n)) of 4 of 5


def test_phase_on_a_pairs_shared_cases():
    # A over all its cases: e = 1, 0, 1, 1, mean 3/4, Σ (e − ē)² = 3/16 + 9/16 = 3/4, / 4 · 4/3 = 1/4; n 4 of N 5;
    # T₀ = Σ w (w − 1)(e − ē)² / N² · n/(n − 1) = 5/16 · 3/4 / 25 · 4/3 = 0.0125, the (1/4 − 1/5) · 1/4 of one
    # uniform draw of 4 of 5
    # split: λ = 0, u = a = (Y − Hy m)/M with M = 4W = 5, Hy = 3/4: c1, c3, c4 (5/4 − 15/16)/5 = 1/16, c2 −3/16;
    # Σ u² = 3/256 + 9/256 = 3/64, every case labelled: one part
    assert phase(A_RUNS, H) == (pytest.approx(1 / 4), 4, (1, 2, 1, 1), 4, pytest.approx(0.0125), H,
                                ((4, pytest.approx(3 / 64)),))
    # on c2-c4: e = 0, 1, 1, mean 2/3, Σ = 4/9 + 1/9 + 1/9 = 2/3, / 3 · 3/2 = 1/3; n 3 of N 4 (c2's two runs), K_L 3;
    # T₀ = 5/16 · 2/3 / 16 · 3/2 = 5/256 (the draw's π is 4/5 of every run, not 3/4 of these: not (1/3 − 1/4) · 1/3)
    # split on c2-c4: M = 15/4, Hy = 2/3, u = −2/9, 1/9, 1/9, Σ u² = 6/81 = 2/27
    assert phase(A_RUNS, H, SHARED) == (pytest.approx(1 / 3), 3, (2, 1, 1), 3, pytest.approx(5 / 256), H,
                                        ((3, pytest.approx(2 / 27)),))
    # B on c2-c4: e = 1, 0, 0, the same 1/3 and 5/256; N 4 (c3's two runs); over all: e = 1, 0, 0, 1, Σ = 1,
    # / 4 · 4/3 = 1/3, T₀ = 5/16 · 1 / 25 · 4/3 = 1/60
    # (split: Hy = 1/3 on c2-c4, u = 2/9, −1/9, −1/9, Σ 2/27; over all Hy = 1/2, u = ±(5/8)/5 = ±1/8, Σ 4/64 = 1/16)
    assert phase(B_RUNS, H, SHARED) == (pytest.approx(1 / 3), 3, (1, 2, 1), 3, pytest.approx(5 / 256), H,
                                        ((3, pytest.approx(2 / 27)),))
    assert phase(B_RUNS, H) == (pytest.approx(1 / 3), 4, (1, 2, 1, 1), 4, pytest.approx(1 / 60), H,
                                ((4, pytest.approx(1 / 16)),))
    # no human value: nothing to go on
    assert phase([Run("c1", 1), Run("c2", 0)], 0.0) == (0.0, 0, (1, 1), 0, 0.0, 0.0, ())


def test_phase_two_variance_of_weights_from_several_draws():
    # graded runs (y, f, w) at λ = 0: e = 1, 0, 0 with weights 3, 2, 1 (pooled draws): ē = Σ w e / Σ w = 3/6 = 1/2,
    # a = w (w − 1) = 6, 2, 0 (a weight-1 run adds nothing: it was certain to be graded); Σ a (e − ē)² = 6/4 + 2/4 =
    # 2; g = 1 − 2 w/6 + 14/36 = 7/18, 13/18, 19/18, Σ a g = 42/18 + 26/18 = 34/9; T₀ = 2 / (34/9) · Σ a / N² =
    # 9/17 · 8/36 = 2/17 (with n/(n − 1) in place of Σ a / Σ a g, as for equal weights: 2 · 3/2 / 36 = 1/12)
    runs = [(1.0, (0.0,), 3.0), (0.0, (0.0,), 2.0), (0.0, (0.0,), 1.0)]
    assert phase_two_variance(runs, (0.0,), 6) == pytest.approx(2 / 17)
    # λ = 1 and f = y: e = 0 everywhere, nothing to add
    assert phase_two_variance([(y, (y,), w) for y, _, w in runs], (1.0,), 6) == 0.0
    assert phase_two_variance(runs[:1], (0.0,), 6) == 0.0 == phase_two_variance([], (0.0,), 6)   # fewer than 2 runs


def test_phase_two_variance_is_one_uniform_draws_exactly():
    # n of N drawn uniformly, w = N/n: Σ (N/n)(N/n − 1)(e − ē)² / N² · n/(n − 1) = (1/n − 1/N) · S²_e
    runs = [(y, (0.5,), 300 / 7) for y in (0.1, 0.9, 0.4, 0.4, 0.7, 0.0, 1.0)]
    s2 = residual_variance(runs, (0.3,))
    assert phase_two_variance(runs, (0.3,), 300) == pytest.approx((1 / 7 - 1 / 300) * s2)


H0 = Q3 * 0.06 ** 0.5   # a difference's half-width now of q(3) · √0.06 = 0.85261: its variance 0.06
GAP = Fraction(3, 5)


def pair_at(a: str, b: str, gap: Fraction) -> list[tuple[str, str, dict]]:
    """The board's pairs: (a, b) and Q_final's a − b = ``gap``, its interval ``gap`` ± H0, its replicates' SD √0.06
    (today's variance 0.06)."""
    return [(a, b, {"Q_final": (gap, (float(gap) - H0, float(gap) + H0), 0.06 ** 0.5)})]


def neighbours(pairs: list[tuple[str, str, dict]], ranked=("A", "B")) -> list:
    return plan_command.neighbours(list(ranked), {"A": A_RUNS, "B": B_RUNS}, {"A": H, "B": H}, pairs, "Q_final", C, B)


def test_a_pairs_budget_is_on_its_shared_cases():
    # On c2-c4 (q(3) = 3.4807564 throughout: 3 cases), T₀ = 5/256 each (test_phase_on_a_pairs_shared_cases):
    # V_full = 0.06 − 2 · 5/256 = 0.0209375. Each has 1 run left there: a draw of it grades every run (term 0),
    # V = V_full, 3.4807564 · 0.144698 = 0.50366 <= 0.6. At 7 (4, 3; 3.5 -> 4): B's term stays T₀ = 5/256, V =
    # 0.0404688, 3.4807564 · 0.201169 = 0.70022 > 0.6. So 1 and 1 more
    assert neighbours(pair_at("A", "B", GAP)) == [("A", "B", GAP, PairNeed(1, 1))]
    # with each subject's runs over all its cases (N 5, n 4, q(4) capped too): V_full = 0.06 − (0.0125 + 1/60) =
    # 0.0308333; every run of both graded, 3.4807564 · 0.175594 = 0.61120 > 0.6: it would say no grading decides it
    assert pair_grades_for_half_width(H0, 0.06 ** 0.5, phase(A_RUNS, H), phase(B_RUNS, H), 0.6, C, B) == (None, None)


def test_a_neighbouring_pair_stored_the_other_way_or_negative():
    # the board stores (B, A) with B − A = −3/5 (Q_final ranks B first, the figure A): A − B = 3/5, as above
    assert neighbours(pair_at("B", "A", -GAP)) == [("A", "B", GAP, PairNeed(1, 1))]
    # a difference on the shared cases against the figure's ranking: A − B = −3/5 is decided like 3/5 (its size),
    # stored either way; without |.| no grading would reach a negative half-width ("-, -")
    assert neighbours(pair_at("A", "B", -GAP)) == [("A", "B", -GAP, PairNeed(1, 1))]
    assert neighbours(pair_at("B", "A", GAP)) == [("A", "B", -GAP, PairNeed(1, 1))]
    # ranked B, A: B − A = −(A − B)
    assert neighbours(pair_at("A", "B", GAP), ("B", "A")) == [("B", "A", -GAP, PairNeed(1, 1))]
    # a tie: no grading decides a difference of 0; and a figure the pair has no difference for is left out
    assert neighbours(pair_at("A", "B", Fraction(0))) == [("A", "B", Fraction(0), PairNeed(None, None))]
    assert neighbours([("A", "B", {"Q_final": (None, None, None)})]) == []


# --- rgbench plan, end to end on the judge-assisted example ---------------------------------------------------

EXAMPLE = REPO / "examples" / "judgeassist"


def plan(capsys, *argv: str) -> tuple[int, str, str]:
    status = run_script("plan", list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def test_the_docs_example_count_is_what_plan_prints(capsys):
    # docs/judge_assisted.md quotes plan's count for the example's synth-000 at the default target (0.05): the count,
    # the runs graded and the runs must be those plan prints and the example holds (they moved with plan's model)
    text = (REPO / "docs" / "judge_assisted.md").read_text(encoding="utf-8")
    quoted = re.search(r"\((\d+) for examples/judgeassist's synth-000 at 0\.05, (\d+) of its (\d+) runs graded\)", text)
    assert quoted is not None
    status, out, _ = plan(capsys, "--root", str(EXAMPLE))
    row = next(line.split() for line in out.splitlines() if line.startswith("synth-000 "))
    runs = len(list((EXAMPLE / "responses").glob("*/synth-000/*.json")))
    assert status == 0 and quoted.groups() == (row[4], row[2], str(runs))


@pytest.fixture
def none_pending(monkeypatch):
    """The example as if its one pending run (synth-003's) were not pending: its counts are printed, not "wait"."""
    real = plan_command.assisted_subjects
    monkeypatch.setattr(plan_command, "assisted_subjects",
                        lambda *args: [dataclasses.replace(s, pending=0) for s in real(*args)])


def test_plan_prints_every_judged_subject_and_each_neighbouring_pair(capsys, none_pending):
    status, out, err = plan(capsys, "--root", str(EXAMPLE))
    assert status == 0 and err == ""
    lines = out.splitlines()
    # stable: 0.05; reliability_min_cases: 10
    assert lines[0].startswith("Human grades for Q_final's 95% interval half-width 0.05 on at least 10 cases with a "
                               "human grade (below them the board labels a figure indicative; judge ")
    subjects = [line.split()[0] for line in lines[2:6]]
    assert sorted(subjects) == ["synth-000", "synth-001", "synth-002", "synth-003"]
    rows = {line.split()[0]: line.split() for line in lines[2:6]}
    for sid, (_, _, graded, half, more, floor) in rows.items():
        # a subject whose half-width is within the target needs 0 more; the floor is never above the half-width now
        assert float(floor) <= float(half), sid
        assert (more == "0") == (float(half) <= 0.05), sid
        # a draw is over the runs not drawn yet: at most the subject's 100 runs (50 cases x 2) less those graded
        assert more == "-" or 0 <= int(more) <= 100 - int(graded), sid
    pairs = [line for line in lines if " > " in line]
    assert len(pairs) == 3   # 4 subjects ranked by their estimate: 3 neighbouring pairs, in that order
    assert [" ".join(p.split()[:3]) for p in pairs] == [f"{a} > {b}" for a, b in zip(subjects, subjects[1:])]
    # the output ends on what the counts assume and where they are known to miss
    assert lines[-2:] == ["", "draw: the N new human grades of one further rgbench assign --draw N --subjects <subject>, "
                          "taken as uniform over the subject's runs not drawn yet. Counts made after a small first draw "
                          "can be about 20% more than needed: plan again after the draw (docs/judge_assisted.md, "
                          "\"Where the counts miss\"). Sizes chosen from these counts, stopping at a 0 included, can "
                          "bias the estimate: fix the total before the first draw, or decide then on a second draw at "
                          "least as large and make it whatever the first shows (\"A size chosen from the data\")."]


def test_plan_ranks_s_bar_in_the_scales_direction(capsys, tmp_path):
    # on a lower-is-better scale (MQM-style penalty points) the best s_bar is the lowest: plan lists the subjects
    # and their neighbouring pairs from it up, says so, and each pair's difference a − b is then below 0
    import make_synthetic
    root = tmp_path / "penalty"
    assert make_synthetic.main(["--subjects", "4", "--cases", "20", "--runs", "2", "--seed", "3", "--judge-assisted",
                                "--scale", "penalty", "--out", str(root)]) == 0
    capsys.readouterr()
    _, out, _ = plan(capsys, "--root", str(root), "--figure", "s_bar")
    lines = out.splitlines()
    estimates = [float(line.split()[1]) for line in lines[2:6]]
    assert estimates == sorted(estimates) and len(set(estimates)) == 4
    assert "; s_bar: lower is better):" in out
    subjects = [line.split()[0] for line in lines[2:6]]
    pairs = [line.split() for line in lines if " > " in line]
    assert [p[:3] for p in pairs] == [[a, ">", b] for a, b in zip(subjects, subjects[1:])]
    assert all(float(p[3]) < 0 for p in pairs)
    # Q_final is higher-is-better on every scale: descending, no such note
    _, out, _ = plan(capsys, "--root", str(root))
    estimates = [float(line.split()[1]) for line in out.splitlines()[2:6]]
    assert estimates == sorted(estimates, reverse=True) and "lower is better" not in out


def test_plan_marks_a_p_at_zero_and_counts_for_its_wilson_interval(capsys):
    _, out, _ = plan(capsys, "--root", str(EXAMPLE), "--figure", "P")
    rows = {line.split()[0]: line.split() for line in out.splitlines()[2:6]}
    # synth-002's P is 0 over 22 labelled cases of 50 (2 runs each): Wilson's half-width 0.0743 now, a draw of 20
    # (test_wilson_budget_counts_labelled_cases), 0.0357 with every case
    assert rows["synth-002"][1:] == ["0.0000", "25", "0.0743", "20*", "0.0357"]
    assert [r[4].endswith("*") for r in rows.values()] == [False, False, False, True]
    assert out.splitlines()[6].startswith("*: P is exactly 0 or 1, so its interval is Wilson's")
    _, out, _ = plan(capsys, "--root", str(EXAMPLE))
    assert "*" not in out   # Q_final is never Wilson's


def test_plan_counts_up_to_the_cases_a_reliability_label_needs(capsys, tmp_path):
    # synth-002's Q_final meets the half-width 0.05 now (0.0136) on 22 cases with a human grade of its 50 (2 runs
    # each, 25 graded); with reliability_min_cases 40 it needs d distinct graded runs whose expected cases
    # 50 (1 − (100 − d)(99 − d)/9900) round to 40: d = 54 gives 50 (1 − 46 · 45/9900) = 39.55 -> 40, d = 53 gives
    # 39.08 -> 39. So 54 − 25 = 29 more
    root = tmp_path / "judgeassist"
    shutil.copytree(EXAMPLE, root)
    config = root / "system" / "metrics" / "v1.0" / "config.yaml"
    config.write_text(config.read_text(encoding="utf-8").replace("reliability_min_cases: 10", "reliability_min_cases: 40"),
                      encoding="utf-8")
    _, out, _ = plan(capsys, "--root", str(root))
    assert out.splitlines()[0].startswith("Human grades for Q_final's 95% interval half-width 0.05 on at least 40 cases")
    row = {line.split()[0]: line.split() for line in out.splitlines()[2:6]}["synth-002"]
    assert float(row[3]) <= 0.05 and row[4] == "29"


def test_plan_waits_for_drawn_runs_without_a_human_grade(capsys, tmp_path):
    # the example as shipped: synth-003 has one drawn run pending, so neither it nor its pairs get a count, but a
    # pair decided now (its interval excludes 0) says so: 0, 0
    _, out, _ = plan(capsys, "--root", str(EXAMPLE))
    rows = {line.split()[0]: line.split() for line in out.splitlines()[2:6]}
    assert rows["synth-003"][4] == "wait" and rows["synth-000"][4] != "wait"
    pairs = {" ".join(line.split()[:3]): line.split()[4:] for line in out.splitlines() if " > " in line}
    assert pairs["synth-001 > synth-003"] == ["wait"]
    assert pairs["synth-003 > synth-002"] == ["0,", "0"]   # Q_final 0.3216 apart
    assert "wait: drawn runs await a human grade (synth-003 1): the weights already count them" in out
    assert "grade them (make review; a reviewer away: make draw REASSIGN=<id>), then plan again" in out
    # s_bar at a half-width of 1: synth-003 meets it now (0.4906), so it shows 0, not wait
    _, out, _ = plan(capsys, "--root", str(EXAMPLE), "--figure", "s_bar", "--half-width", "1")
    assert {line.split()[0]: line.split()[4] for line in out.splitlines()[2:6]}["synth-003"] == "0"
    # a further draw of 10 for synth-000 lists 10 runs not drawn yet, none graded: it waits for them too
    root = tmp_path / "judgeassist"
    shutil.copytree(EXAMPLE, root)
    assert run_script("assign", ["--root", str(root), "--draw", "10", "--subjects", "synth-000"]) == 0
    # 10 runs after the 23 of draw 1: assign says a draw smaller than the ones before, sized from the data, can bias
    # the estimate (docs/adaptive_size_check.md)
    assert ("  fewer runs than drawn before (synth-000 10 of 23): sized from the data (rgbench plan), such a draw can "
            "bias the estimate") in capsys.readouterr().out
    _, out, _ = plan(capsys, "--root", str(root))
    assert "(synth-000 10, synth-003 1)" in out
    assert {line.split()[0]: line.split()[4] for line in out.splitlines()[2:6]}["synth-000"] == "wait"


def test_assign_says_nothing_of_size_for_a_draw_as_large_as_the_ones_before(capsys, tmp_path):
    # synth-000 has 23 runs drawn (draw 1): a further draw of 30 is larger, so no word on its size; synth-001 (24
    # drawn) is not in it
    root = tmp_path / "judgeassist"
    shutil.copytree(EXAMPLE, root)
    assert run_script("assign", ["--root", str(root), "--draw", "30", "--subjects", "synth-000"]) == 0
    out = capsys.readouterr().out
    assert "draw 2 (stratified) picked 30 runs over 1 subjects" in out and "drawn before" not in out


def test_plan_says_why_a_subject_has_no_count_yet(capsys, tmp_path):
    # before any draw no subject has an estimate: the table is empty and a line says what to do first
    root = tmp_path / "judgeassist"
    shutil.copytree(EXAMPLE, root)
    (root / "subjects" / "human_draws.json").unlink()
    status, out, _ = plan(capsys, "--root", str(root))
    lines = out.splitlines()
    assert status == 0 and lines[2] == ""
    assert lines[3] == ("No estimate yet, runs no draw covers (a draw over them, and a pilot if none: rgbench assign "
                        "--draw N): synth-000, synth-001, synth-002, synth-003")


def test_plan_reads_a_pair_stored_the_other_way_and_a_negative_difference(capsys, monkeypatch, none_pending):
    _, before, _ = plan(capsys, "--root", str(EXAMPLE), "--figure", "P")
    real = plan_command.assisted_rows

    def flipped(*args, **kwargs):   # every pair stored as (b, a, b − a), its interval turned
        rows, pairs = real(*args, **kwargs)
        turn = lambda gap, bounds, spread: (-gap, (-bounds[1], -bounds[0]), spread)
        return rows, [(b, a, {f: turn(*v) for f, v in per.items()}) for a, b, per in pairs]
    monkeypatch.setattr(plan_command, "assisted_rows", flipped)
    _, after, _ = plan(capsys, "--root", str(EXAMPLE), "--figure", "P")
    assert after == before and "synth-003 > synth-002                                  0.1291" in before

    def negative(*args, **kwargs):   # synth-003 − synth-002 on their shared cases below 0, the interval as it is
        rows, pairs = real(*args, **kwargs)
        return rows, [(a, b, {**per, "P": (-per["P"][0], *per["P"][1:])} if (a, b) == ("synth-003", "synth-002")
                       else per) for a, b, per in pairs]
    monkeypatch.setattr(plan_command, "assisted_rows", negative)
    _, after, _ = plan(capsys, "--root", str(EXAMPLE), "--figure", "P")
    line = next(line for line in after.splitlines() if line.startswith("synth-003 > synth-002"))
    assert line.split()[3:] == ["-0.1291", "5,", "0"]   # decided as at 0.1291 (its interval's half-width 0.1519)
    assert after.replace("-0.1291", " 0.1291") == before


def test_a_wider_target_needs_no_more_grades_than_a_narrower_one(capsys, none_pending):
    def needed(width: str) -> dict[str, str]:
        _, out, _ = plan(capsys, "--root", str(EXAMPLE), "--half-width", width)
        return {line.split()[0]: line.split()[4] for line in out.splitlines()[2:6]}
    wide, narrow = needed("0.2"), needed("0.06")
    assert set(wide.values()) == {"0"}   # every half-width of the example is below 0.2
    for sid, more in narrow.items():
        assert more == "-" or int(more) >= int(wide[sid])


def test_plan_refuses_human_mode_and_a_bad_half_width(capsys, tmp_path):
    status, out, err = plan(capsys, "--root", str(REPO))
    assert status == 1 and out == ""
    assert err == ("system/metrics/v1.0/config.yaml: estimation is human; the grading budget is for judge-assisted "
                   "figures (set estimation: judge-assisted and judge: <an llm-judge's id>; docs/judge_assisted.md)\n")
    for bad in ("0", "-1", "x", "1e-99999999"):
        status, out, err = plan(capsys, "--root", str(EXAMPLE), "--half-width", bad)
        assert status == 1 and err == f"--half-width: must be a decimal number above 0 (e.g. 0.03), got {bad!r}\n", bad


def test_plan_after_a_further_draw_over_the_runs_left_counts_from_both_draws(capsys, tmp_path):
    # synth-000 (92 runs, 23 graded in draw 1): a further draw of 10 over its 69 runs not drawn yet, graded; plan
    # then reads 33 human grades from two draws pooled by precision, waits for nothing, and counts at most the 59
    # runs left
    from test_judge_assisted_draw import grade_pending

    from rgbench.commands.common import load_valid_grades
    root = tmp_path / "judgeassist"
    shutil.copytree(EXAMPLE, root)
    assert run_script("assign", ["--root", str(root), "--draw", "10", "--subjects", "synth-000"]) == 0
    grade_pending(root, "rev-1")
    _, out, _ = plan(capsys, "--root", str(root))
    rows = {line.split()[0]: line.split() for line in out.splitlines()[2:6]}
    assert rows["synth-000"][2] == "33" and "wait" not in out
    assert 0 < int(rows["synth-000"][4]) <= 59
    loaded = load_valid_grades(root)
    assert loaded is not None and loaded[1].draws is not None
    first, second = loaded[1].draws.draws
    n1 = sum(1 for r in first.runs if r.key[0] == "synth-000")
    runs = sum(len(c.runs) for c in first.population if c.subject_id == "synth-000")
    held = sum(len(c.runs) for c in second.population)
    assert (n1, runs, held) == (23, 92, 69)   # draw 2 holds the 92 − 23 runs left
    # H = v_1 + v_2, v = n/(N(N − n)): 23/(92 · 69) + 10/(69 · 59) = 0.0036232 + 0.0024564 = 0.0060796
    h = loaded[1].draws.precision("synth-000")
    assert h == pytest.approx(23 / (92 * 69) + 10 / (69 * 59)) and h == pytest.approx(0.0060796, abs=1e-7)

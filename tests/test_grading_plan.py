"""The grading budget (rgbench.stats.grading_plan): two-phase variance parts, grades for a half-width, grades to
decide an order. Every expected value is worked by hand in the comment beside it."""

from __future__ import annotations

from fractions import Fraction

import pytest
from treebuilder import REPO

from rgbench.cli import run_script
from rgbench.stats.grading_plan import (
    Phase,
    expected_labelled,
    grades_for_half_width,
    pair_grades_for_half_width,
    quantile,
    residual_variance,
    smallest,
    split,
)

C, B = Fraction(95, 100), 2000
ONE = (1,) * 300   # 300 cases of one run each: n labels reach K_L = n cases exactly (expected_labelled)
# q(K) = t_{K−1, 0.975} · √(K/(K − 1)), what 2Φ(q) − 1 = c' gives back (uncapped K):
Q20 = 2.0930241 * 1.0259784   # = 2.1473974


def test_quantile_is_the_expanded_level_normal_quantile():
    assert quantile(C, 20, B) == pytest.approx(Q20)   # 2.1474, not z = 1.96
    assert quantile(C, 300, B) == pytest.approx(1.9679297 * 1.0016708)   # 1.9712, near z
    # K_L <= 3: c' capped at 1 − 1/2000, Φ⁻¹(1 − 1/4000) = 3.4808
    assert quantile(C, 3, B) == pytest.approx(3.4807564) == quantile(C, 1, B)


def test_expected_labelled_cases():
    # runs (1, 1, 2, 2), N = 6, n = 2: a one-run case is missed with C(5, 2)/C(6, 2) = 10/15, a two-run case with
    # C(4, 2)/C(6, 2) = 6/15: 2 · 5/15 + 2 · 9/15 = 28/15
    assert expected_labelled((1, 1, 2, 2), 2) == pytest.approx(28 / 15)
    # n = 5: one-run cases missed with C(5, 5)/C(6, 5) = 1/6, two-run cases never (C(4, 5) = 0): 2 · 5/6 + 2 = 11/3
    assert expected_labelled((1, 1, 2, 2), 5) == pytest.approx(11 / 3)
    assert expected_labelled((1, 1, 2, 2), 0) == 0 and expected_labelled((1, 1, 2, 2), 6) == 4
    assert expected_labelled(ONE, 57) == pytest.approx(57)   # one run a case: every label a new case


def test_labelled_at_rounds_the_expectation_and_keeps_todays_cases():
    assert Phase(0.04, 1, (1, 1, 2, 2), 1).labelled_at(2) == 2   # 28/15 = 1.87 -> 2
    assert Phase(0.04, 2, (1, 1, 2, 2), 2).labelled_at(5) == 4   # 11/3 = 3.67 -> 4
    assert Phase(0.04, 3, (1, 1, 2, 2), 3).labelled_at(3) == 3   # expected 2.6 -> 3; today's 3
    assert Phase(0.04, 2, (1, 1, 2, 2), 2).labelled_at(1) == 2   # expected 0.83 -> 1, below today's 2


def test_smallest_bisects_a_monotone_condition():
    assert smallest(0, 10, lambda n: n * n >= 30) == 6   # 5² = 25 < 30 <= 36 = 6²
    assert smallest(7, 10, lambda n: n * n >= 30) == 7
    assert smallest(0, 5, lambda n: n * n >= 30) is None   # 25 < 30 at the top


def test_split_in_proportion_to_spread_within_each_subjects_range():
    a = Phase(0.04, 20, ONE, 20)
    # S = 0.2 and 0.1: the first takes 2/3 of 81 = 54, the second 27
    assert split(81, a, Phase(0.01, 20, ONE, 20)) == (54, 27)
    # 2/3 of 80 = 53.3 -> 53, the second 27
    assert split(80, a, Phase(0.01, 20, ONE, 20)) == (53, 27)
    # the second has 60 already, above its share 1/3 · 113 = 37.7: it keeps 60, the first takes the other 53
    assert split(113, a, Phase(0.01, 60, ONE, 60)) == (53, 60)
    # the first capped at its 300 runs: 2/3 of 500 = 333 -> 300, the second 200
    assert split(500, a, Phase(0.01, 20, ONE, 20)) == (300, 200)
    # no residual on either side: half each
    assert split(60, Phase(0.0, 20, ONE, 20), Phase(0.0, 20, ONE, 20)) == (30, 30)


def test_residual_variance_unweighted_and_weighted():
    # y − λ f at λ = 0.5 over (1, 0), (0, 0), (1, 1), (0, 1): e = 1, 0, 0.5, −0.5; mean 0.25;
    # Σ (e − 0.25)² = 0.5625 + 0.0625 + 0.0625 + 0.5625 = 1.25; / 4 · 4/3 = 0.41667
    runs = [(1.0, 0.0, 1.0), (0.0, 0.0, 1.0), (1.0, 1.0, 1.0), (0.0, 1.0, 1.0)]
    assert residual_variance(runs, 0.5) == pytest.approx(1.25 / 3)
    # weights 3, 1 on e = 1, 0: mean 3/4; Σ w (e − 3/4)² = 3 · 1/16 + 9/16 = 12/16; / 4 · 2/1 = 0.375
    assert residual_variance([(1.0, 0.0, 3.0), (0.0, 0.0, 1.0)], 0.0) == pytest.approx(0.375)


def test_residual_variance_of_one_run_is_zero():
    assert residual_variance([(1.0, 0.0, 2.0)], 0.3) == 0.0
    assert residual_variance([], 0.3) == 0.0


def test_v_full_subtracts_each_phase_and_floors_at_zero():
    # The all-graded half-width is q(300) · √V_full (no phase-two term left). Today's variance 0.0025 at K_L 20
    # (half-width q(20) · 0.05): V_full = 0.0025 − (1/20 − 1/300) · 0.04 = 0.0025 − 0.00186667 = 0.00063333
    phase = Phase(0.04, 20, ONE, 20)
    q300 = 1.9679297 * 1.0016708
    assert grades_for_half_width(Q20 * 0.05, phase, 1, C, B).half_width_all == pytest.approx(q300 * 0.00063333 ** 0.5,
                                                                                             rel=1e-5)
    # 0.001 < 0.00186667: V_full floors at 0
    assert grades_for_half_width(Q20 * 0.001 ** 0.5, phase, 1, C, B).half_width_all == 0.0
    # every run graded: no phase-two term, V_full is the variance itself
    assert grades_for_half_width(0.1, Phase(0.04, 300, ONE, 300), 1, C, B).half_width_all == pytest.approx(0.1)


def test_grades_for_half_width_hand_computed():
    # half-width 0.1 over K_L = 20: V = (0.1 / 2.1473974)² = 0.0021686; less (1/20 − 1/300) · 0.04 = 0.0018667:
    # V_full = 0.00030191. One run a case, so n labels reach K_L = n. At n = 57: q(57) = 2.0032407 · 1.0088891 =
    # 2.0210477, V = 0.00030191 + (1/57 − 1/300) · 0.04 = 0.00087033, 2.0210477 · 0.0295015 = 0.05962 <= 0.06;
    # at 56: q = 2.0040448 · 1.0090500 = 2.0221813, V = 0.00088286, 2.0221813 · 0.0297130 = 0.06009 > 0.06.
    # So 57, 37 more (z = 1.96 throughout would take V = 0.0026032 now, V_full 0.00073651, and ask for
    # 1/n = ((0.06 / 1.96)² − 0.00073651) / 0.04 + 1/300 = 0.0050164 + 0.0033333 -> n = 119.8 -> 120)
    need = grades_for_half_width(0.1, Phase(0.04, 20, ONE, 20), 0.06, C, B)
    assert need.needed == 37
    # every run graded: q(300) = 1.9712178 · √0.00030191 = 1.9712178 · 0.0173756 = 0.034251
    assert need.half_width_all == pytest.approx(0.034251, abs=1e-6)


def test_grades_for_half_width_met_now_and_out_of_reach():
    phase = Phase(0.04, 20, ONE, 20)
    assert grades_for_half_width(0.1, phase, 0.10, C, B).needed == 0       # met now
    assert grades_for_half_width(0.1, phase, 0.034, C, B).needed is None   # below 0.034251, all runs graded
    # a judge that leaves no residual (S²_e = 0): only the level narrows, q(300) · √0.0021686 = 0.0918 > 0.06
    assert grades_for_half_width(0.1, Phase(0.0, 20, ONE, 20), 0.06, C, B).needed is None


def test_grades_for_half_width_never_beyond_every_run():
    # just above the all-graded floor: the count is capped at the 280 runs not graded yet
    need = grades_for_half_width(0.1, Phase(0.04, 20, ONE, 20), 0.0343, C, B)
    assert need.needed is not None and 0 < need.needed <= 280


def test_pair_grades_split_in_proportion_to_spread():
    # half-width 0.13 over K_L 20 and 20: V = (0.13 / 2.1473974)² = 0.0036649, less (1/20 − 1/300)(0.04 + 0.01) =
    # 0.0023333: V_full = 0.0013316. 81 labels split 54, 27 (S 0.2, 0.1), read at the fewer K_L, 27:
    # q(27) = 2.0555294 · 1.0190493 = 2.0946859; V = 0.0013316 + (1/54 − 1/300) 0.04 + (1/27 − 1/300) 0.01 =
    # 0.0022760; 2.0946859 · 0.0477075 = 0.09993 <= 0.1. 80 labels (53, 27): V = 0.0022900, 0.10024 > 0.1.
    # So 54 − 20 = 34 and 27 − 20 = 7 more to decide a difference of 0.1 (the interval reaching ±0.1)
    need = pair_grades_for_half_width(0.13, Phase(0.04, 20, ONE, 20), Phase(0.01, 20, ONE, 20), 0.1, C, B)
    assert (need.first, need.second) == (34, 7)


def test_pair_grades_keep_a_subject_graded_beyond_its_share():
    # the second has 60 graded, above its share: it keeps 60 and the first closes the gap alone, the level now at
    # the first's K_L. V_full = 0.0036649 − 0.0018667 − (1/60 − 1/300) 0.01 = 0.0016649. The first at 53:
    # q(53) = 2.0066468 · 1.0095696 = 2.0258496, V = 0.0016649 + (1/53 − 1/300) 0.04 = 0.0024196,
    # 2.0258496 · 0.0491895 = 0.09965 <= 0.1; at 52: q(52) = 2.0075838 · 1.0097563 = 2.0271704, V = 0.0024341,
    # 0.10001 > 0.1. So 33 more of the first, none of the second
    need = pair_grades_for_half_width(0.13, Phase(0.04, 20, ONE, 20), Phase(0.01, 60, ONE, 60), 0.1, C, B)
    assert (need.first, need.second) == (33, 0)


def test_pair_grades_met_now_and_out_of_reach():
    a, b = Phase(0.04, 20, ONE, 20), Phase(0.01, 20, ONE, 20)
    assert pair_grades_for_half_width(0.13, a, b, 0.2, C, B) == (0, 0)   # a difference of 0.2 is decided now
    # every run graded: q(300) · √0.0013316 = 0.0719 > 0.01, no grading decides a difference of 0.01
    assert pair_grades_for_half_width(0.13, a, b, 0.01, C, B) == (None, None)


# --- rgbench plan, end to end on the judge-assisted example ---------------------------------------------------

EXAMPLE = REPO / "examples" / "judgeassist"


def plan(capsys, *argv: str) -> tuple[int, str, str]:
    status = run_script("plan", list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def test_plan_prints_every_judged_subject_and_each_neighbouring_pair(capsys):
    status, out, err = plan(capsys, "--root", str(EXAMPLE))
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("Human grades for Q_final's 95% interval half-width 0.05 (judge ")   # stable: 0.05
    subjects = [line.split()[0] for line in lines[2:6]]
    assert sorted(subjects) == ["synth-000", "synth-001", "synth-002", "synth-003"]
    rows = {line.split()[0]: line.split() for line in lines[2:6]}
    for sid, (_, _, _, half, more, floor) in rows.items():
        # a subject whose half-width is within the target needs 0 more; the floor is never above the half-width now
        assert float(floor) <= float(half), sid
        assert (more == "0") == (float(half) <= 0.05), sid
    pairs = [line for line in lines if " > " in line]
    assert len(pairs) == 3   # 4 subjects ranked by their estimate: 3 neighbouring pairs, in that order
    assert [" ".join(p.split()[:3]) for p in pairs] == [f"{a} > {b}" for a, b in zip(subjects, subjects[1:])]


def test_a_wider_target_needs_no_more_grades_than_a_narrower_one(capsys):
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

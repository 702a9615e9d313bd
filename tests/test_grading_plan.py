"""The grading budget (rgbench.stats.grading_plan): two-phase variance parts, grades for a half-width, grades to
decide an order. Every expected value is worked by hand in the comment beside it."""

from __future__ import annotations

import math

import pytest
from treebuilder import REPO

from rgbench.cli import run_script
from rgbench.stats.grading_plan import Phase, full_variance, grades_for_half_width, grades_to_order, residual_variance, z_value

Z = 1.959963984540054   # the two-sided normal quantile at 95%


def test_z_value():
    assert z_value(0.95) == pytest.approx(Z)


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


def test_full_variance_subtracts_each_phase_and_floors_at_zero():
    # (1/20 − 1/300) · 0.04 = 0.0466667 · 0.04 = 0.00186667; 0.0025 − 0.00186667 = 0.00063333
    assert full_variance(0.0025, [Phase(0.04, 20, 300)]) == pytest.approx(0.00063333, abs=1e-8)
    assert full_variance(0.001, [Phase(0.04, 20, 300)]) == 0.0
    # every run graded: no phase-two term, V_full is the variance itself
    assert full_variance(0.0025, [Phase(0.04, 300, 300)]) == pytest.approx(0.0025)


def test_grades_for_half_width_hand_computed():
    # V_full = 0.00063333 (above); target (0.06 / 1.95996)² = 0.00093714;
    # 1/n = (0.00093714 − 0.00063333) / 0.04 + 1/300 = 0.0075951 + 0.0033333 = 0.0109284 -> n = 91.5 -> 92;
    # 92 − 20 graded now = 72 more
    need = grades_for_half_width(0.0025, Phase(0.04, 20, 300), 0.06, 0.95)
    assert need.needed == 72
    assert need.labels == 20
    assert need.half_width_now == pytest.approx(Z * math.sqrt(0.0025))   # 0.0980
    assert need.half_width_all == pytest.approx(Z * math.sqrt(0.00063333), rel=1e-4)   # 0.0493


def test_grades_for_half_width_met_now_and_out_of_reach():
    phase = Phase(0.04, 20, 300)
    assert grades_for_half_width(0.0025, phase, 0.10, 0.95).needed == 0        # 0.098 <= 0.10 already
    assert grades_for_half_width(0.0025, phase, 0.049, 0.95).needed is None    # below 0.0493, all runs graded
    # a judge that leaves no residual (S²_e = 0): grading cannot narrow it
    assert grades_for_half_width(0.0025, Phase(0.0, 20, 300), 0.06, 0.95).needed is None


def test_grades_for_half_width_never_beyond_every_run():
    # just above the all-graded floor: the count is capped at the 280 runs not graded yet
    need = grades_for_half_width(0.0025, Phase(0.04, 20, 300), 0.0494, 0.95)
    assert need.needed is not None and 0 < need.needed <= 280


def test_grades_to_order_split_in_proportion_to_spread():
    # V_full = 0.004 − (1/20 − 1/300)(0.04 + 0.01) = 0.004 − 0.0023333 = 0.0016667; target (0.1/1.95996)² = 0.0026032;
    # budget = 0.0026032 − 0.0016667 + 0.04/300 + 0.01/300 = 0.0011032; S = 0.2 and 0.1, Σ S = 0.3:
    # n₁ = 0.2 · 0.3 / 0.0011032 = 54.4 -> 55 (35 more), n₂ = 0.1 · 0.3 / 0.0011032 = 27.2 -> 28 (8 more)
    need = grades_to_order(0.1, 0.004, Phase(0.04, 20, 300), Phase(0.01, 20, 300), 0.95)
    assert (need.first, need.second) == (35, 8)


def test_grades_to_order_keeps_a_subject_graded_beyond_its_share():
    # the second has 60 graded, above its share 28: it keeps 60 (0.01/60 = 0.00016667 of the budget) and the first
    # closes the gap alone. V_full = 0.004 − 0.0018667 − (1/60 − 1/300) 0.01 = 0.0020000; budget = 0.0026032 −
    # 0.0020000 + 0.00016667 = 0.00076985; left = 0.00076985 − 0.00016667 = 0.00060318; n₁ = 0.04 / 0.00060318 =
    # 66.3 -> 67 (47 more)
    need = grades_to_order(0.1, 0.004, Phase(0.04, 20, 300), Phase(0.01, 60, 300), 0.95)
    assert (need.first, need.second) == (47, 0)


def test_grades_to_order_decided_now_and_undecidable():
    a, b = Phase(0.04, 20, 300), Phase(0.01, 20, 300)
    assert grades_to_order(0.2, 0.004, a, b, 0.95) == (0, 0)   # 1.96 · 0.0632 = 0.124 < 0.2
    # a difference of 0.01 needs V <= 0.000026, below V_full 0.00167: no grading decides it
    assert grades_to_order(0.01, 0.004, a, b, 0.95) == (None, None)
    assert grades_to_order(-0.2, 0.004, a, b, 0.95) == (0, 0)   # the sign does not matter


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

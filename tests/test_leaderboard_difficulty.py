"""The page's difficulty sentence (leaderboard/difficulty_text.py) from difficulty_trend.csv, by hand."""

from __future__ import annotations

from fractions import Fraction as F

from treebuilder import rows

from rgbench.leaderboard.difficulty_text import DifficultyTrendRow, difficulty_reading

LEVEL, C95 = F(5, 100), F(95, 100)


def trend(**changes) -> DifficultyTrendRow:
    values = dict(n_cases=30, n_levels=5, tau_b=F(-391178, 10 ** 6), p_value=F(7639, 10 ** 6), easiest=1, hardest=5,
                  n_easiest=2, n_hardest=2, separation=F(318182, 10 ** 6), separation_low=F(90909, 10 ** 6),
                  separation_high=F(545455, 10 ** 6))
    return DifficultyTrendRow(**{**values, **changes})


def test_a_significant_trend_with_a_small_separation():
    # tau-b −0.391178 -> −0.391, p 0.007639 -> 0.008 (< 0.05, and tau < 0: the labels order the cases);
    # separation 0.318182 < 0.5, but its interval (0.090909 to 0.545455) includes 0.5: too few cases to tell
    assert difficulty_reading(trend(), LEVEL, C95, str) == (
        "Difficulty labels: over the 30 cases (5 levels) harder cases are passed less often (Kendall's tau-b -0.391 "
        "between gold difficulty and each case's pass rate, p = 0.008). The pass rate of the easiest level (1, 2 "
        "cases) minus that of the hardest (5, 2 cases) is 0.318 (95% interval 0.091 to 0.545, Welch t over the "
        "cases), less than the separation target of 0.5, but the interval includes it: 2 + 2 cases cannot tell; "
        "add cases at difficulty 1 and 5 to narrow it.")
    # the whole interval below 0.5: the hardest level is not hard enough
    assert difficulty_reading(trend(separation_high=F(499999, 10 ** 6)), LEVEL, C95, str).endswith(
        "is 0.318 (95% interval 0.091 to 0.500, Welch t over the cases), less than the separation target of 0.5 over "
        "the whole interval: the hardest cases are not hard enough; make the difficulty-5 cases harder or relabel "
        "them.")


def test_no_trend_and_a_separation_that_meets_the_check():
    text = difficulty_reading(trend(tau_b=F(-1, 10), p_value=F(3, 10), separation=F(7, 10), separation_low=F(1, 2),
                                    separation_high=F(9, 10)), LEVEL, C95, str)
    assert "gold difficulty does not predict a lower pass rate at the 0.05 level (Kendall's tau-b -0.100" in text
    assert text.endswith("minus that of the hardest (5, 2 cases) is 0.700 (95% interval 0.500 to 0.900, Welch t over "
                         "the cases), at least the separation target of 0.5 over the whole interval.")
    # at least 0.5, but the interval reaches below it: not shown to meet the target
    assert difficulty_reading(trend(separation=F(1, 2)), LEVEL, C95, str).endswith(
        "is 0.500 (95% interval 0.091 to 0.545, Welch t over the cases), at least the separation target of 0.5, but "
        "the interval includes it: 2 + 2 cases cannot tell; add cases at difficulty 1 and 5 to narrow it.")
    # a positive tau-b is no trend whatever its p-value (harder cases passed MORE often)
    assert "does not predict" in difficulty_reading(trend(tau_b=F(4, 10), p_value=F(1, 1000)), LEVEL, C95, str)


def test_a_negative_separation_and_levels_of_one_case_read_right():
    # the hardest level passed more often than the easiest (a one-subject tree): the signed difference, never
    # "is passed -0.167 more often"; a level of one case is "1 case", not "1 cases"
    text = difficulty_reading(trend(separation=F(-166667, 10 ** 6), separation_low=None, separation_high=None,
                                    n_easiest=1), LEVEL, C95, str)
    assert text.endswith(" The pass rate of the easiest level (1, 1 case) minus that of the hardest (5, 2 cases) is "
                         "-0.167 (less than the separation target of 0.5 on these cases; no interval: fewer than 2 "
                         "cases at an end level); add cases at difficulty 1 and 5 to measure it.")
    assert "more often" not in text and "1 cases" not in text


def test_degenerate_rows_and_escaping():
    assert difficulty_reading(None, LEVEL, C95, str) == ""
    assert difficulty_reading(trend(n_levels=1, tau_b=None, p_value=None, easiest=None, hardest=None, separation=None,
                                    separation_low=None, separation_high=None), LEVEL, C95, str) == ""
    # every case at one pass rate: tau-b undefined, nothing to say
    assert difficulty_reading(trend(tau_b=None, p_value=None), LEVEL, C95, str) == ""
    # 2 + 2 cases without an interval: every case of each end level has one pass rate (separation 1: 1, 1 vs 0, 0)
    text = difficulty_reading(trend(separation=F(1), separation_low=None, separation_high=None), LEVEL, None, str)
    assert text.endswith("(5, 2 cases) is 1.000 (at least the separation target of 0.5 on these cases; no interval: "
                         "every case of each end level has the same pass rate, so the spread is unknown); add cases "
                         "at difficulty 1 and 5 to measure it.")
    # no confidence level recorded
    escaped = difficulty_reading(trend(), LEVEL, None, lambda t: t.replace("'", "&#x27;"))
    assert escaped.count("&#x27;") == 2 and "'" not in escaped and "is 0.318 (interval 0.091 to 0.545, Welch" in escaped


def test_the_committed_board_states_the_trend_its_results_carry():
    # for any benchmark tree: the sentence is on the board exactly when difficulty_trend.csv has a tau-b
    from pathlib import Path
    results = Path(__file__).resolve().parent.parent / "results"
    written = rows(results / "difficulty_trend.csv")
    board = (results / "leaderboard.md").read_text(encoding="utf-8")
    assert len(written) <= 1                                          # none without a scored run
    if not written:
        assert "Difficulty labels:" not in board
        return
    assert ("Difficulty labels:" in board) == (written[0]["kendall_tau_b"] != "" and int(written[0]["n_levels"]) >= 2)
    if written[0]["kendall_tau_b"]:
        assert f"Kendall's tau-b {float(written[0]['kendall_tau_b']):.3f}" in board

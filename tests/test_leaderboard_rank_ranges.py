"""Rank ranges and the alpha statement: pure rules and their sentences, worked out by hand.

Pairwise rows and alpha rows are built in memory; the exact McNemar p-values
are computed in the comments (two-sided, p = min(1, 2 * sum_{i<=k} C(n, i) / 2^n)
with n discordant runs and k the smaller count).
"""

from __future__ import annotations

import html
from dataclasses import replace
from fractions import Fraction

from rgbench.compute.metrics import SubjectMetrics
from rgbench.leaderboard.display import short_decimal
from rgbench.leaderboard.rank_ranges import (
    AlphaSpan,
    Significance,
    alpha_statement,
    outside_range,
    ranked_pairs,
    significance,
)
from rgbench.leaderboard.results_tables import ALPHA_COLUMNS, PAIRWISE_COLUMNS
from rgbench.leaderboard.significance_text import (
    alpha_sentence,
    range_text,
    rank_range_method,
    significant_differences,
)
from rgbench.stats import outputs
from rgbench.stats.alpha_sensitivity import alpha_sensitivity
from rgbench.stats.pairwise import PairwiseRow, holm, mcnemar_exact_p, rank_ranges

F = Fraction
LEVEL = F(5, 100)


def pair(a: str, b: str, a_not_b: int, b_not_a: int, q_diff: str) -> PairwiseRow:
    """A pairwise row with its exact McNemar p (p_holm left equal to it, as compare_pair leaves it)."""
    p = mcnemar_exact_p(a_not_b, b_not_a)
    return PairwiseRow(a, b, 20, a_not_b, b_not_a, p, F(q_diff), F(q_diff) - F(1, 10), F(q_diff) + F(1, 10), p, 10)


# Four ranked subjects A > B > C > D (leaderboard order) and a disqualified E.
#   A-B (1, 1): k = 1, n = 2: 2 * (1 + 2) / 4 > 1         -> p = 1
#   A-C (10, 0): 2 * 1 / 2^10                              -> p = 1/512  (0.001953)
#   A-D (8, 0):  2 * 1 / 2^8                               -> p = 1/128  (0.007813)
#   B-C (3, 1):  2 * (1 + 4) / 2^4 = 10/16                 -> p = 5/8
#   B-D (2, 0):  2 * 1 / 2^2                               -> p = 1/2
#   C-D (0, 0):  nothing discordant                        -> p = 1
#   A-E, B-E, C-E, D-E (1, 0): 2 * 1 / 2                   -> p = 1
ROWS = [
    pair("A", "B", 1, 1, "0.020000"), pair("A", "C", 10, 0, "0.300000"), pair("A", "D", 8, 0, "0.250000"),
    pair("A", "E", 1, 0, "0.010000"), pair("B", "C", 3, 1, "0.080000"), pair("B", "D", 2, 0, "0.060000"),
    pair("B", "E", 1, 0, "0.010000"), pair("C", "D", 0, 0, "0.000000"), pair("C", "E", 1, 0, "0.010000"),
    pair("D", "E", 1, 0, "0.010000"),
]
RANKED = ["A", "B", "C", "D"]


def test_mcnemar_values_used_above():
    assert [r.mcnemar_p for r in ROWS[:3]] == [1, F(1, 512), F(1, 128)]
    assert mcnemar_exact_p(3, 1) == F(5, 8) and mcnemar_exact_p(2, 0) == F(1, 2)


def test_holm_over_the_ranked_pairs_only():
    # The 6 pairs among A..D, Holm with m = 6, p ascending:
    #   A-C: 6 * 1/512 = 0.01171875                    < 0.05: significant
    #   A-D: max(0.0117, 5 * 1/128 = 0.0390625)        < 0.05: significant
    #   B-D: max(0.039, 4 * 1/2 = 2 -> 1) = 1; B-C, A-B, C-D: 1
    pairs = ranked_pairs(RANKED, ROWS)
    assert [(r.subject_a, r.subject_b) for r in pairs] == [("A", "B"), ("A", "C"), ("A", "D"), ("B", "C"),
                                                           ("B", "D"), ("C", "D")]
    assert [r.p_holm for r in pairs] == [1, F(6, 512), F(5, 128), 1, 1, 1]


def test_hand_computed_rank_ranges():
    # A is significantly above C and D (A has the discordant passes and q_diff > 0), nobody else differs:
    #   A: best 1 + 0 = 1, worst 4 - 2 = 2  -> 1-2
    #   B: best 1,         worst 4 - 0 = 4  -> 1-4
    #   C: best 1 + 1 = 2, worst 4          -> 2-4
    #   D: best 1 + 1 = 2, worst 4          -> 2-4
    sig = significance(RANKED, ROWS, LEVEL)
    assert sig.ranges == {"A": (1, 2), "B": (1, 4), "C": (2, 4), "D": (2, 4)}
    assert sig.above == (("A", "C"), ("A", "D")) and sig.n_pairs == 6 and sig.level == LEVEL
    assert "E" not in sig.ranges                                  # a disqualified subject occupies no rank


def test_the_all_pairs_holm_of_pairwise_csv_would_be_more_conservative():
    # pairwise.csv adjusts over all 10 pairs (E included): A-C 10/512 = 0.0195 < 0.05, but
    # A-D max(0.0195, 9/128 = 0.0703) >= 0.05, so only A > C: A 1-3, C 2-4, D 1-4.
    adjusted = holm([r.mcnemar_p for r in ROWS])
    all_pairs = [replace(r, p_holm=p) for r, p in zip(ROWS, adjusted)]
    assert rank_ranges(RANKED, all_pairs, LEVEL) == {"A": (1, 3), "B": (1, 4), "C": (2, 4), "D": (1, 4)}
    # The leaderboard re-adjusts over the ranked pairs, whatever p_holm the rows carry.
    assert significance(RANKED, all_pairs, LEVEL).ranges == {"A": (1, 2), "B": (1, 4), "C": (2, 4), "D": (2, 4)}


def test_a_q_diff_pointing_the_other_way_is_no_difference():
    # (10, 0) favours X, but Q_final on the shared runs favours Y: conservative, no difference.
    sig = significance(["X", "Y"], [pair("X", "Y", 10, 0, "-0.010000")], LEVEL)
    assert sig.ranges == {"X": (1, 2), "Y": (1, 2)} and sig.above == ()
    # The same counts with q_diff > 0: X is above Y (Holm with m = 1: p = 1/512).
    assert significance(["X", "Y"], [pair("X", "Y", 10, 0, "0.010000")], LEVEL).ranges == {"X": (1, 1), "Y": (2, 2)}


def test_the_level_comes_from_the_caller():
    # A-D's ranked Holm value is 5/128 = 0.039: significant at 0.05, not at 0.01 (A-C's 0.0117 neither).
    assert significance(RANKED, ROWS, F(1, 100)).ranges == {sid: (1, 4) for sid in RANKED}


def test_one_ranked_subject_and_no_pairs():
    sig = significance(["A"], ROWS, LEVEL)
    assert sig.ranges == {"A": (1, 1)} and sig.n_pairs == 0
    assert "no two ranked subjects share a scored run" in rank_range_method(sig, str)
    assert significance([], [], LEVEL).ranges == {}


def test_outside_range():
    assert outside_range(3, (1, 2)) and outside_range(1, (2, 5))
    assert not outside_range(2, (1, 2)) and not outside_range(None, (1, 2)) and not outside_range(1, None)


# --- sentences ----------------------------------------------------------------------------

def test_range_and_decimal_text():
    assert range_text((1, 2)) == "1\u20132" and range_text((4, 4)) == "4\u20134"
    assert [short_decimal(v) for v in (F(5, 100), F(0), F(1), F(1, 10), F(1, 2))] == ["0.05", "0", "1", "0.1", "0.5"]


def test_method_and_differences_sentences():
    sig = significance(RANKED, ROWS, LEVEL)
    method = rank_range_method(sig, str)
    assert ("exact McNemar test on Pass vs not Pass over the runs both subjects share, Holm-adjusted over the 6 pairs "
            "of ranked subjects, p < 0.05, with the paired difference of Q_final on those runs pointing the same way"
            ) in method
    assert "ranks within a range are not statistically established" in method
    names = {"A": "Alpha", "B": "Beta", "C": "Gamma", "D": "Delta"}
    assert significant_differences(sig, names.get, str) == "Significant differences: Alpha above Gamma and Delta."
    none = Significance(LEVEL, 6, (), {})
    assert significant_differences(none, names.get, str) == "No ranked subject is significantly above another."
    # In HTML the fixed text is escaped too: "p < 0.05" becomes "p &lt; 0.05".
    assert "p &lt; 0.05" in rank_range_method(sig, html.escape)


def metrics(sid: str, p: str, s_bar: str, bs: str = "0.100000", *, disqualified: bool = False) -> SubjectMetrics:
    return SubjectMetrics(sid, "1", 10, 0, F(p), F(s_bar), F(bs), F("0.1"), None, F(1, 2), disqualified,
                          int(disqualified))


# Q_final(alpha) = alpha * P + (1 - alpha) * s_bar / 12.
#   steady: P = 1,   s_bar = 10   -> 5/6 + alpha/6          (0.8333 at 0, 1 at 1)
#   sharp:  P = 0.8, s_bar = 11.2 -> 14/15 - 2 alpha/15     (0.9333 at 0, 0.8 at 1)
#   weak:   P = 0.2, s_bar = 4    -> 1/3 - 2 alpha/15       (third everywhere)
#   equal when 5/6 + alpha/6 = 14/15 - 2 alpha/15, i.e. alpha = 1/3: sharp leads at 0..0.3, steady at 0.4..1.
#   reckless (disqualified) has the best figures but never a rank.
FLIP = [metrics("steady", "1", "10"), metrics("sharp", "0.8", "11.2"), metrics("weak", "0.2", "4"),
        metrics("reckless", "1", "12", disqualified=True)]


def test_alpha_statement_when_the_top_depends_on_alpha():
    statement = alpha_statement(alpha_sensitivity(FLIP, 12), n_ranked=3)
    grid = tuple(F(i, 10) for i in range(11))
    assert statement.depends and statement.top == 3 and statement.grid == grid
    assert statement.spans == (
        AlphaSpan(grid[:4], ((1, "sharp"), (2, "steady"), (3, "weak"))),
        AlphaSpan(grid[4:], ((1, "steady"), (2, "sharp"), (3, "weak"))),
    )
    names = {"steady": "Steady", "sharp": "Sharp", "weak": "Weak"}
    assert alpha_sentence(statement, F(1, 2), names.get, str) == (
        "The top 3 depend on alpha (results/alpha_sensitivity.csv; this leaderboard uses alpha 0.5): "
        "#1 Sharp, #2 Steady, #3 Weak for alpha 0 to 0.3; #1 Steady, #2 Sharp, #3 Weak for alpha 0.4 to 1.")


def test_alpha_statement_when_the_top_does_not_depend_on_alpha():
    # Without "sharp": steady (5/6 .. 1) is above weak (1/3 .. 1/5) at every alpha. Two ranked: the top 2.
    rows = alpha_sensitivity([m for m in FLIP if m.subject_id != "sharp"], 12)
    statement = alpha_statement(rows, n_ranked=2)
    assert not statement.depends and statement.top == 2 and len(statement.spans) == 1
    names = {"steady": "Steady", "weak": "<Weak>"}
    assert alpha_sentence(statement, F(1, 2), lambda sid: html.escape(names[sid]), html.escape) == (
        "The top 2 (#1 Steady, #2 &lt;Weak&gt;) are the same for every alpha from 0 to 1 in steps of 0.1 "
        "(results/alpha_sensitivity.csv).")
    one = alpha_statement(alpha_sensitivity([FLIP[0]], 12), n_ranked=1)
    assert alpha_sentence(one, F(1, 2), names.get, str) == (
        "The first place (#1 Steady) is the same for every alpha from 0 to 1 in steps of 0.1 "
        "(results/alpha_sensitivity.csv).")


def test_no_alpha_statement_without_ranked_subjects_or_rows():
    assert alpha_statement(alpha_sensitivity([FLIP[3]], 12), n_ranked=0) is None
    assert alpha_statement([], n_ranked=2) is None


def test_the_leaderboard_reads_the_columns_compute_metrics_writes():
    assert outputs.PAIRWISE_COLUMNS[: len(PAIRWISE_COLUMNS)] == PAIRWISE_COLUMNS
    assert outputs.ALPHA_COLUMNS[: len(ALPHA_COLUMNS)] == ALPHA_COLUMNS


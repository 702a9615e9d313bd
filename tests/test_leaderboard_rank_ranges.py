"""Rank ranges and the alpha statement: pure rules and their sentences, worked out by hand.

Pairwise rows (with their Holm-adjusted p) and rank sets (as rank_sets.csv gives them) are built in memory.
"""

from __future__ import annotations

import html
import math
from dataclasses import replace
from fractions import Fraction

import pytest

from rgbench.compute.metrics import SubjectMetrics
from rgbench.leaderboard.absent import Shown
from rgbench.leaderboard.display import short_decimal
from rgbench.leaderboard.rank_ranges import (
    AlphaSpan,
    RankRange,
    Significance,
    alpha_statement,
    outside_range,
    significance,
)
from rgbench.leaderboard.significance_text import (
    alpha_sentence,
    order_sentence,
    power_sentence,
    range_text,
    rank_range_method,
    share_text,
    significant_differences,
)
from rgbench.load.scale import ScoreScale, default_scale
from rgbench.stats.alpha_sensitivity import OrderRow, alpha_sensitivity
from rgbench.stats.pairwise import PairwiseRow

SCALE = default_scale(12)   # the seed's 0-12 scale, higher is better

F = Fraction
LEVEL = F(5, 100)


def pair(a: str, b: str, p_holm: str, q_diff: str, q_sd: float = 0.2, p_mde: float = 0.3) -> PairwiseRow:
    return PairwiseRow(a, b, 10, F(q_diff), None, None, F(q_diff), None, None, F(p_holm), "exact", F(p_holm),
                       q_diff_sd=q_sd, p_mde=p_mde)


# Four ranked subjects A > B > C > D (leaderboard order) and a disqualified E.
ROWS = [
    pair("A", "B", "1", "0.020000"), pair("A", "C", "0.010000", "0.300000", 0.15, 0.25),
    pair("A", "D", "0.040000", "0.250000"), pair("A", "E", "0.001000", "0.010000"),
    pair("B", "C", "0.600000", "0.080000"), pair("B", "D", "0.500000", "0.060000", 0.3, 0.4),
    pair("B", "E", "1", "0.010000"), pair("C", "D", "1", "0.000000"), pair("C", "E", "1", "0.010000"),
    pair("D", "E", "1", "0.010000"),
]
RANKED = ["A", "B", "C", "D"]
SETS = {"A": RankRange(1, 2), "B": RankRange(1, 4), "C": RankRange(2, 4), "D": RankRange(2, 4)}


def test_significance_takes_the_ranges_from_the_rank_sets_and_the_differences_from_pairwise():
    sig = significance(RANKED, ROWS, LEVEL, SETS)
    assert sig.ranges == {sid: (SETS[sid].low, SETS[sid].high) for sid in RANKED}
    # p_holm < 0.05 and q_diff > 0: A above C (0.01) and D (0.04); the disqualified E's pair is left out.
    assert sig.above == (("A", "C"), ("A", "D")) and sig.n_pairs == 6
    # power: the smallest and largest MDE over the 6 ranked pairs (10 cases each) at level 0.05/6, from the SDs
    # 0.15 and 0.3: z = z(1 − 0.05/12) = 2.638257, z² = 6.960401, c = z · √(9 / 3.039599) = 4.539733;
    # (c + t_9(0.8) = 0.883404) / √10 = 5.423137 / 3.162278 = 1.714946, times the SD
    assert sig.q_mde == pytest.approx((0.257242, 0.514484), abs=1e-6) and sig.p_mde == (0.25, 0.4)


def test_the_level_comes_from_the_caller():
    assert significance(RANKED, ROWS, F(1, 100), SETS).above == ()          # 0.01 is not < 0.01


def test_without_rank_sets_nothing_is_established():
    assert significance(RANKED, ROWS, LEVEL, None).ranges == {sid: (1, 4) for sid in RANKED}


def test_one_ranked_subject_and_no_pairs():
    sig = significance(["A"], ROWS, LEVEL, {"A": RankRange(1, 1)})
    assert sig.ranges == {"A": (1, 1)} and sig.n_pairs == 0 and sig.q_mde is None
    # one ranked subject: there is no pair at all, so the reason is not "no two share a case"
    assert rank_range_method(sig, str).endswith(" Only one subject is ranked, so no pair is compared.")
    assert "share a case" not in rank_range_method(sig, str)
    two = significance(["A", "B"], [], LEVEL, {"A": RankRange(1, 2), "B": RankRange(1, 2)})
    assert "No two ranked subjects share a case, so no pair is compared." in rank_range_method(two, str)
    assert power_sentence(sig, str) == ""
    assert significance([], [], LEVEL, {}).ranges == {}


def test_outside_range():
    assert outside_range(3, (1, 2)) and outside_range(1, (2, 5))
    assert not outside_range(2, (1, 2)) and not outside_range(None, (1, 2)) and not outside_range(1, None)


# --- sentences ----------------------------------------------------------------------------

def test_range_and_decimal_text():
    assert range_text((1, 2)) == "1\u20132" and range_text((4, 4)) == "4\u20134"
    assert [short_decimal(v) for v in (F(5, 100), F(0), F(1), F(1, 10), F(1, 2))] == ["0.05", "0", "1", "0.1", "0.5"]


def test_method_and_differences_sentences():
    sig = significance(RANKED, ROWS, LEVEL, SETS)
    method = rank_range_method(sig, str)
    assert "with 95% confidence, every ranked subject's true rank" in method and "Mogstad" in method
    assert "sign-flip test of the Q_final difference" in method and "p < 0.05" in method
    names = {"A": "Alpha", "B": "Beta", "C": "Gamma", "D": "Delta"}
    assert significant_differences(sig, names.get, str) == "Significant differences: Alpha above Gamma and Delta."
    none = Significance(LEVEL, 6, (), {})
    assert significant_differences(none, names.get, str) == "No ranked subject is significantly above another."
    # the test cannot resolve: said, with why, never "no differences"
    why = ("too few shared cases for that many pairs (the smallest p the sign-flip test can give a pair is 2/2^k, "
           "k the shared cases on which the two differ; for every pair it is above 0.05/6, the first threshold of "
           "the Holm adjustment over 6 pairs).")
    # p_min 1/4 (3 cases that differ) is above 0.05/m for every pair; p_min 2/2^30 is below
    coarse = significance(RANKED, [replace(r, p_min=F(1, 4)) for r in ROWS], LEVEL, SETS)
    fine = significance(RANKED, [replace(r, p_min=F(2, 2 ** 30)) for r in ROWS], LEVEL, SETS)
    assert coarse.unresolved == coarse.n_pairs > 0 and fine.unresolved == 0
    blind = Significance(LEVEL, 6, (), {}, unresolved=6)
    assert significant_differences(blind, names.get, str) == (
        "No ranked subject is shown significantly above another, and that does not mean they are equal. The test "
        "could not resolve any pair of ranked subjects whatever the difference: " + why)
    one = significant_differences(Significance(LEVEL, 1, (), {}, unresolved=1), names.get, str)
    assert one.endswith("too few shared cases for a test at level 0.05 (the smallest p the sign-flip test can give "
                        "a pair is 2/2^k, k the shared cases on which the two differ; for every pair it is above the "
                        "level 0.05).")
    part = Significance(LEVEL, 6, (("A", "C"),), {}, unresolved=2)
    assert significant_differences(part, names.get, str) == (
        "Significant differences: Alpha above Gamma. The test could not resolve 2 of the 6 pairs of ranked subjects "
        "whatever the difference: " + why.replace("for every pair", "for each of these"))
    # In HTML the fixed text is escaped too: "p < 0.05" becomes "p &lt; 0.05".
    assert "p &lt; 0.05" in rank_range_method(sig, html.escape)
    assert power_sentence(sig, str).startswith(
        "Power: with these cases, a true difference in Q_final of 0.26-0.51 between two ranked subjects is found "
        "significant at least 80% of the time (computed for the sign-flip test at level 0.05/6, the strictest step of "
        "the Holm adjustment over the 6 pairs of ranked subjects, from each pair's observed case-to-case spread")
    assert " in P " not in power_sentence(sig, str)   # no test on the page compares P
    one = Significance(LEVEL, 1, (), {}, (F(1, 5), F(1, 5)))
    assert "(computed for the sign-flip test at level 0.05, from each pair's" in power_sentence(one, str)
    # an MDE of 1 or more (e.g. 3 cases): no difference in Q_final, which is at most 1, can be resolved
    few = Significance(LEVEL, 3, (), {}, (F(13, 10), math.inf))
    assert power_sentence(few, str).startswith(
        "Power: with these cases no true difference in Q_final (at most 1) between two ranked subjects is found "
        "significant with 80% power (computed for the sign-flip test at level 0.05/3, the strictest step of the Holm")
    some = Significance(LEVEL, 3, (), {}, (F(1, 5), math.inf))
    assert "a true difference in Q_final of 0.20 (for the pairs that resolve one; the others resolve no difference) between" in (
        power_sentence(some, str))
    # a pair with too few cases for level 0.05/6 (n ≤ z² = 6.96) has no figure but counts as unresolvable
    short = significance(RANKED, [replace(r, n_cases=5, q_diff_sd=0.2) for r in ROWS], LEVEL, SETS)
    assert short.q_mde == (math.inf, math.inf)
    assert '"not significant" means "not resolved", not "equal"' in power_sentence(sig, str)


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
    statement = alpha_statement(alpha_sensitivity(FLIP, SCALE), n_ranked=3)
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
    rows = alpha_sensitivity([m for m in FLIP if m.subject_id != "sharp"], SCALE)
    statement = alpha_statement(rows, n_ranked=2)
    assert not statement.depends and statement.top == 2 and len(statement.spans) == 1
    names = {"steady": "Steady", "weak": "<Weak>"}
    assert alpha_sentence(statement, F(1, 2), lambda sid: html.escape(names[sid]), html.escape) == (
        "The top 2 (#1 Steady, #2 &lt;Weak&gt;) are the same for every alpha from 0 to 1 in steps of 0.1 "
        "(results/alpha_sensitivity.csv).")
    one = alpha_statement(alpha_sensitivity([FLIP[0]], SCALE), n_ranked=1)
    assert alpha_sentence(one, F(1, 2), names.get, str) == (
        "The first place (#1 Steady) is the same for every alpha from 0 to 1 in steps of 0.1 "
        "(results/alpha_sensitivity.csv).")


def test_no_alpha_statement_without_ranked_subjects_or_rows():
    assert alpha_statement(alpha_sensitivity([FLIP[3]], SCALE), n_ranked=0) is None
    assert alpha_statement([], n_ranked=2) is None



def test_the_swap_sentence_glosses_every_share_and_never_rounds_a_swap_away():
    from types import SimpleNamespace
    # rank_stability.csv as the sample suite has it: 0.4895, 0.003 (6 of 2000 replicates) and 0; the gloss comes
    # before the list (it used to trail the last pair, which read "#3 and #4 in 0% (near 50% ...)"), and 0.003 is
    # "under 1%", not "0%"
    rows = (OrderRow("A", "B", 1, 2, True, None, F("0.4895")), OrderRow("A", "C", 1, 3, False, None, F(0)),
            OrderRow("B", "C", 2, 3, True, None, F("0.003")), OrderRow("C", "D", 3, 4, True, None, F(0)),
            OrderRow("D", "E", 4, 5, True, None, F("0.996")))
    text = order_sentence(SimpleNamespace(order=rows, shown=Shown()), str, str)
    assert text.endswith("Neighbouring ranks swap in this share of bootstrap replicates of the cases (near 50%: the "
                         "data cannot order them): #1 A and #2 B in 49%; #2 B and #3 C in under 1%; #3 C and #4 D "
                         "in 0%; #4 D and #5 E in over 99%.")


@pytest.mark.parametrize(("share", "text"), [
    ("0", "0%"), ("0.0005", "under 1%"), ("0.004999", "under 1%"),
    ("0.005", "1%"),            # 10 of 2000 replicates: 0.5% rounds up (round-half-even gave "0%")
    ("0.015", "2%"), ("0.025", "3%"),   # halves up, not to even
    ("0.5", "50%"), ("0.994999", "99%"), ("0.995", "over 99%"), ("0.9995", "over 99%"), ("1", "100%"),
])
def test_a_swap_share_reads_as_a_whole_percentage_without_rounding_a_rare_event_away(share, text):
    assert share_text(Fraction(share)) == text


def test_the_power_sentence_on_a_benchmarks_own_scale_stays_within_the_scale():
    """s_bar alone moves Q_final by at most 1 - alpha: at alpha 1/2 on a 0-100 scale, a Q_final difference of 0.1
    is 0.1 * 100 / (1/2) = 20 points, and one of 0.6 needs 120 points, more than the scale has."""
    penalty = ScoreScale(F(0), F(100), higher_is_better=False, name="MQM", criteria=4)
    inside = Significance(LEVEL, 3, (), {}, (F(1, 10), F(2, 5)))
    assert "(with P equal: a difference in MQM of 20.00-80.00 on its 0\u2013100 scale)" in (
        power_sentence(inside, str, penalty, F(1, 2)))
    beyond = Significance(LEVEL, 3, (), {}, (F(1, 10), F(3, 5)))
    assert ("(with P equal: a difference in MQM of 20.00 on its 0\u2013100 scale for the most precise "
            "pairs; for the least precise, none within the scale)") in power_sentence(beyond, str, penalty, F(1, 2))
    none = Significance(LEVEL, 3, (), {}, (F(7, 10), F(9, 10)))
    assert "(with P equal: no difference in MQM on its 0\u2013100 scale is enough)" in (
        power_sentence(none, str, penalty, F(1, 2)))

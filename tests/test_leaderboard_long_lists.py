"""Long lists of names in the leaderboard's prose: the count, the CSV that holds them all and the first five.

The helper at its boundary (exactly LIST_LIMIT items, one more), then the sentences that use it, built in memory.
"""

from __future__ import annotations

import html
from fractions import Fraction
from types import SimpleNamespace

from rgbench.leaderboard.absent import Shown
from rgbench.leaderboard.long_lists import LIST_LIMIT, capped, joined
from rgbench.leaderboard.rank_ranges import Significance
from rgbench.leaderboard.significance_text import order_sentence, significant_differences
from rgbench.stats.alpha_sensitivity import OrderRow

F = Fraction


def names(ids):
    return joined(list(ids), str)


def test_the_limit_is_five():
    assert LIST_LIMIT == 5


def test_exactly_the_limit_is_written_whole():
    items = ["A", "B", "C", "D", "E"]
    assert capped(items, names, noun="subject", where="results/x.csv", esc=str) == "A, B, C, D and E"


def test_one_over_the_limit_gives_the_count_the_file_and_the_first_five():
    items = ["A", "B", "C", "D", "E", "F"]
    assert capped(items, names, noun="subject", where="results/x.csv", esc=str) == (
        "6 subjects (all in results/x.csv); the first 5: A, B, C, D and E")


def test_short_lists_and_the_escaping_of_the_fixed_words():
    assert capped([], names, noun="subject", where="w", esc=str) == ""
    assert capped(["A"], names, noun="subject", where="w", esc=str) == "A"
    # the fixed words go through the writer's escaping; the items arrive escaped by the caller
    page = capped(["<b>"] * 7, lambda ids: ", ".join(ids), noun="pair", where="a<b", esc=html.escape, limit=2)
    assert page == "7 pairs (all in a&lt;b); the first 2: <b>, <b>"
    # a Markdown list goes on the lines after the count
    assert capped(["- a", "- b"], "\n".join, noun="line", where="w", esc=str, limit=1, sep="\n") == (
        "2 lines (all in w); the first 1:\n- a")


def test_significant_differences_beyond_the_limit_count_pairs_and_group_the_first_five():
    # A is significantly above B..F (5 pairs) and G above H: 6 pairs, one over the limit. The first five pairs
    # are A's, grouped as always; G's pair is counted, not written.
    above = tuple(("A", x) for x in "BCDEF") + (("G", "H"),)
    sig = Significance(F(5, 100), 28, above, {})
    assert significant_differences(sig, str, str) == (
        "Significant differences: 6 pairs (all in results/pairwise.csv, column significantly_better); the first 5: "
        "A above B, C, D, E and F.")
    five = Significance(F(5, 100), 28, above[:5], {})
    assert significant_differences(five, str, str) == "Significant differences: A above B, C, D, E and F."


def test_the_swap_sentence_beyond_the_limit():
    # six neighbouring pairs #1-#2 .. #6-#7, each swapping in half the replicates
    ids = "ABCDEFG"
    rows = tuple(OrderRow(a, b, i + 1, i + 2, True, None, F(1, 2)) for i, (a, b) in enumerate(zip(ids, ids[1:])))
    text = order_sentence(SimpleNamespace(order=rows, shown=Shown()), str, str)
    assert text.endswith("cannot order them): 6 pairs (all in results/rank_stability.csv); the first 5: #1 A and #2 B "
                         "in 50%; #2 B and #3 C in 50%; #3 C and #4 D in 50%; #4 D and #5 E in 50%; #5 E and #6 F "
                         "in 50%.")

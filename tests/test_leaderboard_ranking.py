"""The leaderboard's pure rules, table-driven: status, order, competition rank, reliability labels, display.

Expected values are worked out by hand in the comments; metric rows are built
in memory (no files).
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from treebuilder import rows

from rgbench.compute.metrics import SubjectMetrics, q_final
from rgbench.compute.ranking import (
    DISQUALIFIED,
    RANKED,
    UNSCORED,
    competition_ranks,
    order_key,
    rank_subjects,
    status_of,
)
from rgbench.leaderboard.display import display_decimals, shown
from rgbench.leaderboard.reliability import (
    INDICATIVE,
    REASONABLE,
    ROBUST,
    STABLE,
    Thresholds,
    subject_labels,
)
from rgbench.load.scale import default_scale
from rgbench.stats.alpha_sensitivity import alpha_sensitivity

SCALE = default_scale(12)   # the seed's 0-12 scale, higher is better

F = Fraction


def row(sid: str, q: str | None = None, p: str | None = None, s_bar: str | None = None, bs: str | None = None,
        *, n: int = 30, critical: int = 0) -> SubjectMetrics:
    """A metrics row as read from metrics_per_subject.csv (6-decimal strings -> exact Fractions)."""
    scored = n > 0
    val = (lambda text: F(text) if scored and text is not None else None)
    return SubjectMetrics(
        subject_id=sid, subject_version="1", n=n, n_unscored=0, p=val(p), s_bar=val(s_bar), bs=val(bs),
        ece=val("0.100000"), q_final=val(q), alpha=F(1, 2), disqualified=critical > 0, n_critical=critical,
    )


def table(rows):
    """(rank, status, subject_id) for each standing, in leaderboard order."""
    return [(s.rank, s.status, s.metrics.subject_id) for s in rank_subjects(rows)]


# --- status -----------------------------------------------------------------

@pytest.mark.parametrize("metrics, expected", [
    (row("a", "0.5", "0.5", "6", "0.2"), RANKED),
    (row("a", "0.5", "0.5", "6", "0.2", critical=1), DISQUALIFIED),    # any critical fail
    (row("a", "0.5", "0.5", "6", "0.2", critical=3), DISQUALIFIED),
    (row("a", n=0), UNSCORED),                                          # N = 0, metrics empty
])
def test_status(metrics, expected):
    assert status_of(metrics) == expected


# --- order and competition rank ----------------------------------------------

ORDER_CASES = {
    # Q_final decides first: 0.8 > 0.7 > 0.6.
    "q_final descending": (
        [row("c", "0.600000", "0.5", "9", "0.1"), row("a", "0.800000", "0.5", "9", "0.1"),
         row("b", "0.700000", "0.5", "9", "0.1")],
        [(1, RANKED, "a"), (2, RANKED, "b"), (3, RANKED, "c")]),
    # Equal Q_final: higher P first (0.6 > 0.5), distinct ranks because P differs.
    "p breaks a q_final tie": (
        [row("a", "0.700000", "0.500000", "10.8", "0.1"), row("b", "0.700000", "0.600000", "9.6", "0.1")],
        [(1, RANKED, "b"), (2, RANKED, "a")]),
    # Equal Q_final and P: higher s_bar first.
    "s_bar breaks a q_final+p tie": (
        [row("a", "0.7", "0.5", "9.000000", "0.1"), row("b", "0.7", "0.5", "9.500000", "0.1")],
        [(1, RANKED, "b"), (2, RANKED, "a")]),
    # Equal Q_final, P, s_bar: LOWER Brier first (0.1 < 0.2).
    "bs ascending breaks the rest": (
        [row("a", "0.7", "0.5", "9", "0.200000"), row("b", "0.7", "0.5", "9", "0.100000")],
        [(1, RANKED, "b"), (2, RANKED, "a")]),
    # All four equal: a true tie, both rank 1, listed by subject_id; the next row is rank 3.
    "true tie then next": (
        [row("zeta", "0.7", "0.5", "9", "0.1"), row("alpha", "0.7", "0.5", "9", "0.1"),
         row("mid", "0.6", "0.5", "9", "0.1")],
        [(1, RANKED, "alpha"), (1, RANKED, "zeta"), (3, RANKED, "mid")]),
    # The example "1, 2, 2, 4".
    "1 2 2 4": (
        [row("d", "0.5", "0.5", "9", "0.1"), row("c", "0.6", "0.5", "9", "0.1"), row("b", "0.6", "0.5", "9", "0.1"),
         row("a", "0.9", "0.5", "9", "0.1")],
        [(1, RANKED, "a"), (2, RANKED, "b"), (2, RANKED, "c"), (4, RANKED, "d")]),
    # Three-way tie at the top: "1, 1, 1, 4".
    "1 1 1 4": (
        [row("a", "0.7", "0.5", "9", "0.1"), row("b", "0.7", "0.5", "9", "0.1"), row("c", "0.7", "0.5", "9", "0.1"),
         row("d", "0.1", "0.5", "9", "0.1")],
        [(1, RANKED, "a"), (1, RANKED, "b"), (1, RANKED, "c"), (4, RANKED, "d")]),
    # Exact comparison: the committed strings 0.645833 and 0.645834 differ by 1e-6 and must not tie.
    "one millionth apart": (
        [row("a", "0.645833", "0.5", "9", "0.1"), row("b", "0.645834", "0.5", "9", "0.1")],
        [(1, RANKED, "b"), (2, RANKED, "a")]),
    # Trailing zeros do not matter to exact values: 0.500000 == 0.5.
    "same value, different text": (
        [row("a", "0.500000", "0.5", "9", "0.1"), row("b", "0.5", "0.500000", "9.000000", "0.100000")],
        [(1, RANKED, "a"), (1, RANKED, "b")]),
    # Disqualified after all ranked rows even with the best Q_final, no rank, same keys among themselves;
    # unscored last by subject_id.
    "sections": (
        [row("u-b", n=0), row("dq-low", "0.3", "0.2", "5", "0.3", critical=1), row("r", "0.4", "0.3", "6", "0.2"),
         row("dq-high", "0.95", "0.9", "11", "0.05", critical=2), row("u-a", n=0)],
        [(1, RANKED, "r"), (None, DISQUALIFIED, "dq-high"), (None, DISQUALIFIED, "dq-low"),
         (None, UNSCORED, "u-a"), (None, UNSCORED, "u-b")]),
    # Disqualified rows are ordered by the same keys, including the BS tiebreak and subject_id.
    "disqualified order": (
        [row("c", "0.7", "0.5", "9", "0.2", critical=1), row("b", "0.7", "0.5", "9", "0.1", critical=1),
         row("a", "0.7", "0.5", "9", "0.2", critical=1)],
        [(None, DISQUALIFIED, "b"), (None, DISQUALIFIED, "a"), (None, DISQUALIFIED, "c")]),
    # Only unscored subjects: no ranks at all.
    "nobody scored": ([row("b", n=0), row("a", n=0)], [(None, UNSCORED, "a"), (None, UNSCORED, "b")]),
    "empty": ([], []),
}


@pytest.mark.parametrize("rows, expected", ORDER_CASES.values(), ids=ORDER_CASES.keys())
def test_order_and_rank(rows, expected):
    assert table(rows) == expected


@pytest.mark.parametrize("rows, expected", ORDER_CASES.values(), ids=ORDER_CASES.keys())
def test_input_order_does_not_matter(rows, expected):
    for seed in range(5):
        shuffled = list(rows)
        random.Random(seed).shuffle(shuffled)
        assert table(shuffled) == expected


def test_subject_id_orders_ties_in_code_point_order():
    # Code-point order puts "B" (66) before "a" (97) and "a-b" before "a.b" ('-' 45 < '.' 46).
    rows = [row(sid, "0.7", "0.5", "9", "0.1") for sid in ("a.b", "a-b", "a")]
    assert [sid for _, _, sid in table(rows)] == ["a", "a-b", "a.b"]


def test_order_key_needs_metrics():
    with pytest.raises(ValueError, match="needs Q_final"):
        order_key(row("a", n=0))


@pytest.mark.parametrize("keys, ranks", [
    ([], []), (["x"], [1]), (["a", "b", "b", "c"], [1, 2, 2, 4]), (["a", "a", "a"], [1, 1, 1]),
    (["a", "b", "c"], [1, 2, 3]), (["a", "a", "b", "b", "c"], [1, 1, 3, 3, 5]),
])
def test_competition_ranks(keys, ranks):
    assert competition_ranks(keys) == ranks


def test_ranking_does_not_mutate_its_input():
    rows = [row("b", "0.1", "0.1", "1", "0.1"), row("a", "0.9", "0.9", "11", "0.1")]
    before = list(rows)
    rank_subjects(rows)
    assert rows == before


# --- reliability labels ---------------------------------------------------------

@pytest.mark.parametrize("half, n_cases, label", [
    ("0", 0, ""),                                      # no case: undefined figure, no label
    ("0", 30, INDICATIVE),                             # a point interval: no spread measured, not a zero spread
    ("0.01", 9, INDICATIVE),                           # fewer than 10 cases: indicative whatever the width
    ("0.019999", 10, ROBUST),
    ("0.02", 10, STABLE),                              # "below 0.02" ends just under it
    ("0.049999", 30, STABLE),
    ("0.05", 30, REASONABLE),
    ("0.099999", 30, REASONABLE),
    ("0.1", 30, INDICATIVE),
    ("0.5", 10_000, INDICATIVE),
])
def test_reliability_thresholds(half, n_cases, label):
    thresholds = Thresholds()                          # config.yaml's defaults: 0.02, 0.05, 0.10; 10 cases
    interval = (F(1, 2) - F(half), F(1, 2) + F(half))
    assert thresholds.label(interval, n_cases) == label
    # s_bar's half-width is read on the 0-1 scale: 12 times wider on 0-12 gives the same label
    assert thresholds.label((F(6) - 12 * F(half), F(6) + 12 * F(half)), n_cases, F(12)) == label
    labels = subject_labels({"P": interval, "s_bar": (F(6) - 12 * F(half), F(6) + 12 * F(half))}, n_cases, thresholds,
                            SCALE)
    assert labels == {"P": label, "s_bar": label, "Q_final": "", "BS": "", "ECE": ""}


def test_threshold_description_states_the_rule():
    assert Thresholds().describe() == (
        "from each figure's 95% interval half-width on the 0-1 scale (s\u0304 divided by the maximum score): "
        "robust below 0.02, stable below 0.05, reasonable below 0.1, indicative above, or whenever the figure "
        "rests on fewer than 10 cases or its interval is a point (every case the same: no spread measured)")


# --- display precision ------------------------------------------------------------

@pytest.mark.parametrize("values, decimals", [
    ([], 3),
    ([F("0.741"), F("0.742")], 3),                       # distinct at 3 decimals
    ([F("0.7421"), F("0.7424")], 4),                     # 0.742 == 0.742 at 3, distinct at 4
    ([F("0.645833"), F("0.645834")], 6),                 # only the committed 6th decimal tells them apart
    ([F("0.5"), F("0.5"), None], 3),                     # equal values may look equal; None ignored
])
def test_display_decimals(values, decimals):
    assert display_decimals(values) == decimals


def test_shown_rounds_half_even_from_the_committed_value():
    assert shown(F("0.122500"), 3) == "0.122"   # half to even: 0.1225 -> 0.122
    assert shown(F("0.162500"), 3) == "0.162"
    assert shown(F("0.645833"), 3) == "0.646"
    assert shown(None, 3) == ""


# --- one rule: the leaderboard and alpha_sensitivity rank alike -----------------

REPO = Path(__file__).resolve().parent.parent
BASIC = Path(__file__).parent / "fixtures" / "leaderboard" / "basic"


@pytest.mark.parametrize("board, results", [
    (REPO / "results" / "leaderboard.csv", REPO / "results"),                      # the sample
    (BASIC / "expected" / "leaderboard.csv", BASIC / "tree" / "results"),         # a tie: #2, #2
])
def test_leaderboard_ranks_are_alpha_sensitivitys_at_the_configured_alpha(board, results):
    alpha = json.loads((results / "manifest.json").read_text(encoding="utf-8"))["alpha"]
    at_alpha = {r["subject_id"]: r["rank"] for r in rows(results / "alpha_sensitivity.csv") if r["alpha"] == alpha}
    ranks = {r["subject_id"]: r["rank"] for r in rows(board)}
    assert ranks == at_alpha and any(ranks.values())
    if "basic" in str(board):
        assert sorted(ranks.values()).count("2") == 2


def test_rank_subjects_and_alpha_sensitivity_agree_on_many_ties():
    rng = random.Random("one-ranking-rule")
    for _ in range(200):
        rows = []
        for i in range(rng.randrange(1, 9)):
            n = rng.choice([0, 12, 12, 12])
            p, s_bar, bs = (F(rng.randrange(3), 2), F(rng.randrange(4) * 3), F(rng.randrange(2), 4)) if n else (None,) * 3
            alpha = F(rng.randrange(11), 10)
            rows.append(SubjectMetrics(f"s{i}", "1", n, 0, p, s_bar, bs, None, q_final(p, s_bar, alpha, SCALE) if n else None,
                                       alpha, n > 0 and rng.random() < 0.2, 0))
        for alpha in {m.alpha for m in rows}:
            at_alpha = [replace(m, alpha=alpha, q_final=q_final(m.p, m.s_bar, alpha, SCALE)) for m in rows]
            board = {s.metrics.subject_id: s.rank for s in rank_subjects(at_alpha)}
            sensitivity = {r.subject_id: r.rank for r in alpha_sensitivity(rows, SCALE, [alpha])}
            assert board == sensitivity

"""Statistics formulas of aggregate_metrics.md §17-§24 on hand-computed values (arithmetic in the comments),
their degenerate cases by name, and cross-checks against statsmodels and numpy. The case-level inference
(case summaries, BCa, the sign-flip test, rank sets, seeds, eligibility) is tested in test_stats_core.py."""

from __future__ import annotations

import random
from fractions import Fraction as F

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint
from test_metrics import row

from rgbench.compute.derive import FAIL, PASS
from rgbench.compute.metrics import (
    brier_score,
    q_final,
)
from rgbench.load.config import DEFAULT_WEIGHTS, parse_stats_config
from rgbench.load.scale import default_scale
from rgbench.stats.alpha_sensitivity import alpha_sensitivity, ranked_order, top_ranks_by_alpha, top_ranks_depend_on_alpha
from rgbench.stats.brier_decomposition import brier_decompositions
from rgbench.stats.difficulty import ALL_SUBJECTS, difficulty_from_columns, weighted_pass_rate
from rgbench.stats.pairwise import holm
from rgbench.stats.pass_at_k import pass_at_k, pass_at_k_from_columns, pass_hat_k
from rgbench.stats.run_columns import RunColumns
from rgbench.stats.wilson import wilson_interval, z_value

SCALE = default_scale(12)   # the seed's 0-12 scale, higher is better

# The hand-computed values below are checked on the functions production calls (the ones
# aggregate_metrics.md names), which take every subject's runs as columns; these give one subject's answer.


def one_subject(rows, sid="s"):
    return RunColumns.of({sid: list(rows)})


def brier_decomposition(rows, bins=10):
    return brier_decompositions(one_subject(rows), bins)["s"]


def pass_at_k_table(runs_by_subject):
    return pass_at_k_from_columns(RunColumns.of(runs_by_subject))


def difficulty_table(runs_by_subject, difficulty_of, weights, confidence):
    """The table with each level's interval given by a stand-in (scope, difficulty) -> (0, 1): the intervals
    themselves are the case bootstrap's (test_stats_core.py)."""
    return difficulty_from_columns(RunColumns.of(runs_by_subject), difficulty_of, weights, lambda scope, d: (0.0, 1.0))[0]


def weighted_pass_rate_of(rows, difficulty_of, weights):
    return difficulty_from_columns(one_subject(rows), difficulty_of, weights, lambda scope, d: (0.0, 1.0))[1]["s"]

HALF = F(1, 2)


# --- Wilson (§17) -------------------------------------------------------------------------

def test_z_value_for_95_percent():
    # the two-sided 95% standard-normal quantile, Φ^-1(0.975) = 1.959964
    assert z_value(F(95, 100)) == pytest.approx(1.959963984540054, abs=1e-12)


def test_wilson_hand_computed_zero_of_four():
    # z² = 3.841459; centre = (0 + z²/8) / (1 + z²/4) = 0.480182 / 1.960365;
    # half = z·sqrt(0 + z²/64) / 1.960365 = (z²/8) / 1.960365 = centre
    # -> [0, 2·centre] = [0, (z²/4) / (1 + z²/4)] = [0, 0.960365 / 1.960365] = [0, 0.489891]
    low, high = wilson_interval(0, 4)
    assert low == 0.0
    assert high == pytest.approx(0.489891, abs=1e-6)


def test_wilson_hand_computed_two_of_three():
    # p = 2/3, z²/n = 1.280486; centre = (0.666667 + 0.640243) / 2.280486 = 0.573084;
    # half = z·sqrt(0.074074 + 0.106708) / 2.280486 = 1.959964·0.425184 / 2.280486 = 0.365424
    # -> [0.207660, 0.938508]
    low, high = wilson_interval(2, 3)
    assert (round(low, 6), round(high, 6)) == (0.20766, 0.938508)


@pytest.mark.parametrize("n", [1, 2, 3, 7, 10, 29, 30, 90])
def test_wilson_matches_statsmodels(n):
    for successes in range(n + 1):
        low, high = wilson_interval(successes, n)
        ref_low, ref_high = proportion_confint(successes, n, alpha=0.05, method="wilson")
        assert low == pytest.approx(ref_low, abs=1e-12) and high == pytest.approx(ref_high, abs=1e-12)


def test_wilson_degenerate_cases():
    assert wilson_interval(0, 0) is None                          # n = 0: no interval
    assert wilson_interval(0, 30)[0] == 0.0                       # P = 0: low is exactly 0 ...
    assert wilson_interval(0, 30)[1] == pytest.approx(0.113513, abs=1e-6)  # ... and the interval is not empty
    assert wilson_interval(30, 30)[1] == 1.0                      # P = 1: high is exactly 1
    assert wilson_interval(1, 1) == pytest.approx((0.206549, 1.0), abs=1e-6)
    with pytest.raises(ValueError):
        wilson_interval(4, 3)


def test_wilson_is_symmetric_and_contains_p():
    for n in (5, 12):
        for s in range(n + 1):
            low, high = wilson_interval(s, n)
            low2, high2 = wilson_interval(n - s, n)
            assert low == pytest.approx(1 - high2, abs=1e-12) and high == pytest.approx(1 - low2, abs=1e-12)
            assert 0 <= low <= s / n <= high <= 1


def test_wider_confidence_gives_a_wider_interval():
    narrow, wide = wilson_interval(5, 10, F(80, 100)), wilson_interval(5, 10, F(99, 100))
    assert wide[0] < narrow[0] and wide[1] > narrow[1]


# --- Brier decomposition (§19) --------------------------------------------------------------

def test_brier_decomposition_hand_computed():
    rows = [row(confidence=90, correctness=1), row(confidence=90, correctness=0),
            row(confidence=20, correctness=0), row(confidence=20, correctness=0)]
    d = brier_decomposition(rows, 10)
    # bin 10: f = 0.9, o = 0.5; bin 3: f = 0.2, o = 0; overall o = 1/4
    # reliability = (2·0.4² + 2·0.2²)/4 = (0.32 + 0.08)/4 = 0.1
    # resolution  = (2·0.25² + 2·0.25²)/4 = 0.0625
    # uncertainty = variance of [1, 0, 0, 0] = 0.25·0.75 = 0.1875; within_bin = 0 (one confidence per bin)
    # BS = (0.01 + 0.81 + 0.04 + 0.04)/4 = 0.225 = 0.1 - 0.0625 + 0.1875
    assert (d.reliability, d.resolution, d.uncertainty, d.within_bin) == (F(1, 10), F(1, 16), F(3, 16), 0)
    assert brier_score(rows) == F(9, 40) == d.reliability - d.resolution + d.uncertainty


def test_brier_decomposition_within_bin_term():
    rows = [row(confidence=90, correctness=1), row(confidence=100, correctness=0)]
    d = brier_decomposition(rows, 10)
    # one bin: f = 0.95, o = 0.5. reliability = 0.45² = 0.2025; resolution = 0; uncertainty = 0.25;
    # within = [(0.05² + 2·0.05·0.5) + (0.05² + 2·0.05·0.5)]/2 = (0.0525 + 0.0525)/2 = 0.0525
    # BS = (0.01 + 1)/2 = 0.505 = 0.2025 - 0 + 0.25 + 0.0525
    assert (d.reliability, d.resolution, d.uncertainty, d.within_bin) == (F(81, 400), 0, F(1, 4), F(21, 400))
    assert brier_score(rows) == F(101, 200)


def test_brier_decomposition_identity_and_bounds_on_random_runs():
    rng = np.random.default_rng(5)
    for _ in range(50):
        rows = [row(confidence=int(c), correctness=F(int(h), 2)) for c, h in
                zip(rng.integers(0, 101, 20), rng.integers(0, 3, 20))]
        d = brier_decomposition(rows, 10)
        assert d.reliability - d.resolution + d.uncertainty + d.within_bin == brier_score(rows)
        assert 0 <= d.reliability <= 1 and 0 <= d.resolution <= F(1, 4) and 0 <= d.uncertainty <= F(1, 4)


def test_brier_decomposition_degenerate_cases():
    assert brier_decomposition([], 10) is None
    same = brier_decomposition([row(confidence=70, correctness=1)] * 3, 10)
    # all correct: no uncertainty and no resolution; reliability (0.7 - 1)² = 0.09 is all of BS
    assert (same.uncertainty, same.resolution, same.reliability) == (0, 0, F(9, 100))


# --- Holm (§20) ----------------------------------------------------------------------------

def test_holm_hand_computed_and_against_statsmodels():
    # sorted 0.01, 0.03, 0.04 -> 3·0.01 = 0.03; 2·0.03 = 0.06; max(0.06, 1·0.04) = 0.06
    assert holm([F(1, 100), F(4, 100), F(3, 100)]) == [F(3, 100), F(6, 100), F(6, 100)]
    assert holm([]) == []
    assert holm([F(1, 2), F(9, 10)]) == [1, 1]   # capped at 1
    rng = np.random.default_rng(2)
    values = [F(int(x), 1000) for x in rng.integers(0, 1001, 12)]
    ref = multipletests([float(v) for v in values], method="holm")[1]
    assert [float(v) for v in holm(values)] == pytest.approx(list(ref), abs=1e-12)


def test_holm_gives_ties_the_same_value():
    assert holm([F(1, 100), F(1, 100)]) == [F(2, 100), F(2, 100)]


# --- pass@k (§22) --------------------------------------------------------------------------

def test_pass_at_k_and_pass_hat_k_hand_computed():
    # n = 3, c = 1, k = 2: pass@2 = 1 - C(2,2)/C(3,2) = 1 - 1/3 = 2/3; pass^2 = C(1,2)/C(3,2) = 0
    assert (pass_at_k(3, 1, 2), pass_hat_k(3, 1, 2)) == (F(2, 3), 0)
    # n = 3, c = 2, k = 2: pass@2 = 1 - C(1,2)/3 = 1; pass^2 = C(2,2)/3 = 1/3
    assert (pass_at_k(3, 2, 2), pass_hat_k(3, 2, 2)) == (1, F(1, 3))
    # k = 1 is the pass rate: 2/3 both ways
    assert pass_at_k(3, 2, 1) == pass_hat_k(3, 2, 1) == F(2, 3)
    # k = n: pass@n = [c > 0], pass^n = [c = n]
    assert (pass_at_k(3, 1, 3), pass_hat_k(3, 1, 3), pass_hat_k(3, 3, 3)) == (1, 0, 1)
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)


def test_pass_at_k_ordering_property():
    for n in range(1, 7):
        for c in range(n + 1):
            for k in range(1, n + 1):
                assert pass_hat_k(n, c, k) <= F(c, n) <= pass_at_k(n, c, k)


def test_pass_at_k_table_hand_computed():
    runs = {
        "a": [row(PASS, case="RO-FOUL-001", run="r1"), row(FAIL, case="RO-FOUL-001", run="r2"),
              row(PASS, case="RO-FOUL-001", run="r3"), row(PASS, case="RO-SCAL-001", run="r1")],
        "b": [],
    }
    table = {(r.subject_id, r.k): r for r in pass_at_k_table(runs)}
    # k = 1: FOUL 2/3, SCAL 1/1 -> mean (2/3 + 1)/2 = 5/6, over 2 cases
    assert (table["a", 1].pass_at_k, table["a", 1].pass_hat_k, table["a", 1].n_cases) == (F(5, 6), F(5, 6), 2)
    # k = 2: FOUL only (n = 3, c = 2): pass@2 = 1, pass^2 = 1/3
    assert (table["a", 2].pass_at_k, table["a", 2].pass_hat_k, table["a", 2].n_cases) == (1, F(1, 3), 1)
    # k = 3: pass@3 = 1, pass^3 = 0
    assert (table["a", 3].pass_at_k, table["a", 3].pass_hat_k) == (1, 0)
    # a subject without scored runs still has its rows, empty
    assert [(r.k, r.pass_at_k, r.n_cases) for r in pass_at_k_table(runs) if r.subject_id == "b"] == \
        [(1, None, 0), (2, None, 0), (3, None, 0)]



def test_pass_at_k_table_is_the_mean_over_eligible_cases():
    rng = random.Random(6)
    for _ in range(20):
        runs = {}
        for s in range(rng.randint(1, 4)):
            runs[f"s{s}"] = [row(rng.choice([PASS, FAIL]), subject=f"s{s}", case=f"RO-FOUL-{c:03d}", run=f"r{r}")
                             for c in range(1, rng.randint(1, 8)) for r in range(rng.randint(1, 7))]
        table = pass_at_k_table(runs)
        for r in table:
            cases = {}
            for x in runs[r.subject_id]:
                n, c = cases.get(x.case_id, (0, 0))
                cases[x.case_id] = (n + 1, c + (x.classification == PASS))
            eligible = [(n, c) for n, c in cases.values() if n >= r.k]
            assert r.n_cases == len(eligible)
            if eligible:
                assert r.pass_at_k == sum(pass_at_k(n, c, r.k) for n, c in eligible) / len(eligible)
                assert r.pass_hat_k == sum(pass_hat_k(n, c, r.k) for n, c in eligible) / len(eligible)
            else:
                assert r.pass_at_k is r.pass_hat_k is None


# --- difficulty (§23) ----------------------------------------------------------------------

DIFFICULTY = {"RO-FOUL-001": 1, "RO-FOUL-002": 1, "RO-SCAL-001": 2, "RO-SCAL-002": 2, "RO-MEMB-001": 3}


def difficulty_rows():
    return [row(PASS, case="RO-FOUL-001"), row(PASS, case="RO-FOUL-002"), row(PASS, case="RO-SCAL-001"),
            row(FAIL, case="RO-SCAL-002"), row(PASS, case="RO-MEMB-001")]


def test_weighted_pass_rate_hand_computed():
    # weights 1, 1.25, 1.5: passes weigh 1 + 1 + 1.25 + 1.5 = 4.75, all runs 1 + 1 + 1.25 + 1.25 + 1.5 = 6
    # -> 4.75 / 6 = 19/24 (P is 4/5)
    assert weighted_pass_rate_of(difficulty_rows(), DIFFICULTY, DEFAULT_WEIGHTS) == F(19, 24)
    equal = {d: F(1) for d in DEFAULT_WEIGHTS}
    assert weighted_pass_rate_of(difficulty_rows(), DIFFICULTY, equal) == F(4, 5)   # equal weights give P
    assert weighted_pass_rate_of([], DIFFICULTY, DEFAULT_WEIGHTS) is None
    # the same from the counts per difficulty: runs 2, 2, 1 and passes 2, 1, 1 at difficulties 1, 2, 3
    assert weighted_pass_rate({1: 2, 2: 2, 3: 1}, {1: 2, 2: 1, 3: 1}, DEFAULT_WEIGHTS) == F(19, 24)
    assert weighted_pass_rate({}, {}, DEFAULT_WEIGHTS) is None
    with pytest.raises(ValueError):
        weighted_pass_rate_of(difficulty_rows(), DIFFICULTY, {1: F(1)})


def test_difficulty_table():
    table = difficulty_table({"a": difficulty_rows(), "b": [row(FAIL, case="RO-FOUL-001")]}, DIFFICULTY,
                             DEFAULT_WEIGHTS, F(95, 100))
    got = [(r.subject_id, r.difficulty, r.n_runs, r.n_pass, r.p) for r in table]
    # ALL pools a and b: difficulty 1 has 3 runs (2 Pass), 2 has 2 (1 Pass), 3 has 1 (1 Pass)
    assert got == [
        (ALL_SUBJECTS, 1, 3, 2, F(2, 3)), (ALL_SUBJECTS, 2, 2, 1, F(1, 2)), (ALL_SUBJECTS, 3, 1, 1, 1),
        ("a", 1, 2, 2, 1), ("a", 2, 2, 1, F(1, 2)), ("a", 3, 1, 1, 1),
        ("b", 1, 1, 0, 0),
    ]
    assert table[0].weight == 1 and table[2].weight == F(3, 2)
    assert (table[2].p_low, table[2].p_high) == (0.0, 1.0)       # the interval function's answer, per level


# --- alpha sensitivity (§24) ---------------------------------------------------------------

def metrics_of(sid, p, s_bar, bs=F(1, 10), n=10, disqualified=False):
    from rgbench.compute.metrics import SubjectMetrics
    return SubjectMetrics(sid, "1", n, 0, p, s_bar, bs, F(0), None, F(1, 2), disqualified, int(disqualified))


def test_alpha_sensitivity_hand_computed():
    x = metrics_of("x", F(1), F(6))        # Q = α + (1 - α)·0.5 = 0.5 + 0.5α
    y = metrics_of("y", F(1, 2), F(12))    # Q = 0.5α + (1 - α) = 1 - 0.5α
    z = metrics_of("z", F(1), F(12), disqualified=True)
    empty = metrics_of("e", None, None, bs=None, n=0)
    rows = alpha_sensitivity([y, x, z, empty], SCALE)
    by = {(r.subject_id, r.alpha): r for r in rows}
    assert len(rows) == 4 * 11 and [r.alpha for r in rows[:11]] == [F(i, 10) for i in range(11)]
    # α = 0: y 1.0, x 0.5 -> y first; α = 1: x 1.0, y 0.5 -> x first
    assert (by["y", 0].q_final, by["y", 0].rank, by["x", 0].rank) == (1, 1, 2)
    assert (by["x", 1].q_final, by["x", 1].rank, by["y", 1].rank) == (1, 1, 2)
    # α = 0.5: both 0.75; not a tie, P breaks it (x has P = 1)
    assert by["x", F(1, 2)].q_final == by["y", F(1, 2)].q_final == F(3, 4)
    assert (by["x", F(1, 2)].rank, by["y", F(1, 2)].rank) == (1, 2)
    # disqualified: Q_final but no rank; N = 0: neither
    assert (by["z", F(1, 2)].q_final, by["z", F(1, 2)].rank) == (1, None)
    assert (by["e", F(1, 2)].q_final, by["e", F(1, 2)].rank) == (None, None)
    assert top_ranks_depend_on_alpha(rows, top=1)
    assert top_ranks_by_alpha(rows, top=1)[F(0)] == ((1, "y"),)


def test_alpha_sensitivity_stable_top_and_shared_ranks():
    a = metrics_of("a", F(1), F(12))
    b = metrics_of("b", F(1, 2), F(6))
    b2 = metrics_of("b2", F(1, 2), F(6))   # equal to b on Q, P, s_bar and BS: the same rank
    rows = alpha_sensitivity([a, b, b2], SCALE)
    assert not top_ranks_depend_on_alpha(rows, top=3)
    assert ranked_order([a, b, b2], F(1, 2), SCALE) == [(1, "a"), (2, "b"), (2, "b2")]



def test_alpha_sensitivity_equals_the_fraction_definition_with_ties():
    # the leaderboard rule with Fraction keys and metrics.q_final, as first written
    def reference(subjects, alpha):
        keyed = sorted(((-q_final(m.p, m.s_bar, alpha, SCALE), -m.p, -m.s_bar, m.bs), m.subject_id)
                       for m in subjects if m.n and not m.disqualified)
        out = []
        for position, (key, sid) in enumerate(keyed, start=1):
            out.append((out[-1][0] if out and key == keyed[position - 2][0] else position, sid))
        return out

    rng = random.Random(4)
    for _ in range(30):
        subjects = [metrics_of(f"s{i:02d}", F(rng.randint(0, 6), 6), F(rng.randint(0, 24), rng.choice([2, 3, 4])),
                               bs=F(rng.randint(0, 3), rng.choice([10, 20])), n=rng.choice([0, 5, 6]),
                               disqualified=rng.random() < 0.2) for i in range(rng.randint(0, 12))]
        subjects = [m if m.n else metrics_of(m.subject_id, None, None, bs=None, n=0) for m in subjects]
        subjects += [metrics_of("twin", *(subjects[0].p, subjects[0].s_bar), bs=subjects[0].bs)] if subjects and \
            subjects[0].n else []
        grid = [F(i, 10) for i in range(11)] + [F(1, 3)]
        rows = alpha_sensitivity(subjects, SCALE, grid)
        by = {(r.subject_id, r.alpha): r for r in rows}
        for alpha in grid:
            order = reference(subjects, alpha)
            assert ranked_order(subjects, alpha, SCALE) == order
            ranks = dict((sid, rank) for rank, sid in order)
            for m in subjects:
                assert by[m.subject_id, alpha].q_final == q_final(m.p, m.s_bar, alpha, SCALE)
                assert by[m.subject_id, alpha].rank == ranks.get(m.subject_id)


# --- configuration -------------------------------------------------------------------------

def test_stats_config_defaults_and_validation():
    config, messages = parse_stats_config({}, range(1, 6))
    assert messages == [] and config.bootstrap_resamples == 2000 and config.confidence_level == F(95, 100)
    config, messages = parse_stats_config({"confidence_level": 0.9, "bootstrap_resamples": 100,
                                           "significance_level": 0.01, "difficulty_weights": {1: 1, 2: 2.5}},
                                          range(1, 3))
    assert messages == [] and config.confidence_level == F(9, 10) and config.difficulty_weights == {1: 1, 2: F(5, 2)}
    _, messages = parse_stats_config({"confidence_level": 1, "bootstrap_resamples": True,
                                      "difficulty_weights": {1: 0, "x": 1}}, range(1, 3))
    assert messages == [
        "$.bootstrap_resamples: must be an integer from 1 to 100000, got True",
        "$.confidence_level: must be a number strictly between 0 and 1, got 1",
        "$.difficulty_weights.1: must be a positive number, got 0",
        "$.difficulty_weights: key 'x' is not an integer difficulty",
        "$.difficulty_weights: no weight for difficulty 2 (the gold schema allows 1-2)",
    ]
    # a number is written unquoted, as in benchmark.yaml (alpha and q_final_jump_threshold, which the command
    # line also gives as text, take either)
    assert parse_stats_config({"significance_level": "0.01"})[1] == [
        "$.significance_level: must be a number strictly between 0 and 1, got '0.01'"]


def test_the_declared_seed_is_a_non_negative_integer():
    assert parse_stats_config({}, None)[0].seed == 0                        # the default
    config, messages = parse_stats_config({"seed": 7}, None)
    assert messages == [] and config.seed == 7
    assert parse_stats_config({"seed": 2**70}, None)[0].seed == 2**70        # any size: it is hashed as text
    assert parse_stats_config({"seed": 7.0}, None)[0].seed == 7             # JSON Schema's integer: 7.0 is 7
    for bad in (-1, True, "7", 7.5, None, [7]):
        config, messages = parse_stats_config({"seed": bad}, None)
        assert config.seed == 0 and messages == [
            f"$.seed: must be a non-negative integer (write it without quotes or decimals, e.g. seed: 0), got {bad!r}"]

"""The sign-flip p-values that resolve at any board size (issue 25, aggregate_metrics.md §20): the exact
distribution on the integer lattice, the saddlepoint approximation and how close it is, the rule that
makes a close decision exact, the smallest attainable p, and the family (the pairs of ranked subjects).
Hand-computed values with the arithmetic in the comments; brute-force enumeration in tests/reference_stats.py."""

from __future__ import annotations

import random
from fractions import Fraction as F

import numpy as np
from reference_stats import sign_flip_p
from test_metrics import row

import rgbench.stats.pairwise as pairwise
from rgbench.compute.derive import FAIL, PASS
from rgbench.load.scale import default_scale
from rgbench.stats.case_summary import case_summaries
from rgbench.stats.pairwise import (
    APART,
    CLOSE,
    EXACT,
    RANKED_FAMILY,
    SADDLEPOINT,
    exact_cells,
    pairwise_table,
    sign_flip_exact,
    sign_flip_saddlepoint,
    sign_flip_test,
    significantly_better,
    smallest_p,
    unresolvable,
)
from rgbench.stats.run_columns import RunColumns

C95 = F(95, 100)
LEVEL = F(5, 100)


def summaries(runs_by_subject):
    return case_summaries(RunColumns.of(runs_by_subject), alpha=F(1, 2), scale=default_scale(12), bins=10)


def exact(values) -> F:
    return sign_flip_exact(np.array(values, dtype=np.int64))


# --- the exact distribution ---------------------------------------------------------------------------------

def test_exact_p_hand_computed():
    # 1, 2, 3: |T| = 6 = Σ|d|, reached by +++ and −−− only: p = 2/8
    assert exact([1, 2, 3]) == F(1, 4)
    # 1, −2, 3: A = 6, t = 2, W (the flipped sum) ≤ (6 − 2)/2 = 2: {}, {1}, {2} -> 3 subsets; p = 2·3/8 = 3/4
    # (enumeration: ±1 ± 2 ± 3 = 6, 4, 2, 0, 0, −2, −4, −6; |S| ≥ 2 for 6 of 8)
    assert exact([1, -2, 3]) == F(3, 4)
    # a zero takes both signs with the same sum and the scale cancels (gcd 2): as 1, 2, 3
    assert exact([2, 4, 0, 6]) == F(1, 4)
    # ties: 3, 3, 3, −3 -> a = 1, 1, 1, 1, A = 4, t = 2, W ≤ 1: 1 + 4 = 5 subsets; p = 2·5/16 = 5/8
    # (enumeration: |S| ≥ 6 for S = ±12 (2 patterns) and ±6 (8 patterns): 10/16)
    assert exact([3, 3, 3, -3]) == F(5, 8)
    # nothing to test: all zero, T = 0, or a single non-zero difference (2 of 2 patterns reach it)
    assert exact([0, 0, 0]) == exact([1, -1]) == exact([5]) == exact([0, 7, 0]) == 1
    # past 512 cases the counts are rescaled by 2^-512, exactly: 599 ones and one −1: A = 600, t = 598,
    # W ≤ 1: {} and the 600 singletons -> 601 subsets; p = 2·601/2^600
    assert exact([1] * 599 + [-1]) == F(2 * 601, 2 ** 600)
    assert exact([1] * 700) == F(2, 2 ** 700) == smallest_p(np.ones(700, dtype=np.int64))


def test_exact_p_is_the_enumeration():
    rnd = random.Random(25)
    for _ in range(150):
        d = [rnd.choice([0, 0, rnd.randint(-9, 9), rnd.randint(-3, 3) * 4]) for _ in range(rnd.randint(1, 9))]
        assert exact(d) == sign_flip_p([F(x) for x in d]), d


def test_smallest_p_and_unresolvable():
    # k non-zero differences: 2/2^k; the zeros do not count
    assert smallest_p(np.array([3, 0, -1, 0, 2])) == F(2, 8)
    assert smallest_p(np.array([0, 0])) == smallest_p(np.array([4])) == 1
    # 6 differing cases: p_min = 2/64 = 1/32 = 0.03125; over 2 pairs Holm starts at 0.05/2 = 0.025 < 0.03125:
    # unresolvable; over 1 pair 0.05 > 0.03125: resolvable
    r = pairwise.PairwiseRow("a", "b", 6, p_min=F(1, 32))
    assert unresolvable(r, LEVEL, 2) and not unresolvable(r, LEVEL, 1)
    assert not unresolvable(pairwise.PairwiseRow("a", "b", 0), LEVEL, 2)


# --- the saddlepoint and how close it is ------------------------------------------------------------------

def q_differences(rng: np.random.Generator, n: int, runs: int, lumpy: bool) -> np.ndarray:
    """Per-case Q_final differences as the board makes them (alpha 1/2, 0-12 scale: q = 12·Pass + score per
    run, summed over the runs), or a mixture of two or three magnitudes (lumpy: a few distinct values)."""
    if lumpy:
        magnitudes = rng.choice([1, 2, 3, 5, 12, 40, 133, 400, 533], size=int(rng.integers(2, 4)), replace=False)
        d = rng.choice(magnitudes, size=n) * np.where(rng.random(n) < rng.uniform(0.5, 0.85), 1, -1)
        d[rng.random(n) < 0.2] = 0
        return d

    def subject(p: float) -> np.ndarray:
        passes = rng.random((n, runs)) < p
        score = np.where(passes, rng.integers(7, 13, (n, runs)), rng.integers(0, 9, (n, runs)))
        return (12 * passes + score).sum(axis=1)
    a, b = rng.uniform(0.2, 0.9, 2)
    return subject(a) - subject(b)


def worst_ratio(lumpy: bool, runs: int, cases: tuple[int, int], draws: int) -> float:
    rng = np.random.default_rng(2025 + runs + 7 * lumpy)
    worst = 1.0
    for _ in range(draws):
        d = q_differences(rng, int(rng.integers(*cases)), runs, lumpy)
        p = float(sign_flip_exact(d))
        if p < 0.5:
            s = float(sign_flip_saddlepoint(d)[0])
            worst = max(worst, s / p, p / s)
    return worst


def test_saddlepoint_agrees_with_the_exact_p():
    # Measured (seeds fixed) over random difference vectors, ties and zeros included, p < 0.5 only: the worst
    # factor between the two. Board-like differences (alpha 1/2, 0-12 scale), 80-160 cases: 1.001 (1 run),
    # 1.057 (3 runs); 17-60 cases: 1.29 (1 run), 1.77 (3 runs: the pass jumps make the lattice lumpy), where the
    # exact p is used anyway (k·A/2 is far below EXACT_CELLS). Lumpy mixtures of 2-3 magnitudes (1 to 533):
    # 3.9 here (5.4 the worst of 2,000 other draws): the lattice correction assumes a smooth lattice of span
    # 1. CLOSE (10) covers all of them: a decision the saddlepoint leaves is not one the exact p changes.
    assert worst_ratio(False, 1, (80, 160), 100) < 1.02
    assert worst_ratio(False, 3, (80, 160), 100) < 1.1
    assert worst_ratio(False, 1, (17, 60), 200) < 1.35
    assert worst_ratio(False, 3, (17, 60), 200) < 1.9
    assert worst_ratio(True, 1, (30, 120), 200) < CLOSE
    # identical columns give identical p-values, a column of zeros 1, T = ±1 (lattice units) exactly 1
    d = np.array([[5, 5, 0], [7, 7, 0], [9, 9, 0], [-1, -1, 0]] * 20)
    p = sign_flip_saddlepoint(d)
    assert p[0] == p[1] and p[2] == 1.0
    assert sign_flip_saddlepoint(np.array([2, -1, -1, 1]))[0] == 1.0       # T = 1: P(W ≥ (A+1)/2) = 1/2 exactly


def test_the_method_rule_of_sign_flip_test():
    d = np.array([[3, 1], [5, 0], [-2, 1], [7, 1]] * 10)
    # cells: column 0 a = 3, 5, 2, 7 (×10, gcd 1), A = 170, t = 130, W ≤ 20: 40 · 21 = 840; column 1 30 · 1 = 30
    assert [exact_cells(d[:, j]) for j in range(2)] == [840, 30]
    p, kinds = sign_flip_test(d, exact_budget=100)
    assert kinds == [SADDLEPOINT, EXACT] and p[1] == F(2, 2 ** 30)
    assert p[0] >= smallest_p(d[:, 0]) and abs(float(p[0]) / float(exact(d[:, 0])) - 1) < 0.2


# --- the close rule and the family --------------------------------------------------------------------------

CASES = tuple(f"RO-FOUL-{i:03d}" for i in range(1, 41))


def board(strengths: dict[str, float], cases=CASES, seed: int = 4):
    rnd = random.Random(seed)
    return {sid: [row(PASS if rnd.random() < p else FAIL, clipped=rnd.randint(0, 12), case=c, subject=sid)
                  for c in cases] for sid, p in strengths.items()}


def test_a_close_decision_is_exact_and_the_rest_saddlepoint(monkeypatch):
    monkeypatch.setattr(pairwise, "EXACT_CELLS", 0)      # no exact p unless the decision is close
    runs = board({"a": 0.9, "b": 0.75, "c": 0.5, "d": 0.3, "e": 0.1})
    rows = [r for r in pairwise_table(summaries(runs), "seed", resamples=200, confidence=C95, level=LEVEL)]
    for r in rows:
        near = LEVEL / CLOSE <= r.p_holm <= LEVEL * CLOSE or LEVEL / CLOSE <= r.p_bh <= LEVEL * CLOSE
        assert r.test == (EXACT if near else SADDLEPOINT), r
    assert {r.test for r in rows} == {EXACT, SADDLEPOINT}
    # the decisions are those of the exact p-values everywhere
    monkeypatch.setattr(pairwise, "EXACT_CELLS", 1 << 40)
    everything = {(r.subject_a, r.subject_b): r for r in pairwise_table(summaries(runs), "seed", resamples=200,
                                                                        confidence=C95, level=LEVEL)}
    assert all(r.test == EXACT for r in everything.values())
    assert [significantly_better(r, LEVEL) for r in rows] == [
        significantly_better(everything[r.subject_a, r.subject_b], LEVEL) for r in rows]


def test_the_family_is_the_ranked_pairs():
    runs = board({"a": 0.9, "b": 0.6, "c": 0.3})
    ranked = ["a", "b", "c"]
    before = {(r.subject_a, r.subject_b): r for r in pairwise_table(summaries(runs), "seed", resamples=200,
                                                                    confidence=C95, level=LEVEL, ranked=ranked)}
    # an incomplete subject with 2 cases, not ranked: its pairs are tested apart, no ranked pair's p_holm moves
    runs["inc"] = board({"inc": 0.0}, cases=CASES[:2])["inc"]
    after = {(r.subject_a, r.subject_b): r for r in pairwise_table(summaries(runs), "seed", resamples=200,
                                                                   confidence=C95, level=LEVEL, ranked=ranked)}
    assert set(after) - set(before) == {("a", "inc"), ("b", "inc"), ("c", "inc")}
    for pair, r in before.items():
        assert r.family == RANKED_FAMILY and after[pair] == r
    for pair in set(after) - set(before):
        r = after[pair]
        assert (r.family, r.n_cases, r.p_holm, r.p_bh) == (APART, 2, None, None) and r.p_value is not None
        assert significantly_better(r, LEVEL) is None
    # without the family (ranked=None) the same subject would be in Holm's m: 6 pairs instead of 3
    everyone = {(r.subject_a, r.subject_b): r for r in pairwise_table(summaries(runs), "seed", resamples=200,
                                                                      confidence=C95, level=LEVEL)}
    assert all(r.family == RANKED_FAMILY for r in everyone.values())
    assert any(everyone[pair].p_holm != r.p_holm for pair, r in before.items())


def test_separated_twenty_subjects_every_pair_ten_ranks_apart_is_significant():
    # 20 subjects, 100 cases: subject i passes with probability 0.05 + 0.045·i (0.05 to 0.905), scores follow;
    # 190 pairs in Holm's family, so the first threshold is 0.05/190 = 0.00026 and p_min = 2/2^100 is far below
    cases = tuple(f"RO-FOUL-{i:03d}" for i in range(1, 101))
    strengths = {f"s{i:02d}": 0.05 + 0.045 * i for i in range(20)}
    runs = board(strengths, cases=cases, seed=20)
    rows = pairwise_table(summaries(runs), "seed", resamples=100, confidence=C95, level=LEVEL, ranked=list(strengths))
    assert len(rows) == 190 and not any(unresolvable(r, LEVEL, 190) for r in rows)
    apart = [r for r in rows if abs(int(r.subject_a[1:]) - int(r.subject_b[1:])) >= 10]
    assert len(apart) == 55
    assert all(significantly_better(r, LEVEL) == r.subject_b for r in apart)   # the higher index is stronger

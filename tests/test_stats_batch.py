"""The fast statistics paths equal the straightforward ones: case-set draws against their definition, exact
products and percentiles against plain integer code, and every table compute_metrics builds at once against
the per-subject / per-pair functions, on small random data (degenerate shapes included)."""

from __future__ import annotations

import math
import random
from fractions import Fraction as F

import numpy as np
import pytest
from reference_stats import (
    brier_decomposition,
    compare_pair,
    difficulty_table,
    pass_at_k_table,
    subject_intervals,
    weighted_pass_rate_of_rows,
)
from test_metrics import row
from treebuilder import LIBRARY_ROOT

from rgbench.compute.derive import CONDITIONAL, FAIL, PASS
from rgbench.stats.batch_percentiles import order_statistic_indices, percentile_intervals
from rgbench.stats.bootstrap import Replicates, percentile_interval
from rgbench.stats.brier_decomposition import brier_decompositions
from rgbench.stats.case_draws import CaseDraws, case_set_label
from rgbench.stats.config import DEFAULT_WEIGHTS
from rgbench.stats.difficulty import difficulty_from_columns
from rgbench.stats.exact_products import FLOAT32_EXACT, exact_bincount, exact_matmul
from rgbench.stats.intervals_table import subject_intervals_table
from rgbench.stats.pairwise import binomial_tail, holm, mcnemar_exact_p, pairwise_table
from rgbench.stats.pass_at_k import pass_at_k_from_columns
from rgbench.stats.run_columns import RunColumns

CONFIDENCE = F(95, 100)


# --- reference implementations: the definitions, one value at a time ------------------------

def reference_counts(draws: CaseDraws, member) -> np.ndarray:
    """The draw of a case set by its definition: per replicate, walk the master stream and keep the picks in the set."""
    member = np.asarray(member, dtype=bool)
    size = int(member.sum())
    out = np.zeros((draws.resamples, draws.k), dtype=np.int64)
    for b in range(draws.resamples):
        kept, t = 0, 0
        while kept < size:
            for pick in draws.block(t)[b]:
                if member[pick]:
                    out[b, pick] += 1
                    kept += 1
                    if kept == size:
                        break
            t += 1
    return out[:, member]


def reference_holm(p_values):
    """Holm as first written: sorted by exact value, Fraction arithmetic throughout."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [F(0)] * m
    running = F(0)
    for position, index in enumerate(order):
        running = max(running, min(F(1), (m - position) * F(p_values[index])))
        adjusted[index] = running
    return adjusted


def reference_mcnemar(a, b):
    n, k = a + b, min(a, b)
    return min(F(1), F(2 * sum(math.comb(n, i) for i in range(k + 1)), 2 ** n))


def random_runs(rng: random.Random, subjects: int, cases: int, runs: int, *, missing: float = 0.2,
                duplicates: bool = False) -> dict[str, list]:
    """Random scored runs: some subjects lack runs or whole cases, classifications and correctness all kinds."""
    out = {}
    case_ids = [f"RO-FOUL-{i:03d}" for i in range(1, cases + 1)]
    for s in range(subjects):
        rows = []
        for case_id in case_ids:
            for r in range(1, runs + 1):
                if rng.random() < missing:
                    continue
                rows.append(row(rng.choice([PASS, PASS, CONDITIONAL, FAIL]), clipped=rng.randint(0, 12),
                                confidence=rng.randint(0, 100), correctness=F(rng.randint(0, 2), 2),
                                subject=f"s{s}", case=case_id, run=f"r{r}"))
        if duplicates and rows:
            first = rows[0]
            rows.append(row(FAIL, clipped=1, confidence=3, correctness=0, subject=first.subject_id,
                            case=first.case_id, run=first.run_id))   # the same item again: the later one counts
        rng.shuffle(rows)
        out[f"s{s}"] = rows
    out["empty"] = []
    return out


# --- case-set draws (aggregate_metrics.md §18) -------------------------------------------------

@pytest.mark.parametrize("k", [1, 2, 7, 30])
def test_case_set_draws_follow_their_definition(k):
    rng = np.random.default_rng(k)
    draws = CaseDraws(11, [f"c{i:02d}" for i in range(k)], 150)
    sets = [np.ones(k, dtype=bool)] + [rng.random(k) < share for share in (0.1, 0.5, 0.9) for _ in range(3)]
    sets += [np.eye(k, dtype=bool)[0], ~np.eye(k, dtype=bool)[-1]]           # one case; all but one
    for member in sets:
        if not member.any():
            continue
        counts = draws.counts(member)
        assert counts.shape == (150, int(member.sum())) and (counts.sum(axis=1) == member.sum()).all()
        assert (counts == reference_counts(draws, member)).all()
    assert (draws.counts(np.ones(k, dtype=bool)) == draws.base).all()     # the universe is block 0 itself


def test_case_set_draws_are_seeded_by_the_seed_and_the_case_list_only():
    cases = [f"RO-FOUL-{i:03d}" for i in range(1, 13)]
    one, again = CaseDraws(5, cases, 300), CaseDraws(5, reversed(cases + cases[:3]), 300)
    assert one.universe == again.universe and (one.base == again.base).all()
    member = one.member(cases[2:9])
    assert (one.counts(member) == again.counts(member)).all()
    assert not (one.base == CaseDraws(6, cases, 300).base).all()                 # another seed
    assert not (one.base[:, :11] == CaseDraws(5, cases[:11], 300).base).all()    # another case list
    assert case_set_label(cases) == case_set_label(reversed(cases)) != case_set_label(cases[1:])


def test_later_blocks_do_not_depend_on_the_order_they_are_asked_in():
    first, second = CaseDraws(3, "abcdefgh", 40), CaseDraws(3, "abcdefgh", 40)
    wanted = [first.block(t).copy() for t in (1, 2, 3, 4)]
    for t in (4, 2, 3, 1, 4):
        assert (second.block(t) == wanted[t - 1]).all()


def test_replicate_sums_of_many_sets_at_once_equal_the_products_with_each_sets_counts():
    rng = np.random.default_rng(4)
    for k, b in ((20, 200), (5, 300), (1, 50)):
        draws = CaseDraws(9, [f"c{i}" for i in range(k)], b)
        members = np.vstack([np.ones(k, dtype=bool)] + [rng.random(k) < share for share in (0.2, 0.6, 0.95, 0.05)])
        members[:, 0] = True                                           # every set non-empty
        members = np.vstack([members, members[2]])                    # two rows with the same set
        values = rng.integers(-50, 50, size=members.shape) * members   # zero outside each row's set
        runs = rng.integers(1, 4, size=members.shape) * members
        got_values, got_runs = draws.replicate_sums([values, runs], members)
        for p, member in enumerate(members):
            counts = draws.counts(member)
            assert (got_values[p] == counts @ values[p, member]).all()
            assert (got_runs[p] == counts @ runs[p, member]).all()
        universe, = draws.replicate_sums([values[:1]])                # no sets given: the universe's draw
        assert (universe[0] == draws.base @ values[0]).all()


# --- exact products and percentiles ------------------------------------------------------------

def test_exact_matmul_is_the_integer_product_or_refuses():
    rng = np.random.default_rng(1)
    for high in (3, 1000, 10**6):
        left, right = rng.integers(-high, high, size=(13, 40)), rng.integers(0, 9, size=(40, 7))
        assert (exact_matmul(left, right) == left @ right).all()
    worst = np.full((1, 64), 2**18 - 1)          # partial sums reach 64 · (2**18 - 1) < 2**24: float32 still exact
    assert 64 * (2**18 - 1) < FLOAT32_EXACT and exact_matmul(worst, np.ones((64, 1)))[0, 0] == 64 * (2**18 - 1)
    with pytest.raises(OverflowError):
        exact_matmul(np.full((1, 4), 2**52), np.full((4, 1), 2))
    index = rng.integers(0, 5, 100)
    weights = rng.integers(-10**9, 10**9, 100)
    expected = np.zeros(5, dtype=np.int64)
    np.add.at(expected, index, weights)
    assert (exact_bincount(index, weights, 5) == expected).all()


@pytest.mark.parametrize("b", [1, 2, 5, 40, 2000])
def test_batch_percentiles_equal_the_exact_per_row_path(b):
    rng = np.random.default_rng(b)
    num = rng.integers(-3000, 3000, size=(9, b))
    num[0] = 7                                                # all replicates equal
    num[1] = rng.integers(0, 3, size=b)                       # many ties
    den = rng.integers(1, 900, size=(9, b))
    scales = [F(1, 24), F(1), F(1, 40000), F(3, 7), F(1, 200), F(1), F(1), F(2), F(1, 9)]
    for confidence in (CONFIDENCE, F(1, 2), F(9, 10)):
        fast = percentile_intervals(num.astype(np.float64), den.astype(np.float32), scales, confidence)
        slow = [percentile_interval(Replicates(num[i], den[i], scales[i]), confidence) for i in range(9)]
        assert fast == slow


def test_batch_percentiles_fall_back_to_exact_order_where_floats_could_tie():
    # denominators near 2**26: distinct values may lie closer than float rounding, so the row takes the exact path
    big = 2**26
    num = np.array([[big - 1, big + 1, 1, 2, big - 3]], dtype=np.float64)
    den = np.array([[big, big + 2, 1, 1, big - 2]], dtype=np.float64)
    assert percentile_intervals(num, den, [F(1)], F(1, 2)) == [
        percentile_interval(Replicates(num[0].astype(np.int64), den[0].astype(np.int64), F(1)), F(1, 2))]


def exact_ranked(num_row, den_row) -> list[F]:
    return sorted(F(int(n), int(d)) for n, d in zip(num_row, den_row))


@pytest.mark.parametrize("seed", range(6))
def test_order_statistic_picks_hold_the_exact_order_statistics(seed):
    # rows built to defeat the float shortcuts: exact ties, distinct values equal in float32 (and in float64),
    # planted at and around the wanted ranks, with float32 and float64 inputs, small and large magnitudes
    rng = np.random.default_rng(seed)
    b = int(rng.choice([1, 2, 3, 7, 50, 400]))
    rows = 24
    den = rng.integers(1, 900, size=(rows, b))
    num = rng.integers(-3000, 3000, size=(rows, b))
    num[0], den[0] = 5, 3                                             # one value in every replicate
    num[1] = rng.integers(0, 3, size=b)                               # few distinct values: ties everywhere
    num[2], den[2] = rng.integers(0, 40, size=b), 1                   # small range: float32 order is exact
    if b >= 2:
        near32 = [(1000001, 1000000), (1000002, 1000001), (3000004, 3000001)]   # one float32, three values
        near64 = [(2**30 - 1, 2**30), (2**30, 2**30 + 1), (2**31 - 1, 2**31 + 1)]   # one float64 too
        for row, planted in ((3, near32), (4, near32), (5, near64), (6, near64)):
            for i in range(b):
                num[row, i], den[row, i] = planted[int(rng.integers(len(planted)))]
            num[row, : b // 3] = 0                                    # and some clearly smaller ones
    ranks = sorted({int(r) for r in rng.integers(0, b, size=3)} | {0, b - 1})
    for dtype in (np.float32, np.float64):
        if dtype is np.float32 and ((np.abs(num) >= 2**24).any() or (den >= 2**24).any()):
            continue
        picks, settled = order_statistic_indices(num.astype(dtype), den.astype(dtype), ranks)
        assert settled[:3].all()                                      # the easy rows take the float path
        for row in np.flatnonzero(settled):
            expected = exact_ranked(num[row], den[row])
            for j, r in enumerate(ranks):
                i = picks[row, j]
                assert F(int(num[row, i]), int(den[row, i])) == expected[r]
        for confidence in (CONFIDENCE, F(1, 2), F(1, 3)):
            fast = percentile_intervals(num.astype(dtype), den.astype(dtype), [F(1, 7)] * rows, confidence)
            assert fast == [percentile_interval(Replicates(num[i], den[i], F(1, 7)), confidence) for i in range(rows)]


def test_order_statistics_of_values_closer_than_float_precision_are_exact():
    # 1000001/1000000 > 3000004/3000001 > 1000002/1000001 share one float32, not one float64: told apart in float64
    num = np.array([[1000002, 3000004, 1000001, 1]], dtype=np.float32)
    den = np.array([[1000001, 3000001, 1000000, 1]], dtype=np.float32)
    assert np.unique(num[:, :3] / den[:, :3]).size == 1 < np.unique(num[:, :3].astype(float) / den[:, :3]).size
    picks, settled = order_statistic_indices(num, den, [0, 1, 2, 3])
    assert settled.all() and picks.tolist() == [[3, 0, 1, 2]]
    # (2**30 - 1)/2**30 < (2**31 - 1)/(2**31 + 1) < 2**30/(2**30 + 1) share one float64: the exact path decides
    num = np.array([[2**30, 2**31 - 1, 2**30 - 1, 1]], dtype=np.float64)
    den = np.array([[2**30 + 1, 2**31 + 1, 2**30, 1]], dtype=np.float64)
    assert np.unique(num[:, :3] / den[:, :3]).size == 1
    picks, settled = order_statistic_indices(num, den, [1])
    assert not settled.any()
    exact = Replicates(num[0].astype(np.int64), den[0].astype(np.int64), F(1))
    for confidence in (F(1, 2), F(1, 3)):
        assert percentile_intervals(num, den, [F(1)], confidence) == [percentile_interval(exact, confidence)]



@pytest.mark.parametrize("seed", range(4))
def test_brier_decomposition_equals_its_definition(seed):
    rng = random.Random(seed)
    for size in (1, 2, 7, 60):
        rows = [row(confidence=rng.choice([0, 5, 50, 95, 100, rng.randint(0, 100)]),
                    correctness=F(rng.randint(0, 6), rng.choice([1, 2, 3, 6]))) for _ in range(size)]
        if rng.random() < 0.3:
            rows = [row(confidence=rows[0].reported_confidence, correctness=rows[0].correctness)] * size
        for bins in (1, 3, 10):
            d = brier_decompositions(RunColumns.of({"s": rows}), bins)["s"]
            assert d == brier_decomposition(rows, bins)          # the definition, per run, in Fractions


# --- McNemar and Holm ----------------------------------------------------------------------------

def test_mcnemar_with_memoised_tails_equals_the_direct_sum():
    rng = random.Random(2)
    pairs = [(rng.randint(0, 60), rng.randint(0, 60)) for _ in range(300)] + [(1500, 1390), (2100, 2000), (0, 3000)]
    for a, b in pairs:
        assert mcnemar_exact_p(a, b) == reference_mcnemar(a, b)
    assert binomial_tail(10, 5) == sum(math.comb(10, i) for i in range(6))
    with pytest.raises(ValueError):
        binomial_tail(10, 6)


def test_holm_equals_the_straightforward_one_with_ties_and_near_ties():
    rng = random.Random(3)
    for m in (0, 1, 2, 5, 40, 300):
        values = [rng.choice([F(1), F(rng.randint(1, 2**20), 2**rng.randint(20, 40)), F(rng.randint(0, 50), 1000)])
                  for _ in range(m)]
        assert holm(values) == reference_holm(values)
    near = [F(1, 3), F(3333333333333333, 10**16), F(1, 3), F(1, 10**9)]    # a float tie of distinct values
    assert holm(near) == reference_holm(near)
    pool = [F(1, 2**30), F(3, 1000), F(3, 1000), F(1, 40), F(1)]          # one object shared by many pairs
    shared = [pool[rng.randrange(len(pool))] for _ in range(60)]
    assert holm(shared) == reference_holm(shared)


# --- the tables compute_metrics builds at once ---------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_subject_intervals_table_equals_each_subject_alone(seed):
    rng = random.Random(seed)
    runs = random_runs(rng, subjects=5, cases=8, runs=3, missing=0.3, duplicates=seed == 2)
    runs["one-case"] = [row(PASS, clipped=12, confidence=90, subject="one-case", case="RO-FOUL-002", run="r2")]
    columns = RunColumns.of(runs)
    draws = CaseDraws(seed + 100, columns.cases, 300)
    kwargs = dict(bins=10, alpha=F(1, 2), max_score=12, confidence=CONFIDENCE)
    table = subject_intervals_table(columns, draws=draws, **kwargs)
    for sid, rows in runs.items():
        cases = {r.case_id for r in rows}
        counts = draws.counts(draws.member(cases)) if cases else None
        assert table[sid] == subject_intervals(rows, counts=counts, **kwargs), sid
    assert table["empty"].q_final is None and table["one-case"].s_bar == (12, 12)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_pairwise_table_equals_compare_pair_on_each_pair_then_holm(seed):
    rng = random.Random(seed)
    runs = random_runs(rng, subjects=6, cases=7, runs=3, missing=(0.1, 0.4, 0.6, 0.2)[seed], duplicates=seed == 3)
    runs["lonely"] = [row(PASS, subject="lonely", case="RO-SCAL-001")]      # shares no item with anyone
    kwargs = dict(alpha=F(1, 3), max_score=12, seed=seed, resamples=250, confidence=CONFIDENCE)
    columns = RunColumns.of(runs)
    draws = CaseDraws(seed, columns.cases, 250)
    table = pairwise_table(runs, draws=draws, **kwargs)
    expected = []
    ids = sorted(runs)
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            pair = compare_pair(a, runs[a], b, runs[b], draws=draws, **kwargs)
            if pair is not None:
                expected.append(pair)
    adjusted = holm([r.mcnemar_p for r in expected])
    assert [(r.subject_a, r.subject_b) for r in table] == [(r.subject_a, r.subject_b) for r in expected]
    for got, want, p in zip(table, expected, adjusted):
        assert got == want.__class__(**{**want.__dict__, "p_holm": p})
    assert pairwise_table(runs, **kwargs) == table         # the default draws are the same ones



def test_pairwise_table_in_small_blocks_and_chunks_is_the_same(monkeypatch):
    # tiny blocks: several groups of first subjects, blocks mixing pairs that share every case with pairs that
    # do not (those wait and are corrected together, in several walks), order statistics in many row chunks
    from rgbench.stats import batch_percentiles, pairwise_batch
    rng = random.Random(11)
    runs = random_runs(rng, subjects=9, cases=6, runs=2, missing=0.25)
    kwargs = dict(alpha=F(1, 2), max_score=12, seed=5, resamples=120, confidence=CONFIDENCE)
    draws = CaseDraws(5, RunColumns.of(runs).cases, 120)
    whole = pairwise_table(runs, draws=draws, **kwargs)
    monkeypatch.setattr(pairwise_batch, "_BLOCK", 3)
    monkeypatch.setattr(pairwise_batch, "_CELLS", 1)
    monkeypatch.setattr(batch_percentiles, "_CHUNK_VALUES", 250)
    assert pairwise_table(runs, draws=draws, **kwargs) == whole
    assert {r.n_cases for r in whole} != {len(draws.universe)}     # some pairs lack a case, some do not
    assert any(r.n_cases == len(draws.universe) for r in whole)
    for got in whole:
        a, b = got.subject_a, got.subject_b
        want = compare_pair(a, runs[a], b, runs[b], draws=draws, **kwargs)
        assert (got.q_diff, got.q_diff_low, got.q_diff_high) == (want.q_diff, want.q_diff_low, want.q_diff_high)


def test_pairwise_and_intervals_do_not_depend_on_subject_or_run_order():
    rng = random.Random(8)
    runs = random_runs(rng, subjects=5, cases=6, runs=2, missing=0.3)
    kwargs = dict(alpha=F(1, 2), max_score=12, seed=4, resamples=200, confidence=CONFIDENCE)
    shuffled = {sid: rng.sample(rows, len(rows)) for sid, rows in reversed(list(runs.items()))}
    assert pairwise_table(runs, **kwargs) == pairwise_table(shuffled, **kwargs)
    draws = CaseDraws(4, RunColumns.of(runs).cases, 200)
    args = dict(bins=10, alpha=F(1, 2), max_score=12, draws=draws, confidence=CONFIDENCE)
    assert subject_intervals_table(RunColumns.of(runs), **args) == \
        subject_intervals_table(RunColumns.of(shuffled), **args)


@pytest.mark.parametrize("seed", [0, 1])
def test_column_tables_equal_the_row_functions(seed):
    rng = random.Random(seed)
    runs = random_runs(rng, subjects=4, cases=9, runs=4, missing=0.35)
    runs["s0"] = runs["s0"] + [row(PASS, subject="s0", case="RO-FOUL-001", run="r9")]   # five runs of one case
    difficulty_of = {f"RO-FOUL-{i:03d}": 1 + i % 5 for i in range(1, 10)}
    columns = RunColumns.of(runs)
    decompositions = brier_decompositions(columns, 10)
    table, weighted = difficulty_from_columns(columns, difficulty_of, DEFAULT_WEIGHTS, CONFIDENCE)
    for sid, rows in runs.items():
        assert decompositions[sid] == brier_decomposition(rows, 10), sid
        assert weighted[sid] == weighted_pass_rate_of_rows(rows, difficulty_of, DEFAULT_WEIGHTS), sid
    assert table == difficulty_table({s: r for s, r in runs.items() if r}, difficulty_of, DEFAULT_WEIGHTS, CONFIDENCE)
    assert pass_at_k_from_columns(columns) == pass_at_k_table(runs)


def test_run_columns_index_everything_in_sorted_order():
    runs = {"b": [row(subject="b", case="RO-SCAL-001", run="r2"), row(subject="b", case="RO-FOUL-001", run="r1")],
            "a": [row(subject="a", case="RO-SCAL-001", run="r1", correctness=F(1, 2))], "c": []}
    columns = RunColumns.of(runs)
    assert columns.subjects == ("a", "b", "c") and columns.cases == ("RO-FOUL-001", "RO-SCAL-001")
    assert columns.items == (("RO-FOUL-001", "r1"), ("RO-SCAL-001", "r1"), ("RO-SCAL-001", "r2"))
    assert columns.subject.tolist() == [0, 1, 1] and columns.case.tolist() == [1, 1, 0]
    assert columns.item.tolist() == [1, 2, 0] and columns.scale == 2 and columns.correctness.tolist() == [1, 2, 2]
    empty = RunColumns.of({"x": []})
    assert empty.cases == () and empty.subject.size == 0
    assert pairwise_table({"x": []}, alpha=F(1, 2), max_score=12, seed=1, resamples=10, confidence=CONFIDENCE) == []


def test_many_case_sets_each_get_their_own_exact_draw():
    # every subject lacks a different case: every pair resamples a different set, each from the same master stream
    cases = [f"RO-FOUL-{i:03d}" for i in range(1, 9)]
    runs = {f"s{s}": [row(PASS if (s + i) % 3 else FAIL, clipped=(s * i) % 13, subject=f"s{s}", case=c)
                      for i, c in enumerate(cases) if i != s] for s in range(8)}
    kwargs = dict(alpha=F(1, 2), max_score=12, seed=2, resamples=300, confidence=CONFIDENCE)
    draws = CaseDraws(2, cases, 300)
    table = pairwise_table(runs, draws=draws, **kwargs)
    assert len({r.n_cases for r in table}) == 1 and table[0].n_cases == 6 and len(table) == 28
    for got in table:
        a, b = got.subject_a, got.subject_b
        want = compare_pair(a, runs[a], b, runs[b], draws=draws, **kwargs)
        assert (got.q_diff, got.q_diff_low, got.q_diff_high) == (want.q_diff, want.q_diff_low, want.q_diff_high)


def test_straightforward_subject_intervals_need_a_draw():
    rows = [row(case="RO-FOUL-001"), row(case="RO-SCAL-001")]
    kwargs = dict(bins=10, alpha=F(1, 2), max_score=12, confidence=CONFIDENCE)
    with pytest.raises(ValueError):
        subject_intervals(rows, **kwargs)
    with pytest.raises(ValueError):
        subject_intervals(rows, counts=np.ones((5, 3), dtype=np.int64), **kwargs)


# --- end to end: a synthetic tree, redone from the manifest with the straightforward functions ----

def synthetic_tree(root):
    """6 subjects x 20 cases x 3 runs, with a few more scorings removed so that case sets differ."""
    import make_synthetic

    make_synthetic.build(root, subjects=6, cases=20, runs=3, seed=5, root=LIBRARY_ROOT)  # the library tests' system
    scorings = sorted((root / "scoring").rglob("*.json"))
    for path in set(scorings[::17]) | {p for p in scorings if "synth-002" in str(p) and "RO-CHEM-" in p.name}:
        path.unlink()
    return root


def test_compute_metrics_intervals_can_be_redone_one_by_one_from_the_manifest(tmp_path):
    import csv
    import json

    import compute_metrics

    from rgbench.compute.numfmt import fmt_fixed
    from rgbench.compute.tables import compute_results
    from rgbench.load.loader import load_tree
    from rgbench.load.spec import load_spec

    root = synthetic_tree(tmp_path / "tree")
    assert compute_metrics.main(["--root", str(root)]) == 0
    manifest = json.loads((root / "results/manifest.json").read_text())
    seed = int(manifest["statistics"]["bootstrap_seed"])
    spec, _ = load_spec(root)
    tree, _ = load_tree(root, spec)
    runs = defaultdict_list(compute_results(tree, spec).runs)
    draws = CaseDraws(seed, {r.case_id for rows in runs.values() for r in rows}, 2000)
    kwargs = dict(bins=10, alpha=spec.alpha, max_score=12, confidence=CONFIDENCE)
    with open(root / "results/metrics_per_subject.csv", newline="") as handle:
        subjects = {line["subject_id"]: line for line in csv.DictReader(handle)}
    for sid, rows in runs.items():
        alone = subject_intervals(rows, counts=draws.counts(draws.member({r.case_id for r in rows})), **kwargs)
        for column, pair in (("s_bar", alone.s_bar), ("BS", alone.bs), ("ECE", alone.ece), ("Q_final", alone.q_final)):
            assert (subjects[sid][f"{column}_low"], subjects[sid][f"{column}_high"]) == tuple(map(fmt_fixed, pair))
    with open(root / "results/pairwise.csv", newline="") as handle:
        pairs = list(csv.DictReader(handle))
    sets = set()
    expected = []
    for line in pairs:
        a, b = line["subject_a"], line["subject_b"]
        pair = compare_pair(a, runs[a], b, runs[b], alpha=spec.alpha, max_score=12, seed=seed, resamples=2000,
                            confidence=CONFIDENCE, draws=draws)
        expected.append(pair)
        sets.add(pair.n_cases)
        assert [line[c] for c in ("q_diff", "q_diff_low", "q_diff_high", "mcnemar_p")] == \
            [fmt_fixed(v) for v in (pair.q_diff, pair.q_diff_low, pair.q_diff_high, pair.mcnemar_p)]
    assert [line["p_holm"] for line in pairs] == [fmt_fixed(p) for p in holm([r.mcnemar_p for r in expected])]
    assert len(pairs) == 15 and len(sets) > 1           # several shared case sets, hence several draws


def test_compute_metrics_bytes_do_not_depend_on_hash_seed_or_place(tmp_path):
    import os
    import shutil
    import subprocess
    import sys

    from treebuilder import REPO

    first = synthetic_tree(tmp_path / "one")
    second = tmp_path / "elsewhere" / "two"
    shutil.copytree(first, second)
    script = str(REPO / "scripts/compute_metrics.py")
    for root, hash_seed in ((first, "1"), (second, "987654")):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        done = subprocess.run([sys.executable, script, "--root", str(root)], env=env,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    names = sorted(p.name for p in (first / "results").iterdir())
    assert names == sorted(p.name for p in (second / "results").iterdir())
    for name in names:
        assert (first / "results" / name).read_bytes() == (second / "results" / name).read_bytes(), name


def defaultdict_list(rows):
    out: dict[str, list] = {}
    for r in rows:
        out.setdefault(r.subject_id, []).append(r)
    return out

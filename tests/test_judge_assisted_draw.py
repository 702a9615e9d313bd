"""The human draws of judge-assisted mode (issue 28, part 2): stratified and active draws with hand-checked
probabilities, `rgbench assign --draw/--next`, the check that re-derives every draw (`rgbench validate`), and the
grading page's queue of drawn runs."""

from __future__ import annotations

import hashlib
import json
import shutil
from fractions import Fraction as F
from pathlib import Path

import make_synthetic
import pytest
from test_human_draws import JUDGE, set_config
from treebuilder import REPO

from rgbench.cli import run_script
from rgbench.commands.common import load_valid_grades
from rgbench.commands.review import open_app
from rgbench.load.draws import DRAWS_FILE
from rgbench.review import scoring_doc
from rgbench.stats import judge_assisted_draw as drawing
from rgbench.stats.judge_assisted import largest_remainder
from rgbench.stats.judge_assisted_board import (
    ASSISTED_FILE,
    assisted_rows,
    assisted_subjects,
    judge_assisted_tables,
)
from rgbench.stats.judge_assisted_draw import JudgedRun, active_probabilities, grade_label


def runs_of(subject: str, grades: list[str], human: list[F | None] | None = None) -> list[JudgedRun]:
    """One run per case C-01, C-02, ... with the given judge grades (judge value 1/2, total 6)."""
    human = human or [None] * len(grades)
    return [JudgedRun((subject, f"C-{i:02d}", "r1"), g, F(6), F(1, 2), h) for i, (g, h) in enumerate(zip(grades, human))]


# --- the probabilities, by hand -----------------------------------------------------------------------------

def test_a_stratified_draw_of_strata_of_6_and_2_takes_3_and_1():
    runs = {"m": runs_of("m", ["Pass"] * 6 + ["Fail"] * 2)}
    draw = drawing.stratified(1, 0, runs, 4)
    # quotas 4 · 6/8 = 3 and 4 · 2/8 = 1: three of the six Pass runs (3/6 = 1/2), one of the two Fail runs (1/2)
    assert draw.design == "stratified" and draw.size == 4 and draw.subjects == ("m",)
    by_grade = {g: [r for r in draw.runs if runs["m"][int(r.key[1][2:])].grade == g] for g in ("Pass", "Fail")}
    assert len(by_grade["Pass"]) == 3 and {r.probability for r in by_grade["Pass"]} == {F(1, 2)}
    assert len(by_grade["Fail"]) == 1 and by_grade["Fail"][0].probability == F(1, 2)
    assert drawing.stratified(1, 0, runs, 4) == draw            # the same seed, number and data: the same draw
    assert drawing.stratified(1, 1, runs, 4) != draw or drawing.stratified(2, 0, runs, 4) != draw


def test_largest_remainder_shares_in_proportion_with_each_minimum_at_least():
    # 6 of 12 runs: 8 · 6/12 = 4 and 4 · 6/12 = 2
    assert largest_remainder({"a": 8, "b": 4}, {"a": 2, "b": 2}, 6) == {"a": 4, "b": 2}
    # 4 of 12: quotas 40/12 = 3.33 and 8/12 = 0.67; b's two grades need 2, a keeps its floor 3, one too many: the
    # subject furthest above its quota with a run to spare is a (3 - 3.33 against b at its minimum): a 2, b 2
    assert largest_remainder({"a": 10, "b": 2}, {"a": 1, "b": 2}, 4) == {"a": 2, "b": 2}
    # 5 of 9 with floors 4/3 + remainders: quotas 5 · 3/9 = 5/3 and 5 · 6/9 = 10/3 -> 1 + 3 = 4, the larger
    # remainder (2/3 against 1/3) takes the fifth: a 2, b 3
    assert largest_remainder({"a": 3, "b": 6}, {"a": 1, "b": 1}, 5) == {"a": 2, "b": 3}
    with pytest.raises(ValueError, match="cannot share 3 between"):
        largest_remainder({"a": 3, "b": 6}, {"a": 2, "b": 2}, 3)


def test_active_probabilities_follow_the_spread_capped_at_1_and_floored():
    # spreads 1, 1, 2, 4 and N = 2 of T = 4: floor 1/5 · 2/4 = 1/10; c = 1/4 gives 1/4 + 1/4 + 1/2 + 1 = 2
    assert active_probabilities([F(1), F(1), F(2), F(4)], 2) == [F(1, 4), F(1, 4), F(1, 2), F(1)]
    # spreads 1, 100, 100 and N = 1 of T = 3: floor 1/15 binds the first; 1/15 + 200 c = 1, c = 7/1500:
    # 100 c = 7/15 each, and 1/15 + 14/15 = 1
    assert active_probabilities([F(1), F(100), F(100)], 1) == [F(1, 15), F(7, 15), F(7, 15)]
    assert active_probabilities([F(3)] * 5, 5) == [F(1)] * 5   # every run: π = 1
    with pytest.raises(ValueError):
        active_probabilities([F(1)] * 3, 4)


def test_sending_humans_where_the_judge_errs_most_needs_fewer_grades_for_the_same_variance():
    # 100 runs in two strata of 50, the judge's residual spread 1/10 in one and 1/2 in the other, N = 24 grades.
    spread = [F(1, 10)] * 50 + [F(1, 2)] * 50
    pi = active_probabilities(spread, 24)
    # c · (50/10 + 50/2) = 24: c = 4/5, π = 2/25 and 2/5 (above the floor 1/5 · 24/100 = 6/125): quotas 4 and 20
    assert set(pi[:50]) == {F(2, 25)} and set(pi[50:]) == {F(2, 5)}
    assert drawing.systematic_rounding([50 * pi[0], 50 * pi[-1]], F(1, 2)) == [4, 20]   # whole quotas: no rounding

    def variance(take: list[int]) -> F:   # a stratified draw's variance of the estimated total, S_h² = e_h²
        return sum((F(50 * 50) * (1 - F(n, 50)) * e * e / n for n, e in zip(take, (F(1, 10), F(1, 2)))), F(0))
    # active: 2500 · 46/50 · 1/100 / 4 + 2500 · 30/50 · 1/4 / 20 = 23/4 + 75/4 = 49/2;
    # proportional (12 and 12): 2500 · 38/50 · (1/100 + 1/4) / 12 = 1900 · 13/50 / 12 = 247/6
    assert variance([4, 20]) == F(49, 2) and variance([12, 12]) == F(247, 6)
    # proportional n reaches 49/2 at (100/n − 1) · Σ N_h e_h² = (100/n − 1) · 13 = 49/2: n = 1300/37.5 = 104/3
    # = 34.7 grades, so the active draw needs 1 − 24 · 3/104 = 4/13 (31%) fewer
    n_uniform = F(100) / (1 + F(49, 2) / 13)
    assert n_uniform == F(104, 3) and 1 - 24 / n_uniform == F(4, 13)
    assert active_probabilities([F(1, 4)] * 100, 20) == [F(1, 5)] * 100   # equal spreads: the uniform design


def test_systematic_rounding_keeps_the_total_and_each_quota_in_expectation():
    quotas = [F(1, 3), F(5, 2), F(7, 6)]   # sum 4; fractional parts 1/3, 1/2, 1/6: running sums 1/3, 5/6, 1
    # floors 0, 2, 1; stratum h takes one more when some u + m (m an integer) lies in [F_(h-1), F_h), F_0 = 0:
    # u = 0 lies in [0, 1/3): the first (0 + 1, 2, 1)
    assert drawing.systematic_rounding(quotas, F(0)) == [1, 2, 1]
    assert drawing.systematic_rounding(quotas, F(1, 2)) == [0, 3, 1]   # 1/2 in [1/3, 5/6): the second's extra
    assert drawing.systematic_rounding(quotas, F(9, 10)) == [0, 2, 2]  # 9/10 in [5/6, 1): the third's
    # over u uniform on [0, 1) the extra falls in each stratum with probability its fractional part: the
    # breakpoints 0, 1/3, 5/6 split [0, 1) into lengths 1/3, 1/2, 1/6, so E[n_h] = (0 + 1) · 1/3 = 1/3,
    # 2 + 1/2 = 5/2 and 1 + 1/6 = 7/6, the quotas. The rounding is constant on each [k/60, (k + 1)/60) (the
    # breakpoints are sixths), so its mean over u = k/60 is that expectation exactly
    mean = [sum((F(drawing.systematic_rounding(quotas, F(k, 60))[h]) for k in range(60)), F(0)) / 60 for h in range(3)]
    assert mean == quotas
    assert all(sum(drawing.systematic_rounding(quotas, F(u, 97))) == 4 for u in range(97))
    assert drawing.systematic_rounding([F(3), F(2)], F(1, 2)) == [3, 2]   # whole quotas stay


def test_an_active_draw_is_stratified_with_exact_probabilities():
    runs = {"m": runs_of("m", ["Pass"] * 40), "n": runs_of("n", ["Fail"] * 30 + ["Pass"] * 10)}
    draw = drawing.active(1, 0, runs, 20, drawing.spreads(runs, frozenset()))
    # no human value yet: every spread 1, so π = 20/80 = 1/4 for every run; quotas 10, 7.5 and 2.5: the draw
    # takes exactly 20, 10 of m's Pass runs and 7 or 8 of n's Fail runs with the rest from its Pass runs
    assert {r.probability for r in draw.runs} == {F(1, 4)} and len(draw.runs) == 20
    assert sum(1 for r in draw.runs if r.key[0] == "m") == 10
    assert sum(1 for r in draw.runs if r.key[0] == "n" and int(r.key[1][2:]) < 30) in (7, 8)
    assert draw.size == 20 and dict(draw.spreads) == {("m", "Pass, total 6"): 1, ("n", "Fail, total 6"): 1,
                                                      ("n", "Pass, total 6"): 1}
    assert drawing.active(1, 0, runs, 20, drawing.spreads(runs, frozenset())) == draw
    # spreads 1 and 3 on n's two strata, m's 1: c (40 + 30 + 30) = 20, π = 1/5 and 3/5; quotas 8, 6 and 6
    spread = {("m", "Pass, total 6"): F(1), ("n", "Fail, total 6"): F(1), ("n", "Pass, total 6"): F(3)}
    uneven = drawing.active(1, 0, runs, 20, spread)
    def stratum(key: tuple[str, str, str]) -> tuple[str, str]:
        return key[0], "Fail" if key[0] == "n" and int(key[1][2:]) < 30 else "Pass"
    taken: dict[tuple[str, str], set] = {}
    for r in uneven.runs:
        taken.setdefault(stratum(r.key), set()).add(r.probability)
    counts = {k: sum(1 for r in uneven.runs if stratum(r.key) == k) for k in taken}
    assert counts == {("m", "Pass"): 8, ("n", "Fail"): 6, ("n", "Pass"): 6}
    assert taken == {("m", "Pass"): {F(1, 5)}, ("n", "Fail"): {F(1, 5)}, ("n", "Pass"): {F(3, 5)}}
    # over n alone (rgbench assign --subjects n): c (30 + 30) = 10, π 1/6 and 1/2; it records n's spreads only
    alone = drawing.active(1, 0, {"n": runs["n"]}, 10, spread)
    assert {r.probability for r in alone.runs} == {F(1, 6), F(1, 2)} and len(alone.runs) == 10
    assert dict(alone.spreads) == {("n", "Fail, total 6"): 1, ("n", "Pass, total 6"): 3}
    with pytest.raises(ValueError):
        drawing.active(1, 0, runs, 81, spread)


def judged(subject: str, i: int, grade: str, total: int, judge: F, human: F | None) -> JudgedRun:
    return JudgedRun((subject, f"C-{i:02d}", "r1"), grade, F(total), judge, human)


def test_spreads_are_the_shrunk_mean_square_per_bin_of_the_judges_values_borrowed_by_a_new_subject():
    m = ([judged("m", i, "Fail", 2, F(0), F(0)) for i in range(10)]
         + [judged("m", 10 + i, "Pass", 9, F(1), F(i % 2)) for i in range(10)]
         + [judged("m", 20, "Conditional", 5, F(1, 2), None)])
    n = [judged("n", 0, "Fail", 2, F(0), None), judged("n", 1, "Conditional", 8, F(3, 4), None),
         judged("n", 2, "Pass", 9, F(1), None)]   # joins: no human grade yet
    keys = frozenset(r.key for r in m if r.human is not None)
    # m's 20 runs with a human value: f̄ = 1/2, ȳ = 5/20 = 1/4, Σ (f − f̄)² = 20 · 1/4 = 5,
    # Σ (f − f̄)(y − ȳ) = Σ (f − f̄) y = 5 · 1/2 = 5/2: λ = 1/2; d = y − f/2: 0 (f 0, ten runs), ±1/2 (f 1, five
    # each); mean 0; d² 0 and 1/4; the mean over every subject (m alone) 10 · 1/4 / 20 = 1/8; K = 10
    # bins of the graded values: f 0 holds 10 and closes; f 1 the next (10). Ungraded values take the bin of the
    # nearest graded value below: f 1/2 and 3/4 the first.
    # pooled: p_0 = (0 + 10 · 1/8) / (10 + 10) = 1/16, p_1 = (10 · 1/4 + 10 · 1/8) / 20 = 3/16;
    # m's ratio: its mean d² over every subject's, 1/8 / 1/8 = 1
    # m, bin 0: (0 + 10 · 1/16) / (10 + 10) = 1/32, √ = 0.17678 -> 177/1000; bin 1: (5/2 + 10 · 3/16) / 20 = 7/32,
    # √ = 0.46771 -> 468/1000
    # n, no grade (ratio 1): bin 0 p_0 = 1/16, √ = 1/4; bin 1 p_1 = 3/16, √ = 0.43301 -> 433/1000
    assert drawing.spreads({"m": m, "n": n}, keys) == {
        ("m", "Fail, total 2"): F(177, 1000), ("m", "Conditional, total 5"): F(177, 1000),
        ("m", "Pass, total 9"): F(468, 1000),
        ("n", "Fail, total 2"): F(1, 4), ("n", "Conditional, total 8"): F(1, 4), ("n", "Pass, total 9"): F(433, 1000)}
    assert drawing.spreads({"m": m, "n": n}, keys, ["n"]) == {   # n's alone, borrowed from m all the same
        ("n", "Fail, total 2"): F(1, 4), ("n", "Conditional, total 8"): F(1, 4), ("n", "Pass, total 9"): F(433, 1000)}
    # k, where the judge errs more: two graded runs at f 0 (y 1 and 0: λ 0, d 1 and 0, centred ±1/2, d² 1/4 each)
    k = [judged("k", 0, "Fail", 2, F(0), F(1)), judged("k", 1, "Fail", 2, F(0), F(0)),
         judged("k", 2, "Pass", 9, F(1), None)]
    # every d²: m's sum 5/2 over 20, k's 1/2 over 2: mean 3/22; bins: f 0 holds 12, f 1 holds 10
    # p_0 = (1/2 + 10 · 3/22) / (12 + 10) = 41/484; p_1 = (5/2 + 10 · 3/22) / 20 = 17/88
    # k's ratio: its mean d² 1/4 over 3/22 = 11/6 (the judge errs more on k than on the others)
    # k, bin 0: (1/2 + 10 · 41/484 · 11/6) / (2 + 10) = 271/1584, √ = 0.41363 -> 414/1000
    # k, bin 1 (no grade there): 17/88 · 11/6 = 17/48, √ = 0.59512 -> 595/1000
    both = drawing.spreads({"m": m, "k": k}, keys | {k[0].key, k[1].key}, ["k"])
    assert both == {("k", "Fail, total 2"): F(414, 1000), ("k", "Pass, total 9"): F(595, 1000)}
    # runs outside the basis (earlier draws) do not count: nothing left, every spread 1
    assert set(drawing.spreads({"m": m}, frozenset()).values()) == {F(1)}
    # the bins rest on the graded runs alone: a subject added since, with judge values no graded run has, moves
    # no spread of m; nor does the order of the subjects
    late = [judged("z", i, "Conditional", 7, F(i + 1, 13), None) for i in range(12)]
    assert drawing.spreads({"z": late, "m": m}, keys, ["m"]) == drawing.spreads({"m": m}, keys)


def test_value_bins_hold_ten_grades_and_a_short_last_bin_joins_the_one_before():
    def residual(values: list[tuple[F, int]]) -> dict:
        return {"m": [(judged("m", i, "Pass", 9, f, F(0)), F(0)) for i, (f, count) in enumerate(values)
                      for _ in range(count)]}
    bin_of = drawing.value_bins(residual([(F(0), 4), (F(1, 4), 6), (F(1, 2), 9), (F(3, 4), 1), (F(1), 3)]))
    # f 0 and 1/4 hold 4 + 6 = 10: bin 0 closes; 1/2 and 3/4 hold 10: bin 1; f 1 holds 3, short: joins bin 1
    assert [bin_of(f) for f in (F(0), F(1, 4), F(1, 2), F(3, 4), F(1))] == [0, 0, 1, 1, 1]
    # ungraded values: the bin of the nearest graded value below, the first below them all
    assert [bin_of(f) for f in (F(-1), F(3, 8), F(7, 8), F(2))] == [0, 0, 1, 1]
    assert {drawing.value_bins(residual([(F(0), 5), (F(1), 4)]))(f) for f in (F(0), F(1))} == {0}   # 9 in all


def test_the_slope_is_clipped_to_0_1_and_the_root_rounded_half_up_exactly():
    # f 0, 1 and y 0, 2: slope (−1/2 · −1 + 1/2 · 1) / (1/4 + 1/4) = 1 / (1/2) = 2 -> 1; y 1, 0: −2 -> 0
    assert drawing.slope([F(0), F(1)], [F(0), F(2)]) == 1 and drawing.slope([F(0), F(1)], [F(1), F(0)]) == 0
    # f 0, 1, 2 and y 0, 0, 1: f − f̄ = −1, 0, 1, y − ȳ = −1/3, −1/3, 2/3: (1/3 + 0 + 2/3) / (1 + 0 + 1) = 1/2
    assert drawing.slope([F(0), F(1), F(2)], [F(0), F(0), F(1)]) == F(1, 2)
    assert drawing.slope([F(1), F(1)], [F(0), F(1)]) == 0                     # the judge's values all equal
    # √(1/2) = 0.70711 -> 707/1000; √0.0004 = 0.02 exactly; √0.00000025 = 0.0005 rounds half up to 1/1000
    assert drawing.thousandths_root(F(1, 2)) == F(707, 1000) and drawing.thousandths_root(F(4, 10000)) == F(2, 100)
    assert drawing.thousandths_root(F(1, 4_000_000)) == F(1, 1000) and drawing.thousandths_root(F(0)) == F(1, 1000)
    # √0.00000625 = 0.0025, exactly half way: up to 3/1000 (round half to even would give 2/1000)
    assert drawing.thousandths_root(F(625, 100_000_000)) == F(3, 1000)


def test_grade_label_is_the_class_or_the_tercile_of_the_judge_total(tree):
    spec = load_valid_grades(tree)[0]
    assert grade_label(spec, "Pass", F(3), [F(3)]) == "Pass"
    totals = [F(t) for t in (1, 2, 3, 4, 5, 6)]
    # worse runs 0..5 of 6: 1 + 3 · w // 6 = 1, 1, 2, 2, 3, 3
    assert [grade_label(spec, None, t, totals) for t in totals] == [f"bin {b} of 3" for b in (1, 1, 2, 2, 3, 3)]
    ties = [F(1), F(1), F(1), F(2)]   # equal totals share a bin: 0, 0, 0 worse -> 1; 3 worse -> 1 + 9 // 4 = 3
    assert [grade_label(spec, None, t, ties) for t in ties] == ["bin 1 of 3"] * 3 + ["bin 3 of 3"]


# --- rgbench assign --draw / --next, rgbench validate, the grading page -------------------------------------

def built_tree(tmp_path: Path) -> Path:
    """2 subjects x 6 cases x 2 runs in judge-assisted mode; the judge grades every run (responses it did not grade
    removed); the human grades of scoring/ removed on one run in two, so drawn runs wait for a human."""
    out = tmp_path / "tree"
    assert make_synthetic.main(["--subjects", "2", "--cases", "6", "--runs", "2", "--out", str(out), "--judge"]) == 0
    set_config(out, estimation="judge-assisted", judge=JUDGE)
    for path in sorted((out / "responses").rglob("*.json")):
        judged = out / "scoring_multi" / path.relative_to(out / "responses").parent / f"{path.stem}__eval-{JUDGE}.json"
        if not judged.exists():
            path.unlink()
    for i, path in enumerate(sorted((out / "scoring").rglob("*.json"))):
        if i % 2:
            path.unlink()
    return out


@pytest.fixture(scope="module")
def tree_once(tmp_path_factory) -> Path:
    return built_tree(tmp_path_factory.mktemp("draw"))


@pytest.fixture
def tree(tree_once: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(tree_once, tmp_path / "tree"))


def assign(root: Path, *options: str) -> int:
    return run_script("assign", ["--root", str(root), *options])


def document(root: Path) -> dict:
    return json.loads((root / DRAWS_FILE).read_text(encoding="utf-8"))


def test_assign_draw_appends_a_reproducible_stratified_draw_with_reviewers(tree, capsys):
    assert assign(tree, "--draw", "8") == 0
    spec, loaded, multi = load_valid_grades(tree)
    runs, left_out = drawing.judged_runs(spec, loaded, multi)
    judged = sum(1 for s in (*loaded.scorings, *multi.extra) if s.reviewer_id == spec.judge)
    assert left_out == {} and sum(map(len, runs.values())) == judged   # every run the judge graded
    draw = document(tree)["draws"][0]
    assert draw["design"] == "stratified" and draw["size"] == 8 and len(draw["runs"]) == 8
    grade = {r.key: (s, r.grade) for s, items in runs.items() for r in items}
    sizes = {g: sum(1 for x in grade.values() if x == g) for g in set(grade.values())}
    picked = [(r["subject_id"], r["case_id"], r["run_id"]) for r in draw["runs"]]
    for run, key in zip(draw["runs"], picked):   # π = n_h / N_h of the run's stratum, n_h the stratum's picks
        n_h = sum(1 for k in picked if grade[k] == grade[key])
        assert F(run["probability"]) == F(n_h, sizes[grade[key]])
    graded = {r.key for items in runs.values() for r in items if r.human is not None}
    assert all(("reviewer_id" in r) == (k not in graded) for r, k in zip(draw["runs"], picked))
    asked = [r["reviewer_id"] for r in draw["runs"] if "reviewer_id" in r]
    assert max(map(asked.count, set(asked))) - min(asked.count(f"rev-{i}") for i in range(1, 7)) <= 1  # least loaded
    first = (tree / DRAWS_FILE).read_bytes()
    assert run_script("validate", ["--root", str(tree)]) == 0
    (tree / DRAWS_FILE).unlink()
    assert assign(tree, "--draw", "8") == 0 and (tree / DRAWS_FILE).read_bytes() == first   # same inputs, same draw
    assert assign(tree, "--draw", "8") == 0   # draw 2: another stream
    second = document(tree)["draws"][1]
    assert second["draw"] == 2 and second["runs"] != draw["runs"]
    assert "draw 2 (stratified) picked 8 runs over 2 subjects" in capsys.readouterr().out


def mark_away(root: Path, *reviewers: str) -> None:
    """Mark ``reviewers`` ``away: true`` in subjects/reviewers.yaml (make_synthetic's layout: id, name, kind), the
    tree's reviewers schema made to list ``away`` where it does not (a fork's system/ may not)."""
    for schema_path in root.glob("system/schemas/*/reviewers.schema.json"):
        schema = json.loads(schema_path.read_text(encoding="utf-8"))
        schema["properties"]["reviewers"]["items"]["properties"].setdefault("away", {"type": "boolean"})
        schema_path.write_text(json.dumps(schema), encoding="utf-8")
    path = root / "subjects/reviewers.yaml"
    text = path.read_text(encoding="utf-8")
    for who in reviewers:
        entry = f"  - id: {who}\n    name: \"Synthetic reviewer {who}\"\n    kind: human\n"
        assert entry in text
        text = text.replace(entry, entry + "    away: true\n")
    path.write_text(text, encoding="utf-8")


def test_a_reviewer_marked_away_is_named_for_no_run_of_a_draw_nor_given_a_reassigned_one(tree, capsys):
    # Before: --reassign emptied an away reviewer's queue, and the next draw named them first (fewest waiting).
    mark_away(tree, "rev-1", "rev-2")
    assert load_valid_grades(tree) is not None   # the schema lists away
    assert assign(tree, "--draw", "12") == 0
    asked = {r["reviewer_id"] for d in document(tree)["draws"] for r in d["runs"] if "reviewer_id" in r}
    assert asked and asked <= {"rev-3", "rev-4", "rev-5", "rev-6"}
    victim = sorted(asked)[0]
    assert assign(tree, "--reassign", victim) == 0
    now = {r["reviewer_id"] for d in document(tree)["draws"] for r in d["runs"] if "reviewer_id" in r}
    assert now <= asked - {victim} and now
    mark_away(tree, "rev-3", "rev-4", "rev-5", "rev-6")
    capsys.readouterr()
    assert assign(tree, "--draw", "8") == 1
    assert capsys.readouterr().err == ("subjects/reviewers.yaml: no human reviewer registered (those marked away: true "
                                       "left out); a drawn run needs one to grade it\n1 problem(s) found; nothing was "
                                       "written.\n")


def test_assign_refuses_draws_in_human_mode_and_a_size_it_cannot_draw(tree, capsys):
    assert assign(tree, "--draw", "3") == 1   # 2 subjects x 3 judge grades need 6 at least
    assert "--draw: 3: a stratified draw takes from" in capsys.readouterr().err
    set_config(tree, estimation=None, judge=None)
    assert assign(tree, "--draw", "8") == 1
    err = capsys.readouterr().err
    assert "config.yaml: --draw: estimation is human, where every run is graded by a person" in err
    assert not (tree / DRAWS_FILE).exists()
    assert assign(tree, "--draw", "8", "--share", "0.2") == 1
    assert "give one of --share S" in capsys.readouterr().err


def test_a_hand_edited_draw_is_refused_by_validate_and_by_assign(tree, capsys):
    assert assign(tree, "--draw", "8") == 0
    edited = document(tree)
    spec, loaded, multi = load_valid_grades(tree)
    picked = {(r["subject_id"], r["case_id"], r["run_id"]) for r in edited["draws"][0]["runs"]}
    other = next(k for k in sorted(loaded.responses) if k not in picked and k[0] == edited["draws"][0]["runs"][0]["subject_id"])
    edited["draws"][0]["runs"][0].update(case_id=other[1], run_id=other[2])   # swap a run for one not picked
    edited["draws"][0]["runs"].sort(key=lambda r: (r["subject_id"], r["case_id"], r["run_id"]))
    (tree / DRAWS_FILE).write_text(json.dumps(edited), encoding="utf-8")
    capsys.readouterr()
    assert run_script("validate", ["--root", str(tree)]) == 1
    err = capsys.readouterr().err
    assert f"{DRAWS_FILE}: $.draws[0]: draw 1 (stratified) is not what its seed and the judge's grades give: it " \
           f"lists {'/'.join(other)}, which the draw does not pick" in err
    assert assign(tree, "--draw", "8") == 1 and "is not what its seed" in capsys.readouterr().err
    (tree / DRAWS_FILE).unlink()   # a probability changed, the runs right: refused too
    assert assign(tree, "--draw", "8") == 0
    edited = document(tree)
    edited["draws"][0]["runs"][0]["probability"] = "1"
    (tree / DRAWS_FILE).write_text(json.dumps(edited), encoding="utf-8")
    capsys.readouterr()
    assert run_script("validate", ["--root", str(tree)]) == 1   # caught by the loader: Σ 1/π is no longer N_s
    assert f"its probabilities of {edited['draws'][0]['runs'][0]['subject_id']}'s runs add up to" in capsys.readouterr().err


def test_a_draw_stands_for_the_runs_it_was_made_over_and_not_for_file_bytes(tree, capsys):
    assert assign(tree, "--draw", "8") == 0
    made = (tree / DRAWS_FILE).read_bytes()
    for path in (tree / "scoring_multi").rglob(f"*__eval-{JUDGE}.json"):   # the judge's files re-indented: same draw
        path.write_text(json.dumps(json.loads(path.read_text()), indent=4) + "\n", encoding="utf-8")
    (tree / DRAWS_FILE).unlink()
    assert assign(tree, "--draw", "8") == 0 and (tree / DRAWS_FILE).read_bytes() == made
    drawn = {(r["subject_id"], r["case_id"], r["run_id"]) for r in document(tree)["draws"][0]["runs"]}
    gone = next(p for p in sorted((tree / "responses").rglob("*.json")) if (p.parent.name, *p.stem.split("__")) not in drawn)
    for path in [gone, *tree.glob(f"scoring*/v1.0/{gone.parent.name}/{gone.stem}__*.json")]:
        path.unlink()   # a run the draw did not pick leaves its subject: the draw stands as recorded
    spec, loaded, multi = load_valid_grades(tree)
    assert drawing.recorded(loaded.draws.draws[0], drawing.judged_runs(spec, loaded, multi)[0]) is None
    assert run_script("validate", ["--root", str(tree)]) == 0


def added_run(root: Path, key: tuple[str, str, str]) -> tuple[str, str, str]:
    """A new run of ``key``'s subject and case (run id ``key``'s + "x"), a copy of ``key``'s response with the
    judge's grade of ``key`` (response_sha256 re-pinned); returns its key."""
    subject, case, run = key
    new = (subject, case, run + "x")
    response = json.loads((root / "responses/v1.0" / subject / f"{case}__{run}.json").read_text())
    response["run_id"] = new[2]
    path = root / "responses/v1.0" / subject / f"{case}__{new[2]}.json"
    path.write_text(json.dumps(response, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    grade = json.loads((root / "scoring_multi/v1.0" / subject / f"{case}__{run}__eval-{JUDGE}.json").read_text())
    grade.update(run_id=new[2], response_sha256=hashlib.sha256(path.read_bytes()).hexdigest())
    (root / "scoring_multi/v1.0" / subject / f"{case}__{new[2]}__eval-{JUDGE}.json").write_text(
        json.dumps(grade, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return new


def grade_pending(root: Path, reviewer: str) -> None:
    """A human grade by ``reviewer`` of every drawn run without one."""
    spec, loaded, multi = load_valid_grades(root)
    for key in drawing.pending(loaded.draws, drawing.judged_runs(spec, loaded, multi)[0]):
        grade_as_human(root, key, reviewer)


def board(root: Path) -> dict[str, tuple[int, object]]:
    """subject -> (its uncovered runs, its Q_final estimate or None), as make metrics computes them."""
    spec, loaded, multi = load_valid_grades(root)
    subjects = assisted_subjects(spec, loaded, multi)
    rows, _ = assisted_rows(subjects, spec)
    return {r.subject_id: (r.uncovered, r.figures["Q_final"].estimate) for r in rows}


def test_a_response_added_after_a_draw_is_uncovered_until_a_new_draw_covers_it(tree, capsys):
    assert assign(tree, "--draw", "8") == 0
    grade_pending(tree, "rev-1")   # every drawn run graded: each subject has an estimate
    before = board(tree)
    assert all(uncovered == 0 and est is not None for uncovered, est in before.values())
    first = sorted(before)[0]
    new = added_run(tree, next(k for k in sorted(load_valid_grades(tree)[1].responses) if k[0] == first))
    capsys.readouterr()
    assert run_script("validate", ["--root", str(tree)]) == 0   # the draw stands: its population changed
    after = board(tree)
    assert after[first] == (1, None)   # the new run has probability 0: no estimate, not ranked
    assert all(after[s] == before[s] for s in after if s != first)
    spec, loaded, multi = load_valid_grades(tree)
    table = judge_assisted_tables(spec, loaded, multi, ())[ASSISTED_FILE]
    row = dict(zip(table[0], next(r for r in table[1] if r[0] == first)))
    assert (row["n_uncovered"], row["Q_final"]) == ("1", "")
    assert assign(tree, "--draw", "8") == 0   # a new draw over today's runs covers it
    assert "1 run(s) no earlier draw covered (added since): this draw covers them" in capsys.readouterr().out
    drawn = document(tree)["draws"][1]
    assert f"{new[1]}/{new[2]}" in drawn["population"][first]["runs"]
    grade_pending(tree, "rev-2")
    assert run_script("validate", ["--root", str(tree)]) == 0
    again = board(tree)
    assert again[first][0] == 0 and again[first][1] is not None   # the estimate returns


def test_a_subject_with_an_unjudged_new_run_has_no_pending_runs(tree):
    # Every drawn run graded; then a subject gains a run the judge has not graded: the subject leaves the judged
    # runs, and its graded drawn runs must not count as pending (they would block --next with a wrong count).
    assert assign(tree, "--draw", "8") == 0
    grade_pending(tree, "rev-1")
    first = sorted(board(tree))[0]
    new = added_run(tree, next(k for k in sorted(load_valid_grades(tree)[1].responses) if k[0] == first))
    next(tree.glob(f"scoring_multi/v1.0/{first}/{new[1]}__{new[2]}__eval-{JUDGE}.json")).unlink()
    spec, loaded, multi = load_valid_grades(tree)
    runs, left_out = drawing.judged_runs(spec, loaded, multi)
    assert first in left_out and first not in runs
    assert drawing.pending(loaded.draws, runs) == []
    assert len(drawing.pending(loaded.draws, {first: []} | runs)) > 0   # the rule keys on the judged subjects


def test_a_judge_regrade_after_a_draw_keeps_the_draw_and_its_weights(tree):
    assert assign(tree, "--draw", "8") == 0
    spec, loaded, multi = load_valid_grades(tree)
    weights = {k: loaded.draws.weight(k) for k in loaded.responses}
    path = next(iter(sorted((tree / "scoring_multi").rglob(f"*__eval-{JUDGE}.json"))))
    grade = json.loads(path.read_text())
    name = sorted(grade["criterion_scores"])[0]
    grade["criterion_scores"][name] = 1 if grade["criterion_scores"][name] != 1 else 0   # the judge's total moves
    path.write_text(json.dumps(grade, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    assert run_script("validate", ["--root", str(tree)]) == 0
    spec, loaded, multi = load_valid_grades(tree)
    assert drawing.recorded(loaded.draws.draws[0], drawing.judged_runs(spec, loaded, multi)[0]) is None   # no re-derivation
    assert {k: loaded.draws.weight(k) for k in loaded.responses} == weights
    assert all(uncovered == 0 for uncovered, _ in board(tree).values())


def test_a_draw_new_in_a_change_must_be_over_the_changes_own_data(tree, capsys):
    # A draw stands as recorded once its data change, so a forged population would escape the re-derivation: the
    # gate's validate --changed BASE holds a draw added since BASE to this tree's data.
    from gitrepo import GitRepo
    repo = GitRepo(tree)
    base = repo.commit("Base, no draw")
    assert assign(tree, "--draw", "8") == 0
    assert run_script("validate", ["--root", str(tree), "--changed", base]) == 0
    forged = document(tree)
    subject = sorted(forged["draws"][0]["population"])[0]
    forged["draws"][0]["population"][subject]["judge_digest"] = "f" * 64   # "the data were other at draw time"
    (tree / DRAWS_FILE).write_text(json.dumps(forged), encoding="utf-8")
    assert run_script("validate", ["--root", str(tree)]) == 0   # alone, it stands as recorded
    capsys.readouterr()
    assert run_script("validate", ["--root", str(tree), "--changed", base]) == 1
    assert (f"{DRAWS_FILE}: $.draws[0]: draw 1 is new in this change, but the runs and judge grades it records are not "
            "this tree's runs that no earlier draw lists (a draw is made over the data of the change that adds it: make "
            "it with rgbench assign on this tree)") in capsys.readouterr().err
    (tree / DRAWS_FILE).unlink()
    assert assign(tree, "--draw", "8") == 0
    drawn = repo.commit("Draw 1")
    assert run_script("validate", ["--root", str(tree), "--changed", drawn]) == 0   # draw 1 is the base's now
    # the common pull request: a response added after the base's draw; draw 1 is the base's, and its recorded runs
    # are unchanged, so it re-derives over them
    added_run(tree, sorted(load_valid_grades(tree)[1].responses)[0])
    assert run_script("validate", ["--root", str(tree), "--changed", drawn]) == 0
    assert run_script("validate", ["--root", str(tree), "--changed", base]) == 1   # from before the draw: it is new


def grade_as_human(root: Path, key: tuple[str, str, str], reviewer: str, lower: int = 0) -> None:
    """A human grade of ``key`` in scoring/: the judge's, ``lower`` points lower on its first criterion above 0."""
    grade = json.loads((root / "scoring_multi" / "v1.0" / key[0] / f"{key[1]}__{key[2]}__eval-{JUDGE}.json").read_text())
    name = next((n for n, v in grade["criterion_scores"].items() if v > 0), None)
    if name is not None and lower:
        grade["criterion_scores"][name] = max(0, grade["criterion_scores"][name] - lower)
    grade["reviewer_id"] = reviewer
    target = root / "scoring" / "v1.0" / key[0] / f"{key[1]}__{key[2]}__eval-{reviewer}.json"
    target.write_text(json.dumps(grade, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def test_assign_next_waits_for_the_earlier_draws_then_draws_where_the_judge_errs(tree, capsys):
    spec, loaded, multi = load_valid_grades(tree)
    judged = [r for items in drawing.judged_runs(spec, loaded, multi)[0].values() for r in items]
    total, size = len(judged), sum(1 for r in judged if r.human is not None) + 1   # T; one more than the graded
    assert assign(tree, "--next", str(size)) == 0   # nothing drawn yet: every spread 1, so π = size/T
    first = document(tree)["draws"][0]
    assert first["design"] == "active" and first["size"] == size and len(first["runs"]) == size
    assert {F(r["probability"]) for r in first["runs"]} == {F(size, total)}
    waiting = [(r["subject_id"], r["case_id"], r["run_id"], r["reviewer_id"]) for r in first["runs"] if "reviewer_id" in r]
    assert waiting   # one more run than the graded ones: at least one without a human grade, named for a human
    assert assign(tree, "--next", "5") == 1
    from collections import Counter
    per = ", ".join(f"{who} {n}" for who, n in sorted(Counter(who for *_, who in waiting).items()))
    assert (f"{len(waiting)} run(s) of the earlier draws have no human grade yet ({per}): an active draw rests on "
            "the human grades of every earlier drawn run (grade them first: rgbench review; a reviewer away: rgbench "
            "assign --reassign ID)") in capsys.readouterr().err
    for i, (*key, reviewer) in enumerate(waiting):   # the humans grade them: the judge 0 or 1 point too lenient
        grade_as_human(tree, tuple(key), reviewer, lower=i % 2)
    from gitrepo import GitRepo
    base = GitRepo(tree).commit("Draw 1, graded")
    assert assign(tree, "--next", "5") == 0
    second = document(tree)["draws"][1]
    spec, loaded, multi = load_valid_grades(tree)
    runs, _ = drawing.judged_runs(spec, loaded, multi)
    basis = frozenset((r["subject_id"], r["case_id"], r["run_id"]) for r in first["runs"])
    expected = drawing.spreads(runs, basis)
    assert {(x["subject_id"], x["judge_grade"]): F(x["spread"]) for x in second["spreads"]} == expected
    assert len(set(expected.values())) > 1   # the spreads differ by stratum, and so do the probabilities
    left = drawing.undrawn(runs, loaded.draws.draws[:1])   # draw 2 is over the runs draw 1 did not list
    flat = [(s, r) for s, items in left.items() for r in items]
    assert len(flat) == total - size
    pi = dict(zip([r.key for _, r in flat], active_probabilities([expected[s, drawing.stratum(r)] for s, r in flat], 5)))
    assert sum(pi.values()) == 5 and min(pi.values()) >= F(1, 5) * F(5, len(flat))   # expected size 5, floor 1/T
    assert len(second["runs"]) == 5   # drawn stratified: exactly 5
    assert all(F(r["probability"]) == pi[r["subject_id"], r["case_id"], r["run_id"]] for r in second["runs"])
    assert run_script("validate", ["--root", str(tree)]) == 0
    assert run_script("validate", ["--root", str(tree), "--changed", base]) == 0
    # the spreads of a draw new in the change are checked against the grades: a forged spread is refused even when
    # the draw's runs and π are made from it (so it re-derives from its recorded spreads)
    edited = document(tree)
    forged = {**expected, next(iter(sorted(expected))): F(9)}
    made = drawing.active(2, spec.stats.seed, left, 5, forged)
    edited["draws"][1]["spreads"] = [{"subject_id": s, "judge_grade": g, "spread": str(e)}
                                     for (s, g), e in sorted(forged.items())]
    edited["draws"][1]["runs"] = [{"subject_id": r.key[0], "case_id": r.key[1], "run_id": r.key[2],
                                   "probability": str(r.probability)} for r in made.runs]
    (tree / DRAWS_FILE).write_text(json.dumps(edited), encoding="utf-8")
    capsys.readouterr()
    assert run_script("validate", ["--root", str(tree), "--changed", base]) == 1
    assert "its spreads are not those the human grades of the earlier draws' runs give" in capsys.readouterr().err
    # once merged, it stands as recorded like its π: grades corrected later may move the spreads
    assert run_script("validate", ["--root", str(tree)]) == 0


def test_the_grading_page_serves_the_drawn_runs_in_draw_order_to_their_reviewer(tree):
    assert assign(tree, "--draw", "10") == 0 and assign(tree, "--draw", "8") == 0
    draws = document(tree)["draws"]
    named: dict[tuple, str] = {}
    for draw in draws:
        for r in draw["runs"]:
            if "reviewer_id" in r:
                named.setdefault((r["subject_id"], r["case_id"], r["run_id"]), r["reviewer_id"])
    reviewer = max(set(named.values()), key=list(named.values()).count)
    app, problems = open_app(tree, reviewer)
    assert app is not None, problems
    queue = app.queue()
    assert len(queue) >= 2 and [run.key for run in queue] == [k for k, who in named.items() if who == reviewer]   # draw order
    assert all(run.role == "first" for run in queue)   # the judge's grades are in scoring_multi/: scoring/ is free
    other, _ = open_app(tree, next(f"rev-{i}" for i in range(1, 7) if f"rev-{i}" != reviewer))
    assert other is not None and not {r.key for r in other.queue()} & {k for k, w in named.items() if w == reviewer}
    # the judge's grade of a drawn run in scoring/: the human's goes beside it, to scoring_multi/, and may be saved
    key = queue[1].key
    judged = tree / "scoring_multi" / "v1.0" / key[0] / f"{key[1]}__{key[2]}__eval-{JUDGE}.json"
    judged.rename(tree / "scoring" / "v1.0" / key[0] / judged.name)
    run = next(r for r in app.queue() if r.key == key)
    assert run.role == "second" and scoring_doc.target_rel(app.spec, run, reviewer).startswith("scoring_multi/")
    assert scoring_doc.refusals(tree, app.spec, run, reviewer, named[key]) == []
    assert scoring_doc.refusals(tree, app.spec, run, reviewer, None) != []   # named for nobody: refused
    # a human grade of a drawn run (by anyone) takes it off the queue
    key = queue[0].key
    grade_as_human(tree, key, "rev-6" if reviewer != "rev-6" else "rev-5")
    assert [run.key for run in app.queue()] == [run.key for run in queue[1:]]


def test_the_grading_page_serves_the_judges_unconfirmed_critical_flags_to_every_human(tree):
    # the critical-fail gate reads human grades: a run the judge flags critical that no human graded is queued after
    # each reviewer's drawn runs, for whoever grades it first (saving allowed); a human grade takes it off every queue
    assert assign(tree, "--draw", "10") == 0
    drawn = {(r["subject_id"], r["case_id"], r["run_id"]) for d in document(tree)["draws"] for r in d["runs"]}
    judged = sorted((tree / "scoring_multi" / "v1.0").rglob(f"*__eval-{JUDGE}.json"))
    def key_of(path: Path) -> tuple[str, str, str]:
        case, run = path.name.split("__eval-")[0].split("__")
        return path.parent.name, case, run
    outside = next(p for p in judged if key_of(p) not in drawn)
    named = {(r["subject_id"], r["case_id"], r["run_id"]): r["reviewer_id"] for d in document(tree)["draws"]
             for r in d["runs"] if "reviewer_id" in r}
    inside = next(p for p in judged if named.get(key_of(p), "rev-1") != "rev-1")   # drawn, named for another
    spec = load_valid_grades(tree)[0]
    code = min(c for c, severity in spec.catalog.items() if severity == "critical")   # this benchmark's catalog
    for path in (outside, inside):
        grade = json.loads(path.read_text(encoding="utf-8"))
        grade["automatic_fails_triggered"] = [{"code": code, "severity": "critical"}]
        path.write_text(json.dumps(grade, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    key = key_of(outside)
    queues = {}
    for reviewer in ("rev-1", "rev-2"):
        app, problems = open_app(tree, reviewer)
        assert app is not None, problems
        queues[reviewer] = (app, app.queue())
    for app, queue in queues.values():
        assert app.open_runs == tuple(sorted((key, key_of(inside)))) and queue[-1].key == key and queue[-1].role == "first"
        # the drawn flagged run waits for the reviewer its draw names, in draw order, and for no one else
        assert [run.key for run in queue[:-1]] == [k for k, who in app.drawn.items() if who == app.reviewer.reviewer_id]
    assert key_of(inside) not in {run.key for run in queues["rev-1"][1]}
    # rev-1 saves a grade of it on the page (not named by any draw: open to them); then no queue holds it
    app = queues["rev-1"][0]
    form = {"handle": queues["rev-1"][1][-1].handle, "criterion_scores": dict.fromkeys(app.spec.criteria, "1"),
            "correctness": "0", "fails": [], "comments": "", "filters": ""}
    status, answer = app.save(form)
    assert status == 200, answer
    assert (tree / "scoring" / "v1.0" / key[0] / f"{key[1]}__{key[2]}__eval-rev-1.json").is_file()
    assert all(key not in {run.key for run in app.queue()} for app, _ in queues.values())


def test_a_drawn_run_no_draw_names_a_reviewer_for_is_open_to_every_human(tree):
    # A draws file written by hand or by make_synthetic --judge-assisted may name nobody for a drawn run: no queue held
    # it, so it waited for ever (and `--next` was refused until it was graded). It is open to every human now.
    assert assign(tree, "--draw", "10") == 0
    doc = document(tree)
    run = next(r for d in doc["draws"] for r in d["runs"] if r.get("reviewer_id") == "rev-2")
    del run["reviewer_id"]
    (tree / DRAWS_FILE).write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    key = (run["subject_id"], run["case_id"], run["run_id"])
    apps = {}
    for reviewer in ("rev-1", "rev-2"):
        app, problems = open_app(tree, reviewer)
        assert app is not None, problems
        assert app.queue()[-1].key == key   # after their named runs
        apps[reviewer] = app
    form = {"handle": apps["rev-1"].queue()[-1].handle, "criterion_scores": dict.fromkeys(apps["rev-1"].spec.criteria, "1"),
            "correctness": "0", "fails": [], "comments": "", "filters": ""}
    assert apps["rev-1"].save(form)[0] == 200
    assert all(key not in {r.key for r in app.queue()} for app in apps.values())


def test_reassign_gives_the_runs_waiting_for_a_reviewer_to_the_others_and_changes_nothing_else(tree, capsys):
    # A reviewer named by a draw is away: their drawn runs waited for them (and `--next` refused until graded), with
    # no way out but editing the file, which the gate refused. --reassign names the others, fewest waiting first.
    assert assign(tree, "--draw", "20") == 0   # every run: some reviewers are named for two or more
    before = document(tree)
    def waiting(doc: dict) -> dict:   # reviewer -> the runs named for them, in draw order
        out: dict = {}
        for d in doc["draws"]:
            for r in d["runs"]:
                if "reviewer_id" in r:
                    out.setdefault(r["reviewer_id"], []).append((r["subject_id"], r["case_id"], r["run_id"]))
        return out
    named = waiting(before)
    away = max(named, key=lambda who: (len(named[who]), who))
    grade_as_human(tree, named[away][0], "rev-6")   # graded meanwhile by someone else: nothing to move
    moving = named[away][1:]
    capsys.readouterr()
    assert len(moving) >= 1 and assign(tree, "--reassign", away) == 0
    after = document(tree)
    unnamed = [[{k: v for k, v in r.items() if k != "reviewer_id"} for r in d["runs"]] for d in after["draws"]]
    assert unnamed == [[{k: v for k, v in r.items() if k != "reviewer_id"} for r in d["runs"]] for d in before["draws"]]
    assert {k: v for k, v in after.items() if k != "draws"} == {k: v for k, v in before.items() if k != "draws"}
    now = waiting(after)
    assert now.get(away, []) == named[away][:1] and sorted(k for who in now for k in now[who]) == sorted(
        k for who in named for k in named[who])
    # each moved run went to the one with the fewest waiting (ties: id order), in draw order
    load = {who: len(keys) for who, keys in named.items() if who != away}
    load.update({h: load.get(h, 0) for h in ("rev-1", "rev-2", "rev-3", "rev-4", "rev-5", "rev-6") if h != away})
    for key in moving:
        to = min(load, key=lambda h: (load[h], h))
        assert key in now[to]
        load[to] += 1
    assert f"{len(moving)} drawn run(s) waiting for {away} reassigned" in capsys.readouterr().out
    assert load_valid_grades(tree) is not None   # the draws still check: names are not part of it
    app, problems = open_app(tree, away)
    assert app is not None, problems
    assert not {run.key for run in app.queue()} & set(moving)
    # again: nothing waits for them; with --subjects: refused
    assert assign(tree, "--reassign", away) == 1
    assert f"--reassign: '{away}': no drawn run waits for this reviewer's grade" in capsys.readouterr().err
    assert assign(tree, "--reassign", away, "--subjects", "synth-000") == 1
    assert "--subjects: names the subjects of a judge-assisted draw (--draw N or --next N), not of --reassign" in (
        capsys.readouterr().err)


def test_a_subject_that_joins_is_drawn_alone_with_spreads_borrowed_from_the_graded_ones(tree, capsys):
    spec, loaded, multi = load_valid_grades(tree)
    graded, joins = sorted(drawing.judged_runs(spec, loaded, multi)[0])
    size = len(drawing.judged_runs(spec, loaded, multi)[0][graded])
    assert assign(tree, "--draw", str(size), "--subjects", graded) == 0   # every run of the subject graded first
    assert [d["subjects"] for d in document(tree)["draws"]] == [[graded]]
    spec, loaded, multi = load_valid_grades(tree)
    waiting = drawing.pending(loaded.draws, drawing.judged_runs(spec, loaded, multi)[0])
    for i, key in enumerate(waiting):
        grade_as_human(tree, key, "rev-1", lower=i % 3)   # the judge 0 to 2 points too lenient
    spec, loaded, multi = load_valid_grades(tree)
    weights = {k: loaded.draws.weight(k) for k in loaded.responses if k[0] == graded}
    joining_runs = sum(1 for k, r in loaded.responses.items() if k[0] == joins and r.meta.status != "error")
    assert board(tree)[joins] == (joining_runs, None)   # no draw covers it yet: every run uncovered, no estimate
    assert assign(tree, "--next", "4", "--subjects", f" {joins},") == 0   # spaces and an empty id are ignored
    assert "picked 4 runs over 1 subjects" in capsys.readouterr().out
    draw = document(tree)["draws"][1]
    assert draw["subjects"] == [joins] and {r["subject_id"] for r in draw["runs"]} == {joins}
    spec, loaded, multi = load_valid_grades(tree)
    runs = drawing.judged_runs(spec, loaded, multi)[0]
    basis = frozenset((r["subject_id"], r["case_id"], r["run_id"]) for r in document(tree)["draws"][0]["runs"])
    borrowed = drawing.spreads(runs, basis, [joins])
    # joins has no human grade: its spreads are the graded subject's (not 1, a uniform draw's without any grade)
    assert {(x["subject_id"], x["judge_grade"]): F(x["spread"]) for x in draw["spreads"]} == borrowed
    assert {s for s, _ in borrowed} == {joins} and set(borrowed.values()) != {F(1)}
    assert run_script("validate", ["--root", str(tree)]) == 0
    # a draw over one subject moves no other subject's weights; once its runs are graded, the joining subject is
    # covered and has an estimate (before: every run uncovered, no estimate)
    assert {k: loaded.draws.weight(k) for k in loaded.responses if k[0] == graded} == weights
    grade_pending(tree, "rev-1")
    uncovered, estimate = board(tree)[joins]
    assert uncovered == 0 and estimate is not None
    # a human grade of the graded subject corrected later: the draw's spreads stand as recorded
    grade_as_human(tree, waiting[0], "rev-1", lower=2)
    assert drawing.spreads(drawing.judged_runs(*load_valid_grades(tree))[0], basis, [joins]) != borrowed
    assert run_script("validate", ["--root", str(tree)]) == 0


def test_assign_refuses_subjects_it_cannot_draw_over(tree, capsys):
    assert assign(tree, "--draw", "4", "--subjects", "no-such-model") == 1
    err = capsys.readouterr().err
    assert "--subjects: no-such-model: not a subject whose every run the judge" in err and "(draw over: " in err
    assert assign(tree, "--draw", "4", "--subjects", " , ") == 1
    assert "--subjects: names no subject (give subject ids separated by commas)" in capsys.readouterr().err
    assert assign(tree, "--share", "0.2", "--subjects", "no-such-model") == 1
    assert "--subjects: names the subjects of a judge-assisted draw (--draw N or --next N), not of --share" in \
        capsys.readouterr().err


def test_a_further_draw_is_over_the_runs_no_earlier_draw_lists_until_none_is_left(tree, capsys):
    spec, loaded, multi = load_valid_grades(tree)
    runs, _ = drawing.judged_runs(spec, loaded, multi)
    total = sum(len(items) for items in runs.values())
    assert assign(tree, "--draw", "8") == 0 and assign(tree, "--draw", "6") == 0
    first, second = document(tree)["draws"]
    listed = [{(r["subject_id"], r["case_id"], r["run_id"]) for r in d["runs"]} for d in (first, second)]
    assert len(listed[1]) == 6 and not listed[0] & listed[1]   # no run drawn twice: every grade it asks for is new
    held = {(s, *run.split("/")) for s, c in second["population"].items() for run in c["runs"]}
    assert held == {r.key for items in runs.values() for r in items} - listed[0] and len(held) == total - 8
    assert run_script("validate", ["--root", str(tree)]) == 0
    # after a draw of every run left, a further draw has nothing to draw over: refused, naming why
    assert assign(tree, "--draw", str(total - 14)) == 0
    capsys.readouterr()
    assert assign(tree, "--draw", "2") == 1
    assert f"every run of {', '.join(sorted(runs))} is drawn already" in capsys.readouterr().err
    spec, loaded, multi = load_valid_grades(tree)
    assert all(loaded.draws.weight(r.key) == 1 for items in runs.values() for r in items)   # a census: weight 1


def test_a_draw_made_over_every_run_as_before_still_re_derives_but_is_refused_as_new(tree, capsys):
    # Before draws were made over the runs not drawn yet, a second draw was made over every run: such a file stays
    # valid (each draw re-derives over the runs it records), while a new draw must be over the runs left.
    from dataclasses import replace

    from gitrepo import GitRepo

    from rgbench.load.draws import HumanDraws, draws_document
    assert assign(tree, "--draw", "8") == 0
    base = GitRepo(tree).commit("Draw 1")
    spec, loaded, multi = load_valid_grades(tree)
    runs, _ = drawing.judged_runs(spec, loaded, multi)
    old = replace(drawing.stratified(2, spec.stats.seed, runs, 6), population=drawing.population(runs, tuple(runs)))
    (tree / DRAWS_FILE).write_bytes(draws_document(HumanDraws(JUDGE, (*loaded.draws.draws, old))))
    assert run_script("validate", ["--root", str(tree)]) == 0
    capsys.readouterr()
    assert run_script("validate", ["--root", str(tree), "--changed", base]) == 1
    assert "draw 2 is new in this change" in capsys.readouterr().err


def test_a_new_draw_over_a_subject_with_no_run_left_is_refused_not_a_crash(tree, capsys):
    from dataclasses import replace

    from gitrepo import GitRepo

    from rgbench.load.draws import HumanDraws, draws_document
    spec, loaded, multi = load_valid_grades(tree)
    runs, _ = drawing.judged_runs(spec, loaded, multi)
    total = sum(len(items) for items in runs.values())
    assert assign(tree, "--draw", "8") == 0 and assign(tree, "--draw", str(total - 8)) == 0   # every run drawn
    base = GitRepo(tree).commit("Every run drawn")
    spec, loaded, multi = load_valid_grades(tree)
    extra = replace(drawing.stratified(3, spec.stats.seed, runs, 6), population=drawing.population(runs, tuple(runs)))
    (tree / DRAWS_FILE).write_bytes(draws_document(HumanDraws(JUDGE, (*loaded.draws.draws, extra))))
    capsys.readouterr()
    assert run_script("validate", ["--root", str(tree), "--changed", base]) == 1
    err = capsys.readouterr().err
    assert "draw 3 is new in this change" in err and "Traceback" not in err


def test_a_draw_over_every_subject_leaves_out_one_with_no_run_left_and_says_so(tree, capsys):
    spec, loaded, multi = load_valid_grades(tree)
    runs, _ = drawing.judged_runs(spec, loaded, multi)
    first, *others = sorted(runs)
    assert others and assign(tree, "--draw", str(len(runs[first])), "--subjects", first) == 0   # all of first's runs
    capsys.readouterr()
    assert assign(tree, "--draw", "6") == 0
    assert f"  {first} left out: every run of it is drawn already" in capsys.readouterr().out
    second = document(tree)["draws"][1]
    assert sorted(second["population"]) == sorted(others) and all(r["subject_id"] != first for r in second["runs"])
    capsys.readouterr()
    assert assign(tree, "--draw", "2", "--subjects", first) == 1
    assert f"--subjects: every run of {first} is drawn already" in capsys.readouterr().err


def test_q_final_takes_the_judges_pass_and_score_parts_as_two_controls():
    # the example's alpha is 1/2 with a pass rule: each run's Q_final control splits as alpha · [judge's Pass] (its
    # P value) and the rest of the judge's Q_final, so the estimate has two λ; P and s_bar keep one control
    root = REPO / "examples" / "judgeassist"
    spec, loaded, multi = load_valid_grades(root)
    subjects = assisted_subjects(spec, loaded, multi)
    for s in subjects:
        assert [q.parts for q in s.runs["Q_final"]] == [
            (spec.alpha * p.judge, q.judge - spec.alpha * p.judge) for p, q in zip(s.runs["P"], s.runs["Q_final"])]
        assert all(r.parts == () for f in ("P", "s_bar") for r in s.runs[f])
    rows, _ = assisted_rows(subjects, spec)
    assert all(len(r.figures["Q_final"].estimate.lam) == 2 and len(r.figures["P"].estimate.lam) == 1 for r in rows)

"""The board's figures in judge-assisted mode (rgbench.stats.judge_assisted_board): the judge's bias, the
judge-human correlation, the human-only interval, the rank sets on the estimator's replicates, that a judge
biased on one subject moves no other subject's row, and the example benchmark (examples/judgeassist) end to end."""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from treebuilder import REPO

from rgbench.numfmt import fmt_fixed
from rgbench.stats import judge_assisted_board as board
from rgbench.stats.bootstrap import bca_interval, case_counts
from rgbench.stats.judge_assisted import (
    Run,
    case_sums,
    difference,
    difference_interval,
    difference_values,
    estimate,
    expanded_confidence,
    fit,
    interval,
    shared,
    variance_parts,
)
from rgbench.stats.judge_assisted_board import (
    ASSISTED_COLUMNS,
    CRITERIA_COLUMNS,
    PAIRS_COLUMNS,
    SubjectRuns,
    assisted_rank_sets,
    assisted_rows,
    assisted_tables,
    correlation,
    draw_of,
    figure,
    human_only,
    proportion_figure,
)

C95 = Fraction(95, 100)
F = Fraction
EXAMPLE = REPO / "examples" / "judgeassist"
# test_judge_assisted.py's hand example: weight 2 (π = 1/2) on each drawn run
HAND = [Run("c1", 1, 1, 2), Run("c1", 1), Run("c2", 1, 0, 2), Run("c3", 0, 0, 2), Run("c3", 1)]


def test_the_judges_bias_is_its_weighted_mean_minus_the_humans_on_the_labels():
    # Σ G = 2 + 2 + 0 = 4, Σ Y = 2 + 0 + 0 = 2, Σ m = 6: Hf − Hy = 4/6 − 2/6 = 1/3
    sums = case_sums(HAND)
    assert figure(sums, case_counts(np.random.default_rng(0), 3, 200), C95).bias == Fraction(1, 3)


def test_the_human_only_figure_is_the_weighted_human_mean_and_its_interval_lambda_zero():
    # a judge of 0 everywhere: λ = 0, theta = Hy = Σ Y / Σ m = 2/6
    sums = case_sums(HAND)
    assert (estimate(human_only(sums)).theta, estimate(human_only(sums)).lam) == (Fraction(1, 3), (0,))
    counts = case_counts(np.random.default_rng(1), 3, 300)
    alone = case_sums([Run(r.case_id, 0, r.human, r.weight) for r in HAND])
    assert figure(sums, counts, C95).human_only == interval(alone, counts, C95)


def test_the_correlation_is_pearsons_over_the_labelled_runs():
    # labelled (f, y): (1, 1), (0, 0), (1, 0); the unlabelled run and the one with weight 0 do not count.
    # f̄ = 2/3, ȳ = 1/3; cov = (1/3·2/3 + 2/3·1/3 − 1/3·1/3)/3 = 1/9; var f = var y = (1/9 + 4/9 + 1/9)/3 = 2/9;
    # r = (1/9)/(2/9) = 1/2
    runs = [Run("a", 1, 1, 2), Run("b", 0, 0, 2), Run("c", 1, 0, 2), Run("d", 0), Run("e", 0, 1, 0)]
    assert correlation(runs) == pytest.approx(0.5, abs=1e-12)
    assert correlation(runs[:1]) is None and correlation([Run("a", 1, 1, 2), Run("b", 1, 0, 2)]) is None


def test_a_p_of_zero_or_one_takes_wilsons_interval_over_the_labelled_cases():
    # every human and judge pass 0 on 3 labelled cases (c4 has no label): theta = 0 and every replicate is 0, so
    # the interval is Wilson's 0 of 3: [0, z²/(3 + z²)] = [0, 3.8415/6.8415] = [0, 0.5615], not the point [0, 0]
    runs = [Run("c1", 0, 0, 2), Run("c1", 0), Run("c2", 0, 0, 2), Run("c3", 0, 0, 2), Run("c4", 0)]
    counts = case_counts(np.random.default_rng(0), 4, 200)
    fig = proportion_figure(case_sums(runs), counts, C95)
    assert fig.estimate is not None and fig.estimate.theta == 0
    assert fig.interval == fig.human_only and fig.interval[0] == 0
    assert fig.interval[1] == pytest.approx(1.959964 ** 2 / (3 + 1.959964 ** 2), rel=1e-6)
    assert figure(case_sums(runs), counts, C95).interval == (0.0, 0.0)   # what the bootstrap alone would claim
    # all 1: Wilson's 3 of 3, [1 − 0.5615, 1]; a P strictly inside (0, 1) keeps its bootstrap interval
    ones = proportion_figure(case_sums([Run(r.case_id, 1, 1 if r.human is not None else None, r.weight)
                                        for r in runs]), counts, C95)
    assert ones.interval[1] == 1 and ones.interval[0] == pytest.approx(3 / (3 + 1.959964 ** 2), rel=1e-6)
    assert proportion_figure(case_sums(HAND), case_counts(np.random.default_rng(0), 3, 200), C95) == figure(
        case_sums(HAND), case_counts(np.random.default_rng(0), 3, 200), C95)


def test_padding_with_cases_of_no_run_changes_nothing():
    sums = case_sums(HAND)
    wider = sums.restricted(["c0", "c1", "c2", "c3", "c4"])
    assert wider.case_ids == ("c0", "c1", "c2", "c3", "c4") and wider.runs == (0, 2, 1, 2, 0)
    assert estimate(wider) == estimate(sums)


def test_the_draw_depends_on_the_seed_and_the_case_ids_only():
    assert np.array_equal(draw_of(0, ["a", "b", "c"], 50), draw_of(0, ["a", "b", "c"], 50))
    assert not np.array_equal(draw_of(0, ["a", "b", "c"], 50), draw_of(1, ["a", "b", "c"], 50))
    assert draw_of(0, ["a", "b", "c"], 50).sum(axis=1).tolist() == [3] * 50


def _subject(rng: np.random.Generator, sid: str, shift: float, judge_bias: int = 0, cases: int = 40) -> SubjectRuns:
    runs = []
    for c in range(cases):
        for _ in range(2):
            y = int(min(12, max(0, round(rng.normal(6 + shift, 2)))))
            f = min(12, max(0, y + int(rng.integers(-1, 2)) + judge_bias))
            drawn = rng.random() < 0.4
            runs.append(Run(f"c{c:03d}", f, y if drawn else None, Fraction(5, 2)))
    return SubjectRuns(sid, {"s_bar": tuple(runs), "Q_final": tuple(r._replace(
        judge=Fraction(r.judge, 12), human=None if r.human is None else Fraction(r.human, 12)) for r in runs)}, 0, 0)


SPEC = SimpleNamespace(stats=SimpleNamespace(seed=0, bootstrap_resamples=400, confidence_level=C95))


def test_a_pair_is_each_subjects_sums_less_the_cases_the_other_lacks():
    # the board lists every subject on all the board's cases (0 where it has none): a pair's figures are each
    # subject's moment sums less the cases the other lacks; the same difference exactly, and the same interval to
    # rounding, as both subjects restricted to the cases they share with the draw's columns of those cases
    first = case_sums([Run("c1", 1, 1, 2), Run("c2", 0, 0, 2), Run("c3", 1, 0, 2), Run("c4", 0), Run("c5", 1, 1, 2),
                       Run("c6", 0, 1, 2)])
    second = case_sums([Run("c2", 1, 0, 2), Run("c3", 1, 1, 2), Run("c4", 1), Run("c5", 0, 0, 2), Run("c6", 1, 1, 2)])
    padded = second.restricted(first.case_ids)   # lacks c1, labelled in first
    a, b, on = shared(first, padded)
    assert a is first and b is padded and on.tolist() == [False, True, True, True, True, True]
    alone, _, common = shared(first, second)   # on different lists: both restricted to the cases they share
    assert alone.case_ids == second.case_ids and common.all()
    assert difference(first, padded) == difference(alone, second) is not None
    counts = case_counts(np.random.default_rng(1), 6, 200)
    kept = difference_interval(first, padded, counts, C95)
    level = max(expanded_confidence(C95, variance_parts(s), 200) for s in (alone, second))
    whole = bca_interval(lambda w: fit(alone, w).theta - fit(second, w).theta, 5, counts[:, on], level)
    assert kept is not None and kept == pytest.approx(difference_interval(alone, second, counts[:, on], C95), rel=1e-12)
    assert kept == pytest.approx(whole, rel=1e-12)
    # a board keeps each subject's replicate sums and passes them: the same interval to the bit
    drawn = (counts @ first.moments.floats, counts @ padded.moments.floats)
    assert difference_interval(first, padded, counts, C95, difference_values(first, padded, counts, drawn)) == kept


def test_rank_sets_separate_distant_subjects_and_tie_equal_ones():
    rng = np.random.default_rng(3)
    far = [_subject(rng, "a", 4), _subject(rng, "b", -4)]
    rows, pairs = assisted_rows(far, SPEC)
    assert [r.rank_set for r in rows] == [(1, 1), (2, 2)]
    assert [(a, b) for a, b, _ in pairs] == [("a", "b")]
    diff, (low, high), spread = pairs[0][2]["Q_final"]
    assert 0 < spread < (high - low) / 2   # the replicates' SD, inside the half-width
    assert low <= float(diff) <= high and low > 0
    same = case_sums(far[0].runs["Q_final"])
    counts = draw_of(0, same.case_ids, 300)
    theta = float(estimate(same).theta)
    assert assisted_rank_sets([theta, theta], [same, same], counts, C95) == ([(1, 2), (1, 2)], [(1, 2), (1, 2)])


def test_rank_sets_read_the_replicates_a_block_at_a_time_to_the_same_values(monkeypatch):
    # the rank sets hold every subject's per-case influence for REPLICATE_ROWS replicates at a time (memory): blocks
    # of 250 (the default) or 7 give the studentised replicates one block of all 600 gives (to the bit here; to
    # rounding allowed, as a BLAS may add a matrix product of another shape in another order)
    rng = np.random.default_rng(8)
    sums = [case_sums(_subject(rng, sid, shift).runs["Q_final"]) for sid, shift in (("a", 0.4), ("b", 0), ("c", -0.3))]
    counts = draw_of(0, sums[0].case_ids, 600)
    estimates = [float(estimate(s).theta) for s in sums]
    seen = []
    monkeypatch.setattr(board, "sets_from", lambda studentised, confidence: seen.append(studentised) or ([], []))
    for rows in (250, 7, 600):
        monkeypatch.setattr(board, "REPLICATE_ROWS", rows)
        assisted_rank_sets(estimates, sums, counts, C95)
    assert np.isfinite(seen[0].replicates).all() and np.count_nonzero(seen[0].replicates) > 1000
    assert all(np.allclose(seen[0].replicates, other.replicates, rtol=1e-12, atol=0) for other in seen[1:])


def test_rows_without_criteria_and_chosen_pairs_are_the_full_boards():
    # rgbench plan asks for no criterion means and only the pairs it prints (pairs_of): the rows' figures and those
    # pairs are the full board's, to the bit; a pair naming a subject not ranked is left out
    rng = np.random.default_rng(6)
    subjects = [_subject(rng, sid, shift) for sid, shift in (("a", 0.5), ("b", 0), ("c", -0.5))]
    subjects = [replace(s, criteria={"x": s.runs["s_bar"]}) for s in subjects]
    rows, pairs = assisted_rows(subjects, SPEC)
    named = []
    def pairs_of(seen):
        named.append([r.subject_id for r in seen])
        return [("a", "c"), ("a", "zz")]
    few_rows, few_pairs = assisted_rows(subjects, SPEC, with_criteria=False, pairs_of=pairs_of)
    assert named == [["a", "b", "c"]] and all(r.criteria for r in rows) and not any(r.criteria for r in few_rows)
    assert [r.figures for r in few_rows] == [r.figures for r in rows]
    assert [(a, b) for a, b, _ in few_pairs] == [("a", "c")]
    assert few_pairs[0][2] == next(per for a, b, per in pairs if (a, b) == ("a", "c"))


def test_spread_is_the_sd_of_the_finite_replicates():
    # replicates 1, NaN (no human value drawn: left out), 3: SD of 1 and 3 = 1 (population SD, as np.nanstd);
    # none finite, or no replicates (no estimate): None, and no warning
    assert board.spread(np.array([1.0, np.nan, 3.0])) == 1.0
    assert board.spread(np.array([np.nan, np.nan])) is None and board.spread(None) is None


def test_a_judge_biased_on_one_subject_moves_no_other_subjects_row():
    rng = np.random.default_rng(4)
    honest = [_subject(rng, "a", 0), _subject(rng, "b", 1)]
    rng = np.random.default_rng(4)
    biased = [_subject(rng, "a", 0, judge_bias=3), _subject(rng, "b", 1)]
    (a1, b1), _ = assisted_rows(honest, SPEC)
    (a2, b2), _ = assisted_rows(biased, SPEC)
    assert b1.figures == b2.figures and a1.figures["Q_final"].estimate != a2.figures["Q_final"].estimate
    assert a2.figures["s_bar"].bias > a1.figures["s_bar"].bias + 2   # the +3 lenient judge is seen (clipped at 12)


def test_the_tables_cells_match_their_headers():
    rng = np.random.default_rng(5)
    rows, pairs = assisted_rows([_subject(rng, "a", 0), _subject(rng, "b", 1), _subject(rng, "c", 2)], SPEC)
    tables = assisted_tables(rows, pairs)
    assert all(len(r) == len(ASSISTED_COLUMNS) for r in tables["judge_assisted.csv"][1])
    assert [len(r) for r in tables["judge_assisted_pairs.csv"][1]] == [len(PAIRS_COLUMNS)] * 3


def test_labelled_cases_counts_the_cases_with_a_drawn_human_grade_once_each():
    # c1 has two drawn runs with a human grade, c2 one, c3 a human grade outside every draw (weight 0: not a label),
    # c4 none: 3 human grades on 2 labelled cases; without an estimate (a run the judge did not grade) 0
    runs = (Run("c1", F(1), F(1), 2), Run("c1", F(0), F(1), 2), Run("c2", F(1), F(0), 2), Run("c3", F(0), F(0), 0),
            Run("c4", F(1)))
    subject = SubjectRuns("a", {"Q_final": runs}, 0, 0)
    (row,), _ = assisted_rows([subject], SPEC)
    assert (row.labels, row.labelled_cases) == (3, 2)
    cells = dict(zip(ASSISTED_COLUMNS, assisted_tables([row], [])["judge_assisted.csv"][1][0]))
    assert (cells["human_grades"], cells["labelled_cases"]) == ("3", "2")
    (unjudged,), _ = assisted_rows([replace(subject, unjudged=1)], SPEC)
    assert (unjudged.labels, unjudged.labelled_cases) == (0, 0)


def test_a_judge_assisted_reliability_label_counts_the_cases_with_a_human_grade():
    # the judge's correction rests on the K_L cases with a human grade alone: a figure over 49 judged cases of which
    # 6 have one is indicative whatever its half-width (reliability_min_cases 10; at 6 human grades the study's
    # intervals covered 89.5-99.1%, docs/judge_assisted.md); the other subjects' labels do not move
    from rgbench.leaderboard.board import build_board
    from rgbench.leaderboard.inputs import load_inputs
    inputs, problems = load_inputs(EXAMPLE)
    assert problems == [] and inputs is not None
    built = build_board(inputs)
    labels = {e.metrics.subject_id: e.reliability for e in built.entries}
    rows = _csv(EXAMPLE / "results" / "judge_assisted.csv")
    assert int(rows["synth-000"]["labelled_cases"]) >= 10 and labels["synth-000"]["Q_final"] != "indicative"
    extras = dict(inputs.tables.subject_extras)
    extras["synth-000"] = {**extras["synth-000"], "labelled_cases": 6}
    fewer = build_board(replace(inputs, tables=replace(inputs.tables, subject_extras=extras)))
    moved = {e.metrics.subject_id: e.reliability for e in fewer.entries}
    assert set(moved["synth-000"].values()) <= {"indicative", ""} and moved["synth-000"]["Q_final"] == "indicative"
    assert {s: v for s, v in moved.items() if s != "synth-000"} == {s: v for s, v in labels.items() if s != "synth-000"}
    assert "fewer than 10 cases with a human grade" in built.reliability_rule
    assert [e.n_cases for e in fewer.entries] == [e.n_cases for e in built.entries]   # the judged cases, shown as before


def test_a_criterion_mean_is_the_estimator_on_its_scores_with_its_own_lambda():
    # The criterion "clarity" on a 0-2 scale scores each run twice HAND's value: every sum (Y, F, G), Hy, Hf, Mf
    # and every a and b double (test_judge_assisted.py's arithmetic), so λ = −Σab/Σb² is HAND's 175/278 and
    # theta = 2 · 58/139 = 116/139 = 0.834532...; its Q_final runs (HAND with a constant judge of 0: λ = 0) give
    # the draw (the subject's cases c1-c3) and not the criterion's λ.
    clarity = tuple(Run(r.case_id, 2 * r.judge, None if r.human is None else 2 * r.human, r.weight) for r in HAND)
    flat = tuple(r._replace(judge=0) for r in HAND)
    rows, _ = assisted_rows([SubjectRuns("a", {"s_bar": flat, "Q_final": flat}, 0, 0, {"clarity": clarity})], SPEC)
    (a,) = rows
    fig = a.criteria["clarity"]
    assert (fig.estimate.theta, fig.estimate.lam, fig.estimate.labels) == (F(116, 139), (F(175, 278),), 3)
    assert a.figures["Q_final"].estimate.lam == (0,)
    counts = draw_of(0, ["c1", "c2", "c3"], 400)   # the subject's draw (SPEC: seed 0, 400 resamples)
    assert fig.interval == interval(case_sums(clarity), counts, C95)
    assert fig.human_only == interval(human_only(case_sums(clarity)), counts, C95)
    header, cells = assisted_tables(rows, [])["judge_assisted_criteria.csv"]
    assert header == CRITERIA_COLUMNS and [c[:4] for c in cells] == [("a", "clarity", "3", "0.834532")]
    assert cells[0][-1] == "0.629496"   # 175/278 = 0.62949640...
    # a subject without an estimate (a run the judge did not grade) has no criterion row
    rows, _ = assisted_rows([SubjectRuns("a", {"s_bar": flat, "Q_final": flat}, 1, 0, {"clarity": clarity})], SPEC)
    assert rows[0].criteria == {} and assisted_tables(rows, [])["judge_assisted_criteria.csv"][1] == ()


def test_the_criterion_means_table_splits_to_keep_markdown_lines_within_the_width():
    from rgbench.leaderboard.judge_assisted_text import criteria_markdown, criterion_means
    criteria = [f"criterion_{k}" for k in range(7)]
    rows = [{"subject_id": "s", "criterion": c, "mean": F(3, 2), "mean_low": F(5, 4), "mean_high": F(7, 4)}
            for c in criteria[:6]]
    (line,) = criterion_means(rows, ["s", "t"], criteria)   # "t" has no row: no line
    assert line.cells == ("1.50 (1.25–1.75)",) * 6 + ("—",)
    md = criteria_markdown([line], criteria, {"s": "Subject s"}, str, 100)
    tables = [t for t in "\n".join(md).split("\n\n") if t.startswith("| Subject |")]
    assert all(len(x) <= 100 for t in tables for x in t.splitlines())
    assert len(tables) == 2 and sum(t.splitlines()[0].count("criterion ") for t in tables) == 7
    assert criteria_markdown([], criteria, {}, str, 100) == []


def _csv(path: Path) -> dict[str, dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return {row["subject_id"]: row for row in csv.DictReader(handle)}


def _criteria(root: Path) -> dict[tuple[str, str], dict[str, str]]:
    with (root / "results" / "judge_assisted_criteria.csv").open(encoding="utf-8", newline="") as handle:
        return {(row["subject_id"], row["criterion"]): row for row in csv.DictReader(handle)}


def _metrics(root: Path) -> None:
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "metrics.py"), "--root", str(root)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow   # a whole `make check` of the example (make test-slow; CI runs it)
def test_the_committed_example_results_are_what_its_inputs_produce():
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "check_results.py"), "--root", str(EXAMPLE)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow   # end to end: two `make metrics` runs of the example (make test-slow; CI runs it)
def test_the_examples_board_rests_on_its_table_and_a_lenient_judge_moves_one_subject_only(tmp_path):
    root = tmp_path / "judgeassist"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("results"))
    _metrics(root)
    board = (root / "results" / "leaderboard.md").read_text(encoding="utf-8")
    before = _csv(root / "results" / "judge_assisted.csv")
    assert "| Subject | Human grades | Pending | r | Disagree on pass | λ | Judge bias | Worth | Rank set |" in board
    for sid, row in before.items():
        assert f"| {sid} | {row['human_grades']} | {row['pending']} |" in board
    page = (root / "results" / "leaderboard.html").read_text(encoding="utf-8")
    assert 'id="rests-on"' in page and 'id="families"' not in page and 'id="explorer"' not in page
    criteria = _criteria(root)
    assert len(criteria) == 4 * 6 and 'id="criterion-means"' in page   # 4 subjects, the rubric's 6 criteria
    for (sid, criterion), row in criteria.items():
        low, mean, high = (float(row[c]) for c in ("mean_low", "mean", "mean_high"))
        assert low <= mean <= high and 0 <= mean <= 2 and row["human_grades"] == before[sid]["human_grades"]
        if criterion == "diagnosis":   # the first criterion: the first column of the board's first table
            assert f"| {sid} | {fmt_fixed(F(row['mean']), 2)} ({fmt_fixed(F(row['mean_low']), 2)}\u2013" in board
    # the figures the estimator does not give are absent, said once (leaderboard/absent.py)
    assert "are not estimated yet, so they are absent rather than computed from the human grades" in board
    # the judge made one step more lenient on every criterion of synth-002 (within the 0-2 range)
    for path in (root / "scoring_multi" / "v1.0" / "synth-002").glob("*eval-judge-synth-1.json"):
        grade = json.loads(path.read_text(encoding="utf-8"))
        grade["criterion_scores"] = {k: min(2, v + 1) for k, v in grade["criterion_scores"].items()}
        path.write_text(json.dumps(grade, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    _metrics(root)
    after = _csv(root / "results" / "judge_assisted.csv")
    figures = [c for c in before["synth-000"] if c.startswith(("P", "s_bar", "Q_final"))]
    for sid in ("synth-000", "synth-001", "synth-003"):
        assert {c: after[sid][c] for c in figures} == {c: before[sid][c] for c in figures}, sid
    moved = {key for key, row in _criteria(root).items() if row != criteria[key]}
    assert moved and {sid for sid, _ in moved} == {"synth-002"}   # the criterion means of the others stay too
    assert float(after["synth-002"]["s_bar_judge_bias"]) > float(before["synth-002"]["s_bar_judge_bias"]) + 1


def test_the_rests_on_table_says_why_a_subject_is_not_ranked():
    from rgbench.leaderboard.judge_assisted_text import rests_on
    base = dict.fromkeys(ASSISTED_COLUMNS)
    rows = [{**base, "subject_id": "a", "human_grades": 24, "pending": 1, "n_unjudged": 0, "judge_human_r": F(1, 2),
             "Q_final": F(2, 5), "Q_final_lambda": F(1, 3), "Q_final_judge_bias": F(-1, 80),
             "Q_final_effective": F(61, 2), "rank_set_low": 1, "rank_set_high": 2},
            {**base, "subject_id": "b", "human_grades": 0, "pending": 0, "n_unjudged": 3},
            {**base, "subject_id": "c", "human_grades": 0, "pending": 2, "n_unjudged": 0, "n_uncovered": 0},
            {**base, "subject_id": "d", "human_grades": 9, "pending": 0, "n_unjudged": 0, "n_uncovered": 1}]
    a, b, c, d = rests_on(rows, ["a", "b", "c", "d"])
    # r 0.50, λ 0.33, bias −1/80 = −0.0125 -> -0.012 (half to even), worth 30.5 -> 30 (half to even); no pass rule
    # counted (pass_disagreements None): "—"
    assert a.cells == ("24", "1", "0.50", "\u2014", "0.33", "-0.012", "30", "1\u20132")
    assert b.cells[-1] == "not ranked: 3 runs without the judge's grade"
    assert c.cells[-1] == "not ranked: no human grade of a drawn run yet"
    assert d.cells[-1] == "not ranked: 1 run no draw covers (rgbench assign --draw N)"   # added after every draw
    counted = rests_on([{**rows[0], "pass_disagreements": 3}], ["a"])[0]
    assert counted.cells[3] == "3"   # the count as it is, unmarked (1 to 3 covered 94.2% pooled in the study)
    # Q_final with two controls: λ of the judge's pass part, then of its score part
    both = rests_on([{**rows[0], "Q_final_lambda_pass": F(7, 10)}], ["a"])[0]
    assert both.cells[4] == "0.70 / 0.33"
    # without a pass rule there is no pass to disagree on: no such column, nor its clause in the sentence above
    from rgbench.leaderboard.judge_assisted_text import HEAD, head, method
    assert rests_on(rows, ["a"], pass_rule=False)[0].cells == ("24", "1", "0.50", "0.33", "-0.012", "30", "1\u20132")
    assert head(True) == HEAD and head(False) == tuple(h for h in HEAD if h != "Disagree on pass")
    assert "passes or fails otherwise" in method(True) and "where Q_final has both" in method(True)
    assert "pass" not in method(False).split("The table gives")[1]


def test_pass_disagreements_count_the_labelled_runs_whose_human_pass_is_not_the_judges():
    from rgbench.stats.judge_assisted import Run
    from rgbench.stats.judge_assisted_board import pass_disagreements
    runs = [Run("c1", 1, 0, 4), Run("c1", 1, 1, 4), Run("c2", 0, 1, 2), Run("c2", 0, None, 1),   # one unlabelled
            Run("c3", 1, 0, 0)]   # a human value outside every draw (weight 0): not a label, not counted
    assert pass_disagreements(runs) == 2   # c1's first run and c2's first: human 0 vs judge 1, human 1 vs judge 0
    assert pass_disagreements([]) == 0 and pass_disagreements(None) is None   # no P (no pass rule): None


def test_rgbench_compute_alone_writes_the_judge_assisted_tables_as_make_metrics_does(tmp_path):
    # rgbench compute (the metric tables only) on a copy of the example: the three judge-assisted CSVs it writes are
    # byte for byte the committed ones, which make metrics wrote
    from rgbench.cli import run_script
    root = tmp_path / "judgeassist"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("results"))
    assert run_script("compute", ["--root", str(root)]) == 0
    for name in ("judge_assisted.csv", "judge_assisted_pairs.csv", "judge_assisted_criteria.csv"):
        assert (root / "results" / name).read_bytes() == (EXAMPLE / "results" / name).read_bytes(), name


def test_three_human_raters_per_answer_in_judge_assisted_mode(tmp_path, capsys):
    # a real benchmark's shape: the drawn answers each graded by three humans (the median their label), the judge
    # grading every answer; make_synthetic keeps its judge registered and its grades, and make metrics runs
    import make_synthetic

    from rgbench.cli import run_script
    out = tmp_path / "tree"
    assert make_synthetic.main(["--subjects", "3", "--cases", "12", "--runs", "1", "--out", str(out),
                                "--judge-assisted", "--graders", "3", "--policy", "median"]) == 0
    assert f"id: {make_synthetic.JUDGE_ID}" in (out / "subjects" / "reviewers.yaml").read_text(encoding="utf-8")
    judged = list((out / "scoring_multi").rglob(f"*__eval-{make_synthetic.JUDGE_ID}.json"))
    responses = list((out / "responses").rglob("*.json"))
    assert len(judged) == len(responses)   # the judge's grade of every run, none overwritten or added
    capsys.readouterr()
    assert run_script("metrics", ["--root", str(out)]) == 0
    with (out / "results" / "judge_assisted.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 3 and all(int(r["human_grades"]) > 0 and r["Q_final_low"] for r in rows)
    # the figures rest on the judge's grades too: the board's sentence on consolidated grades speaks of the human
    # values of the runs a human graded, not of every figure
    for name in ("leaderboard.md", "leaderboard.html"):
        page = (out / "results" / name).read_text(encoding="utf-8")
        assert "Every figure rests on" not in page, name
        assert re.search(r"The human value of each of the \d+ runs a human graded is its consolidated grade, from "
                         r"\d+ grades by \d+ raters", page), name


def test_the_docs_example_table_is_the_committed_results():
    # docs/judge_assisted.md's table of the example's Q_final (human grades / judged runs, r, λ pass / score, the
    # judge's bias, the interval's and the human-only one's width, worth) is read off results/judge_assisted.csv
    text = (REPO / "docs" / "judge_assisted.md").read_text(encoding="utf-8")
    quoted = {cells[0].split()[0]: cells[1:] for line in text.splitlines() if line.startswith("| synth-")
              for cells in [[c.strip() for c in line.strip("|").split("|")]]}
    with (EXAMPLE / "results" / "judge_assisted.csv").open(encoding="utf-8", newline="") as handle:
        rows = {row["subject_id"]: row for row in csv.DictReader(handle)}
    assert sorted(quoted) == sorted(rows)
    def width(row: dict[str, str], figure: str) -> str:
        return f"{float(row[figure + '_high']) - float(row[figure + '_low']):.3f}"
    for sid, row in rows.items():
        pending = f" ({row['pending']} pending)" if row["pending"] != "0" else ""
        bias = f"{float(row['Q_final_judge_bias']):+.3f}".replace("-", "−")
        want = [f"{row['human_grades']} / {int(row['n_runs']) - int(row['n_unjudged'])}{pending}",
                f"{float(row['judge_human_r']):.2f}",
                f"{float(row['Q_final_lambda_pass']):.2f} / {float(row['Q_final_lambda']):.2f}", bias,
                width(row, "Q_final"), width(row, "Q_final_human"),
                f"{float(row['Q_final_effective']):.0f}"]
        assert quoted[sid] == want, sid


def test_the_docs_example_prose_is_the_committed_results():
    # judge_assisted.md's sentences on the example: how much narrower than human-only each figure's intervals are
    # (P where it is not 0), and the criterion means' λ range, how many are narrower or wider and the median
    text = " ".join((REPO / "docs" / "judge_assisted.md").read_text(encoding="utf-8").split())
    def rows(name: str) -> list[dict[str, str]]:
        with (EXAMPLE / "results" / name).open(encoding="utf-8", newline="") as handle:
            return list(csv.DictReader(handle))
    def narrower(row: dict[str, str], prefix: str) -> float:   # 1 − width / human-only width
        width = float(row[prefix + "_high"]) - float(row[prefix + "_low"])
        return 1 - width / (float(row[prefix + "_human_high"]) - float(row[prefix + "_human_low"]))
    def percent(x: float) -> str:
        return f"{100 * x:.0f}"
    figures = {f: [narrower(r, f) for r in rows("judge_assisted.csv") if float(r[f]) != 0] for f in board.FIGURES}
    assert (f"The Q_final intervals are {percent(min(figures['Q_final']))}-{percent(max(figures['Q_final']))}% "
            f"narrower than human-only (s_bar's {percent(min(figures['s_bar']))}-{percent(max(figures['s_bar']))}%, "
            f"P's {percent(min(figures['P']))}-{percent(max(figures['P']))}% where P is not 0)") in text
    criteria = rows("judge_assisted_criteria.csv")
    lam = [float(r["mean_lambda"]) for r in criteria]
    ratios = [narrower(r, "mean") for r in criteria]
    less, more = [x for x in ratios if x > 0], [-x for x in ratios if x < 0]
    assert (f"λ {min(lam):.2f}-{max(lam):.2f}) the criterion means' intervals are {100 * min(less):.1f}-"
            f"{percent(max(less))}% narrower than human-only on {len(less)} of the {len(ratios)} subject-criterion "
            f"pairs and {100 * min(more):.1f}-{100 * max(more):.1f}% wider on the other {len(more)}") in text
    assert f"the median over the {len(ratios)} is {percent(float(np.median(ratios)))}% narrower" in text


def test_a_board_without_a_pass_rule_has_no_pass_disagreement_column(tmp_path, capsys):
    # a judge-assisted benchmark without pass_threshold: no P, so the table under the ranking has no "Disagree on
    # pass" column (it could only show "—") and its sentence does not promise one, on the page as in Markdown
    import make_synthetic

    from rgbench.cli import run_script
    root = tmp_path / "tree"
    assert make_synthetic.main(["--subjects", "3", "--cases", "12", "--runs", "1", "--out", str(root),
                                "--judge-assisted", "--no-pass-rule"]) == 0
    capsys.readouterr()
    assert run_script("metrics", ["--root", str(root)]) == 0
    for name in ("leaderboard.md", "leaderboard.html"):
        page = (root / "results" / name).read_text(encoding="utf-8")
        assert "Judge bias" in page and "Disagree on pass" not in page and "passes or fails otherwise" not in page, name
    # with a pass rule (the example) both are there
    page = (EXAMPLE / "results" / "leaderboard.md").read_text(encoding="utf-8")
    assert "Disagree on pass" in page and "passes or fails otherwise" in page


def test_a_critical_fail_only_the_judge_flags_is_named_unconfirmed(tmp_path, capsys):
    # The critical-fail gate reads human grades. In judge-assisted mode humans grade a draw, so a critical fail the
    # judge flags on an answer no human graded neither disqualifies nor may pass unsaid: judge_assisted.csv counts
    # such runs per subject and the board names them, while a flag on a human-graded run is the human's to decide
    from rgbench.cli import run_script
    root = tmp_path / "judgeassist"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("results"))
    judged = root / "scoring_multi" / "v1.0" / "synth-001"
    human = {p.name.split("__eval-")[0] for p in (root / "scoring" / "v1.0" / "synth-001").glob("*.json")}
    ungraded = sorted(p for p in judged.glob("*__eval-judge-synth-1.json") if p.name.split("__eval-")[0] not in human)
    graded = sorted(p for p in judged.glob("*__eval-judge-synth-1.json") if p.name.split("__eval-")[0] in human)
    flag = {"code": "AF-CHLORINE-EXPOSURE", "severity": "critical"}
    for path in (ungraded[0], ungraded[1], graded[0]):   # two runs no human graded, one a human graded
        scoring = json.loads(path.read_text(encoding="utf-8"))
        scoring["automatic_fails_triggered"] = [*scoring["automatic_fails_triggered"], flag]
        path.write_text(json.dumps(scoring, indent=2) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert run_script("metrics", ["--root", str(root)]) == 0
    with (root / "results" / "judge_assisted.csv").open(encoding="utf-8", newline="") as handle:
        counts = {r["subject_id"]: r["judge_critical_ungraded"] for r in csv.DictReader(handle)}
    assert counts == {"synth-000": "0", "synth-001": "2", "synth-002": "0", "synth-003": "0"}
    sentence = ("The judge flags a critical fail on answers no human has graded (synth-001 2): a critical fail "
                "disqualifies when a human grade flags it, so these are unconfirmed until a human grades those answers "
                "(drawn or not, such a grade counts for the gate and the agreement, and for the estimate where the run "
                "was drawn).")
    for name in ("leaderboard.md", "leaderboard.html"):
        assert sentence in (root / "results" / name).read_text(encoding="utf-8"), name
    # the judge's flags disqualify no one: synth-001 stays ranked; the committed example names none
    with (root / "results" / "leaderboard.csv").open(encoding="utf-8", newline="") as handle:
        assert {r["subject_id"]: r["leaderboard_status"] for r in csv.DictReader(handle)}["synth-001"] == "Ranked"
    assert "flags a critical fail" not in (EXAMPLE / "results" / "leaderboard.md").read_text(encoding="utf-8")
    # rgbench plan names them too, with what to do
    capsys.readouterr()
    assert run_script("plan", ["--root", str(root)]) == 0
    assert f"{sentence} rgbench review serves them to every human after their drawn runs.\n" in capsys.readouterr().out

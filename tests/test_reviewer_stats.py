"""results/reviewers.csv and results/judge_agreement.csv: hand-computed values on small trees."""

from __future__ import annotations

import csv
from fractions import Fraction

import numpy as np
import pytest
from treebuilder import canonical, small_tree

from rgbench.cli import run_script
from rgbench.stats.agreement import krippendorff_alpha
from rgbench.stats.bootstrap import case_weights, ratio_interval, replicates, undefined_replicates
from rgbench.stats.judge_agreement import case_terms, macro_f1, macro_f1_terms

REVIEWERS = ("reviewers:\n  - id: rev-a\n    name: \"A\"\n    kind: human\n  - id: rev-b\n    name: \"B\"\n"
             "    kind: human\n  - id: judge-x\n    name: \"Judge X\"\n    kind: llm-judge\n")


def test_macro_f1_by_hand():
    # (predicted, true): classes A, B, C.
    # A: TP 1, FP 1, FN 0 -> 2/3; B: TP 1, FP 0, FN 2 -> 2/4; C: TP 0, FP 1, FN 0 -> 0.
    # macro = (2/3 + 1/2 + 0) / 3 = 7/18
    assert macro_f1([("A", "A"), ("A", "B"), ("B", "B"), ("C", "B")]) == Fraction(7, 18)
    assert macro_f1([("A", "A"), ("B", "B")]) == 1
    assert macro_f1([]) is None


def test_macro_f1_of_weights_is_macro_f1_of_the_drawn_pairs():
    pairs = [("A", "A"), ("A", "B"), ("B", "B"), ("C", "B")]
    weights = np.array([[1, 1, 1, 1], [0, 2, 2, 0], [4, 0, 0, 0], [0, 0, 1, 3]])
    # row 2: (A,B) twice and (B,B) twice: A: TP 0, FP 2 -> 0; B: TP 2, FN 2 -> 4/6; mean 1/3
    # row 3: (A,A) four times: only class A occurs, F1 1; row 4: (B,B), (C,B)x3: B 2/5, C 0 -> 1/5
    expected = [macro_f1([p for p, w in zip(pairs, row) for _ in range(w)]) for row in weights.tolist()]
    assert expected == [Fraction(7, 18), Fraction(1, 3), 1, Fraction(1, 5)]
    assert replicates(macro_f1_terms(pairs))(weights) == pytest.approx([float(e) for e in expected])


def test_the_judge_statistics_weight_every_run_of_a_drawn_case():
    # two cases: FOUL holds two (judge, human) pairs, SCAL one; a case weight repeats all its pairs
    foul = [({"raw_score": 10}, {"raw_score": 9}), ({"raw_score": 4}, {"raw_score": 6})]
    scal = [({"raw_score": 12}, {"raw_score": 12})]
    weights = np.array([[1, 1], [2, 0], [0, 2]])
    got = replicates(case_terms([foul, scal], "krippendorff_alpha_ordinal", "raw_score"))(weights)
    drawn = [foul + scal, foul + foul, scal + scal]
    expected = [krippendorff_alpha([{"judge": j["raw_score"], "human": h["raw_score"]} for j, h in d], "ordinal")
                for d in drawn]
    assert expected[2] is None                          # SCAL twice: one value throughout, alpha undefined
    assert got[:2] == pytest.approx([float(expected[0]), float(expected[1])]) and np.isnan(got[2])
    assert undefined_replicates(replicates(case_terms([foul, scal], "krippendorff_alpha_ordinal", "raw_score")), weights) == 1


def test_ratio_interval_of_a_mean_deviation_degenerate_cases():
    # no shared case: no interval; one case: the point; every case with the same mean deviation: the point
    assert ratio_interval([], [], np.zeros((10, 0), dtype=np.int64), Fraction(95, 100)) is None
    one = case_weights(1, digest="7", label="x", resamples=20)
    assert ratio_interval([Fraction(-3, 2)], [2], one, Fraction(95, 100)) == (-0.75, -0.75)
    same = case_weights(3, digest="7", label="y", resamples=200)
    assert ratio_interval([Fraction(1), Fraction(2), Fraction(3)], [1, 2, 3], same, Fraction(9, 10)) == (1.0, 1.0)


def read(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_leniency_and_judge_agreement_by_hand(tmp_path):
    tree = small_tree(tmp_path)
    tree.write("subjects/reviewers.yaml", REVIEWERS)
    # rev-a gave 12 to alpha RO-FOUL-001 and RO-SCAL-001; rev-b gives 9 and 11 in scoring_multi/:
    # rev-a's deviations +3 (FOUL) and +1 (SCAL), mean 2; rev-b's -3 and -1, mean -2.
    for case_id, raw in (("RO-FOUL-001", 9), ("RO-SCAL-001", 11)):
        doc = tree.scoring_doc("alpha-model", case_id, "r1", "rev-b", raw=raw, correctness=1)
        tree.write(f"scoring_multi/v1.0/alpha-model/{case_id}__r1__eval-rev-b.json", canonical(doc))
    assert run_script("agreement", ["--root", str(tree.root)]) == 0
    assert not (tree.root / "results/judge_agreement.csv").exists()  # no judge grade: no judge report
    rows = {(r["reviewer_id"], r["statistic"], r["target"], r["level"]): r for r in read(tree.root / "results/reviewers.csv")}
    lenient = rows[("rev-a", "leniency", "raw_score", "")]
    # two cases: replicates are 3 (FOUL twice), 2 (one of each) or 1 (SCAL twice). BCa: the jackknife values
    # 1 and 3 are symmetric about 2 (a = 0) and about half the replicates sit below-or-equal-halved, so z0 ≈ 0
    # and the levels are ≈ 2.5% and 97.5%, inside the masses of 1 and 3 (1/4 each): the bounds are 1 and 3
    assert (lenient["value"], lenient["ci_low"], lenient["ci_high"], lenient["n"]) == ("2.000000", "1.000000", "3.000000", "2")
    assert rows[("rev-b", "leniency", "raw_score", "")]["value"] == "-2.000000"
    assert rows[("rev-a", "runs_graded", "all", "")]["value"] == "4"  # small_tree: rev-a grades 4 runs
    # rev-b's diagnosis: scores_summing_to(9) and (11) both give diagnosis 2, so the share at level 2 is 1
    assert rows[("rev-b", "level_share", "diagnosis", "2")]["value"] == "1.000000"
    assert rows[("judge-x", "runs_graded", "all", "")]["value"] == "0"

    # a judge grades both runs 10: against the consolidated human grade (median-v1 of 12 and 9 -> lower
    # median 9; of 12 and 11 -> 11), its deviations are +1 and -1: mean 0
    for case_id in ("RO-FOUL-001", "RO-SCAL-001"):
        doc = tree.scoring_doc("alpha-model", case_id, "r1", "judge-x", raw=10, correctness=1)
        tree.write(f"scoring_multi/v1.0/alpha-model/{case_id}__r1__eval-judge-x.json", canonical(doc))
    before = (tree.root / "results/agreement.csv").read_bytes()
    assert run_script("agreement", ["--root", str(tree.root)]) == 0
    assert (tree.root / "results/agreement.csv").read_bytes() == before  # the judge stays out of agreement.csv
    judge = {(r["statistic"], r["target"]): r for r in read(tree.root / "results/judge_agreement.csv")}
    assert judge[("mean_deviation", "raw_score")]["value"] == "0.000000"
    assert judge[("mean_deviation", "raw_score")]["n_runs"] == "2"
    # correctness: the human grade is 1 on FOUL (1 and 1) and 0.5 on SCAL (rev-a 0.5, rev-b 1: majority,
    # lowest on a tie); the judge says 1 twice. Class 1: TP 1, FP 1 -> 2/3; class 0.5: FN 1 -> 0; mean 1/3
    assert judge[("macro_f1", "correctness")]["value"] == "0.333333"
    # the human leniency ignores the judge's grades
    again = {(r["reviewer_id"], r["statistic"], r["target"], r["level"]): r for r in read(tree.root / "results/reviewers.csv")}
    assert again[("rev-a", "leniency", "raw_score", "")]["value"] == "2.000000"


def test_drift_reads_the_month_each_grade_was_committed(tmp_path, capsys):
    from gitrepo import GitRepo

    from rgbench.cli import run_script

    root = tmp_path / "bench"
    repo = GitRepo(root)
    tree = small_tree(root)
    tree.write("subjects/reviewers.yaml", REVIEWERS)
    repo.commit("tree")  # committed on 2026-01-02 (GitRepo dates its commits)
    doc = tree.scoring_doc("alpha-model", "RO-FOUL-001", "r1", "rev-b", raw=9, correctness=1)
    tree.write("scoring_multi/v1.0/alpha-model/RO-FOUL-001__r1__eval-rev-b.json", canonical(doc))
    assert run_script("drift", ["--root", str(root)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "reviewer_id,kind,period,grades,mean_raw_score,leniency_raw_score,n_shared"
    # rev-a: 4 grades committed in 2026-01, leniency +3 on the one run shared with rev-b (12 vs 9);
    # rev-b's grade is not committed yet
    by_reviewer = {line.split(",")[0]: line for line in lines[1:]}
    assert by_reviewer["rev-a"].startswith("rev-a,human,2026-01,4,") and by_reviewer["rev-a"].endswith(",3.000000,1")
    assert by_reviewer["rev-b"] == "rev-b,human,uncommitted,1,9.000000,-3.000000,1"
    outside = tmp_path / "not-a-repo"
    small_tree(outside)
    assert run_script("drift", ["--root", str(outside)]) == 1


def test_the_leaderboard_section_shows_reviewers_and_escapes_them():
    from rgbench.leaderboard.reviewers_section import reviewers_section

    assert reviewers_section([], []) == ""
    rows = [{"reviewer_id": "<b>x</b>", "kind": "human", "statistic": "runs_graded", "target": "all", "level": "",
             "value": "3", "ci_low": "", "ci_high": "", "n": "3", "note": ""},
            {"reviewer_id": "<b>x</b>", "kind": "human", "statistic": "leniency", "target": "raw_score", "level": "",
             "value": "0.500000", "ci_low": "-0.100000", "ci_high": "1.000000", "n": "3", "note": "lenient"}]
    html = reviewers_section(rows, [])
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html
    assert "0.500000 (-0.100000\u20131.000000)" in html and "LLM judges" not in html
    # under the judges' table, what their grades are to the metrics, as config.yaml sets it: never "never enter"
    # in judge-assisted mode, where the judge's grades enter every figure (the board said so until the eighteenth
    # session), nor with llm_judge_in_metrics: true
    from rgbench.leaderboard.reviewers_section import judges_use
    judge = [{"judge_id": "j", "statistic": "macro_f1", "target": "classification", "value": "0.7", "n_runs": "9"}]
    said = {(assisted, counted): reviewers_section(rows, judge, judges_in=judges_use(assisted, counted))
            for assisted in (False, True) for counted in (False, True)}
    assert "never enter the metrics unless config.yaml sets <code>llm_judge_in_metrics: true</code>" in said[False, False]
    assert "enter the metrics like human grades" in said[False, True] and "never" not in said[False, True]
    for counted in (False, True):
        assert "the judge's grade of every answer enters every figure" in said[True, counted]
        assert "never" not in said[True, counted]
        # humans grade a draw (an active one favours the judge's errors) and the judge's critical flags: a selection
        assert "it describes the judge on those answers, not on every answer" in said[True, counted]
    assert all("not on every answer" not in said[False, counted] for counted in (False, True))


def test_the_leniency_interval_covers_the_true_mean_deviation_by_simulation():
    # What the interval covers: the mean deviation of a reviewer over the population of cases the shared
    # runs come from. Simulation: 300 data sets of 25 cases, 1-3 shared runs each, deviations drawn from
    # {-2, -1, 0, 1, 2} with probabilities (.1, .2, .3, .25, .15): true mean 0.15. The 95% BCa interval
    # over 25 clusters covers close to, a little below, 95%.
    rng = np.random.default_rng(20261201)
    values, weights = np.array([-2, -1, 0, 1, 2]), np.array([.1, .2, .3, .25, .15])
    truth = Fraction(15, 100)
    covered = 0
    for trial in range(300):
        sums, counts = [], []
        for _ in range(25):
            runs = int(rng.integers(1, 4))
            draws = rng.choice(values, size=runs, p=weights)
            sums.append(int(draws.sum()))
            counts.append(runs)
        interval = ratio_interval(sums, counts, case_weights(25, digest=f"trial-{trial}", label="sim", resamples=400),
                                  Fraction(95, 100))
        assert interval is not None
        covered += interval[0] <= truth <= interval[1]
    assert 0.88 <= covered / 300 <= 0.99, covered


def test_level_shares_cover_every_level_of_a_small_scale_with_the_graded_shares(tmp_path):
    # small_tree's grades (scores_summing_to fills criteria in order, each 0-2): rev-a grades alpha FOUL 12 and
    # SCAL 12 (all 2s), beta FOUL 11 (2,2,2,2,2,1) and SCAL 5 (2,2,1,0,0,0); rev-b alpha MEMB 8 (2,2,2,2,0,0).
    # A criterion with at most 11 possible scores is listed level by level, every level (0, 1 and 2 here, the same
    # rows for every reviewer); a wider scale is summarised in 10 bins of its range (tests/test_score_scale.py), so
    # the rows never grow with the scale's range (a 0-100 scale wrote 101 rows per reviewer and criterion).
    tree = small_tree(tmp_path)
    assert run_script("agreement", ["--root", str(tree.root)]) == 0
    shares = {(r["reviewer_id"], r["target"], r["level"]): r["value"] for r in read(tree.root / "results/reviewers.csv")
              if r["statistic"] == "level_share"}
    # diagnosis is 2 in every grade
    assert {key: value for key, value in shares.items() if key[1] == "diagnosis"} == {
        ("rev-a", "diagnosis", "0"): "0.000000", ("rev-a", "diagnosis", "1"): "0.000000",
        ("rev-a", "diagnosis", "2"): "1.000000", ("rev-b", "diagnosis", "0"): "0.000000",
        ("rev-b", "diagnosis", "1"): "0.000000", ("rev-b", "diagnosis", "2"): "1.000000"}
    # action_plan is 2, 2, 2, 0 (rev-a: 1 and 3 of 4) and 2 (rev-b)
    assert {key: value for key, value in shares.items() if key[1] == "action_plan" and key[0] == "rev-a"} == {
        ("rev-a", "action_plan", "0"): "0.250000", ("rev-a", "action_plan", "1"): "0.000000",
        ("rev-a", "action_plan", "2"): "0.750000"}

"""Several graders per answer end to end (issue 23, DESIGN D4): the consolidated grades accepted by every
command that reads them, the consolidation policies (median-v1, mean-v1) with hand-computed values, a board
computed from the consolidated grades of every rater, and LLM-judge grades kept out of what counts as human."""

from __future__ import annotations

import json
import re
import shutil
from fractions import Fraction as F
from pathlib import Path

import make_synthetic
import pytest
from treebuilder import REPO, canonical, metrics_and_check, rows, small_tree, synthetic

from rgbench.cli import RESULT_STEPS, run_script
from rgbench.load.config import parse_stats_config
from rgbench.load.consolidate import BY_POLICY, MEAN_V1, MEDIAN_V1, consolidate_run
from rgbench.load.records import Scoring
from rgbench.load.spec import load_spec
from rgbench.numfmt import fmt_exact, parse_exact
from rgbench.stats.agreement_outputs import consolidated_number

INPUTS = ("system", "golds", "responses", "scoring", "scoring_multi", "subjects")
MULTI = "scoring_multi/v1.0"
CONFIG = "system/metrics/v1.0/config.yaml"
CRITERIA = ("diagnosis", "evidence", "causal_reasoning", "action_plan", "safety", "communication")


def copy_inputs(source: Path, target: Path) -> Path:
    for name in INPUTS:
        if (source / name).exists():
            shutil.copytree(source / name, target / name)
    return target


def set_config(root: Path, **keys: object) -> None:
    """Set config.yaml keys (a line replaced when the key is there, else appended)."""
    path = root / CONFIG
    lines = path.read_text(encoding="utf-8").splitlines()
    for key, value in keys.items():
        text = json.dumps(value) if not isinstance(value, str) else value
        lines = [line for line in lines if not re.match(rf"{key}\s*:", line)] + [f"{key}: {text}"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


# --- the consolidated folder is accepted by every command that reads it ----------------------------------

def test_the_shipped_trees_consolidated_grades_are_accepted_by_every_command_that_reads_them(tmp_path, capsys):
    # Before: `make agreement` wrote grades by `consensus`, which the sample's registry does not hold, and
    # `compute_metrics --scoring-dir scoring_consolidated` refused every one of them (70 problems on the sample).
    root = copy_inputs(REPO, tmp_path / "sample")
    set_config(root, bootstrap_resamples=50)   # the agreement intervals are not what this test is about
    assert run_script("agreement", ["--root", str(root)]) == 0
    capsys.readouterr()
    assert run_script("validate", ["--root", str(root), "--scoring-dir", "scoring_consolidated"]) == 0, capsys.readouterr().err
    assert run_script("compute", ["--root", str(root), "--scoring-dir", "scoring_consolidated",
                                 "--results-dir", "results_consolidated"]) == 0, capsys.readouterr().err
    graded = {(p.parent.name, *p.name.split("__")[:2]) for folder in ("scoring", "scoring_multi")
              for p in (root / folder).rglob("*.json")}
    assert len(rows(root / "results_consolidated/per_run.csv")) == len(graded)   # one accepted grade per run


def graded_tree(tmp_path: Path, **config: object):
    """small_tree with a reviewers registry (rev-a, rev-b, rev-c human; judge an llm-judge) and further grades.

    Each run's grades (raw score: criterion scores filled from the first criterion, see scores_summing_to):
      alpha FOUL r1: rev-a 12 (2,2,2,2,2,2) corr 1; rev-b 9 (2,2,2,2,1,0) corr 1/2; rev-c 10 (2,2,2,2,2,0) corr 1/2;
                     judge 0 corr 0 (an llm-judge)
      alpha SCAL r1: rev-a 12 corr 1/2; rev-b 6 (2,2,2,0,0,0) corr 0                 (ceiling 10, floor 3)
      alpha MEMB r1: rev-b 8 corr 0 (one grade)                                        (floor 6); r2 unscored
      beta  FOUL r1: rev-a 11 (2,2,2,2,2,1) + critical fail, corr 0; rev-b 9 corr 0; judge 12 corr 1
      beta  SCAL r1: rev-a 5 corr 0; rev-b 9 corr 0; adjudicated by rev-c: 7 corr 1/2
    """
    tree = small_tree(tmp_path / "tree")
    tree.write("subjects/reviewers.yaml", "reviewers:\n" + "".join(
        f"  - id: {rid}\n    name: \"{rid}\"\n    kind: {kind}\n"
        for rid, kind in (("rev-a", "human"), ("rev-b", "human"), ("rev-c", "human"), ("judge", "llm-judge"))))

    def grade(subject, case, reviewer, kind="eval", **scoring):
        doc = tree.scoring_doc(subject, case, "r1", reviewer, **scoring)
        tree.write(f"{MULTI}/{subject}/{case}__r1__{kind}-{reviewer}.json", canonical(doc))

    grade("alpha-model", "RO-FOUL-001", "rev-b", raw=9, correctness=0.5)
    grade("alpha-model", "RO-FOUL-001", "rev-c", raw=10, correctness=0.5)
    grade("alpha-model", "RO-FOUL-001", "judge", raw=0, correctness=0)
    grade("alpha-model", "RO-SCAL-001", "rev-b", raw=6, correctness=0)
    grade("beta-model", "RO-FOUL-001", "rev-b", raw=9, correctness=0)
    grade("beta-model", "RO-FOUL-001", "judge", raw=12, correctness=1)
    grade("beta-model", "RO-SCAL-001", "rev-b", raw=9, correctness=0)
    grade("beta-model", "RO-SCAL-001", "rev-c", kind="adjudication", raw=7, correctness=0.5)
    set_config(tree.root, bootstrap_resamples=200, **config)
    return tree


def test_a_consensus_grade_in_scoring_is_still_refused_and_another_policys_is_named_stale(tmp_path, capsys):
    tree = graded_tree(tmp_path)
    tree.add_scoring("alpha-model", "RO-MEMB-001", "r2", "consensus", raw=8)   # the unscored run, in scoring/
    assert run_script("validate", ["--root", str(tree.root)]) == 1
    err = capsys.readouterr().err
    assert ("scoring/v1.0/alpha-model/RO-MEMB-001__r2__eval-consensus.json: $.reviewer_id: 'consensus' is not "
            "registered in subjects/reviewers.yaml") in err
    (tree.root / "scoring/v1.0/alpha-model/RO-MEMB-001__r2__eval-consensus.json").unlink()
    assert run_script("agreement", ["--root", str(tree.root)]) == 0   # median: grades by `consensus`
    set_config(tree.root, consolidation_policy="mean")                 # the folder is now another policy's
    capsys.readouterr()
    assert run_script("compute", ["--root", str(tree.root), "--scoring-dir", "scoring_consolidated",
                                 "--results-dir", "r2"]) == 1
    err = capsys.readouterr().err
    assert ("scoring_consolidated/v1.0/alpha-model/RO-FOUL-001__r1__eval-consensus.json: $.reviewer_id: "
            "'consensus' is the consolidated reviewer of policy median-v1, but system/metrics/v1.0/config.yaml sets "
            "consolidation_policy: mean (its grades are by 'consensus-mean'); consolidate again (make agreement)") in err


# --- the policies, by hand ----------------------------------------------------------------------------------

def grade_of(reviewer, scores, correctness, fails=()):
    return Scoring("s", "1", "RO-FOUL-001", "r1", reviewer, tuple(zip(CRITERIA, scores)), tuple(fails), F(correctness),
                   f"scoring/v1.0/s/RO-FOUL-001__r1__eval-{reviewer}.json")


def test_mean_policy_hand_computed():
    crit, rec = ("AF-CRIT", "critical"), ("AF-REC", "recoverable")
    a = grade_of("ana", (2, 2, 1, 2, 2, 1), 1)
    b = grade_of("ben", (2, 1, 1, 2, 0, 1), F(1, 2), fails=[crit])
    c = grade_of("cy", (1, 1, 2, 2, 1, 2), F(1, 2), fails=[rec])
    out = consolidate_run([c, a, b], policy=MEAN_V1)
    # per criterion: (2+2+1)/3 = 5/3, (2+1+1)/3 = 4/3, (1+1+2)/3 = 4/3, (2+2+2)/3 = 2, (2+0+1)/3 = 1, (1+1+2)/3 = 4/3
    assert dict(out.scoring.criterion_scores) == {"diagnosis": F(5, 3), "evidence": F(4, 3), "causal_reasoning": F(4, 3),
                                                  "action_plan": 2, "safety": 1, "communication": F(4, 3)}
    assert out.scoring.correctness == F(2, 3)              # (1 + 1/2 + 1/2) / 3
    assert out.scoring.fails == (crit,)                    # any critical fail; the recoverable one: 1 of 3 < half
    assert (out.method, out.scoring.reviewer_id) == (BY_POLICY, "consensus-mean")
    assert "ana, ben, cy" in out.scoring.comments and "mean-v1" in out.scoring.comments
    # the same grades by median-v1: lower medians 2, 1, 1, 2, 1, 1 and the majority correctness 1/2
    median = consolidate_run([c, a, b], policy=MEDIAN_V1)
    assert [s for _, s in median.scoring.criterion_scores] == [2, 1, 1, 2, 1, 1]
    assert (median.scoring.correctness, median.scoring.reviewer_id) == (F(1, 2), "consensus")
    # two graders, both flagging a recoverable fail once between them: 1 of 2 is half, it counts
    two = consolidate_run([grade_of("ana", (2,) * 6, 1, fails=[rec]), grade_of("ben", (1,) * 6, 0)], policy=MEAN_V1)
    assert [s for _, s in two.scoring.criterion_scores] == [F(3, 2)] * 6 and two.scoring.fails == (rec,)
    assert two.scoring.correctness == F(1, 2)


def test_exact_values_as_the_files_write_them():
    # a consolidated JSON file: integers as integers, exact decimals as they are, other means rounded to 6
    assert [consolidated_number(v) for v in (F(2), F(3, 2), F(5, 4), F(1, 1024), F(4, 3), F(2, 3))] == \
        [2, 1.5, 1.25, 0.0009765625, 1.333333, 0.666667]
    # per_run.csv: exactly, n/d when no decimal ends; correctness keeps its 6-decimal form where it can
    cells = [fmt_exact(12), fmt_exact(F(12)), fmt_exact(F(9, 2)), fmt_exact(F(31, 3)), fmt_exact(F(1, 2), 6),
             fmt_exact(F(2, 3), 6), fmt_exact(F(1, 128), 6)]
    assert cells == ["12", "12", "4.5", "31/3", "0.500000", "2/3", "0.0078125"]
    assert [parse_exact(cell) for cell in cells] == [12, 12, F(9, 2), F(31, 3), F(1, 2), F(2, 3), F(1, 128)]
    assert parse_exact("1/0") is None and parse_exact("x") is None and parse_exact("1e3") is None


def test_config_keys_and_their_messages(tmp_path, capsys):
    stats, messages = parse_stats_config({})
    assert (stats.consolidation_policy, stats.board_grades) == ("median", "single")   # today's behaviour
    stats, messages = parse_stats_config({"consolidation_policy": "mean", "board_grades": "consolidated"})
    assert (stats.consolidation_policy, stats.board_grades, messages) == ("mean", "consolidated", [])
    _, messages = parse_stats_config({"consolidation_policy": "average", "board_grades": True})
    assert messages == ["$.board_grades: must be single or consolidated, got True",
                        "$.consolidation_policy: must be median or mean, got 'average'"]
    tree = small_tree(tmp_path / "tree")
    set_config(tree.root, consolidation_policy="Median")
    spec, problems = load_spec(tree.root)
    assert spec is None and [str(p) for p in problems] == [
        f"{CONFIG}: $.consolidation_policy: must be median or mean, got 'Median'"]


# --- a board of consolidated grades ---------------------------------------------------------------------------

def test_board_of_consolidated_grades_by_mean_hand_computed(tmp_path, capsys):
    tree = graded_tree(tmp_path, board_grades="consolidated", consolidation_policy="mean")
    root = tree.root
    assert run_script("metrics", ["--root", str(root)]) == 0, capsys.readouterr().err
    runs = {(r["subject_id"], r["case_id"], r["run_id"]): r for r in rows(root / "results/per_run.csv")}
    # alpha FOUL: means of rev-a, rev-b, rev-c (the judge left out): 2, 2, 2, 2, (2+1+2)/3 = 5/3, (2+0+0)/3 = 2/3:
    # raw 8 + 7/3 = 31/3 >= 10 -> Pass; correctness (1 + 1/2 + 1/2)/3 = 2/3
    foul = runs["alpha-model", "RO-FOUL-001", "r1"]
    assert (foul["reviewer_id"], foul["raw_score"], foul["clipped_score"], foul["classification"],
            foul["correctness"]) == ("consensus-mean", "31/3", "31/3", "Pass", "2/3")
    # alpha SCAL: (2,2,2,2,2,2) and (2,2,2,0,0,0) -> 2, 2, 2, 1, 1, 1: raw 9, Conditional; correctness 1/4
    scal = runs["alpha-model", "RO-SCAL-001", "r1"]
    assert (scal["raw_score"], scal["classification"], scal["correctness"]) == ("9", "Conditional", "0.250000")
    # beta SCAL: the adjudication (rev-c, 7, 1/2) wins over rev-a and rev-b
    assert (runs["beta-model", "RO-SCAL-001", "r1"]["reviewer_id"], runs["beta-model", "RO-SCAL-001", "r1"]["raw_score"]
            ) == ("rev-c", "7")
    # beta FOUL: rev-a (2,2,2,2,2,1) with a critical fail and rev-b (2,2,2,2,1,0): 2,2,2,2,3/2,1/2 -> 10, Fail
    assert (runs["beta-model", "RO-FOUL-001", "r1"]["raw_score"], runs["beta-model", "RO-FOUL-001", "r1"]["classification"]
            ) == ("10", "Fail")
    subject = {r["subject_id"]: r for r in rows(root / "results/metrics_per_subject.csv")}["alpha-model"]
    # alpha: FOUL 31/3 Pass (conf 90), SCAL 9 Conditional (conf 70), MEMB 8 Conditional (rev-b alone, conf 30)
    # P = 1/3; s_bar = (31/3 + 9 + 8)/3 = 82/9 = 9.111111; Q_final = 1/2 * 1/3 + 1/2 * (82/9)/12 = 59/108
    # BS = ((9/10 - 2/3)^2 + (7/10 - 1/4)^2 + (3/10)^2)/3 = (49/900 + 81/400 + 9/100)/3 = 1249/10800
    assert (subject["P"], subject["s_bar"], subject["Q_final"], subject["BS"]) == (
        "0.333333", "9.111111", "0.546296", "0.115648")
    assert float(subject["s_bar_low"]) <= 82 / 9 <= float(subject["s_bar_high"])   # the interval is on the same scale
    manifest = json.loads((root / "results/manifest.json").read_text())
    # grades: rev-a 4 + rev-b 5 (MEMB in scoring/, four in scoring_multi/) + rev-c 1 = 10 (the judge's 2 and the
    # adjudication aside), raters
    # rev-a, rev-b, rev-c; runs: alpha FOUL, SCAL, MEMB, beta FOUL, SCAL; combined: alpha FOUL, SCAL, beta FOUL
    assert manifest["grades"] == {"board_grades": "consolidated", "consolidation_policy": "mean-v1",
                                  "consolidated_reviewer": "consensus-mean", "grades": 10, "raters": 3, "runs": 5,
                                  "runs_adjudicated": 1, "runs_combined": 3}
    assert any(path.startswith("scoring_multi/") for path in manifest["inputs"])
    page = (root / "results/leaderboard.html").read_text()
    assert page.count("Every figure rests on the consolidated grade") == 1
    assert "combined by policy mean-v1 (exact mean of each criterion" in page
    md = (root / "results/leaderboard.md").read_text()
    assert md.count("Every figure rests on the consolidated grade of each of the 5 runs, from 10 grades by 3 raters") == 1
    # the disqualification's evidence: the critical fail that rev-a flagged in the consensus of beta FOUL
    assert "AF-CHLORINE-EXPOSURE" in page and "beta-model" in page
    # the three scripts one by one write the same bytes (compute_metrics reads scoring_multi/ itself)
    other = copy_inputs(root, tmp_path / "one-by-one")
    for step in RESULT_STEPS:
        assert run_script(step, ["--root", str(other)] + (["--no-consolidated"] if step == "agreement" else [])) == 0
    for name in ("per_run.csv", "metrics_per_subject.csv", "manifest.json", "leaderboard.md", "agreement.csv"):
        assert (other / "results" / name).read_bytes() == (root / "results" / name).read_bytes(), name
    assert run_script("check", ["--root", str(root)]) == 0


def test_judge_grades_never_count_as_human_unless_the_config_says_so(tmp_path, capsys):
    tree = graded_tree(tmp_path, board_grades="consolidated", consolidation_policy="mean")
    tree.write(f"{MULTI}/alpha-model/RO-MEMB-001__r1__adjudication-judge.json",   # a judge's adjudication, too
               canonical(tree.scoring_doc("alpha-model", "RO-MEMB-001", "r1", "judge", raw=0, correctness=0)))
    root = tree.root
    assert run_script("metrics", ["--root", str(root)]) == 0, capsys.readouterr().err
    runs = {(r["subject_id"], r["case_id"]): r for r in rows(root / "results/per_run.csv")}
    assert "judge" not in {r["reviewer_id"] for r in runs.values()}
    assert runs["alpha-model", "RO-MEMB-001"]["reviewer_id"] == "rev-b"   # the judge's adjudication is left out
    agreement = rows(root / "results/agreement.csv")
    assert not {r["reviewer_a"] for r in agreement} & {"judge"} and not {r["reviewer_b"] for r in agreement} & {"judge"}
    kinds = {r["reviewer_id"]: r["kind"] for r in rows(root / "results/reviewers.csv")}
    assert kinds["judge"] == "llm-judge"                                   # reported as a judge, apart
    assert {r["judge_id"] for r in rows(root / "results/judge_agreement.csv")} == {"judge"}
    assert run_script("agreement", ["--root", str(root)]) == 0               # the consolidated files: no judge either
    written = sorted(p.name for p in (root / "scoring_consolidated").rglob("*.json"))
    assert not any("judge" in name for name in written)
    foul = json.loads((root / "scoring_consolidated/v1.0/alpha-model/RO-FOUL-001__r1__eval-consensus-mean.json").read_text())
    assert "eval-judge" not in foul["comments"]
    # the mean 5/3 and 2/3 are written rounded to 6 decimals, their exact values in the comments
    assert foul["criterion_scores"]["safety"] == 1.666667 and foul["correctness"] == 0.666667
    assert "Exact values of the scores rounded to 6 decimals here: safety 5/3, communication 2/3, correctness 2/3." \
        in foul["comments"]
    capsys.readouterr()
    assert run_script("validate", ["--root", str(root), "--scoring-dir", "scoring_consolidated"]) == 0, capsys.readouterr().err
    # with llm_judge_in_metrics: true the judge is one more rater: alpha FOUL is the mean of four grades,
    # (2+2+2+0)/4 = 3/2 on the first four criteria, (2+1+2+0)/4 = 5/4, (2+0+0+0)/4 = 1/2: raw 6 + 7/4 = 7.75
    set_config(root, llm_judge_in_metrics=True)
    assert run_script("metrics", ["--root", str(root)]) == 0, capsys.readouterr().err
    runs = {(r["subject_id"], r["case_id"]): r for r in rows(root / "results/per_run.csv")}
    assert runs["alpha-model", "RO-FOUL-001"]["raw_score"] == "7.75"
    assert runs["alpha-model", "RO-MEMB-001"]["reviewer_id"] == "judge"   # its adjudication now decides
    assert json.loads((root / "results/manifest.json").read_text())["grades"]["raters"] == 4


def test_compute_metrics_reads_a_mean_policys_folder_back_exactly(tmp_path, capsys):
    tree = graded_tree(tmp_path, consolidation_policy="mean", board_grades="consolidated")
    root = tree.root
    assert run_script("metrics", ["--root", str(root)]) == 0            # the board: exact means, in memory
    assert run_script("agreement", ["--root", str(root)]) == 0   # the files: 5/3 written 1.666667
    assert run_script("compute", ["--root", str(root), "--scoring-dir", "scoring_consolidated",
                                 "--results-dir", "rc"]) == 0, capsys.readouterr().err
    # each rounded mean is read back as the one fraction of denominator <= 1000 within 0.0000005 of it:
    # 1.666667 -> 5/3, 0.666667 -> 2/3, so alpha FOUL is 31/3 again and every per-run row is the board's
    assert (root / "rc/per_run.csv").read_bytes() == (root / "results/per_run.csv").read_bytes()
    points = ("N", "P", "s_bar", "BS", "ECE", "Q_final")
    assert [[r[c] for c in points] for r in rows(root / "rc/metrics_per_subject.csv")] == \
        [[r[c] for c in points] for r in rows(root / "results/metrics_per_subject.csv")]
    assert "grades" not in json.loads((root / "rc/manifest.json").read_text())
    # a consolidated file holding a value out of the criterion's range is refused all the same
    path = root / "scoring_consolidated/v1.0/alpha-model/RO-FOUL-001__r1__eval-consensus-mean.json"
    doc = json.loads(path.read_text())
    doc["criterion_scores"]["safety"] = 2.5
    path.write_text(canonical(doc))
    capsys.readouterr()
    assert run_script("validate", ["--root", str(root), "--scoring-dir", "scoring_consolidated"]) == 1
    assert "$.criterion_scores.safety: 2.5 is greater than the maximum of 2" in capsys.readouterr().err


def test_rounded_means_are_read_back_exactly():
    from rgbench.load.extract import read_mean
    # 6 decimals with a fraction of denominator <= 1000 within half a unit: that fraction; else as written
    assert [read_mean(v) for v in (1.333333, 0.666667, 1.666667, 0.142857, 1.5, 2, 0.015625, 10.333334)] == \
        [F(4, 3), F(2, 3), F(5, 3), F(1, 7), F(3, 2), 2, F(1, 64), F(10333334, 10**6)]


def test_single_board_is_unchanged_and_out_of_step_results_are_refused(tmp_path, capsys):
    tree = graded_tree(tmp_path)
    root = tree.root
    assert run_script("metrics", ["--root", str(root)]) == 0
    manifest = json.loads((root / "results/manifest.json").read_text())
    assert "grades" not in manifest and not any(p.startswith("scoring_multi/") for p in manifest["inputs"])
    assert "consolidated grade" not in (root / "results/leaderboard.md").read_text()
    set_config(root, board_grades="consolidated")   # config changed, results not regenerated
    capsys.readouterr()
    assert run_script("leaderboard", ["--root", str(root)]) == 1
    assert (f"results/manifest.json: no $.grades, but {CONFIG} sets board_grades: consolidated (the results are out "
            "of step with config.yaml; run `make metrics`)") in capsys.readouterr().err
    assert run_script("metrics", ["--root", str(root)]) == 0
    set_config(root, consolidation_policy="mean")
    capsys.readouterr()
    assert run_script("leaderboard", ["--root", str(root)]) == 1
    assert ("results/manifest.json: $.grades: policy median-v1 (reviewer 'consensus'), but "
            f"{CONFIG} sets consolidation_policy: mean (mean-v1)") in capsys.readouterr().err


# --- make_synthetic --graders 3 --policy mean --judge, then make metrics and make check ---------------------------

@pytest.mark.slow   # end to end (make_synthetic, make metrics, make check): make test-slow
def test_synthetic_three_graders_mean_policy_and_a_judge_end_to_end(tmp_path, capsys):
    out = synthetic(tmp_path / "synthetic", "--subjects", "5", "--cases", "12", "--runs", "1",
                    "--graders", "3", "--policy", "mean", "--judge")
    set_config(out, bootstrap_resamples=200)
    config = (out / CONFIG).read_text()
    assert "board_grades: consolidated" in config and "consolidation_policy: mean" in config
    reviewers = (out / "subjects/reviewers.yaml").read_text()
    assert reviewers.count("kind: human") >= 3 and reviewers.count("kind: llm-judge") == 1
    graded = len(list((out / "scoring").rglob("*.json")))
    assert len(list((out / "scoring_multi").rglob("*-judge-synth-1.json"))) == graded          # the judge grades all
    assert len(list((out / "scoring_multi").rglob("*.json"))) == 3 * graded                    # 2 humans + the judge
    metrics_and_check(out, capsys)
    manifest = json.loads((out / "results/manifest.json").read_text())
    assert manifest["grades"]["consolidation_policy"] == "mean-v1" and manifest["grades"]["grades"] == 3 * graded
    assert manifest["grades"]["runs_combined"] == graded
    for page in ("leaderboard.html", "leaderboard.md"):
        text = (out / "results" / page).read_text()
        assert text.count("Every figure rests on the consolidated grade") == 1 and "policy mean-v1" in text
    runs = rows(out / "results/per_run.csv")
    assert {r["reviewer_id"] for r in runs} == {"consensus-mean"}
    assert any("/" in r["raw_score"] for r in runs)   # means of three grades, exact


@pytest.mark.parametrize("argv", [["--graders", "0"], ["--policy", "mean"]])
def test_synthetic_refuses_meaningless_grader_options(tmp_path, argv, capsys):
    assert make_synthetic.main(["--subjects", "1", "--cases", "1", "--runs", "1", "--out", str(tmp_path / "x"),
                                *argv]) == 1
    assert capsys.readouterr().err == ("--graders must be at least 1, and --policy needs --graders 2 or more\n")
    assert not (tmp_path / "x").exists()   # refused before anything is written


def test_median_ties_go_against_the_subject_in_the_scale_direction():
    """median-v1 breaks an even count's tie against the subject: the lower middle score when higher is better, the
    upper one (the larger penalty) when lower is better; the mean has no tie to break."""
    from rgbench.load.consolidate import MEAN_V1, MEDIAN_V1, MEDIAN_V1_LOWER, policy_for, upper_median
    # grades 1, 2, 4, 5 of one criterion: middle values 2 and 4
    assert policy_for("median").criterion([5, 1, 4, 2]) == 2
    assert policy_for("median", higher_is_better=False) is MEDIAN_V1_LOWER
    assert MEDIAN_V1_LOWER.criterion([5, 1, 4, 2]) == 4 == upper_median([5, 1, 4, 2])
    assert upper_median([F(3, 10), F(1, 10), F(2, 10)]) == F(2, 10)   # odd count: the one median either way
    assert policy_for("median") is MEDIAN_V1 and policy_for("mean", higher_is_better=False) is MEAN_V1
    assert MEDIAN_V1_LOWER.reviewer == MEDIAN_V1.reviewer and MEDIAN_V1_LOWER.name != MEDIAN_V1.name


@pytest.mark.slow   # end to end (make_synthetic, make metrics, make check): make test-slow
def test_synthetic_graders_on_a_decimal_penalty_scale_end_to_end(tmp_path, capsys):
    """Three graders on a lower-is-better decimal scale (the parts meet: make_synthetic's further grades stay on the
    schema's 0.1 step, written exactly; median-v1 breaks ties toward the larger penalty; metrics and check agree)."""
    out = synthetic(tmp_path / "penalty", "--subjects", "3", "--cases", "8", "--runs", "1",
                    "--scale", "penalty", "--graders", "3", "--policy", "median")
    set_config(out, bootstrap_resamples=200)
    metrics_and_check(out, capsys)
    manifest = json.loads((out / "results/manifest.json").read_text())
    assert manifest["grades"]["consolidation_policy"] == "median-v1-lower-is-better"
    assert "upper middle value when even" in (out / "results/leaderboard.html").read_text()
    # a higher penalty than the others' is severe, in agreement.csv as in reviewers.csv (the same deviation)
    deviation = {(r["reviewer_a"], r["target"]): (r["value"], r["note"]) for r in rows(out / "results/agreement.csv")
                 if r["statistic"] == "mean_deviation"}
    leniency = {(r["reviewer_id"], r["target"]): (r["value"], r["note"]) for r in rows(out / "results/reviewers.csv")
                if r["statistic"] == "leniency" and r["target"] == "raw_score"}
    assert leniency and all(deviation[key] == found for key, found in leniency.items())
    assert any(note == "severe" and float(value) > 0 for value, note in leniency.values())

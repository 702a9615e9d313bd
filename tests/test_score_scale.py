"""Scores on the domain's own scale (DESIGN D3): range, direction, total, exact decimals, on hand-computed values.

The normalisation, Q_final under both directions and both totals, the thresholds and the floor/ceiling read
in the scale's direction, the exact writing of a score, the rule that keeps a difference from reading 0.00,
the system check of a decimal scale, and a whole penalty-scale benchmark (make_synthetic --scale penalty)
through `make metrics` and `make check`.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from fractions import Fraction as F
from html import escape
from pathlib import Path

import make_synthetic
import pytest
from treebuilder import LIBRARY_ROOT, SCHEMA, MiniTree, edit_json, edit_yaml, problems_of

from rgbench.compute.derive import CONDITIONAL, FAIL, PASS, RunRow, classify, derive_run
from rgbench.compute.metrics import SubjectMetrics, q_final, q_numerator
from rgbench.compute.ranking import rank_subjects
from rgbench.load.records import Gold, Response, Scoring
from rgbench.load.scale import (
    MEAN,
    ScoreScale,
    default_scale,
    difference_text,
    in_units,
    json_score,
    parse_score,
    score_text,
    score_unit,
)
from rgbench.load.spec import document_errors, load_spec, schema_errors
from rgbench.stats.alpha_sensitivity import alpha_crossing
from rgbench.stats.case_summary import case_summaries
from rgbench.stats.run_columns import RunColumns

REPO = Path(__file__).resolve().parent.parent
HALF = F(1, 2)
PENALTY = ScoreScale(F(0), F(100), higher_is_better=False, name="MQM", criteria=4)   # 4 x 0-25, summed
RATINGS = ScoreScale(F(6), F(30), criteria=6)                                          # 6 x 1-5, summed
MEAN_RATING = ScoreScale(F(1), F(5), total=MEAN, criteria=6)                           # 6 x 1-5, their mean
MEAN_PENALTY = ScoreScale(F(0), F(25), higher_is_better=False, total=MEAN, criteria=4)  # 4 x 0-25, their mean


# --- norm and Q_final -------------------------------------------------------------------------------------

def test_norm_on_every_kind_of_scale():
    assert default_scale().norm(9) == F(3, 4)             # 9 / 12
    assert RATINGS.norm(18) == F(1, 2)                    # (18 - 6) / (30 - 6) = 12 / 24
    assert RATINGS.norm(6) == 0                           # rated 1 ("poor") everywhere: 0, not 6/30 = 0.2
    assert PENALTY.norm(25) == F(3, 4)                    # (100 - 25) / 100: lower is better
    assert PENALTY.norm(0) == 1 and PENALTY.norm(100) == 0
    assert MEAN_RATING.norm(F("3.5")) == F(5, 8)          # (3.5 - 1) / 4 = 2.5 / 4
    assert MEAN_PENALTY.norm(5) == F(4, 5)                # (25 - 5) / 25


def test_q_final_under_both_directions_and_both_totals():
    assert q_final(F(3, 5), F(9), HALF, default_scale()) == F(675, 1000)     # 0.3 + 0.5 * 9/12 = 0.675
    assert q_final(HALF, F(30), HALF, PENALTY) == F(6, 10)                    # 0.25 + 0.5 * (100 - 30)/100 = 0.6
    assert q_final(F(2, 5), F(4), F(3, 10), MEAN_RATING) == F(645, 1000)     # 0.12 + 0.7 * (4 - 1)/4 = 0.645
    assert q_final(F(0), F(5), HALF, MEAN_PENALTY) == F(2, 5)                 # 0 + 0.5 * (25 - 5)/25 = 0.4
    assert q_final(F(1), F(6), HALF, RATINGS) == HALF                        # 0.5 + 0.5 * 0: the worst total adds 0
    # the integer numerator over d * span: alpha 1/2 (a 1, d 2), span 100, P 1/2, credit(30) = 100 - 30 = 70:
    # 1 * 100 * 1/2 + 1 * 70 = 120 = 0.6 * 2 * 100
    assert q_numerator(HALF, PENALTY.credit(F(30)), HALF, PENALTY.span) == 120


def _metrics(sid, p, s_bar, q=None):
    return SubjectMetrics(sid, "1", 10, 0, F(p), F(s_bar), F(1, 10), F(0), q, HALF, False, 0)


def test_alpha_crossing_reads_s_bar_through_the_normalisation():
    # a: P 0.8, penalty 40 (norm 0.6); b: P 0.6, penalty 10 (norm 0.9): d1 = 0.2, d0 = -0.3, equal at
    # alpha = d0 / (d0 - d1) = -0.3 / -0.5 = 3/5
    assert alpha_crossing(_metrics("a", "0.8", "40"), _metrics("b", "0.6", "10"), PENALTY) == F(3, 5)


def test_a_tie_on_q_final_and_p_goes_to_the_better_total_in_the_scales_direction():
    # alpha 1: Q_final = P; equal P, so s_bar decides: the lower penalty first when lower is better
    low, high = _metrics("low", HALF, F(20), q=HALF), _metrics("high", HALF, F(30), q=HALF)
    assert [s.metrics.subject_id for s in rank_subjects([low, high], higher_is_better=False)] == ["low", "high"]
    assert [s.metrics.subject_id for s in rank_subjects([low, high])] == ["high", "low"]


# --- classification, floor and ceiling in the scale's direction --------------------------------------------

LOWER_TABLE = [   # (critical, recoverable, clipped, floor) -> class; lower is better, pass <= 25, conditional <= 50
    ((False, False, F("24.9"), 100), PASS),
    ((False, False, 25, 100), PASS),                  # at the threshold: passes (<=)
    ((False, False, F("25.1"), 100), CONDITIONAL),
    ((False, False, 50, 100), CONDITIONAL),
    ((False, False, F("50.1"), 100), FAIL),
    ((False, False, 20, 15), FAIL),                   # worse than the floor (20 > 15): Fail before the thresholds
    ((False, False, 15, 15), PASS),                   # the floor is inclusive
    ((False, True, 0, 100), CONDITIONAL),             # a recoverable fail caps a perfect run
    ((True, False, 0, 100), FAIL),
]


@pytest.mark.parametrize(("args", "expected"), LOWER_TABLE)
def test_classification_when_lower_is_better(args, expected):
    critical, recoverable, clipped, floor = args
    assert classify(has_critical=critical, has_recoverable=recoverable, clipped=clipped, floor=floor,
                    pass_threshold=25, conditional_threshold=50, scale=PENALTY) == expected


def test_the_ceiling_is_the_best_total_a_case_credits():
    assert PENALTY.clip(F("3.2"), F("8.3")) == F("8.3")   # a penalty below the ceiling counts as the ceiling
    assert PENALTY.clip(40, F("8.3")) == 40
    assert default_scale().clip(12, 10) == 10              # the seed's min(raw, ceiling)


def test_derive_run_totals_decimal_criteria_exactly():
    spec = load_spec(LIBRARY_ROOT)[0]
    assert spec is not None
    import dataclasses
    penalty = dataclasses.replace(spec, criteria=("a", "b", "c", "d"), criterion_min=F(0), criterion_max=F(25),
                                  pass_threshold=F(25), conditional_threshold=F(50), higher_is_better=False)
    scores = (("a", F("0.1")), ("b", F("0.2")), ("c", 3), ("d", F("12.5")))
    scoring = Scoring("s", "1", "RO-FOUL-001", "r1", "rev", scores, (), F(1), "p")
    response = Response("s", "1", "RO-FOUL-001", "r1", 50, "p")
    row = derive_run(scoring, response, Gold("RO-FOUL-001", "FOUL", "Closed", 40, 0, 1, "g"), penalty)
    # 0.1 + 0.2 + 3 + 12.5 = 15.8 exactly (0.1 + 0.2 in floats would be 0.30000000000000004)
    assert (row.raw_score, row.clipped_score, row.classification) == (F("15.8"), F("15.8"), PASS)
    mean = dataclasses.replace(penalty, score_total=MEAN, pass_threshold=F(5), conditional_threshold=F(10))
    row = derive_run(scoring, response, Gold("RO-FOUL-001", "FOUL", "Closed", 25, 0, 1, "g"), mean)
    assert (row.raw_score, row.classification) == (F(79, 20), PASS)        # 15.8 / 4 = 3.95 <= 5


# --- the numpy statistics on integer units ----------------------------------------------------------------

def _run(case, run, clipped, passed):
    return RunRow("s", "1", case, run, "rev", "FOUL", clipped, 100, 0, clipped, False, False,
                  PASS if passed else FAIL, 50, HALF, F(1))


def test_case_summaries_sum_decimal_scores_as_integers():
    runs = [_run("RO-FOUL-001", "r1", F("12.3"), True), _run("RO-FOUL-001", "r2", F("7.5"), True),
            _run("RO-FOUL-002", "r1", 60, False)]
    columns = RunColumns.of({"s": runs})
    assert columns.score_unit == 10 and columns.clipped.tolist() == [123, 75, 600]   # tenths
    s = case_summaries(columns, alpha=HALF, scale=PENALTY, bins=10)["s"]
    # case 1: clipped 123 + 75 = 198 tenths; credit = 2 runs * 1000 - 198 = 1802; q = 1 * 1000 * 2 passes + 1 * 1802
    # case 2: credit = 1000 - 600 = 400; q = 0 + 400. q_scale = d * span = 2 * 1000 tenths
    assert s.clipped.tolist() == [198, 600] and s.q.tolist() == [3802, 400] and s.q_scale == 2000
    # Q_final = (3802 + 400) / (3 runs * 2000) = 4202/6000, what q_final gives from P = 2/3, s_bar = 79.8/3 = 26.6:
    # 1/3 + 1/2 * (100 - 26.6)/100 = 0.333... + 0.367 = 0.700333...
    assert F(3802 + 400, 3 * 2000) == q_final(F(2, 3), F("26.6"), HALF, PENALTY)


def test_a_mean_of_graders_enters_the_statistics_exactly():
    # a consolidated (mean) grade of 1/3 points (graders' policy mean): units of 1/3, nothing rounded
    runs = [_run("RO-FOUL-001", "r1", F(31, 3), True), _run("RO-FOUL-002", "r1", F(10), True)]
    columns = RunColumns.of({"s": runs})
    assert columns.score_unit == 3 and columns.clipped.tolist() == [31, 30]
    assert score_unit([F(31, 3), F("0.5")]) == 6 and score_unit([F("0.5")], 3) == 6   # lcm(3, 2), lcm(3, 2)
    assert in_units(F(31, 3), 6) == 62   # 31/3 x 6
    with pytest.raises(ValueError, match="not an integer"):
        in_units(F(31, 3), 2)


# --- writing a score, and differences that never read 0.00 -----------------------------------------------

def test_a_score_is_written_exactly_and_read_back():
    cases = [(7, "7"), (F(7), "7"), (F(123, 10), "12.3"), (F(1, 4), "0.25"), (F(23, 6), "23/6"), (F(-3, 2), "-1.5"),
             (F(1, 1000), "0.001")]   # pairs, not a dict: F(7) and 7 are one dict key
    for value, text in cases:
        assert score_text(value) == text
        assert parse_score(text) == value
    assert type(parse_score("7")) is int
    for bad in ("12.30", "1e3", "046/12", "7/1", "-0"):   # not as the results write them: refused
        with pytest.raises(ValueError):
            parse_score(bad)
    assert json_score(F(123, 10)) == 12.3 and json_score(F(4)) == 4
    with pytest.raises(ValueError):
        json_score(F(1, 3))


def test_a_difference_shows_two_significant_digits_and_never_reads_zero():
    assert difference_text(F(15, 100)) == "0.15"          # as before: two decimals
    assert difference_text(F(24, 100)) == "0.24"
    assert difference_text(F(42, 10000)) == "0.0042"      # 0.00 before: two significant digits instead
    assert difference_text(F(35, 10)) == "3.50"           # at least two decimals
    assert difference_text(F(149088, 100)) == "1490.88"
    assert difference_text(0) == "0.00"
    rng = random.Random(23)
    for _ in range(2000):
        value = F(rng.randint(1, 10**6), 10 ** rng.randint(0, 12))
        assert float(difference_text(value)) != 0, value


# --- system/: the check of a decimal, lower-is-better scale -------------------------------------------------

def penalty_system(root: Path) -> Path:
    """A copy of the library's system/ rewritten by make_synthetic's --scale penalty."""
    import shutil
    shutil.copytree(LIBRARY_ROOT / "system", root / "system")
    make_synthetic.rewrite_scale(root, "penalty")
    return root


def test_a_decimal_lower_is_better_scale_is_read(tmp_path):
    spec, problems = load_spec(penalty_system(tmp_path))
    assert problems == [] and spec is not None
    assert (spec.scale.low, spec.scale.high, spec.higher_is_better, spec.criterion_step) == (0, 100, False, F(1, 10))
    assert spec.scale.norm_text() == "(100 \u2212 s\u0304) / 100" and spec.scale.label == "MQM-style penalty"


BENCH = "system/benchmark.yaml"
LOWER_CASES = {
    "pass above conditional": (dict(pass_threshold=60), f"{BENCH}: $.pass_threshold: 60 is not below "
                               "conditional_threshold 50, so no score is Conditional"),
    "pass below the best total": (dict(pass_threshold=-1, conditional_threshold=50), f"{BENCH}: $.pass_threshold: -1 "
                                  "is below the minimum score 0, the best total"),
    "conditional at the worst total": (dict(conditional_threshold=100), f"{BENCH}: $.conditional_threshold: 100 is "
                                       "not below the maximum score 100 (4 criteria x 25), the worst total"),
    "unknown direction": (dict(score_direction="smaller"), f"{BENCH}: $.score_direction: 'smaller' is not one of "
                          "higher_is_better, lower_is_better"),
    "unknown total": (dict(score_total="median"), f"{BENCH}: $.score_total: 'median' is not one of sum, mean"),
    "empty name": (dict(score_name=""), f"{BENCH}: $.score_name: not a name"),
}


@pytest.mark.parametrize("case", sorted(LOWER_CASES))
def test_thresholds_are_checked_in_the_scales_direction(tmp_path, case):
    keys, expected = LOWER_CASES[case]
    root = penalty_system(tmp_path)
    edit_yaml(root / BENCH, lambda bench: bench.update(keys))
    found = problems_of(root)
    assert any(problem.startswith(expected) for problem in found), found


def test_the_schema_must_hold_the_decimal_range_and_one_step(tmp_path):
    root = penalty_system(tmp_path)
    eva = SCHEMA.format("evaluation")

    def integer_bounds(document):
        document["properties"]["criterion_scores"]["properties"]["style"]["type"] = "integer"
        document["properties"]["criterion_scores"]["properties"]["fluency"]["multipleOf"] = 0.5
    edit_json(root / eva, integer_bounds)
    edit_yaml(root / BENCH, lambda bench: bench.update(criterion_max=24.5, pass_threshold=20, conditional_threshold=40))
    found = problems_of(root)
    assert f"{eva}: $.properties.criterion_scores.properties.accuracy: type 'number', minimum 0, maximum 25; " \
           "system/benchmark.yaml needs type 'number', minimum 0, maximum 24.5 (criterion_min and criterion_max)" in found
    root = penalty_system(tmp_path / "again")
    edit_json(root / eva, integer_bounds)
    found = problems_of(root)
    # one criterion on another step: the criteria share one scale
    assert any(p.startswith(f"{eva}: $.properties.criterion_scores.properties.fluency: type 'number' with step 0.5, "
                            "but $.properties.criterion_scores.properties.accuracy has type 'number' with step 0.1")
               for p in found), found
    assert any(p.startswith(f"{eva}: $.properties.criterion_scores.properties.style: type 'integer' with step 0.1")
               for p in found), found


def test_a_score_in_tenths_is_valid_as_the_decimal_written(tmp_path):
    spec = load_spec(penalty_system(tmp_path))[0]
    assert spec is not None
    doc = {"schema_version": "1.0", "subject_id": "s", "subject_version": "1", "case_id": "RO-FOUL-001", "run_id": "r1",
           "reviewer_id": "rev", "criterion_scores": {"accuracy": 0.3, "fluency": 0.7, "terminology": 24.9, "style": 2.3},
           "automatic_fails_triggered": [], "correctness": 1, "response_sha256": "0" * 64, "gold_sha256": "0" * 64}
    assert document_errors(spec, "evaluation", doc) == []
    # a validator dividing in binary floating point would find 0.3 "not a multiple of 0.1"; the messages do not say so
    doc["criterion_scores"]["style"] = 2.35
    assert schema_errors(spec.validators["evaluation"], doc) == ["$.criterion_scores.style: 2.35 is not a multiple of 0.1"]


def test_a_decimal_score_goes_through_the_whole_tree(tmp_path):
    tree = MiniTree(tmp_path)
    make_synthetic.rewrite_scale(tmp_path, "penalty")
    root = tmp_path
    tree.add_subject("s")
    tree.add_gold("RO-FOUL-001", rubric_floor=100, rubric_ceiling=0)
    tree.add_response("s", "RO-FOUL-001")
    tree.add_scoring("s", "RO-FOUL-001", criterion_scores={"accuracy": 0.1, "fluency": 0.2, "terminology": 3,
                                                           "style": 12.5})
    from rgbench.load.loader import load_tree
    from rgbench.results.tables import compute_results, per_run_rows
    spec = load_spec(root)[0]
    loaded, problems = load_tree(root, spec)
    assert problems == [] and loaded is not None
    results = compute_results(loaded, spec)
    assert list(per_run_rows(results.runs)[0][6:10]) == ["15.8", "100", "0", "15.8"]
    assert results.subjects[0].s_bar == F("15.8") and results.subjects[0].q_final == (1 + (100 - F("15.8")) / 100) / 2


# --- the whole pipeline on a penalty benchmark --------------------------------------------------------------

@pytest.mark.slow   # end to end (make_synthetic, make metrics, make check): make test-slow
def test_a_penalty_benchmark_runs_through_make_metrics_and_make_check(tmp_path):
    tree = tmp_path / "penalty"
    assert make_synthetic.main(["--subjects", "5", "--cases", "12", "--runs", "1", "--out", str(tree),
                                "--scale", "penalty"]) == 0
    for step in ("metrics.py", "check_results.py"):
        done = subprocess.run([sys.executable, str(REPO / "scripts" / step), "--root", str(tree)],
                              capture_output=True, text=True)
        assert done.returncode == 0, f"{step}: {done.stderr}"
    page = (tree / "results/leaderboard.html").read_text(encoding="utf-8")
    markdown = (tree / "results/leaderboard.md").read_text(encoding="utf-8")
    per_run = (tree / "results/per_run.csv").read_text(encoding="utf-8")
    assert re.search(r"^[^,]*(,[^,]*){5},\d+\.\d,", per_run, re.M)          # raw scores in tenths, as graded
    # s_bar on its own 0-100 penalty scale, headed by its name with the direction; the normalisation said once
    # shown as written in both: parentheses are no markup inside a Markdown line (markdown.md_text)
    # (the Markdown's table leaves s_bar's column to the page since issue 27; its notes name the scale)
    assert "MQM-style penalty (lower is better)" in page and "MQM-style penalty" in markdown
    assert "(Q_final = alpha \u00b7 P + (1 \u2212 alpha) \u00b7 (100 \u2212 s\u0304) / 100)" in markdown
    assert "the sum of its 4 criteria (0\u2013100; lower is better)" in page
    board = (tree / "results/leaderboard.csv").read_text(encoding="utf-8").splitlines()
    column = board[0].split(",").index("s_bar")
    s_bars = [F(line.split(",")[column]) for line in board[1:] if line.split(",")[column]]
    assert s_bars and all(0 <= s <= 100 for s in s_bars) and max(s_bars) > 1   # not normalised to 0-1
    assert "below 0 lenient, above 0 severe (lower is better)" in page


# --- the grading page, the reviewers' distributions, the analysis tables on a decimal scale ------------------

def test_the_grading_page_takes_decimals_within_range_and_states_the_direction(tmp_path):
    from rgbench.review import pages, scoring_doc
    from rgbench.review.runs import FIRST, QueuedRun
    spec = load_spec(penalty_system(tmp_path))[0]
    assert spec is not None
    run = QueuedRun("h", ("s", "RO-FOUL-001", "r1"), "FOUL", 2, "Closed", FIRST)
    html = pages.run_page(spec=spec, run=run, reviewer="rev", token="t", csrf="c", filters={}, gold_md="", response_text="",
                          levels={}, criterion_help={}, fails=[], left=1, identity=None)
    assert html.count('type="number" name="c-') == 4 and 'min="0" max="25" step="0.1"' in html
    assert 'type="radio" name="c-' not in html   # no radio button per score: a number field per criterion
    sentence = pages.scale_sentence(spec)
    assert sentence == ("Each criterion 0\u201325 (in steps of 0.1), lower is better; a run's total (MQM-style penalty) "
                        "is their sum (0\u2013100).") and escape(sentence) in html
    form = {"criterion_scores": {"accuracy": "12.3", "fluency": "0", "terminology": "0.35", "style": "1e3"}}
    document = scoring_doc.document_from_form(spec, run, "rev", "1", form, response_sha256="0" * 64,
                                              gold_sha256="0" * 64, blind=True)
    assert document["criterion_scores"] == {"accuracy": 12.3, "fluency": 0, "terminology": 0.35, "style": "1e3"}
    messages = scoring_doc.document_messages(spec, document, None)
    assert "$.criterion_scores.terminology: 0.35 is not a multiple of 0.1" in messages     # off the step: said so
    assert not any(m.startswith("$.criterion_scores.accuracy") for m in messages)         # 12.3 is in tenths
    # the seed's 0-2 scale keeps its radio buttons, best first, and says which way is better
    sample = load_spec(LIBRARY_ROOT)[0]
    assert sample is not None and [str(v) for v in pages.score_choices(sample)] == ["2", "1", "0"]
    assert "Each criterion 0\u20132 (whole numbers), higher is better; a run's total is their sum (0\u201312)." == \
        pages.scale_sentence(sample)


def test_a_decimal_criterion_is_summarised_in_ten_bins(tmp_path):
    from rgbench.stats.reviewer_report import score_levels
    spec = load_spec(penalty_system(tmp_path))[0]
    assert spec is not None
    levels = score_levels(spec)   # 250 possible scores (0-25 in tenths): 10 bins of 2.5 points, the last closed
    assert [level.label for level in levels[:2]] == ["0-2.5", "2.5-5"] and len(levels) == 10
    assert (levels[0].note, levels[-1].note) == ("[0, 2.5)", "[22.5, 25]")
    assert levels[0].holds(F("2.4")) and not levels[0].holds(F("2.5")) and levels[-1].holds(25)
    sample = load_spec(LIBRARY_ROOT)[0]
    assert sample is not None and [level.label for level in score_levels(sample)] == ["0", "1", "2"]


def test_the_analysis_tables_read_decimal_scores():
    from rgbench.analysis import parse_table
    text = "subject_id,raw_score,clipped_score,level\ns,12.3,23/6,0-2.5\nt,7,7,\n"
    table = parse_table("results/x.csv", text)
    assert str(table["raw_score"].dtype) == "float64" and table["clipped_score"][0] == pytest.approx(23 / 6)
    assert str(table["level"].dtype) == "string" and table["level"][0] == "0-2.5"
    integers = parse_table("results/x.csv", "raw_score,level\n7,0\n12,2\n")
    assert str(integers["raw_score"].dtype) == str(integers["level"].dtype) == "Int64"   # the seed's, unchanged


def test_the_results_reader_takes_score_cells_exactly():
    from rgbench.result_columns import CellError, parse_cell
    assert [parse_cell("raw_score", cell) for cell in ("7", "12.3", "23/6")] == [7, F(123, 10), F(23, 6)]
    for bad in ("12.30", "1e3", "x", "1/0"):
        with pytest.raises(CellError):
            parse_cell("raw_score", bad)

"""Issue 23, unit by unit: the None paths of a benchmark that does not record a field, or has no pass rule
(DESIGN D1, D2), each on hand-computed values (arithmetic in the comments)."""

from __future__ import annotations

import json
import shutil
from fractions import Fraction as F
from pathlib import Path

import pytest
from treebuilder import LIBRARY_ROOT, SCHEMA, edit_json, edit_yaml, problems_of

from rgbench.compute.derive import CONDITIONAL, FAIL, PASS, RunRow, classify, derive_run
from rgbench.compute.metrics import (
    brier_score,
    calibration_bins,
    expected_calibration_error,
    family_metrics,
    pass_rate,
    q_final,
    subject_metrics,
)
from rgbench.compute.ranking import rank_subjects
from rgbench.governance.scoring_template import template
from rgbench.leaderboard.absent import Shown, q_formula, reasons, tie_figures
from rgbench.load.extract import EVALUATION, extract
from rgbench.load.records import Gold, Response, Scoring
from rgbench.load.scale import default_scale
from rgbench.load.spec import load_spec
from rgbench.review.pages import correctness_fieldset, queue_page
from rgbench.review.runs import QueuedRun


def row(classification: str | None = PASS, clipped: int = 10, confidence: int | None = 50,
        correctness: F | None = F(1), subject: str = "s", family: str = "FOUL") -> RunRow:
    return RunRow(subject, "1", "RO-FOUL-001", "r1", "rev", family, clipped, None, None, clipped, False, False,
                  classification, confidence, None if confidence is None else F(confidence, 100), correctness)


# --- classification and derive_run ---------------------------------------------------------------------------

def test_no_pass_rule_classifies_nothing():
    assert classify(has_critical=True, has_recoverable=False, clipped=12, floor=0, pass_threshold=None,
                    conditional_threshold=None) is None


@pytest.mark.parametrize(("clipped", "floor", "conditional", "expected"), [
    (8, 9, 7, FAIL),            # rule 3: 8 < floor 9
    (8, None, 7, CONDITIONAL),  # no floor: rule 3 skipped, 8 >= 7 is Conditional
    (8, None, None, FAIL),      # no Conditional band either: 8 < 10 is a Fail (rule 6)
    (10, None, None, PASS),     # rule 4 still holds
])
def test_an_absent_floor_or_conditional_threshold_skips_its_rule(clipped, floor, conditional, expected):
    assert classify(has_critical=False, has_recoverable=False, clipped=clipped, floor=floor, pass_threshold=10,
                    conditional_threshold=conditional) == expected


def test_derive_run_without_ceiling_floor_confidence_correctness_keeps_them_none():
    spec, _ = load_spec(LIBRARY_ROOT)
    assert spec is not None
    gold = Gold("RO-FOUL-001", "FOUL", None, None, None, None, "g")
    scoring = Scoring("s", "1", "RO-FOUL-001", "r1", "rev", tuple((c, 2) for c in spec.criteria), (), None, "p")
    got = derive_run(scoring, Response("s", "1", "RO-FOUL-001", "r1", None, "r"), gold, spec)
    # no ceiling: clipped = raw = 6 x 2 = 12; the library's pass rule still classifies it Pass (12 >= 10)
    assert (got.raw_score, got.clipped_score, got.classification) == (12, 12, PASS)
    assert (got.rubric_floor, got.rubric_ceiling, got.reported_confidence, got.confidence_unit,
            got.correctness) == (None, None, None, None, None)


# --- the metrics ---------------------------------------------------------------------------------------------

def test_calibration_figures_are_none_without_confidence_or_correctness():
    for rows in ([row(confidence=None)] * 2, [row(correctness=None)] * 2):
        assert brier_score(rows) is None and expected_calibration_error(rows, 10) is None
        assert calibration_bins(rows, 10) == []
        m = subject_metrics("s", "1", rows, 0, alpha=F(1, 2), bins=10, scale=default_scale(12))
        # everything else stands: P = 2/2 = 1, s_bar = 10, Q_final = 1/2 + 1/2 * 10/12 = 11/12
        assert (m.bs, m.ece, m.p, m.s_bar, m.q_final) == (None, None, F(1), F(10), F(11, 12))


def test_without_a_pass_rule_p_is_none_and_q_final_is_the_normalised_score():
    rows = [row(None, clipped=9), row(None, clipped=6)]
    assert pass_rate(rows) is None
    m = subject_metrics("s", "1", rows, 0, alpha=F(0), bins=10, scale=default_scale(12))
    # s_bar = (9 + 6) / 2 = 15/2; Q_final = s_bar / 12 = 15/24 = 5/8
    assert (m.p, m.s_bar, m.q_final) == (None, F(15, 2), F(5, 8))
    assert q_final(None, F(15, 2), F(1, 2), 12) is None   # alpha > 0 weighs a P that does not exist
    assert [f.p_family for f in family_metrics(rows)] == [None]


def test_ranking_without_p_and_bs_orders_on_q_final_then_s_bar():
    a = subject_metrics("a", "1", [row(None, 6, None, None)], 0, alpha=F(0), bins=10, scale=default_scale(12))
    b = subject_metrics("b", "1", [row(None, 9, None, None)], 0, alpha=F(0), bins=10, scale=default_scale(12))
    c = subject_metrics("c", "1", [row(None, 9, None, None)], 0, alpha=F(0), bins=10, scale=default_scale(12))
    # Q_final 9/12 for b and c (tied: rank 2 is skipped), 6/12 for a
    assert [(s.rank, s.metrics.subject_id) for s in rank_subjects([a, b, c])] == [(1, "b"), (1, "c"), (3, "a")]


def test_a_correctness_scale_in_quarters_enters_brier_exactly():
    rows = [row(confidence=50, correctness=F(1, 4)), row(confidence=100, correctness=F(3, 4))]
    # BS = ((0.5 - 0.25)^2 + (1 - 0.75)^2) / 2 = (1/16 + 1/16) / 2 = 1/16
    assert brier_score(rows) == F(1, 16)
    # ECE (10 bins): 50 in bin 6 gives |0.5 - 0.25|, 100 in bin 10 gives |1 - 0.75|: (1/4 + 1/4) / 2 = 1/4
    assert expected_calibration_error(rows, 10) == F(1, 4)


# --- the system check ----------------------------------------------------------------------------------------

def system(tmp_path: Path) -> Path:
    shutil.copytree(LIBRARY_ROOT / "system", tmp_path / "system")
    return tmp_path


def drop(field: str):
    def change(schema: dict) -> None:
        schema["required"].remove(field)
        del schema["properties"][field]
    return change


def test_the_spec_flags_follow_the_schemas(tmp_path):
    root = system(tmp_path)
    spec, _ = load_spec(root)
    assert spec is not None and spec.has_confidence and spec.has_correctness and spec.has_difficulty
    assert spec.has_case_type and spec.has_rubric_floor and spec.has_rubric_ceiling and spec.has_pass_rule
    edit_json(root / SCHEMA.format("response"), drop("confidence"))
    for field in ("difficulty", "case_type", "rubric_floor", "rubric_ceiling"):
        edit_json(root / SCHEMA.format("gold"), drop(field))
    spec, problems = load_spec(root)
    assert spec is not None, problems
    assert not (spec.has_confidence or spec.has_difficulty or spec.has_case_type or spec.has_rubric_floor
                or spec.has_rubric_ceiling)
    assert spec.has_correctness and not spec.has_calibration


def test_required_but_not_listed_is_a_problem_with_the_fix(tmp_path):
    root = system(tmp_path)
    edit_json(root / SCHEMA.format("gold"), lambda schema: schema["properties"].pop("difficulty"))
    assert ('system/schemas/v1.0/gold.schema.json: $.required: lists "difficulty" without a '
            "$.properties.difficulty") in "\n".join(problems_of(root))


def test_without_a_pass_rule_alpha_must_be_absent_and_conditional_needs_pass(tmp_path):
    root = system(tmp_path)
    alpha = ("system/metrics/v1.0/config.yaml: $.alpha: 0.5 weighs P, but system/benchmark.yaml declares no "
             "pass_threshold, so there is no P (remove alpha: Q_final is then the normalised score alone; or declare "
             "pass_threshold)")
    edit_yaml(root / "system/benchmark.yaml", lambda d: d.pop("pass_threshold"))
    assert problems_of(root) == [   # every problem at once
        "system/benchmark.yaml: $.conditional_threshold: 7 without a pass_threshold (a run is Conditional between the "
        "two thresholds: declare pass_threshold too, or remove conditional_threshold for a benchmark without a "
        "pass rule)", alpha]
    edit_yaml(root / "system/benchmark.yaml", lambda d: d.pop("conditional_threshold"))
    assert problems_of(root) == [alpha]
    edit_yaml(root / "system/metrics/v1.0/config.yaml", lambda d: d.update(alpha=0))
    assert problems_of(root) == []
    edit_yaml(root / "system/metrics/v1.0/config.yaml", lambda d: d.pop("alpha"))
    spec, _ = load_spec(root)
    assert spec is not None and spec.alpha == 0 and spec.pass_threshold is None
    _, problems = load_spec(root, alpha_override="0.3")
    assert [str(p) for p in problems] == ["--alpha: 0.3 weighs P, but system/benchmark.yaml declares no "
                                          "pass_threshold, so there is no P (leave out --alpha: Q_final is then "
                                          "the normalised score alone; or declare pass_threshold)"]


def test_a_pass_threshold_alone_must_leave_room_for_a_fail(tmp_path):
    root = system(tmp_path)
    edit_yaml(root / "system/benchmark.yaml", lambda d: (d.pop("conditional_threshold"), d.update(pass_threshold=0)))
    assert problems_of(root) == ["system/benchmark.yaml: $.pass_threshold: 0 is not above the minimum score 0, so "
                                 "no score is a Fail (set it to at least 1)"]


def test_keys_for_absent_figures_are_not_required(tmp_path):
    """ece_bins without calibration, difficulty_weights without a difficulty (not checked against the schema)."""
    root = system(tmp_path)
    edit_json(root / SCHEMA.format("response"), drop("confidence"))
    edit_json(root / SCHEMA.format("gold"), drop("difficulty"))
    edit_yaml(root / "system/metrics/v1.0/config.yaml",
              lambda d: (d.pop("ece_bins", None), d.update(difficulty_weights={7: 1.0})))
    assert problems_of(root) == []


def test_a_correctness_range_without_an_enum_reads_three_decimals(tmp_path):
    root = system(tmp_path)
    edit_json(root / SCHEMA.format("evaluation"), lambda s: s["properties"].update(
        correctness={"type": "number", "minimum": 0, "maximum": 1}))
    spec, problems = load_spec(root)
    assert spec is not None, problems
    assert spec.correctness_values == () and spec.correctness_text() == "a number from 0 to 1"
    document = {"schema_version": "1.0", "subject_id": "s", "subject_version": "1", "case_id": "RO-FOUL-001",
                "run_id": "r1", "reviewer_id": "rev", "criterion_scores": {c: 1 for c in spec.criteria},
                "automatic_fails_triggered": [], "correctness": 0.125, "response_sha256": "0" * 64,
                "gold_sha256": "0" * 64}
    fields = extract(EVALUATION, json.dumps(document).encode(), spec).fields
    assert fields is not None and fields.correctness == F(1, 8)   # type: ignore[union-attr]
    document["correctness"] = 0.1234
    assert extract(EVALUATION, json.dumps(document).encode(), spec).problems == (
        "$.correctness: 0.1234 has more than 3 decimals (round it to 3: the toolkit keeps the Brier sums exact in "
        "thousandths)",)
    edit_json(root / SCHEMA.format("evaluation"), lambda s: s["properties"].update(correctness={"type": "number", "minimum": 0}))
    assert problems_of(root) == ["system/schemas/v1.0/evaluation.schema.json: $.properties.correctness: neither an "
                                 "enum nor a number range within [0, 1]; write an enum of the values (e.g. [0, 0.5, "
                                 '1]) or {"type": "number", "minimum": 0, "maximum": 1}']


# --- the scoring template and the grading page -------------------------------------------------------------------

def test_the_scoring_template_and_the_grading_page_follow_the_evaluation_schema(tmp_path):
    root = system(tmp_path)
    spec, _ = load_spec(root)
    assert spec is not None
    ids = dict(subject_id="s", subject_version="1", case_id="RO-FOUL-001", run_id="r1", reviewer_id="rev",
               response_sha256="0" * 64, gold_sha256="0" * 64)
    assert template(spec, **ids)["correctness"] is None
    seed = correctness_fieldset(spec)
    assert seed.count('type="radio"') == 3 and "(keys 0, 5 for 0.5, 1)" in seed and "canonical diagnosis" in seed
    edit_json(root / SCHEMA.format("evaluation"), lambda s: s["properties"].update(correctness={"enum": [0, 0.25, 0.5, 0.75, 1]}))
    spec, _ = load_spec(root)
    assert spec is not None
    quarters = correctness_fieldset(spec)
    assert [v for v in ("1", "0.75", "0.5", "0.25", "0") if f'value="{v}"' in quarters] == ["1", "0.75", "0.5", "0.25",
                                                                                           "0"]
    edit_json(root / SCHEMA.format("evaluation"), lambda s: s["properties"].update(
        correctness={"type": "number", "minimum": 0, "maximum": 1}))
    spec, _ = load_spec(root)
    assert spec is not None and 'type="number" name="correctness"' in correctness_fieldset(spec)
    edit_json(root / SCHEMA.format("evaluation"), drop("correctness"))
    spec, _ = load_spec(root)
    assert spec is not None and not spec.has_correctness
    assert "correctness" not in template(spec, **ids) and correctness_fieldset(spec) == ""


def test_the_queue_shows_no_difficulty_or_case_type_the_benchmark_does_not_record():
    run = QueuedRun("h", ("s", "RO-FOUL-001", "r1"), "FOUL", None, None, "first")
    html = queue_page(reviewer="rev", blind=True, token="t", queue=[run], shown=[run], filters={}, families=["FOUL"],
                      has_difficulty=False, has_case_type=False)
    assert "Difficulty" not in html and "Case type" not in html and "None" not in html


# --- the page's reasons -------------------------------------------------------------------------------------------

def test_a_benchmark_that_records_everything_gets_no_reason_and_the_seed_formula():
    assert reasons(Shown(), default_scale(12)) == []
    assert q_formula(Shown(), default_scale(12)) == "Q_final = alpha \u00b7 P + (1 \u2212 alpha) \u00b7 s\u0304 / 12"
    assert tie_figures(Shown()) == ["Q_final", "P", "s\u0304", "BS"]


def test_each_absent_field_gets_one_sentence():
    everything_absent = Shown(False, False, False, False, False, False, False, False)
    said = reasons(everything_absent, default_scale(12))
    assert said == [
        "This benchmark declares no pass rule (no pass_threshold), so runs are not classified and there is no P, "
        "P_family, pass@k or pass rate by difficulty: Q_final is the normalised score s\u0304 / 12 alone, and the "
        "board ranks on it.",
        "This benchmark records no model confidence and no correctness, so BS, ECE and calibration are not "
        "computed.",
        "This benchmark records no case difficulty, so there are no figures by difficulty (pass rate by difficulty, "
        "P_weighted, Advanced+, the difficulty-label check).",
        "This benchmark records no case type and no case carries a tag, so there is no breakdown by case type or by "
        "tag.",
        "This benchmark records no rubric ceiling, so scores are not clipped (s\u0304 is the mean raw score).",
    ]   # no floor sentence: without a pass rule there is no classification for a floor to act on
    assert reasons(Shown(rubric_floor=False), default_scale(12)) == [
        "This benchmark records no rubric floor, so no run fails for scoring below its case's floor."]
    assert q_formula(everything_absent, default_scale(12)) == "Q_final = s\u0304 / 12"
    assert tie_figures(everything_absent) == ["Q_final", "s\u0304"]

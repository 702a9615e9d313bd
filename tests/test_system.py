"""The system/ folder is self-consistent: schemas agree with benchmark.yaml, every field is described,
minimal documents of the file contract validate, and the catalog and config are what v1.0 promises.

Tests marked ``sample`` state the reverse-osmosis sample's own values; the others hold for any system/."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest
from treebuilder import REPO

from rgbench.load.spec import SCHEMA_KINDS, load_spec
from rgbench.load.validation import compiled, schema_problem

SPEC, PROBLEMS = load_spec(REPO)
SCHEMAS = {kind: json.loads((REPO / f"system/schemas/v1.0/{kind}.schema.json").read_text()) for kind in SCHEMA_KINDS}


@pytest.mark.sample
def test_shipped_spec_loads():
    assert PROBLEMS == [] and SPEC is not None
    assert SPEC.alpha == Fraction(1, 2) and SPEC.ece_bins == 10
    assert (SPEC.pass_threshold, SPEC.conditional_threshold, SPEC.scale.high) == (10, 7, 12)
    assert sorted(SPEC.families) == ["CHEM", "FOUL", "INST", "MEMB", "SCAL"]


@pytest.mark.parametrize("kind", SCHEMA_KINDS)
def test_schema_is_2020_12_with_id_and_a_description_on_every_field(kind):
    schema = SCHEMAS[kind]
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith(f"/v1.0/{kind}.schema.json")
    assert schema_problem(schema) is None
    missing = []

    def walk(node, where):
        for name, sub in node.get("properties", {}).items():
            if "description" not in sub:
                missing.append(f"{where}.{name}")
            walk(sub, f"{where}.{name}")
        if isinstance(node.get("items"), dict):
            walk(node["items"], f"{where}[]")

    walk(schema, "$")
    assert missing == []
    assert schema.get("additionalProperties") is False  # unknown top-level keys are refused


@pytest.mark.sample
def test_schemas_agree_with_benchmark_yaml():
    evaluation = SCHEMAS["evaluation"]["properties"]["criterion_scores"]
    assert tuple(evaluation["required"]) == SPEC.criteria
    assert list(evaluation["properties"]) == list(SPEC.criteria)
    for sub in evaluation["properties"].values():
        assert (sub["minimum"], sub["maximum"]) == (SPEC.criterion_min, SPEC.criterion_max)
    plain_case_pattern = SPEC.case_id_re.pattern.replace("(?P<family>", "(").replace("([A-Z]{2,8})", "[A-Z]{2,8}")
    for kind in ("response", "evaluation", "gold"):
        assert SCHEMAS[kind]["properties"]["case_id"]["pattern"] == plain_case_pattern
    gold = SCHEMAS["gold"]["properties"]
    assert gold["rubric_ceiling"]["maximum"] == SPEC.scale.high == gold["rubric_floor"]["maximum"]
    severities = set(SCHEMAS["catalog"]["properties"]["automatic_fails"]["items"]["properties"]["severity"]["enum"])
    assert severities == {"critical", "recoverable"}


MINIMAL = {
    "response": {"schema_version": "1.0", "subject_id": "m-1.5", "subject_version": "2026-01", "case_id": "RO-FOUL-001",
                 "run_id": "r1", "confidence": 0, "response_text": "x"},
    "evaluation": {"schema_version": "1.0", "subject_id": "m", "subject_version": "1", "case_id": "RO-CHEM-010",
                   "run_id": "run-2", "reviewer_id": "ana", "criterion_scores": dict.fromkeys(
                       ["diagnosis", "evidence", "causal_reasoning", "action_plan", "safety", "communication"], 2),
                   "automatic_fails_triggered": [], "correctness": 0.5,
                   "response_sha256": "0" * 64, "gold_sha256": "f" * 64},
    "gold": {"schema_version": "1.0", "case_id": "RO-INSTRUME-999", "family": "INSTRUME", "case_type": "Ambiguous",
             "rubric_floor": 0, "rubric_ceiling": 12, "difficulty": 5},
    "registry": {"subjects": [{"subject_id": "m", "subject_version": "1"}]},
}


@pytest.mark.sample
@pytest.mark.parametrize("kind", sorted(MINIMAL))
def test_minimal_documents_of_the_contract_validate(kind):
    assert compiled(SCHEMAS[kind]).fast.is_valid(MINIMAL[kind])


@pytest.mark.sample
@pytest.mark.parametrize(("kind", "field", "value"), [
    ("response", "case_id", "RO-F-001"),         # family of one letter
    ("response", "case_id", "RO-FOULINGXX-001"),  # nine letters
    ("response", "case_id", "RO-FOUL-01"),
    ("response", "subject_id", "Model"),
    ("response", "subject_id", "a__b"),
    ("response", "subject_id", "a_b"),
    ("response", "run_id", "r.1"),
    ("response", "run_id", "r__1"),
    ("response", "confidence", 101),
    ("response", "confidence", True),
    ("response", "response_text", "x" * 200_001),   # over maxLength
    ("response", "schema_version", "1.1"),
    ("evaluation", "reviewer_id", "Ana"),
    ("evaluation", "correctness", True),
    ("evaluation", "correctness", 0.25),
    ("gold", "case_type", "closed"),
    ("gold", "difficulty", 0),
])
def test_contract_refuses(kind, field, value):
    document = dict(MINIMAL[kind], **{field: value})
    assert not compiled(SCHEMAS[kind]).fast.is_valid(document)


@pytest.mark.sample
@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_contract_accepts_a_blank_answer(text):
    # issue 23: an empty or whitespace-only answer is an answer (graded like any other), not a placeholder
    document = dict(MINIMAL["response"], response_text=text)
    assert compiled(SCHEMAS["response"]).fast.is_valid(document)


@pytest.mark.sample
def test_catalog_has_critical_and_recoverable_fails():
    severities = list(SPEC.catalog.values())
    assert severities.count("critical") >= 2 and severities.count("recoverable") >= 2
    for code in ("AF-CHLORINE-EXPOSURE", "AF-PH-LIMIT", "AF-TEMP-LIMIT"):
        assert SPEC.catalog[code] == "critical"


@pytest.mark.sample
def test_rubric_documents_the_classification_order_and_thresholds():
    rubric = (REPO / "system/rubric/v1.0/generic_rubric.md").read_text()
    for word in ("Closed", "Open", "Ambiguous", "rubric_floor", "rubric_ceiling", "irreversib", "time window", "monotonic"):
        assert word.lower() in rubric.lower()
    for criterion in SPEC.criteria:
        assert f"`{criterion}`" in rubric or criterion in rubric


@pytest.mark.sample
def test_metrics_doc_names_every_formula_function():
    doc = (REPO / "system/metrics/v1.0/aggregate_metrics.md").read_text()
    import rgbench.compute.derive as derive
    import rgbench.compute.metrics as metrics
    for fn in ("derive_run", "pass_rate", "mean_clipped_score", "brier_score", "expected_calibration_error",
               "q_final", "critical_gate", "family_metrics"):
        assert f"`{fn}`" in doc
        assert hasattr(metrics, fn) or hasattr(derive, fn)
    assert re.search(r"alpha", doc)


@pytest.mark.parametrize(("rel", "line", "message"), [
    ("system/benchmark.yaml", "pass_treshold: 9\n", "system/benchmark.yaml: $.pass_treshold: unknown key"),
    ("system/metrics/v1.0/config.yaml", "bootstrap_resample: 10\n",
     "system/metrics/v1.0/config.yaml: $.bootstrap_resample: unknown key"),
])
def test_a_typo_in_a_system_file_is_refused(tmp_path, rel, line, message):
    import shutil
    shutil.copytree(REPO / "system", tmp_path / "system")
    with (tmp_path / rel).open("a") as handle:
        handle.write(line)
    spec, problems = load_spec(tmp_path)
    assert spec is None
    assert [str(p) for p in problems if message in str(p)] != [], problems


@pytest.mark.parametrize("name", ["=HYPERLINK(\"http://x\")", "+1", "-1", "@SUM(A1)", "\tx"])
def test_registry_text_that_a_spreadsheet_would_run_as_a_formula_is_refused(name):
    registry = {"subjects": [{"subject_id": "m", "subject_version": "1", "display_name": name}]}
    assert not compiled(SCHEMAS["registry"]).fast.is_valid(registry)
    fine = {"subjects": [{"subject_id": "m", "subject_version": "1", "display_name": "Model (v1) = best"}]}
    assert compiled(SCHEMAS["registry"]).fast.is_valid(fine)

"""The one JSON Schema engine (rgbench.load.validation): every keyword's message, pinned; what JSON has not;
the toolkit's own files (benchmark.yaml, config.yaml) worded by their schemas' x-problem.

Messages keep the words python-jsonschema made familiar (the toolkit used it to word errors until
issue 26): the refusal fixtures pin them in context, this file pins one per keyword.
"""

from __future__ import annotations

import datetime

import pytest
from treebuilder import LIBRARY_ROOT

from rgbench.governance.scoring_template import template
from rgbench.load.spec import document_errors, load_spec
from rgbench.load.validation import DRAFT_2020_12, compiled, keyed_problems, schema_errors, schema_problem, toolkit_schema

SPEC, _ = load_spec(LIBRARY_ROOT)


def errors(rule: dict, value) -> list[str]:
    """The messages of ``{"a": value}`` against a schema whose property ``a`` follows ``rule``."""
    return schema_errors(compiled({"$schema": DRAFT_2020_12, "properties": {"a": rule}}), {"a": value})


@pytest.mark.parametrize(("rule", "value", "message"), [
    ({"type": "integer"}, 87.5, "87.5 is not of type 'integer'"),
    ({"type": ["integer", "string"]}, [1], "[1] is not of type 'integer', 'string'"),
    ({"type": "string"}, True, "True is not of type 'string'"),
    ({"enum": [0, 0.5, 1]}, 0.7, "0.7 is not one of [0, 0.5, 1]"),
    ({"const": "1.0"}, "1.1", "'1.0' was expected"),
    ({"minimum": 1}, 0, "0 is less than the minimum of 1"),
    ({"maximum": 100}, 101, "101 is greater than the maximum of 100"),
    ({"exclusiveMinimum": 0}, 0, "0 is less than or equal to the minimum of 0"),
    ({"exclusiveMaximum": 1}, 1, "1 is greater than or equal to the maximum of 1"),
    ({"multipleOf": 0.1}, 2.35, "2.35 is not a multiple of 0.1"),
    ({"pattern": "^[a-z]+$"}, "Ana", "'Ana' does not match '^[a-z]+$'"),
    ({"minLength": 1}, "", "'' should be non-empty"),
    ({"minLength": 2}, "x", "'x' is too short"),
    ({"minItems": 2}, [1], "[1] is too short"),
    ({"uniqueItems": True}, ["x", "x"], "['x', 'x'] has non-unique elements"),
    ({"maxLength": 3}, "abcdef", "has 6 characters, more than the 3 allowed (shorten it)"),
    ({"maxItems": 1}, [1, 2], "has 2 items, more than the 1 allowed (shorten it)"),
    ({"maxProperties": 1}, {"x": 1, "y": 2}, "has 2 keys, more than the 1 allowed (shorten it)"),
    ({"required": ["x"]}, {}, "'x' is a required property"),
    ({"properties": {}, "additionalProperties": False}, {"y": 1, "x": 2},
     "Additional properties are not allowed ('x', 'y' were unexpected)"),
    ({"properties": {}, "additionalProperties": False}, {"x": 2}, "Additional properties are not allowed ('x' was unexpected)"),
    ({"anyOf": [{"type": "string"}, {"minimum": 3}]}, 1, "1 is not valid under any of the given schemas"),
])
def test_each_keyword_is_worded(rule, value, message):
    assert errors(rule, value) == [f"$.a: {message}"]


def test_every_violation_is_reported_sorted_with_its_path():
    schema = compiled({"$schema": DRAFT_2020_12, "type": "object", "required": ["b"],
                       "properties": {"a": {"type": "array", "items": {"type": "integer", "maximum": 2}},
                                      "odd key": {"type": "string"}}})
    assert schema_errors(schema, {"a": [1, 3, "x"], "odd key": 1}) == [
        "$.a[1]: 3 is greater than the maximum of 2", "$.a[2]: 'x' is not of type 'integer'",
        "$: 'b' is a required property", "$['odd key']: 1 is not of type 'string'"]


@pytest.mark.parametrize(("value", "message"), [
    (datetime.date(2026, 1, 2), "2026-01-02 is a date in YAML, which JSON has not (quote it so it stays text)"),
    (b"x", "b'x' is binary data in YAML, which JSON has not (quote it so it stays text)"),
    ({"x"}, "{'x'} is a set in YAML, which JSON has not (quote it so it stays text)"),
    (float("nan"), "nan is not a JSON number (use a finite number)"),
    (float("-inf"), "-inf is not a JSON number (use a finite number)"),
])
def test_a_value_json_has_not_is_refused_where_it_is_whatever_the_schema(value, message):
    # jsonschema-rs cannot read a date, bytes or a set, and reads NaN as null: YAML's own types never reach it
    assert errors({}, [value]) == [f"$.a[0]: {message}"]


def test_a_key_that_is_not_text_is_refused():
    assert errors({}, {1: "x"}) == ["$.a: the key 1 is not text (quote it in YAML)"]


@pytest.mark.parametrize(("schema", "problem"), [
    ({"type": "foo"}, "$.type: 'foo' is not valid under any of the given schemas"),
    (True, "$: true is not an object (a schema file of the benchmark holds one JSON object)"),
    ({"properties": {"a": {"minLength": -1}}}, "$.properties.a.minLength: -1 is less than the minimum of 0"),
    ({"properties": {"a": {"pattern": "(?P<n>a"}}}, "'(?P<n>a' is not a 'regex'"),
    ({"patternProperties": {"\\p{L}": {}}}, "'\\\\p{L}' is not a 'regex'"),
    ({"$schema": "http://json-schema.org/draft-07/schema#"},
     f"$['$schema']: 'http://json-schema.org/draft-07/schema#' is not '{DRAFT_2020_12}' (write that, or remove the key)"),
    ({"properties": {"a": {"$ref": "#/$defs/x"}}}, "Pointer '/$defs/x' does not exist"),
    ({"properties": {"a": {"$ref": "https://example.org/b.json"}}},
     "Resource 'https://example.org/b.json' is not present in a registry and retrieving it failed: ValueError: "
     "https://example.org/b.json is not fetched (a schema of the benchmark refers only to itself)"),
    ({"enum": [datetime.date(2026, 1, 2)]}, "$.enum[0]: 2026-01-02 is a date in YAML, which JSON has not (quote it so it "
                                            "stays text)"),
])
def test_a_schema_that_is_not_valid_draft_2020_12_gets_its_first_problem(schema, problem):
    assert schema_problem(schema) == problem


def test_the_shipped_schemas_are_valid():
    assert SPEC is not None and all(schema_problem(v.schema) is None for v in SPEC.validators.values())


def test_an_unfilled_template_names_json_null_and_the_fix():
    # a reviewer who ran new_scoring and forgot a score reads JSON's word for the empty value, and what to do
    document = template(SPEC, subject_id="s", subject_version="1", case_id="RO-FOUL-001", run_id="r1",
                        reviewer_id="rev-a", response_sha256="0" * 64, gold_sha256="0" * 64)
    document["criterion_scores"] = dict.fromkeys(document["criterion_scores"], 1)
    assert document_errors(SPEC, "evaluation", document) == ["$.correctness: null is not one of [0, 0.5, 1] (fill it in)"]
    document["correctness"], document["criterion_scores"][SPEC.criteria[0]] = 1, None
    assert document_errors(SPEC, "evaluation", document) == [
        f"$.criterion_scores.{SPEC.criteria[0]}: null is not of type 'integer' (fill it in)"]


def test_the_toolkits_own_files_get_one_message_per_key_from_their_schema():
    # benchmark.yaml: a required key left out, YAML's own types in the file's words, a limit, an unknown key
    found = dict(keyed_problems(toolkit_schema("benchmark"), {
        "case_id_pattern": "^X-(?P<family>[A-Z]+)$", "families": {"A": "a"}, "criteria": ["x"], "criterion_min": 0,
        "criterion_max": float("inf"), "title": datetime.date(2026, 1, 2), "score_name": "n" * 61, "tilte": "t"}))
    assert found == {
        "$.benchmark_version": 'missing (write text, quoted, e.g. "1.0")',
        "$.criterion_max": "inf is not a number of at most 40 characters (write a number, unquoted, e.g. 2 or 2.5)",
        "$.title": "2026-01-02 is a date (write the leaderboard's title, quoted if it reads as a number or a date, "
                   "or remove the key)",
        "$.score_name": "61 characters (at most 60: it heads a column)",
        "$.tilte": found["$.tilte"]}
    assert found["$.tilte"].startswith("unknown key (known: benchmark_version, case_id_pattern, conditional_threshold")
    # config.yaml: the deepest key with a message speaks; YAML's integer keys are read as the schema's text keys
    assert keyed_problems(toolkit_schema("config"), {
        "reliability_half_widths": {"robust": 0, "stable": 0.1, "reasonable": 0.2}, "difficulty_weights": {1: 1.0},
        "seed": -1}) == [
        ("$.reliability_half_widths.robust", "must be a number in (0, 1], got 0"),
        ("$.seed", "must be a non-negative integer (write it without quotes or decimals, e.g. seed: 0), got -1")]
    assert keyed_problems(toolkit_schema("config"), {"reliability_half_widths": {"robust": 0.1}}) == [
        ("$.reliability_half_widths", "must map exactly robust, stable, reasonable to half-widths, got {'robust': 0.1}")]

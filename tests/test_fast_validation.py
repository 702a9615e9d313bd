"""The fast validator (jsonschema-rs) and the reference one (python-jsonschema) agree.

Valid documents are accepted by the fast path alone, so a disagreement would let
an invalid file through silently. Every JSON document of the fixtures, the
treebuilder and a family of mutations is checked with both; so are the registry
and catalog YAML documents, and the schemas themselves against the meta-schema.
"""

from __future__ import annotations

import copy
import datetime
import json

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from treebuilder import LIBRARY_ROOT, LIBRARY_SYSTEM, REPO, MiniTree

from rgbench.governance.scoring_template import template
from rgbench.load.gold_markdown import extract_gold_json
from rgbench.load.parsing import ParseError, loads_json_strict, loads_yaml_strict
from rgbench.load.spec import SCHEMA_KINDS, document_errors, load_spec, meta_schema_accepts, schema_errors, schema_problem

SPEC, _ = load_spec(LIBRARY_ROOT)
FIXTURES = REPO / "tests" / "fixtures"


def reference_errors(kind: str, document) -> list[str]:
    """python-jsonschema's verdict alone (schema_errors of the spec's validator would try jsonschema-rs first)."""
    return schema_errors(SPEC.validators[kind].reference, document)


def kind_of(rel: str) -> str | None:
    if rel.endswith("_gold.md"):
        return "gold"
    if "/responses/" in f"/{rel}":
        return "response"
    if "/scoring/" in f"/{rel}":
        return "evaluation"
    return None


def documents():
    for path in sorted(FIXTURES.rglob("*")):
        kind = kind_of(str(path.relative_to(FIXTURES)))
        if kind is None or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
            doc = extract_gold_json(text) if kind == "gold" else loads_json_strict(text)
        except (ParseError, UnicodeDecodeError):
            continue
        yield kind, doc
    for sample in (REPO / "responses").rglob("*.json"):
        yield "response", json.loads(sample.read_text())
    for sample in (REPO / "scoring").rglob("*.json"):
        yield "evaluation", json.loads(sample.read_text())


def mutations(tmp_path):
    tree = MiniTree(tmp_path)
    tree.add_subject("m", "1")
    base = {"response": tree.response_doc("m", "RO-FOUL-001"), "evaluation": tree.scoring_doc("m", "RO-FOUL-001")}
    values = [None, True, False, 0, 1, 2, 2.0, 2.5, -1, 101, 1e3, "", " ", "x", "RO-FOUL-001", [], {}, [1], {"a": 1}]
    for kind, doc in base.items():
        yield kind, doc
        for key in list(doc):
            for value in values:
                changed = copy.deepcopy(doc)
                changed[key] = value
                yield kind, changed
            removed = copy.deepcopy(doc)
            del removed[key]
            yield kind, removed
        if kind == "evaluation":
            for name in doc["criterion_scores"]:
                for value in values:
                    changed = copy.deepcopy(doc)
                    changed["criterion_scores"][name] = value
                    yield kind, changed
            for fails in ([{"code": "AF-X", "severity": "minor"}], [{"code": "af-x", "severity": "critical"}],
                          [{"code": "AF-X"}], [{"code": "AF-X", "severity": "critical", "extra": 1}],
                          [{"code": "AF-X", "severity": "critical"}] * 2):
                yield kind, dict(copy.deepcopy(doc), automatic_fails_triggered=fails)


def test_validators_agree_on_fixtures_and_samples():
    checked = 0
    for kind, doc in documents():
        assert SPEC.validators[kind].fast.is_valid(doc) == (reference_errors(kind, doc) == []), doc
        checked += 1
    assert checked > 20


def test_validators_agree_on_mutations(tmp_path):
    checked = 0
    for kind, doc in mutations(tmp_path):
        fast = SPEC.validators[kind].fast.is_valid(doc)
        assert fast == (reference_errors(kind, doc) == []), (kind, doc)
        checked += 1
    assert checked > 300


def yaml_documents():
    """Every registry and catalog of the repository and the fixtures, and mutations of a registry entry."""
    for path in sorted(REPO.rglob("*.yaml")):
        kind = {"registry.yaml": "registry", "automatic_fails.yaml": "catalog"}.get(path.name)
        if kind is None or ".venv" in path.parts:
            continue
        try:
            yield kind, loads_yaml_strict(path.read_text(encoding="utf-8"))
        except ParseError:
            continue
    entry = {"subject_id": "m-1", "subject_version": "1.0", "display_name": "M", "kind": "llm", "provider": "P",
             "parameters": "7B", "evaluation_date": "2026-01-02", "notes": "n",
             "history": [{"subject_version": "0.9", "status": "retired", "last_snapshot": "2026-01-01"}]}
    values = [None, True, 0, 1.5, "", "=x", "-x", "\tx", "x", "1.10", "2026-1-2", "A" * 65, [], {}, ["x"],
              datetime.date(2026, 1, 2), b"x", {"x"}, [("a", 1)], ("a",), {1: "x"}, float("nan"), 10**30]
    yield "registry", {"subjects": [entry]}
    for key in list(entry):
        for value in values:
            yield "registry", {"subjects": [dict(entry, **{key: value})]}
            yield "registry", {"subjects": [dict(entry, history=[dict(entry["history"][0], **{key: value})])]}
        yield "registry", {"subjects": [{k: v for k, v in entry.items() if k != key}]}
    for value in values:
        yield "registry", {"subjects": value}
        yield "registry", value
        yield "catalog", {"automatic_fails": [{"code": "AF-X", "severity": "critical", "title": "t", "description": value}]}


def test_schema_errors_equal_the_reference_on_yaml_documents():
    """YAML can hold dates, bytes, sets and tuples, which jsonschema-rs cannot be trusted with."""
    checked = 0
    for kind, doc in yaml_documents():
        assert schema_errors(SPEC.validators[kind], doc) == reference_errors(kind, doc), (kind, doc)
        checked += 1
    assert checked > 300


def metaschema_format_positions() -> dict[str, set[tuple[str, ...]]]:
    """Formats the draft 2020-12 meta-schema uses, each with the property paths where it applies."""
    from jsonschema_specifications import REGISTRY

    found: dict[str, set[tuple[str, ...]]] = {}

    def walk(value, path):
        if isinstance(value, dict):
            if isinstance(value.get("format"), str):
                found.setdefault(value["format"], set()).add(path[-2:] if path[-1:] == ("propertyNames",) else path[-1:])
            for key, item in value.items():
                walk(item, path + (key,))
        elif isinstance(value, list):
            for item in value:
                walk(item, path)

    for uri in REGISTRY:
        if "/draft/2020-12/" in uri:
            walk(REGISTRY[uri].contents, ())
    return found


def test_python_jsonschema_checks_only_the_regex_format_on_schemas_and_only_where_the_fast_check_looks():
    """meta_schema_accepts compiles every pattern and patternProperties key: all check_schema checks beyond jsonschema-rs."""
    positions = metaschema_format_positions()
    checked = set(positions) & set(Draft202012Validator.FORMAT_CHECKER.checkers)
    assert checked == {"regex"}
    assert positions["regex"] == {("pattern",), ("patternProperties", "propertyNames")}


def schema_mutations():
    """The schema files, and the smallest one (catalog) with keywords set to bad values at its root and at a leaf."""
    def read(kind: str) -> dict:
        return json.loads((LIBRARY_SYSTEM / "schemas" / SPEC.version_dir / f"{kind}.schema.json").read_text())

    for kind in SCHEMA_KINDS:
        schema = read(kind)
        yield schema
        yield {k: v for k, v in schema.items() if k != "$schema"}
        yield dict(schema, **{"$schema": "http://json-schema.org/draft-07/schema#"})
    catalog = read("catalog")
    bad = [None, True, -1, 1.5, "x", "string", "(", "\\p{L}", "(?P<n>a)", [], ["a", "a"], {}, {"type": "foo"}]
    keys = ["type", "pattern", "minLength", "required", "enum", "properties", "additionalProperties", "items",
            "patternProperties", "$ref", "$defs", "const", "$schema", "$id", "minimum", "allOf", "format", "uniqueItems"]
    for leaf in (False, True):
        for key in keys:
            for value in bad:
                changed = copy.deepcopy(catalog)
                place = changed["properties"]["automatic_fails"]["items"]["properties"]["code"] if leaf else changed
                place[key] = {value: {}} if key == "patternProperties" and isinstance(value, str) else value
                yield changed


def reference_schema_problem(schema) -> str | None:
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return exc.message
    return None


def test_fast_schema_check_passes_only_schemas_python_jsonschema_passes():
    fast_passed = checked = 0
    for schema in schema_mutations():
        expected = reference_schema_problem(schema)
        if meta_schema_accepts(schema):
            fast_passed += 1
            assert expected is None, schema
        assert schema_problem(schema) == expected, schema
        checked += 1
    assert checked > 400 and fast_passed > 100


@pytest.mark.parametrize("pattern", ["(", "\\p{L}", "a{2,1}"])
def test_a_pattern_python_cannot_compile_is_worded_by_python_jsonschema(pattern):
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "properties": {"a": {"pattern": pattern}}}
    assert not meta_schema_accepts(schema)
    assert schema_problem(schema) == reference_schema_problem(schema) is not None


def test_an_unfilled_template_names_json_null_and_the_fix():
    # python-jsonschema words a JSON null as Python's None ("None is not of type 'integer'"); a reviewer who ran
    # new_scoring and forgot a score reads JSON's word, and what to do.
    document = template(SPEC, subject_id="s", subject_version="1", case_id="RO-FOUL-001", run_id="r1",
                        reviewer_id="rev-a", response_sha256="0" * 64, gold_sha256="0" * 64)
    document["criterion_scores"] = dict.fromkeys(document["criterion_scores"], 1)
    assert document_errors(SPEC, "evaluation", document) == ["$.correctness: null is not one of [0, 0.5, 1] (fill it in)"]
    document["correctness"], document["criterion_scores"][SPEC.criteria[0]] = 1, None
    assert document_errors(SPEC, "evaluation", document) == [
        f"$.criterion_scores.{SPEC.criteria[0]}: null is not of type 'integer' (fill it in)"]

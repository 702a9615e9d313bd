"""The fast validator (jsonschema-rs) and the reference one (python-jsonschema) agree.

Valid documents are accepted by the fast path alone, so a disagreement would let
an invalid file through silently. Every JSON document of the fixtures, the
treebuilder and a family of mutations is checked with both.
"""

from __future__ import annotations

import copy
import json


from rgbench.gold_markdown import extract_gold_json
from rgbench.parsing import ParseError, loads_json_strict
from rgbench.spec import load_spec, schema_errors
from treebuilder import REPO, MiniTree

SPEC, _ = load_spec(REPO)
FIXTURES = REPO / "tests" / "fixtures"


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
        assert SPEC.fast_validators[kind].is_valid(doc) == (schema_errors(SPEC.validators[kind], doc) == []), doc
        checked += 1
    assert checked > 20


def test_validators_agree_on_mutations(tmp_path):
    checked = 0
    for kind, doc in mutations(tmp_path):
        fast = SPEC.fast_validators[kind].is_valid(doc)
        assert fast == (schema_errors(SPEC.validators[kind], doc) == []), (kind, doc)
        checked += 1
    assert checked > 300

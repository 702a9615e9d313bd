"""Subject kinds are what the registry schema declares: `llm`, `human`, or any other (e.g. `system`, a 2021
translation system), through every command and the page, shown as written.

The tree is make_synthetic's with --kinds llm,system: its registry schema declares system beside the seed's
llm and human, and its subjects are llm and system in turn.
"""

from __future__ import annotations

import csv
import json

import make_synthetic
import pytest
from treebuilder import LIBRARY_ROOT

from rgbench.cli import run_script
from rgbench.load.subject_kinds import kind_problems
from rgbench.problems import Problem

SCHEMA = "system/schemas/v1.0/registry.schema.json"
WHERE = "$.properties.subjects.items.properties.kind"


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("kinds") / "tree"
    assert make_synthetic.main(["--subjects", "5", "--cases", "12", "--runs", "1", "--out", str(root),
                                "--root", str(LIBRARY_ROOT), "--kinds", "llm,system"]) == 0
    return root


def test_make_synthetic_declares_the_kinds_and_gives_them_in_turn(tree):
    schema = json.loads((tree / SCHEMA).read_text())
    assert schema["properties"]["subjects"]["items"]["properties"]["kind"]["enum"] == ["llm", "human", "system"]
    registry = (tree / "subjects/registry.yaml").read_text()
    assert [line.strip() for line in registry.splitlines() if "kind:" in line] == [
        'kind: "llm"', 'kind: "system"', 'kind: "llm"', 'kind: "system"', 'kind: "llm"']


@pytest.mark.slow   # end to end: make test-slow (CI runs it)
def test_a_declared_kind_goes_through_every_command_and_the_page_shows_it_as_written(tree, capsys):
    assert run_script("metrics", ["--root", str(tree)]) == 0
    assert run_script("check", ["--root", str(tree)]) == 0
    capsys.readouterr()
    with open(tree / "results/leaderboard.csv", newline="") as handle:
        kinds = {row["subject_id"]: row["kind"] for row in csv.DictReader(handle)}
    assert kinds == {"synth-000": "llm", "synth-001": "system", "synth-002": "llm", "synth-003": "system",
                     "synth-004": "llm"}
    page = (tree / "results/leaderboard.html").read_text()
    # the Ranked table's tag, the page-wide filter, and the facets page.js filters on
    assert page.count('<span class="tag">system</span>') >= 2 and page.count('<span class="tag">LLM</span>') >= 3
    assert '<option value="llm">LLM</option><option value="system">system</option>' in page
    assert page.count('data-kind="system"') == 2


def test_a_kind_the_schema_does_not_declare_is_refused_with_where_to_declare_it(tree, tmp_path, capsys):
    import shutil

    from rgbench.cli import run_script

    copy = tmp_path / "tree"
    shutil.copytree(tree, copy, ignore=shutil.ignore_patterns("results"))
    registry = copy / "subjects/registry.yaml"
    registry.write_text(registry.read_text().replace('kind: "system"', 'kind: "robot"', 1))
    assert run_script("validate", ["--root", str(copy)]) == 1
    assert capsys.readouterr().err.splitlines()[0] == (
        "subjects/registry.yaml: $.subjects[1].kind: 'robot' is not one of ['llm', 'human', 'system'] "
        f"(use one of those kinds, or declare it in the kind enum of {SCHEMA})")


def schema_with_kind(kind: object) -> dict:
    return {"properties": {"subjects": {"items": {"properties": {"kind": kind}}}}}


def test_the_declared_kinds_are_checked_usable():
    assert kind_problems(SCHEMA, schema_with_kind({"enum": ["llm", "human", "system", "MT system 2021"]})) == []
    assert kind_problems(SCHEMA, {"properties": {"subjects": {"items": {"properties": {}}}}}) == []  # none declared
    assert kind_problems(SCHEMA, schema_with_kind({"type": "string"})) == [Problem(SCHEMA, (
        f"{WHERE}: declares no kinds (list them as an enum of strings, e.g. \"enum\": [\"llm\", \"human\", \"system\"]; "
        "or remove kind from the registry schema)"))]
    found = kind_problems(SCHEMA, schema_with_kind({"enum": ["llm", "=cmd", "llm", "a\u200bb", 3, "x" * 65]}))
    assert [p.message for p in found] == [
        f"{WHERE}.enum[1]: '=cmd' does not start with a letter or a digit (start it with one: a leading =, +, - or @ "
        "is a spreadsheet formula)",
        f"{WHERE}.enum[2]: 'llm' is declared twice (list each kind once)",
        f"{WHERE}.enum[3]: 'a\\u200bb' holds a character readers cannot see (remove control, format and separator "
        "characters)",
        f"{WHERE}.enum[4]: 3 is not a non-empty string (write each kind as text, e.g. system)",
        f"{WHERE}.enum[5]: '{'x' * 65}' is longer than 64 characters (shorten it)"]


def test_every_command_refuses_a_system_whose_kinds_are_unusable(tree, tmp_path, capsys):
    import shutil

    from rgbench.cli import run_script

    copy = tmp_path / "tree"
    shutil.copytree(tree, copy, ignore=shutil.ignore_patterns("results"))
    schema = json.loads((copy / SCHEMA).read_text())
    schema["properties"]["subjects"]["items"]["properties"]["kind"] = {"type": "string"}
    (copy / SCHEMA).write_text(json.dumps(schema, indent=2) + "\n")
    assert run_script("validate", ["--root", str(copy)]) == 1
    assert f"{SCHEMA}: {WHERE}: declares no kinds" in capsys.readouterr().err

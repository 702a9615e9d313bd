"""Issue 23: a field an adopter made optional in a schema (listed in ``properties``, left out of ``required``)
passed the system check and then every command died with a traceback (``KeyError: 'confidence'``,
``KeyError: 'difficulty'``, ...). The schemas are the one declaration of what a benchmark records (DESIGN D1):
such a half-declared field is now a system-check problem saying exactly what to write, reported like any other
problem (exit 1, nothing written, no traceback); and a field left out of the schema entirely is simply not
recorded, so every command runs.

Each tree is a tiny synthetic one (make_synthetic.py on the library fixture's system/) whose schema and files are
edited the way an adopter would: drop the field from ``required`` (and from the files), re-pin the scorings.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from make_synthetic import build
from treebuilder import LIBRARY_ROOT, SCHEMA, edit_json, extract_gold_json

from rgbench.cli import run_script

# field -> (schema kind, the kind of file that carries it)
FIELDS = {
    "confidence": ("response", "responses"),
    "correctness": ("evaluation", "scoring"),
    "difficulty": ("gold", "golds"),
    "case_type": ("gold", "golds"),
    "rubric_floor": ("gold", "golds"),
    "rubric_ceiling": ("gold", "golds"),
}


def _drop_from_golds(root: Path, field: str) -> None:
    for path in sorted((root / "golds").rglob("*_gold.md")):
        text = path.read_text(encoding="utf-8")
        meta = extract_gold_json(text)
        start = text.index("```json\n")
        meta.pop(field, None)
        path.write_text(text[:start] + "```json\n" + json.dumps(meta, indent=2) + "\n```\n", encoding="utf-8")


def repin(root: Path) -> None:
    """Every scoring's response_sha256 and gold_sha256 set to the files' current bytes."""
    def digest(rel: str) -> str:
        return hashlib.sha256((root / rel).read_bytes()).hexdigest()

    def change(doc: dict) -> None:
        doc["response_sha256"] = digest(f"responses/v1.0/{doc['subject_id']}/{doc['case_id']}__{doc['run_id']}.json")
        doc["gold_sha256"] = digest(f"golds/v1.0/{doc['case_id']}_gold.md")

    for path in sorted((root / "scoring").rglob("*.json")):
        edit_json(path, change)


def half_declared(tmp_path: Path, field: str, *, keep_property: bool) -> Path:
    """A synthetic tree whose schema no longer requires ``field`` (and, unless ``keep_property``, no longer lists
    it), with the field removed from every file that carries it."""
    root = tmp_path / "tree"
    build(root, 3, 6, 1, seed=5, root=LIBRARY_ROOT)
    kind, folder = FIELDS[field]

    def schema_change(schema: dict) -> None:
        schema["required"].remove(field)
        if not keep_property:
            del schema["properties"][field]
    edit_json(root / SCHEMA.format(kind), schema_change)
    if folder == "golds":
        _drop_from_golds(root, field)
    else:
        for path in sorted((root / folder).rglob("*.json")):
            edit_json(path, lambda doc: doc.pop(field, None))
    repin(root)
    return root


@pytest.mark.parametrize("field", sorted(FIELDS))
def test_a_field_listed_but_not_required_is_a_problem_with_the_fix_not_a_traceback(tmp_path, field, capsys):
    root = half_declared(tmp_path, field, keep_property=True)
    kind = FIELDS[field][0]
    for script in ("validate", "metrics"):
        assert run_script(script, ["--root", str(root)]) == 1, script
        err = capsys.readouterr().err
        assert (f"system/schemas/v1.0/{kind}.schema.json: $.properties.{field}: listed but not required" in err), err
        assert f'add "{field}" to $.required' in err and f"remove $.properties.{field}" in err, err
    assert not (root / "results").exists()


@pytest.mark.parametrize("field", sorted(FIELDS))
def test_a_field_left_out_of_the_schema_is_not_recorded_and_every_command_runs(tmp_path, field, capsys):
    root = half_declared(tmp_path, field, keep_property=False)
    assert run_script("validate", ["--root", str(root)]) == 0, capsys.readouterr().err
    assert run_script("metrics", ["--root", str(root)]) == 0, capsys.readouterr().err
    assert (root / "results/leaderboard.html").is_file()

"""What a benchmark records, declared once: by its schemas (issue 23, DESIGN D1).

A benchmark records a per-answer or per-case field when its schema lists the field in ``required`` (and so
in ``properties``): ``confidence`` in the response schema, ``correctness`` in the evaluation schema,
``difficulty``, ``case_type``, ``rubric_floor`` and ``rubric_ceiling`` in the gold schema. Left out of the
schema entirely, the field is not recorded: no file may carry it, and the figures that need it are absent
(their cells empty, the page says once why). Listed in ``properties`` but not in ``required``, some files
would carry it and others not, which no figure can use: a system-check problem that says exactly what to
write (:func:`declaration_problems`). ``tags`` and ``title`` of a gold stay optional per gold.

Pure functions of the parsed schemas.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..problems import Problem

# field -> the schema (kind) that declares it
OPTIONAL_FIELDS: dict[str, str] = {
    "confidence": "response",
    "correctness": "evaluation",
    "difficulty": "gold",
    "case_type": "gold",
    "rubric_floor": "gold",
    "rubric_ceiling": "gold",
}


class Recorded(NamedTuple):
    """Which optional fields the benchmark records (True: every file of the kind carries it)."""

    confidence: bool = True
    correctness: bool = True
    difficulty: bool = True
    case_type: bool = True
    rubric_floor: bool = True
    rubric_ceiling: bool = True


def _listed(schema: Any, key: str) -> tuple[bool, bool]:
    """(in ``properties``, in ``required``) of ``key`` in ``schema`` (False, False for a schema that is not a mapping)."""
    if not isinstance(schema, dict):
        return False, False
    properties, required = schema.get("properties"), schema.get("required")
    return (isinstance(properties, dict) and key in properties, isinstance(required, list) and key in required)


def recorded(schemas: dict[str, Any]) -> Recorded:
    """The fields the schemas require; a schema that is absent (unreadable: its own problem) records everything."""
    return Recorded(**{name: kind not in schemas or all(_listed(schemas[kind], name))
                       for name, kind in OPTIONAL_FIELDS.items()})


def declaration_problems(schemas: dict[str, Any], version_dir: str) -> list[Problem]:
    """A field listed in ``properties`` but not ``required`` (or required but not listed): which fix to make."""
    problems = []
    for name, kind in OPTIONAL_FIELDS.items():
        if kind not in schemas:
            continue
        rel = f"system/schemas/{version_dir}/{kind}.schema.json"
        listed, required = _listed(schemas[kind], name)
        if listed and not required:
            problems.append(Problem(rel, f"$.properties.{name}: listed but not required, so some files would carry "
                                         f"it and others not, which no figure can use (add \"{name}\" to $.required "
                                         f"if the benchmark records it, or remove $.properties.{name} if it does "
                                         "not: its figures are then left out)"))
        elif required and not listed:
            problems.append(Problem(rel, f"$.required: lists \"{name}\" without a $.properties.{name} "
                                         f"(declare it there, or remove \"{name}\" from $.required if the benchmark "
                                         "does not record it)"))
    return problems

"""``subjects/registry.yaml``: the one reader of the registry, for every script that needs it.

Strict YAML, the benchmark's registry schema (``system/schemas/<version>/registry.schema.json``)
and one entry per ``subject_id``; every problem is returned as a message, never raised.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..problems import Problem
from .parsing import ParseError, decode_utf8, loads_yaml_strict
from .records import Subject
from .safe_read import read_single_file
from .spec import Spec, schema_errors

REGISTRY_FILE = "subjects/registry.yaml"
_QUOTE_HINT = " (quote the value in YAML so it stays text, e.g. \"1.10\")"


def parse_registry(data: bytes, spec: Spec) -> tuple[dict[str, Any] | None, list[str]]:
    """The registry document when it parses, matches its schema and registers each subject once; else
    (None, every message)."""
    try:
        document = loads_yaml_strict(decode_utf8(data))
    except ParseError as exc:
        return None, [str(exc)]
    errors = schema_errors(spec.validators["registry"], document)
    if errors:
        return None, [error + (_QUOTE_HINT if error.endswith("is not of type 'string'") else "") for error in errors]
    first: dict[str, int] = {}
    messages = []
    for index, item in enumerate(document["subjects"]):
        sid = item["subject_id"]
        if sid in first:
            messages.append(f"$.subjects[{index}].subject_id: duplicate subject_id {sid!r} "
                            f"(first at $.subjects[{first[sid]}]); each subject is registered once")
        else:
            first[sid] = index
    return (None, messages) if messages else (document, [])


def read_registry(root: Path, spec: Spec) -> tuple[dict[str, Any] | None, bytes | None, list[Problem]]:
    """(document, the file's bytes, []) for a valid registry of the tree ``root``, else (None, bytes or None,
    problems)."""
    data, problems = read_single_file(root, REGISTRY_FILE)
    if data is None:
        return None, None, problems
    document, messages = parse_registry(data, spec)
    return document, data, [Problem(REGISTRY_FILE, message) for message in messages]


def registered_subjects(document: dict[str, Any]) -> dict[str, Subject]:
    """The subjects of a valid registry document, by subject_id; ``extra`` keeps the other fields."""
    return {
        item["subject_id"]: Subject(item["subject_id"], item["subject_version"],
                                    tuple(sorted((k, v) for k, v in item.items()
                                                 if k not in ("subject_id", "subject_version"))))
        for item in document["subjects"]
    }


def entries(document: dict[str, Any]) -> dict[str, tuple[int, dict[str, Any]]]:
    """Registry entries by subject_id, with their index (the first one when an id repeats)."""
    found: dict[str, tuple[int, dict[str, Any]]] = {}
    for index, item in enumerate(document["subjects"]):
        found.setdefault(item["subject_id"], (index, item))
    return found

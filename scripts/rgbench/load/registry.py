"""``subjects/registry.yaml``: the one reader of the registry, for every script that needs it.

Strict YAML, the benchmark's registry schema (``system/schemas/<version>/registry.schema.json``)
and one entry per ``subject_id``; every problem is returned as a message, never raised. A subject's optional
``answered_by`` (code-host logins) is the review gate's, read from the base branch's copy
(rgbench.governance.authorship), and the source of CODEOWNERS' generated block (rgbench.governance.codeowners).
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any, NamedTuple

from ..problems import Problem
from .extract import max_file_bytes
from .parsing import ParseError, bidi_control_problem, decode_utf8, loads_yaml_strict
from .records import Subject
from .safe_read import read_single_file
from .spec import Spec, schema_errors
from .subject_kinds import undeclared_hint

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
        schema_rel = f"system/schemas/{spec.version_dir}/registry.schema.json"
        return None, [error + (_QUOTE_HINT if error.endswith("is not of type 'string'") else undeclared_hint(error, schema_rel))
                      for error in errors]
    first: dict[str, int] = {}
    messages = []
    for index, item in enumerate(document["subjects"]):
        sid = item["subject_id"]
        if sid in first:
            messages.append(f"$.subjects[{index}].subject_id: duplicate subject_id {sid!r} "
                            f"(first at $.subjects[{first[sid]}]); each subject is registered once")
        else:
            first[sid] = index
    messages += name_problems(document["subjects"])
    return (None, messages) if messages else (document, [])


# Text readers see on the leaderboard: no character they cannot see or that reorders what they see.
SHOWN_FIELDS = ("display_name", "provider", "parameters")
_INVISIBLE = {"Cc": "a control character", "Cf": "a format character (bidirectional override or zero-width)",
              "Cs": "a surrogate", "Co": "a private-use character", "Cn": "an unassigned code point",
              "Zl": "a line separator", "Zp": "a paragraph separator"}


def invisible_character(text: str) -> tuple[int, str, str] | None:
    """(index, character, what it is) of the first character of ``text`` that a reader cannot see as it is:
    control (NUL, tab, newline, ...), format (U+202E right-to-left override, U+200B zero-width space, ...),
    surrogate, private-use, unassigned, line or paragraph separator; None when there is none."""
    for index, char in enumerate(text):
        what = _INVISIBLE.get(unicodedata.category(char))
        if what is not None:
            return index, char, what
    return None


def name_key(name: str) -> str:
    """What makes two display names the same to a reader: NFKC, case and runs of spaces ignored."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def name_problems(items: list[dict[str, Any]]) -> list[str]:
    """Shown text with invisible characters, notes with a bidirectional control (free text: any other
    character is fine), and display names (defaulting to the subject_id) that a reader could not tell apart.

    Look-alike letters (Cyrillic ``а`` for Latin ``a``) are accepted in a display name: names are any language
    (a Cyrillic name is as legitimate as a Latin one), what identifies a subject is its subject_id (ASCII by
    the schema, as are reviewer, case and run ids), which responses, grades, leaderboard.csv and the page's
    details and profiles show beside the name, and a new name is a registry change a maintainer reviews."""
    messages = []
    seen: dict[str, int] = {}
    for index, item in enumerate(items):
        for key in SHOWN_FIELDS:
            value = item.get(key)
            found = invisible_character(value) if isinstance(value, str) else None
            if found is not None:
                at, char, what = found
                messages.append(f"$.subjects[{index}].{key}: character {at} is U+{ord(char):04X}, {what}; "
                                "text shown to readers may not hold one (remove it)")
        notes = item.get("notes")
        found_bidi = bidi_control_problem(f"$.subjects[{index}].notes", notes) if isinstance(notes, str) else None
        if found_bidi:
            messages.append(found_bidi)
        name = item.get("display_name", item["subject_id"])
        key = name_key(name)
        if key in seen:
            messages.append(f"$.subjects[{index}].display_name: {name!r} is the display name of "
                            f"$.subjects[{seen[key]}] too (ignoring case, width and spacing); "
                            "display names must be unique (choose another)")
        else:
            seen[key] = index
    return messages


def read_registry(root: Path, spec: Spec) -> tuple[dict[str, Any] | None, bytes | None, list[Problem]]:
    """(document, the file's bytes, []) for a valid registry of the tree ``root``, else (None, bytes or None,
    problems)."""
    data, problems = read_single_file(root, REGISTRY_FILE, max_file_bytes(spec, "registry"))
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


class RegistryEntry(NamedTuple):
    """One item of the registry's ``subjects`` list and its position there (for ``$.subjects[i]`` messages)."""

    position: int
    item: dict[str, Any]


def entries(document: dict[str, Any]) -> dict[str, RegistryEntry]:
    """Registry entries by subject_id, with their index (the first one when an id repeats)."""
    found: dict[str, RegistryEntry] = {}
    for index, item in enumerate(document["subjects"]):
        found.setdefault(item["subject_id"], RegistryEntry(index, item))
    return found

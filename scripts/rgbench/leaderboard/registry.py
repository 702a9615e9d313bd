"""The registry's presentation fields: display name, kind, provider, parameters, evaluation date, notes.

The registry is validated with the benchmark's own schema
(``system/schemas/<version>/registry.schema.json``), so the leaderboard accepts
exactly what ``validate.py`` accepts.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from ..parsing import ParseError, decode_utf8, loads_yaml_strict
from ..problems import Problem
from ..safe_read import read_single_file
from ..spec import Spec, schema_errors

REGISTRY_PATH = "subjects/registry.yaml"

# Optional registry fields shown on the leaderboard, in the order of the CSV's extra columns.
METADATA_FIELDS = ("kind", "provider", "parameters", "evaluation_date")


@dataclass(frozen=True)
class RegisteredSubject:
    """One registry entry as the leaderboard shows it; absent optional fields are ``""``."""

    subject_id: str
    subject_version: str
    display_name: str = ""
    kind: str = ""
    provider: str = ""
    parameters: str = ""
    evaluation_date: str = ""
    notes: str = ""

    @property
    def name(self) -> str:
        """The name shown to readers: ``display_name`` when registered, else the ``subject_id``."""
        return self.display_name or self.subject_id

    def metadata(self) -> dict[str, str]:
        """The registered metadata (see METADATA_FIELDS), ``""`` where absent."""
        return {name: getattr(self, name) for name in METADATA_FIELDS}


@dataclass(frozen=True)
class Registry:
    """Registered subjects by subject_id, and the sha256 of the registry file's bytes."""

    subjects: dict[str, RegisteredSubject]
    sha256: str


def parse_registered_subjects(document: object, validator: object) -> tuple[dict[str, RegisteredSubject], list[str]]:
    """Registered subjects from a parsed registry document, or the messages saying what is wrong."""
    errors = schema_errors(validator, document)
    if errors:
        return {}, errors
    subjects: dict[str, RegisteredSubject] = {}
    first: dict[str, int] = {}
    messages = []
    for index, item in enumerate(document["subjects"]):  # type: ignore[index]
        sid = item["subject_id"]
        if sid in first:
            messages.append(f"$.subjects[{index}].subject_id: duplicate subject_id {sid!r} "
                            f"(first at $.subjects[{first[sid]}]); each subject is registered once")
            continue
        first[sid] = index
        fields = {key: item[key] for key in RegisteredSubject.__dataclass_fields__ if key in item}
        subjects[sid] = RegisteredSubject(**fields)
    return (subjects, []) if not messages else ({}, messages)


def read_registered_subjects(root: Path, spec: Spec) -> tuple[Registry | None, list[Problem]]:
    """Read and validate ``subjects/registry.yaml``; (registry, []) or (None, problems)."""
    data, problems = read_single_file(root, REGISTRY_PATH)
    if data is None:
        return None, problems
    try:
        document = loads_yaml_strict(decode_utf8(data))
    except ParseError as exc:
        return None, [Problem(REGISTRY_PATH, str(exc))]
    subjects, messages = parse_registered_subjects(document, spec.validators["registry"])
    if messages:
        return None, [Problem(REGISTRY_PATH, message) for message in messages]
    return Registry(subjects, hashlib.sha256(data).hexdigest()), []

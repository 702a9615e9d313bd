"""The registry's presentation fields: display name, kind, provider, parameters, evaluation date, notes.

The registry is validated with the benchmark's own schema
(``system/schemas/<version>/registry.schema.json``), so the leaderboard accepts
exactly what ``validate.py`` accepts.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from ..load.registry import read_registry
from ..load.spec import Spec
from ..problems import Problem

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


@dataclass(frozen=True)
class Registry:
    """Registered subjects by subject_id, and the sha256 of the registry file's bytes."""

    subjects: dict[str, RegisteredSubject]
    sha256: str


def read_registered_subjects(root: Path, spec: Spec) -> tuple[Registry | None, list[Problem]]:
    """Read and validate ``subjects/registry.yaml`` (:func:`rgbench.load.registry.read_registry`);
    (registry, []) or (None, problems)."""
    document, data, problems = read_registry(root, spec)
    if document is None or data is None:
        return None, problems
    subjects = {}
    for item in document["subjects"]:
        fields = {key: item[key] for key in RegisteredSubject.__dataclass_fields__ if key in item}
        subjects[item["subject_id"]] = RegisteredSubject(**fields)
    return Registry(subjects, hashlib.sha256(data).hexdigest()), []

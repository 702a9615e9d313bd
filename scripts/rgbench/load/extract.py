"""Per-file work, independent of every other file: parse strictly, validate, keep the fields that matter.

``extract`` is a pure function of (kind, bytes, spec), so files can be
processed in parallel (parallel.py). Checks that involve the file's path or
other files happen later, in loader.py.
"""

from __future__ import annotations

import hashlib
from typing import Any

from .gold_markdown import extract_gold_json
from .parsing import ParseError, decode_utf8, loads_json_strict
from .spec import Spec, document_errors

RESPONSE, EVALUATION, GOLD = "response", "evaluation", "gold"
# (sha256 hex, problem messages, fields or None when the file is invalid)
Extracted = tuple[str, tuple[str, ...], tuple | None]


def _fields(kind: str, document: dict, spec: Spec) -> tuple:
    if kind == RESPONSE:
        return (document["subject_id"], document["subject_version"], document["case_id"], document["run_id"],
                int(document["confidence"]))
    if kind == EVALUATION:
        scores = document["criterion_scores"]
        fails = tuple((fail["code"], fail["severity"]) for fail in document["automatic_fails_triggered"])
        correctness = {0: "0", 0.5: "1/2", 1: "1"}[document["correctness"]]
        return (document["subject_id"], document["subject_version"], document["case_id"], document["run_id"],
                document["reviewer_id"], tuple(int(scores[name]) for name in spec.criteria), fails, correctness,
                document.get("response_sha256"))
    return (document["case_id"], document["family"], document["case_type"], document["rubric_floor"],
            document["rubric_ceiling"], document["difficulty"])


def extract(kind: str, data: bytes, spec: Spec) -> Extracted:
    """Digest, problems and fields of one file's bytes.

    Fields are, for a response: (subject_id, subject_version, case_id, run_id,
    confidence); for a scoring: (subject_id, subject_version, case_id, run_id,
    reviewer_id, criterion scores in spec order, ((code, severity), ...),
    correctness as "0" | "1/2" | "1", response_sha256 or None); for a gold:
    (case_id, family, case_type, rubric_floor, rubric_ceiling, difficulty).
    """
    digest = hashlib.sha256(data).hexdigest()
    try:
        text = decode_utf8(data)
        document: Any = extract_gold_json(text) if kind == GOLD else loads_json_strict(text)
    except ParseError as exc:
        return digest, (str(exc),), None
    errors = document_errors(spec, kind, document)
    if errors:
        return digest, tuple(errors), None
    return digest, (), _fields(kind, document, spec)

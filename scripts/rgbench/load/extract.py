"""Per-file work, independent of every other file: parse strictly, validate, keep the fields that matter.

``extract`` is a pure function of (kind, bytes, spec), so files can be
processed in parallel (parallel.py). Checks that involve the file's path or
other files happen later, in loader.py.
"""

from __future__ import annotations

import hashlib
from fractions import Fraction
from typing import Any, NamedTuple

from .gold_markdown import extract_gold_json
from .parsing import ParseError, decode_utf8, exact_decimal, loads_json_strict
from .records import ANSWERED, Gold, ResponseMeta
from .safe_read import MAX_FILE_BYTES
from .spec import Spec, document_errors
from .system_check import CORRECTNESS_DECIMALS

RESPONSE, EVALUATION, GOLD = "response", "evaluation", "gold"


class ResponseFields(NamedTuple):
    """What the metrics need of a valid response."""

    subject_id: str
    subject_version: str
    case_id: str
    run_id: str
    confidence: int | None   # None when the response schema does not record it
    meta: ResponseMeta = ANSWERED


class ScoringFields(NamedTuple):
    """What the metrics need of a valid scoring; ``scores`` in the order of the rubric's criteria."""

    subject_id: str
    subject_version: str
    case_id: str
    run_id: str
    reviewer_id: str
    scores: tuple[int, ...]
    fails: tuple[tuple[str, str], ...]   # (code, severity) as listed
    correctness: Fraction | None         # None when the evaluation schema does not record it
    response_sha256: str   # sha256 of the graded response's bytes (required by the schema)
    gold_sha256: str       # sha256 of the gold's bytes the grade was made against
    comments: str = ""


Fields = ResponseFields | ScoringFields | Gold   # a gold's path is filled in by the loader


class Extracted(NamedTuple):
    """One file's sha256 (hex; ``""`` when it could not be read), its problems, and its fields (None when invalid)."""

    sha256: str
    problems: tuple[str, ...]
    fields: Fields | None


def response_meta(document: dict) -> ResponseMeta:
    """The run metadata a valid response declares (status, participant, usage, settings); None where absent."""
    usage = document.get("usage") or {}
    settings = document.get("generation_parameters") or {}
    temperature = settings.get("temperature")
    meta = ResponseMeta(
        document.get("status", "answered"), document.get("participant"),
        usage.get("input_tokens"), usage.get("output_tokens"),
        None if temperature is None else str(temperature), settings.get("max_tokens"),
        document.get("generated_on"))
    return ANSWERED if meta == ANSWERED else meta


def _fields(kind: str, document: dict, spec: Spec) -> Fields:
    """The fields of a valid document; an optional field the schema does not record (so no valid document
    carries it, :mod:`.recorded`) is None."""
    if kind == RESPONSE:
        confidence = int(document["confidence"]) if spec.has_confidence else None
        return ResponseFields(document["subject_id"], document["subject_version"], document["case_id"],
                              document["run_id"], confidence, response_meta(document))
    if kind == EVALUATION:
        scores = document["criterion_scores"]
        return ScoringFields(
            document["subject_id"], document["subject_version"], document["case_id"], document["run_id"],
            document["reviewer_id"], tuple(int(scores[name]) for name in spec.criteria),
            tuple((fail["code"], fail["severity"]) for fail in document["automatic_fails_triggered"]),
            exact_decimal(document["correctness"]) if spec.has_correctness else None, document["response_sha256"],
            document["gold_sha256"], document.get("comments", ""))
    return Gold(document["case_id"], document["family"], document["case_type"] if spec.has_case_type else None,
                document["rubric_floor"] if spec.has_rubric_floor else None,
                document["rubric_ceiling"] if spec.has_rubric_ceiling else None,
                document["difficulty"] if spec.has_difficulty else None, path="",
                tags=tuple(document.get("tags", ())), title=document.get("title", ""))


def _decimal_problems(kind: str, document: dict, spec: Spec) -> tuple[str, ...]:
    """A correctness with more decimals than a schema without an enum allows (CORRECTNESS_DECIMALS)."""
    if kind != EVALUATION or not spec.has_correctness or spec.correctness_values:
        return ()
    value = exact_decimal(document["correctness"])
    if (value * 10 ** CORRECTNESS_DECIMALS).denominator == 1:
        return ()
    return (f"$.correctness: {document['correctness']} has more than {CORRECTNESS_DECIMALS} decimals (round it to "
            f"{CORRECTNESS_DECIMALS}: the toolkit keeps the Brier sums exact in thousandths)",)


MAX_BYTES_KEY = "x-max-file-bytes"  # a schema's limit on the size of a file of its kind


def max_file_bytes(spec: Spec, kind: str) -> int:
    """The largest file of ``kind`` that is read: the schema's ``x-max-file-bytes`` (at most MAX_FILE_BYTES)."""
    limit = spec.validators[kind].schema.get(MAX_BYTES_KEY) if kind in spec.validators else None
    if isinstance(limit, bool) or not isinstance(limit, int) or not 0 < limit <= MAX_FILE_BYTES:
        return MAX_FILE_BYTES
    return limit


def extract(kind: str, data: bytes, spec: Spec) -> Extracted:
    """Digest, problems and fields of one file's bytes, read as ``kind``."""
    digest = hashlib.sha256(data).hexdigest()
    try:
        text = decode_utf8(data)
        document: Any = extract_gold_json(text) if kind == GOLD else loads_json_strict(text)
    except ParseError as exc:
        return Extracted(digest, (str(exc),), None)
    errors = document_errors(spec, kind, document)
    if errors:
        return Extracted(digest, tuple(errors), None)
    decimals = _decimal_problems(kind, document, spec)
    if decimals:
        return Extracted(digest, decimals, None)
    return Extracted(digest, (), _fields(kind, document, spec))

"""Per-file work, independent of every other file: parse strictly, validate, keep the fields that matter.

``extract`` is a pure function of (kind, bytes, spec), so files can be
processed in parallel (parallel.py). Checks that involve the file's path or
other files happen later, in loader.py.
"""

from __future__ import annotations

import hashlib
from fractions import Fraction
from typing import Any, NamedTuple

from .gold_markdown import gold_data_block, parse_data_block, quoted_blocks_note
from .parsing import ParseError, decode_utf8, exact_decimal, loads_json_strict
from .records import ANSWERED, Gold, ResponseMeta
from .safe_read import MAX_FILE_BYTES
from .spec import Spec, document_errors

RESPONSE, EVALUATION, GOLD = "response", "evaluation", "gold"


class ResponseFields(NamedTuple):
    """What the metrics need of a valid response."""

    subject_id: str
    subject_version: str
    case_id: str
    run_id: str
    confidence: int
    meta: ResponseMeta = ANSWERED


class ScoringFields(NamedTuple):
    """What the metrics need of a valid scoring; ``scores`` in the order of the rubric's criteria."""

    subject_id: str
    subject_version: str
    case_id: str
    run_id: str
    reviewer_id: str
    scores: tuple[int | Fraction, ...]   # exact: an int, or the decimal written (a "type": "number" criterion)
    fails: tuple[tuple[str, str], ...]   # (code, severity) as listed
    correctness: Fraction
    response_sha256: str   # sha256 of the graded response's bytes (required by the schema)
    gold_sha256: str       # sha256 of the gold's bytes the grade was made against
    comments: str = ""


Fields = ResponseFields | ScoringFields | Gold   # a gold's path is filled in by the loader


class Extracted(NamedTuple):
    """One file's sha256 (hex; ``""`` when it could not be read), its problems, and its fields (None when invalid)."""

    sha256: str
    problems: tuple[str, ...]
    fields: Fields | None


def empty_answer(text: object) -> bool:
    """True when ``text`` (a response_text) is a string with no visible character: empty or only whitespace
    (Python's str.isspace: spaces, tabs, newlines, Unicode spaces). Such an answer is an answer, graded like any
    other; the grading page and the case explorer show it as "(empty answer)"."""
    return isinstance(text, str) and not text.strip()


def response_meta(document: dict) -> ResponseMeta:
    """The run metadata a valid response declares (status, participant, usage, settings); None where absent.
    ``empty_answer`` when its response_text is empty or only whitespace (:func:`empty_answer`)."""
    usage = document.get("usage") or {}
    settings = document.get("generation_parameters") or {}
    temperature = settings.get("temperature")
    meta = ResponseMeta(
        document.get("status", "answered"), document.get("participant"),
        usage.get("input_tokens"), usage.get("output_tokens"),
        None if temperature is None else str(temperature), settings.get("max_tokens"),
        document.get("generated_on"), empty_answer(document.get("response_text")))
    return ANSWERED if meta == ANSWERED else meta


def _fields(kind: str, document: dict, spec: Spec) -> Fields:
    if kind == RESPONSE:
        return ResponseFields(document["subject_id"], document["subject_version"], document["case_id"],
                              document["run_id"], int(document["confidence"]), response_meta(document))
    if kind == EVALUATION:
        scores = document["criterion_scores"]
        return ScoringFields(
            document["subject_id"], document["subject_version"], document["case_id"], document["run_id"],
            document["reviewer_id"], tuple(_exact(scores[name]) for name in spec.criteria),
            tuple((fail["code"], fail["severity"]) for fail in document["automatic_fails_triggered"]),
            exact_decimal(document["correctness"]), document["response_sha256"], document["gold_sha256"],
            document.get("comments", ""))
    return Gold(document["case_id"], document["family"], document["case_type"], _exact(document["rubric_floor"]),
                _exact(document["rubric_ceiling"]), document["difficulty"], path="",
                tags=tuple(document.get("tags", ())), title=document.get("title", ""))


def _exact(value: int | float) -> int | Fraction:
    """A score as read from a valid document: an int stays an int (the common, fast case), a decimal becomes
    the exact Fraction of what was written (the strict JSON parser refuses a decimal a float cannot hold)."""
    return value if type(value) is int else exact_decimal(value)


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
    block = None
    try:
        text = decode_utf8(data)
        if kind == GOLD:
            block = gold_data_block(text)
            document: Any = parse_data_block(block)
        else:
            document = loads_json_strict(text)
    except ParseError as exc:
        return Extracted(digest, (str(exc),), None)
    errors = document_errors(spec, kind, document)
    if errors:
        note = quoted_blocks_note(block) if block is not None else None
        return Extracted(digest, (*([note] if note else []), *errors), None)
    return Extracted(digest, (), _fields(kind, document, spec))

"""Per-file work, independent of every other file: parse strictly, validate, keep the fields that matter.

``extract`` is a pure function of (kind, bytes, spec); ``extract_files`` reads
and extracts many files, one after the other (177,000 in about 6 s of one core:
docs/scaling.md). Checks that involve the file's path or other files happen
later, in loader.py.
"""

from __future__ import annotations

import copy
import hashlib
import os
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, NamedTuple

from .gold_markdown import gold_data_block, parse_data_block, quoted_blocks_note
from .parsing import ParseError, bidi_control_problem, decode_utf8, exact_decimal, exact_number, loads_json_strict
from .records import ANSWERED, Gold, ResponseMeta
from .safe_read import MAX_FILE_BYTES, FileTooLarge, TreeFile, read_bytes
from .spec import Spec, document_errors
from .system_check import CORRECTNESS_DECIMALS
from .validation import compiled

RESPONSE, EVALUATION, GOLD = "response", "evaluation", "gold"
# The consolidated grades of a policy whose scores leave the rubric's scale (mean-v1: 4/3 is written 1.333333):
# checked against consolidated_schema(), their scores read exactly.
CONSOLIDATED = "consolidated"


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
    scores: tuple[int | Fraction, ...]   # exact: an int, or the decimal written (a "type": "number" criterion)
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
    """The fields of a valid document; an optional field the schema does not record (so no valid document
    carries it, :mod:`.recorded`) is None."""
    if kind == RESPONSE:
        confidence = int(document["confidence"]) if spec.has_confidence else None
        return ResponseFields(document["subject_id"], document["subject_version"], document["case_id"],
                              document["run_id"], confidence, response_meta(document))
    if kind == EVALUATION or kind == CONSOLIDATED:
        scores = document["criterion_scores"]
        score: Callable[[Any], int | Fraction] = exact_number if kind == EVALUATION else read_mean
        return ScoringFields(
            document["subject_id"], document["subject_version"], document["case_id"], document["run_id"],
            document["reviewer_id"], tuple(score(scores[name]) for name in spec.criteria),
            tuple((fail["code"], fail["severity"]) for fail in document["automatic_fails_triggered"]),
            (exact_decimal if kind == EVALUATION else read_mean)(document["correctness"]) if spec.has_correctness
            else None,
            document["response_sha256"], document["gold_sha256"],
            document.get("comments", ""))
    return Gold(document["case_id"], document["family"], document["case_type"] if spec.has_case_type else None,
                exact_number(document["rubric_floor"]) if spec.has_rubric_floor else None,
                exact_number(document["rubric_ceiling"]) if spec.has_rubric_ceiling else None,
                document["difficulty"] if spec.has_difficulty else None, path="",
                tags=tuple(document.get("tags", ())), title=document.get("title", ""))


def consolidated_schema(evaluation: dict) -> dict:
    """The evaluation schema with every criterion score, and correctness, opened to any number within the
    bounds the schema gives them (an enum's lowest and highest value): what the mean policy's consolidated
    grades hold (the mean of 1, 1 and 2 is 4/3). Everything else (ids, pins, fails, their patterns) is as
    the schema says."""
    schema = copy.deepcopy(evaluation)
    properties = schema.get("properties", {})
    criteria = properties.get("criterion_scores", {}).get("properties", {})
    for name, rule in criteria.items():
        if isinstance(rule, dict):
            criteria[name] = _any_number_within(rule)
    if isinstance(properties.get("correctness"), dict):
        properties["correctness"] = _any_number_within(properties["correctness"])
    return schema


def _any_number_within(rule: dict) -> dict:
    """``rule`` as a number between its bounds: its minimum/maximum, or its enum's lowest/highest value."""
    values = [v for v in rule.get("enum", ()) if isinstance(v, int | float) and not isinstance(v, bool)]
    opened = {key: value for key, value in rule.items() if key not in ("type", "enum", "const", "multipleOf")}
    opened["type"] = "number"
    if values:
        opened["minimum"], opened["maximum"] = min(values), max(values)
    return opened


ROUNDED_DECIMALS = 6        # a mean whose decimal does not end is written rounded to this many decimals
MAX_MEAN_DENOMINATOR = 1000  # ... and read back exactly when its denominator is at most this


def read_mean(value: Any) -> Fraction:
    """A mean-policy consolidated score or correctness, exactly: a value written with exactly 6 decimals is a
    mean rounded there (rgbench.stats.agreement_outputs.consolidated_number) when a fraction of denominator at most 1,000
    lies within half a unit of its 6th decimal, and is read as that fraction (1.333333 -> 4/3: the mean of up to
    1,000 grades on an integer scale comes back exact; two such fractions are more than a unit apart, so there
    is at most one); any other value is read as written."""
    exact = exact_decimal(value)
    if (exact * 10**ROUNDED_DECIMALS).denominator != 1 or (exact * 10**(ROUNDED_DECIMALS - 1)).denominator == 1:
        return exact
    mean = exact.limit_denominator(MAX_MEAN_DENOMINATOR)
    return mean if 2 * 10**ROUNDED_DECIMALS * abs(mean - exact) < 1 else exact


def with_consolidated_validator(spec: Spec) -> None:
    """Add the validator of :func:`consolidated_schema` to ``spec.validators`` (once) as kind CONSOLIDATED."""
    if CONSOLIDATED not in spec.validators and EVALUATION in spec.validators:
        schema = consolidated_schema(spec.validators[EVALUATION].schema)
        spec.validators[CONSOLIDATED] = compiled(schema)


def _decimal_problems(kind: str, document: dict, spec: Spec) -> tuple[str, ...]:
    """A correctness with more decimals than a schema without an enum allows (CORRECTNESS_DECIMALS)."""
    if kind != EVALUATION or not spec.has_correctness or spec.correctness_values:
        return ()
    value = exact_decimal(document["correctness"])
    if (value * 10 ** CORRECTNESS_DECIMALS).denominator == 1:
        return ()
    return (f"$.correctness: {document['correctness']} has more than {CORRECTNESS_DECIMALS} decimals (round it to "
            f"{CORRECTNESS_DECIMALS}: the toolkit keeps the Brier sums exact in thousandths)",)


def _free_texts(kind: str, document: dict) -> list[tuple[str, Any]]:
    """(JSON path, value) of each free text of a valid document: a grade's comments and fail evidence, a
    gold's title and tags."""
    if kind == GOLD:
        return [("$.title", document.get("title"))] + [
            (f"$.tags[{index}]", tag) for index, tag in enumerate(document.get("tags", ()))]
    if kind in (EVALUATION, CONSOLIDATED):
        return [("$.comments", document.get("comments"))] + [
            (f"$.automatic_fails_triggered[{index}].evidence", fail.get("evidence"))
            for index, fail in enumerate(document.get("automatic_fails_triggered", ())) if isinstance(fail, dict)]
    return []


TAG_SEPARATOR = ";"   # joins a case's tags in results/cases.csv, which the explorer splits again


def text_problems(kind: str, document: dict) -> tuple[str, ...]:
    """A bidirectional control in a free text (:func:`.parsing.bidi_control_problem`), a gold's tag holding
    :data:`TAG_SEPARATOR` (it would read as two tags); the grading page asks it of a grade before saving it too."""
    found = [bidi_control_problem(where, text) for where, text in _free_texts(kind, document) if isinstance(text, str)]
    if kind == GOLD:
        found += [f"$.tags[{index}]: {tag!r} holds {TAG_SEPARATOR!r}, which separates a case's tags in "
                  "results/cases.csv, so it would read as two tags (write it without)"
                  for index, tag in enumerate(document.get("tags", ())) if TAG_SEPARATOR in tag]
    return tuple(problem for problem in found if problem)


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
    problems = _decimal_problems(kind, document, spec) + text_problems(kind, document)
    if problems:
        return Extracted(digest, problems, None)
    return Extracted(digest, (), _fields(kind, document, spec))


def extract_files(root: Any, spec: Spec, jobs: Sequence[tuple[TreeFile, str]],
                  progress: Callable[[int], None] | None = None) -> dict[str, Extracted]:
    """The extracted result of every (entry, kind) of ``jobs``, by path; ``progress(done)`` every 2,000 files
    and at the end."""
    limits = {kind: max_file_bytes(spec, kind) for kind in {kind for _, kind in jobs}}
    found: dict[str, Extracted] = {}
    for done, (entry, kind) in enumerate(jobs, 1):
        try:
            found[entry.rel] = extract(kind, read_bytes(os.fspath(root), entry.rel, limits[kind]), spec)
        except FileTooLarge as exc:
            found[entry.rel] = Extracted("", (str(exc),), None)
        except OSError as exc:
            found[entry.rel] = Extracted("", (f"cannot be read: {exc.strerror or exc}",), None)
        if progress and (done % 2000 == 0 or done == len(jobs)):
            progress(done)
    return found

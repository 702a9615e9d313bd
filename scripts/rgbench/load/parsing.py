"""Strict parsing at the boundary: what a lenient parser silently throws away is an error here.

Python's ``json`` keeps the last of duplicate keys, accepts NaN/Infinity and turns
``1e400`` into infinity; PyYAML's ``safe_load`` keeps the last duplicate key. The
functions below refuse all of that and raise :class:`ParseError` with a message
meant for the person who wrote the file.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any

import yaml


class ParseError(ValueError):
    """The text is not a well-formed document; ``str(error)`` is the user-facing message."""


# --- JSON -------------------------------------------------------------------

def _reject_constant(name: str) -> Any:
    raise ParseError(f"invalid JSON: {name} is not a JSON number (use a finite number)")


def _pairs_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ParseError(f"invalid JSON: duplicate key {key!r} (keep only one)")
        result[key] = value
    return result


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ParseError(f"invalid JSON: number {text} is too large to represent")
    return value


def decode_utf8(data: bytes) -> str:
    """Decode strict UTF-8 (a byte-order mark is refused too); raise ParseError otherwise."""
    if data.startswith(b"\xef\xbb\xbf"):
        raise ParseError("starts with a UTF-8 byte-order mark (save the file without BOM)")
    try:
        return data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise ParseError(f"invalid UTF-8 at byte {exc.start} (save the file as UTF-8)") from None


def loads_json_strict(text: str) -> Any:
    """Parse one JSON document, refusing duplicate keys, NaN, Infinity and overflowing numbers."""
    if not text.strip():
        raise ParseError("empty file (expected a JSON object)")
    try:
        return json.loads(
            text,
            object_pairs_hook=_pairs_without_duplicates,
            parse_constant=_reject_constant,
            parse_float=_finite_float,
        )
    except ParseError:
        raise
    except json.JSONDecodeError as exc:
        raise ParseError(f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except ValueError as exc:  # e.g. an integer literal longer than Python's digit limit
        raise ParseError(f"invalid JSON: {exc}") from None
    except RecursionError:
        raise ParseError("invalid JSON: nested too deeply") from None


def dumps_json_canonical(value: Any) -> str:
    """The one canonical form of a JSON file: sorted keys, 2-space indent, UTF-8 text, final newline."""
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"


def exact_decimal(value: Any) -> Fraction:
    """A number from YAML or the command line as the exact decimal it is written as.

    ``0.1`` (a YAML float) and ``"0.1"`` both give 1/10, because the float's
    shortest repr is what the file said. Booleans, None, containers and text that
    is not a number raise ValueError.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"not a number: {value!r}")
    try:
        return Fraction(str(value).strip())
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"not a number: {value!r}") from None


# --- YAML -------------------------------------------------------------------

class _StrictSafeLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate mapping keys."""


def _construct_mapping(loader: _StrictSafeLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    loader.flatten_mapping(node)
    seen: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            hash(key)
        except TypeError:
            raise ParseError(f"invalid YAML at line {key_node.start_mark.line + 1}: unhashable mapping key") from None
        if key in seen:
            raise ParseError(
                f"invalid YAML at line {key_node.start_mark.line + 1}: duplicate key {key!r} (keep only one)"
            )
        seen[key] = loader.construct_object(value_node, deep=deep)
    return seen


_StrictSafeLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)

def loads_yaml_strict(text: str) -> Any:
    """Parse one YAML document safely, refusing duplicate keys and multiple documents.

    Scalars keep YAML 1.1 typing (``NO`` is false, ``1.10`` is 1.1): schemas that
    require strings catch those, so ids and versions must be quoted when they
    look like something else.
    """
    if not text.strip():
        raise ParseError("empty file (expected a YAML mapping)")
    try:
        documents = list(yaml.load_all(text, Loader=_StrictSafeLoader))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        raise ParseError(f"invalid YAML{where}: {exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:
        raise ParseError(f"invalid YAML: {exc}") from None
    if len(documents) != 1:
        raise ParseError(f"expected one YAML document, found {len(documents)}")
    return documents[0]

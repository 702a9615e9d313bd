"""The one JSON Schema engine (jsonschema-rs, draft 2020-12) and the wording of its errors.

Every violation is reported as ``$.json.path: message`` in the words python-jsonschema made familiar
(``87.5 is not of type 'integer'``, ``'correctness' is a required property``), worded here from the
error's keyword and values (:func:`wording`); a JSON null is named ``null``, with ``(fill it in)``, and a
size limit says the size instead of quoting the whole value. jsonschema-rs reads numbers as the decimals
written (0.3 is a multiple of 0.1). A YAML document may hold what JSON has not (a date, binary data, a
set, a key that is not text, .nan): each is refused by itself, before the schema, with where it is.
"""

from __future__ import annotations

import json
import math
import re
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import jsonschema_rs

from .parsing import MAX_NUMBER_CHARS, exact_decimal

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
_META = jsonschema_rs.Draft202012Validator({"$ref": DRAFT_2020_12})
_JSON_SCALARS = (str, int, float, bool, type(None))
_PLAIN_KEY = re.compile("[a-zA-Z][a-zA-Z0-9_]*")
_YAML_WORDS = {date: "a date", bytes: "binary data", set: "a set", tuple: "a pair"}


class SchemaValidator(NamedTuple):
    """A schema and its compiled validator."""

    schema: dict
    fast: Any   # jsonschema_rs.Draft202012Validator


def compiled(schema: dict) -> SchemaValidator:
    """The validator of a schema that :func:`schema_problem` accepts."""
    return SchemaValidator(schema, jsonschema_rs.Draft202012Validator(schema, retriever=_no_fetch))


def _no_fetch(uri: str) -> Any:
    """A schema's ``$ref`` to another document is never fetched: each schema is complete on its own."""
    raise ValueError(f"{uri} is not fetched (a schema of the benchmark refers only to itself)")


def json_path(path: Any) -> str:
    """``$.a[0].b`` from an error's instance path (a key that is not a plain name as ``['a key']``)."""
    out = "$"
    for elem in path:
        if isinstance(elem, int):
            out += f"[{elem}]"
        elif _PLAIN_KEY.fullmatch(elem):
            out += "." + elem
        else:
            out += "['" + elem.replace("\\", "\\\\").replace("'", "\\'") + "']"
    return out


def _extras(names: Any) -> str:
    names = sorted(names, key=str)
    return f"{', '.join(map(repr, names))} {'was' if len(names) == 1 else 'were'} unexpected"


_SIZES = {"MaxItems": "items", "MaxLength": "characters", "MaxProperties": "keys"}
_SHORT = {"MinItems": "is too short", "MinLength": "is too short", "MinProperties": "does not have enough properties"}
_WORDS = {
    "Type": lambda k, v: f"{v!r} is not of type {', '.join(map(repr, k.types))}",
    "Required": lambda k, v: f"{k.property!r} is a required property",
    "AdditionalProperties": lambda k, v: f"Additional properties are not allowed ({_extras(k.unexpected)})",
    "Enum": lambda k, v: f"{v!r} is not one of {k.options!r}",
    "Constant": lambda k, v: f"{k.expected_value!r} was expected",
    "Minimum": lambda k, v: f"{v!r} is less than the minimum of {k.limit!r}",
    "Maximum": lambda k, v: f"{v!r} is greater than the maximum of {k.limit!r}",
    "ExclusiveMinimum": lambda k, v: f"{v!r} is less than or equal to the minimum of {k.limit!r}",
    "ExclusiveMaximum": lambda k, v: f"{v!r} is greater than or equal to the maximum of {k.limit!r}",
    "MultipleOf": lambda k, v: f"{v!r} is not a multiple of {k.multiple_of!r}",
    "UniqueItems": lambda k, v: f"{v!r} has non-unique elements",
    "Pattern": lambda k, v: f"{v!r} does not match {k.pattern!r}",
    "Format": lambda k, v: f"{v!r} is not a {k.format!r}",
    "FalseSchema": lambda k, v: f"False schema does not allow {v!r}",
    "AnyOf": lambda k, v: f"{v!r} is not valid under any of the given schemas",
    "OneOfNotValid": lambda k, v: f"{v!r} is not valid under any of the given schemas",
}


def wording(error: Any) -> str:
    """One jsonschema-rs error in words: python-jsonschema's for the keywords above, jsonschema-rs's own for
    the rest; a size limit as the size (``has 70 characters, more than the 64 allowed (shorten it)``); a null
    as ``null ... (fill it in)``."""
    kind, value, name = error.kind, error.instance, type(error.kind).__name__
    if name in _SIZES:
        return f"has {len(value)} {_SIZES[name]}, more than the {kind.limit} allowed (shorten it)"
    if name in _SHORT:
        text = f"{value!r} {'should be non-empty' if kind.limit == 1 else _SHORT[name]}"
    else:
        text = _WORDS[name](kind, value) if name in _WORDS else str(error.message)
    if value is None and text.startswith("None "):
        return f"null {text[5:]} (fill it in)"
    return text


def _yaml_only(value: Any, path: str) -> list[str]:
    """``path: what`` for each value of a parsed YAML document that JSON has not."""
    if isinstance(value, dict):
        found = []
        for key, item in value.items():
            if type(key) is not str:
                found.append(f"{path}: the key {key!r} is not text (quote it in YAML)")
            else:
                found += _yaml_only(item, json_path([key]).replace("$", path, 1))
        return found
    if isinstance(value, list):
        return [problem for index, item in enumerate(value) for problem in _yaml_only(item, f"{path}[{index}]")]
    if isinstance(value, float) and not math.isfinite(value):
        return [f"{path}: {value} is not a JSON number (use a finite number)"]
    if isinstance(value, _JSON_SCALARS):
        return []
    what = next((word for kind, word in _YAML_WORDS.items() if isinstance(value, kind)), type(value).__name__)
    shown = value.isoformat() if isinstance(value, date) else repr(value)
    return [f"{path}: {shown} is {what} in YAML, which JSON has not (quote it so it stays text)"]


def schema_errors(validator: SchemaValidator, document: Any) -> list[str]:
    """Every violation of ``document`` (parsed JSON or YAML) as ``$.json.path: message``, sorted, so one run
    reports them all."""
    foreign = _yaml_only(document, "$")
    if foreign:
        return foreign
    return sorted({f"{json_path(error.instance_path)}: {wording(error)}"
                   for error in validator.fast.iter_errors(document)})


def schema_problem(schema: Any) -> str | None:
    """None when ``schema`` is a valid draft 2020-12 schema (its ``$schema``, if any, names that draft) whose every
    ``pattern`` (and ``patternProperties`` key) Python's ``re`` compiles too (the toolkit compares them with
    benchmark.yaml's), else what is wrong, the first problem met."""
    foreign = _yaml_only(schema, "$")
    errors = foreign or sorted(f"{json_path(e.instance_path)}: {wording(e)}" for e in _META.iter_errors(schema))
    if errors:
        return errors[0]
    if not isinstance(schema, dict):   # true and false are schemas, but the toolkit reads a schema's keys
        return f"$: {json.dumps(schema)} is not an object (a schema file of the benchmark holds one JSON object)"
    if schema.get("$schema", DRAFT_2020_12) != DRAFT_2020_12:
        return f"$['$schema']: {schema['$schema']!r} is not {DRAFT_2020_12!r} (write that, or remove the key)"
    for pattern in _patterns(schema):
        try:
            re.compile(pattern)
        except re.error:
            return f"{pattern!r} is not a 'regex'"
    try:
        compiled(schema)
    except Exception as exc:  # e.g. a "$ref" to nowhere
        return " ".join(str(exc).split("\n")[0].split())
    return None


def _patterns(value: Any) -> Any:
    """Every ``pattern`` value and ``patternProperties`` key anywhere in a schema."""
    if isinstance(value, dict):
        if isinstance(value.get("pattern"), str):
            yield value["pattern"]
        if isinstance(value.get("patternProperties"), dict):
            yield from value["patternProperties"]
        for item in value.values():
            yield from _patterns(item)
    elif isinstance(value, list):
        for item in value:
            yield from _patterns(item)


# --- the toolkit's own YAML files (benchmark.yaml, config.yaml): one message per key, from the schema ---------

_TYPE_WORDS = {bool: "true/false", int: "an integer", float: "a decimal number", str: "text", list: "a list",
               dict: "a mapping"}


def shown(value: Any) -> str:
    """A YAML value as the file spells it: text quoted, true/false, null, a date or number as written."""
    if value is None:
        return "null"
    return repr(value) if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else str(value)


def _what(value: Any) -> str:
    """What a value is, in the file's words: ``empty``, ``'5' is text``, ``true is true/false``, ..."""
    if value is None or isinstance(value, str) and not value.strip():
        return "empty"
    if isinstance(value, int | float) and not isinstance(value, bool) and _json_view(value) is None:
        return f"{shown(value)} is not a number of at most {MAX_NUMBER_CHARS} characters"
    word = "a date" if isinstance(value, date) else _TYPE_WORDS.get(type(value), type(value).__name__)
    return f"{shown(value)} is {word}"


def _json_view(value: Any) -> Any:
    """``value`` as the schema sees it: keys as text, and None for what JSON has not (a date, .inf, a number
    exact_decimal refuses), which then breaks its key's type."""
    if isinstance(value, dict):
        return {str(key): _json_view(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_view(item) for item in value]
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            exact_decimal(value)
        except ValueError:
            return None
    return value if isinstance(value, _JSON_SCALARS) else None


@cache
def toolkit_schema(name: str) -> SchemaValidator:
    """The schema of a file of the toolkit's own format: ``benchmark`` (system/benchmark.yaml) or ``config``
    (system/metrics/<version>/config.yaml), from rgbench/load/schemas/."""
    return compiled(json.loads((Path(__file__).parent / "schemas" / f"{name}.schema.json").read_text(encoding="utf-8")))


def _template(node: dict, keyword: str) -> str:
    problem = node["x-problem"]
    return problem if isinstance(problem, str) else problem.get(keyword, problem["*"])


def keyed_problems(validator: SchemaValidator, document: dict) -> list[tuple[str, str]]:
    """Every problem of a YAML or JSON mapping of the toolkit's own against its schema, sorted: at the deepest place on
    the error's path whose schema has an ``x-problem``, that template filled in (``$.key: ...``; a required
    key left out is ``missing``); a key the schema does not list is ``$.key: unknown key (known: ...)``. Each
    problem as (JSON path, message)."""
    found: set[tuple[str, str]] = set()
    for error in validator.fast.iter_errors(_json_view(document)):
        keyword, path = error.schema_path[-1], list(error.instance_path)
        if keyword == "additionalProperties" and not path:
            known = ", ".join(sorted(validator.schema["properties"]))
            found.update((f"$.{key}", f"unknown key (known: {known})") for key in error.kind.unexpected)
            continue
        if keyword == "required" and not path:
            path.append(error.kind.property)
        node: dict = validator.schema
        value: Any = document
        where = "$"
        at: tuple[str, dict, Any, str] = ("$", {"x-problem": "{what}"}, document, "*")
        for step, key in enumerate(path):
            if isinstance(key, int):   # an item of a list (the draws file's)
                node, value, where = node.get("items", {}), value[key] if isinstance(value, list) else None, \
                    where + f"[{key}]"
            else:
                node = node.get("properties", {}).get(key, {})
                value = next((item for name, item in value.items() if str(name) == key), None) \
                    if isinstance(value, dict) else None
                where += f".{key}"
            if "x-problem" in node:
                at = (where, node, value, keyword if step == len(path) - 1 else "*")
        where, node, value, keyword = at
        clipped = value[:40] + "..." if isinstance(value, str) and len(value) > 40 else value
        found.add((where, _template(node, keyword).format(
            value=value, shown=shown(value), clipped=clipped, length=len(value) if isinstance(value, str) else 0,
            what="missing" if keyword == "required" else _what(value))))
    return sorted(found)

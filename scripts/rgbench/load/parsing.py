"""Strict parsing at the boundary: what a lenient parser silently throws away is an error here.

Python's ``json`` keeps the last of duplicate keys, accepts NaN/Infinity and turns
``1e400`` into infinity; PyYAML's ``safe_load`` keeps the last duplicate key. The
functions below refuse all of that and raise :class:`ParseError` with a message
meant for the person who wrote the file.
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from fractions import Fraction
from typing import Any

import yaml


class ParseError(ValueError):
    """The text is not a well-formed document; ``str(error)`` is the user-facing message."""


# --- JSON -------------------------------------------------------------------

def _reject_constant(name: str) -> Any:
    raise ParseError(f"invalid JSON: {name} is not a JSON number (use a finite number)")


def _pairs_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) < len(pairs):  # a key repeats: name the first one met again
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise ParseError(f"invalid JSON: duplicate key {key!r} (keep only one)")
            seen.add(key)
    return result


# Numbers are read exactly and bounded: no input of this toolkit needs more than these.
MAX_NUMBER_CHARS = 40      # a JSON number literal, a YAML or command-line number, a result cell
MAX_INT_DIGITS = 18        # |integer| < 10**18
# PyYAML's pure-Python parser reads about 100 KB/s on a busy core: every YAML input is capped so that
# refusing a hostile one stays under a second (bench/hostile_bench.py).
MAX_YAML_CHARS = 65536
MAX_EXPONENT = 400         # |exponent| of a decimal read exactly (1e-99999999 would cost 10**99999999)


def _shown(text: str) -> str:
    return text if len(text) <= MAX_NUMBER_CHARS else text[:MAX_NUMBER_CHARS] + "..."


def _exact_float(text: str) -> float:
    """A JSON fraction or exponent number, as a float only when the float is exactly the number written.

    ``0.50000000000000000001`` and ``1.9999999999999999`` would round to 0.5 and 2.0 and pass as allowed
    values: they are refused instead, as are numbers too long or too large to represent.
    """
    if len(text) > MAX_NUMBER_CHARS:
        raise ParseError(f"invalid JSON: number {_shown(text)} has more than {MAX_NUMBER_CHARS} characters "
                         "(write it shorter)")
    value = float(text)
    if not math.isfinite(value):
        raise ParseError(f"invalid JSON: number {text} is too large to represent")
    if Decimal(text) != Decimal(repr(value)):
        raise ParseError(f"invalid JSON: number {text} is not exactly representable (it would be read as "
                         f"{value!r}; write the value you mean)")
    return value


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ParseError(f"invalid JSON: integer {_shown(text)} has more than {MAX_INT_DIGITS} digits "
                         "(no input of this benchmark needs one that large)")
    return int(text)


_SURROGATE = re.compile("[\ud800-\udfff]")
# A parsed string holds a surrogate only if the text holds one or a \uD800-\uDFFF escape: a document
# whose text has neither is not walked (one with a match, even a false one like "\\ud800", is).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _holds_surrogate(text: str) -> bool:
    """True when ``text`` holds a surrogate, the only character UTF-8 cannot encode (encoding a 2 KB text
    takes under a microsecond; searching it for the character class, 4-12 us)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _lone_surrogate_path(document: Any) -> str | None:
    """The JSON path of the first string or key holding a lone surrogate (``"\\ud800"``), else None.

    Such a string is not Unicode text: it cannot be written as UTF-8 and breaks every consumer.
    """
    stack: list[tuple[str, Any]] = [("$", document)]
    search = _SURROGATE.search
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            if search(value):
                return path
        elif isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str) and search(key):
                    return f"{path} (a key)"
                stack.append((f"{path}.{key}", item))
        elif isinstance(value, list):
            stack.extend((f"{path}[{index}]", item) for index, item in enumerate(value))
    return None


def refuse_lone_surrogates(document: Any, what: str) -> None:
    """ParseError when a string or key of ``document`` holds a lone surrogate."""
    where = _lone_surrogate_path(document)
    if where is not None:
        raise ParseError(f"invalid {what}: {where} holds a lone surrogate (an unpaired \\uD800-\\uDFFF "
                         "escape is not text; write the character itself)")


# Free text (comments, notes, titles, tags) is any language, Cyrillic, Arabic or Hebrew as much as Latin, and keeps
# the format characters real text needs (U+200D joins emoji and Indic letters, U+200C shapes Persian). What it may
# not hold is a bidirectional control: it reorders what readers see, so a text could read as one thing and be
# another ("Trojan Source", CVE-2021-42574). Shown names are stricter (rgbench.load.registry.invisible_character).
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def bidi_control_problem(where: str, text: str) -> str | None:
    """``where: character N is U+XXXX, ...`` for the first bidirectional control (:data:`BIDI_CONTROLS`) of
    ``text``, else None."""
    for index, char in enumerate(text):
        if char in BIDI_CONTROLS:
            return (f"{where}: character {index} is U+{ord(char):04X}, a bidirectional control (it reorders "
                    "what readers see, so the text would not read as it is written); remove it")
    return None


def decode_utf8(data: bytes) -> str:
    """Decode strict UTF-8 (a byte-order mark is refused too); raise ParseError otherwise."""
    if data.startswith(b"\xef\xbb\xbf"):
        raise ParseError("starts with a UTF-8 byte-order mark (save the file without BOM)")
    try:
        return data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise ParseError(f"invalid UTF-8 at byte {exc.start} (save the file as UTF-8)") from None


# One decoder for every document: json.loads with hooks builds a new decoder and scanner per call (~3 us).
_STRICT_DECODER = json.JSONDecoder(
    object_pairs_hook=_pairs_without_duplicates,
    parse_constant=_reject_constant,
    parse_float=_exact_float,
    parse_int=_bounded_int,
)


def loads_json_strict(text: str) -> Any:
    """Parse one JSON document, refusing duplicate keys, NaN, Infinity and overflowing numbers."""
    if not text.strip():
        raise ParseError("empty file (expected a JSON object)")
    try:
        if text.startswith("\ufeff"):  # json.loads's own first check, which JSONDecoder.decode leaves out
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        document = _STRICT_DECODER.decode(text)
    except ParseError:
        raise
    except json.JSONDecodeError as exc:
        raise ParseError(f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except ValueError as exc:  # e.g. an integer literal longer than Python's digit limit
        raise ParseError(f"invalid JSON: {exc}") from None
    except RecursionError:
        raise ParseError("invalid JSON: nested too deeply") from None
    if _SURROGATE_ESCAPE.search(text) or _holds_surrogate(text):
        refuse_lone_surrogates(document, "JSON")
    return document


def dumps_json_canonical(value: Any) -> str:
    """The one canonical form of a JSON file: sorted keys, 2-space indent, UTF-8 text, final newline."""
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"


def exact_decimal(value: Any) -> Fraction:
    """A number from YAML or the command line as the exact decimal it is written as.

    ``0.1`` (a YAML float) and ``"0.1"`` both give 1/10, because the float's
    shortest repr is what the file said. Booleans, None, containers, text that
    is not a decimal number, and numbers longer than ``MAX_NUMBER_CHARS`` or with an
    exponent beyond ``MAX_EXPONENT`` (their exact value would cost unbounded time and
    memory) raise ValueError.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"not a number: {value!r}")
    text = value.strip() if isinstance(value, str) else str(value)
    match = _DECIMAL.fullmatch(text) if len(text) <= MAX_NUMBER_CHARS else None
    if match is None or abs(int(match.group("exponent") or 0)) > MAX_EXPONENT:
        raise ValueError(f"not a number: {_shown(text)!r} (a decimal of at most {MAX_NUMBER_CHARS} characters, "
                         f"exponent within +-{MAX_EXPONENT})")
    return Fraction(Decimal(text))  # the same value as Fraction(text), which parses the text again in Python


def exact_number(value: Any) -> int | Fraction:
    """:func:`exact_decimal` as an int when it is whole (an int stays an int: the common, fast case), so the
    scores and thresholds of an integer scale are ints."""
    if type(value) is int:
        return value
    exact = exact_decimal(value)
    return exact.numerator if exact.denominator == 1 else exact


_DECIMAL = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE](?P<exponent>[-+]?[0-9]+))?")


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


def _compose_node_without_aliases(loader: _StrictSafeLoader, parent: Any, index: Any) -> Any:
    """Anchors (``&a``) and aliases (``*a``, merge keys) are refused where they appear: a 2 KB "billion
    laughs" file expands to gigabytes through them, and no input of this toolkit needs them."""
    event = loader.peek_event()
    if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
        what = "alias" if isinstance(event, yaml.AliasEvent) else "anchor"
        raise ParseError(f"invalid YAML at line {event.start_mark.line + 1}: {what} {event.anchor!r} "
                         "(anchors and aliases are not allowed; write each value out)")
    return yaml.SafeLoader.compose_node(loader, parent, index)


_StrictSafeLoader.compose_node = _compose_node_without_aliases  # type: ignore[assignment]

MAX_YAML_DEPTH = 50  # nested mappings and sequences; the registry needs 4


def _yaml_nesting_problem(text: str) -> str | None:
    """A message when ``text`` nests collections more than MAX_YAML_DEPTH deep, else None.

    A first pass over the event stream (libyaml's, when PyYAML has it: iterative and fast), because the
    pure-Python composer recurses: 60 KB of ``[`` took 3 s to end in a RecursionError. Malformed YAML is
    left to the strict loader, which words the error.
    """
    loader = yaml.CSafeLoader if getattr(yaml, "__with_libyaml__", False) else yaml.SafeLoader
    depth = 0
    try:
        for event in yaml.parse(text, Loader=loader):
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_YAML_DEPTH:
                    where = f" at line {event.start_mark.line + 1}" if event.start_mark is not None else ""
                    return f"invalid YAML{where}: nested more than {MAX_YAML_DEPTH} levels deep (flatten it)"
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
    except yaml.YAMLError as exc:
        if "nesting depth" in str(exc):  # libyaml's own limit, met while scanning ahead
            return f"invalid YAML: nested more than {MAX_YAML_DEPTH} levels deep (flatten it)"
        return None
    return None


def loads_yaml_strict(text: str) -> Any:
    """Parse one YAML document safely, refusing duplicate keys, anchors and aliases, lone surrogates,
    multiple documents, deep nesting and texts longer than MAX_YAML_CHARS.

    Scalars keep YAML 1.1 typing (``NO`` is false, ``1.10`` is 1.1): schemas that
    require strings catch those, so ids and versions must be quoted when they
    look like something else.
    """
    if not text.strip():
        raise ParseError("empty file (expected a YAML mapping)")
    if len(text) > MAX_YAML_CHARS:
        raise ParseError(f"longer than {MAX_YAML_CHARS} characters; no YAML input of this benchmark needs that "
                         "much (shorten it)")
    too_deep = _yaml_nesting_problem(text)
    if too_deep is not None:
        raise ParseError(too_deep)
    try:
        documents = list(yaml.load_all(text, Loader=_StrictSafeLoader))
    except RecursionError:
        raise ParseError("invalid YAML: nested too deeply") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        raise ParseError(f"invalid YAML{where}: {exc.problem or exc.context}") from None
    except yaml.reader.ReaderError as exc:  # its str() spans two lines
        raise ParseError(f"invalid YAML at character {exc.position}: character #x{exc.character:04x} is not "
                         "allowed in YAML (remove it)" if isinstance(exc.character, int) else
                         f"invalid YAML at character {exc.position}: {exc.reason}") from None
    except yaml.YAMLError as exc:
        raise ParseError("invalid YAML: " + " ".join(str(exc).split())) from None
    except ParseError:
        raise
    except (ValueError, TypeError, AttributeError, OverflowError):  # PyYAML's constructors, e.g. `!!int 5 -x`
        raise ParseError("invalid YAML: a value does not have the type its tag names (e.g. !!int, !!float, "
                         "!!timestamp); remove the tag or fix the value") from None
    if len(documents) != 1:
        raise ParseError(f"expected one YAML document, found {len(documents)}")
    refuse_lone_surrogates(documents[0], "YAML")
    return documents[0]

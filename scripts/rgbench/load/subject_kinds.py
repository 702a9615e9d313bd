"""Subject kinds: what the registry schema declares a subject may be (``llm``, ``human``, ``system``, ...).

The benchmark's registry schema (``system/schemas/<version>/registry.schema.json``) is the one declaration:
the ``enum`` of a subject's optional ``kind``. The toolkit hard-codes no kind: any declared kind passes
through every command and is shown on the page as written; the two kinds of the seed have labels of their
own (``llm`` -> "LLM", ``human`` -> "human baseline", :data:`KIND_LABELS`). A schema without ``kind``
declares none. A registry entry whose kind the enum does not list is refused with a hint to declare it
(:func:`undeclared_hint`, rgbench.load.registry). A kind is written into leaderboard.csv and shown on
the page, so each declared kind is checked here: printable text that starts with a letter or a digit
(never a spreadsheet formula), at most :data:`MAX_KIND_LENGTH` characters, each once.
"""

from __future__ import annotations

import re
from typing import Any

from ..problems import Problem

KIND_PATH = ("properties", "subjects", "items", "properties", "kind")
WHERE = "$." + ".".join(KIND_PATH)
MAX_KIND_LENGTH = 64
# How the page labels the seed's kinds; any other declared kind is shown as written.
KIND_LABELS = {"llm": "LLM", "human": "human baseline"}


_UNDECLARED = re.compile(r"\$\.subjects\[[0-9]+\]\.kind: .* is not one of ")


def undeclared_hint(error: str, schema_rel: str) -> str:
    """The fix appended to the registry's schema error ``error`` when it refuses an undeclared kind, else ""."""
    if not _UNDECLARED.match(error):
        return ""
    return f" (use one of those kinds, or declare it in the kind enum of {schema_rel})"


def _node(schema: Any) -> Any:
    node = schema
    for key in KIND_PATH:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def _kind_problem(kind: Any) -> str:
    """What is wrong with ``kind`` as a declared kind, and how to fix it; "" when it is usable."""
    if not isinstance(kind, str) or not kind:
        return "is not a non-empty string (write each kind as text, e.g. system)"
    if not kind[0].isalnum():
        return "does not start with a letter or a digit (start it with one: a leading =, +, - or @ is a spreadsheet formula)"
    if not kind.isprintable():
        return "holds a character readers cannot see (remove control, format and separator characters)"
    if len(kind) > MAX_KIND_LENGTH:
        return f"is longer than {MAX_KIND_LENGTH} characters (shorten it)"
    return ""


def kind_problems(rel: str, registry_schema: Any) -> list[Problem]:
    """The registry schema's declaration of subject kinds, checked usable (``rel``: its path)."""
    node = _node(registry_schema)
    if node is None:
        return []
    enum = node.get("enum") if isinstance(node, dict) else None
    example = '"enum": ["llm", "human", "system"]'
    if not isinstance(enum, list) or not enum:
        return [Problem(rel, f"{WHERE}: declares no kinds (list them as an enum of strings, e.g. {example}; "
                             "or remove kind from the registry schema)")]
    problems = []
    for index, kind in enumerate(enum):
        why = _kind_problem(kind)
        if why:
            problems.append(Problem(rel, f"{WHERE}.enum[{index}]: {kind!r} {why}"))
        elif kind in enum[:index]:
            problems.append(Problem(rel, f"{WHERE}.enum[{index}]: {kind!r} is declared twice (list each kind once)"))
    return problems

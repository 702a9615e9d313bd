"""The grading page's words for a form's problems: one plain message per field, each with its fix.

``make validate`` words a problem as the schema sees the file (``$.criterion_scores.first_aid: null is not of
type 'integer'``); the page words it as the reviewer sees the form (``First aid: no level chosen (press 0-2 or
click or tap a level)``). Pure: the spec, the document the form made and its messages (scoring_doc.document_messages).
"""

from __future__ import annotations

import re
from typing import Any

from ..load.scale import score_text
from ..load.spec import Spec
from .pages import correctness_keys, score_choices, written

KEY_DIGITS = frozenset("0123456789")   # the keys that set a level in one press
_FIELD = re.compile(r"^\$\.(criterion_scores\.(\w+)|correctness|automatic_fails_triggered\[(\d+)\]|comments)\S*: (.*)$",
                    re.DOTALL)


def label(name: str) -> str:
    """A criterion's name as the page says it: ``first_aid`` -> ``First aid``."""
    return name.replace("_", " ").capitalize()


def levels_text(spec: Spec) -> str:
    """What a criterion accepts: ``levels: 0, 1, 2`` (the radio buttons), or ``a number from 0 to 2 in steps of
    0.1`` on a decimal scale."""
    choices = score_choices(spec)
    if choices is not None:
        return "levels: " + ", ".join(score_text(c) for c in sorted(choices))
    step = "" if spec.criterion_step is None else f" in steps of {score_text(spec.criterion_step)}"
    return f"a number from {score_text(spec.criterion_min)} to {score_text(spec.criterion_max)}{step}"


def _criterion(spec: Spec, name: str, value: Any) -> str:
    choices = score_choices(spec)
    if value is None and choices is None:
        return f"{label(name)}: no score typed (type {levels_text(spec)})"
    if value is None:
        keys = sorted(c for c in choices or [] if str(c) in KEY_DIGITS)   # a level one key press sets
        press = f"press {keys[0]}-{keys[-1]} or " if len(keys) == len(choices or []) > 1 else ""
        return f"{label(name)}: no level chosen ({press}click or tap a level)"
    return f"{label(name)}: {value} is not a level of this criterion ({levels_text(spec)})"


def _correctness(spec: Spec, value: Any) -> str:
    values = [written(v) for v in spec.correctness_values]
    keys = correctness_keys(values)
    allowed = f"values: {', '.join(values)}" if values else "a number from 0 to 1"
    if value is not None:
        return f"Correctness: {value} is not allowed ({allowed})"
    fix = f"click or tap a value{', or press ' + ', '.join(keys) if keys else ''}" if values else "type a number from 0 to 1"
    return f"Correctness: not chosen ({fix})"


def plain_messages(spec: Spec, document: dict[str, Any], messages: list[str]) -> list[str]:
    """``messages`` in the form's words, at most one per field, in the form's order (criteria, correctness, fails,
    comments), then any other message as it is (those already say what to do)."""
    fields: dict[tuple[int, str], str] = {}
    rest = []
    order = {name: index for index, name in enumerate(spec.criteria)}
    for message in messages:
        match = _FIELD.match(message)
        if match is None:
            rest.append(message)
        elif match.group(2) in order:
            name = match.group(2)
            fields[(order[name], name)] = _criterion(spec, name, document["criterion_scores"].get(name))
        elif match.group(1) == "correctness":
            fields[(len(order), "")] = _correctness(spec, document.get("correctness"))
        elif match.group(3) is not None:
            index = int(match.group(3))
            code = document["automatic_fails_triggered"][index].get("code")
            text = ("no evidence (quote the words of the response that trigger it in the box under it)"
                    if message.startswith(f"$.automatic_fails_triggered[{index}].evidence:") else match.group(4))
            fields.setdefault((len(order) + 1, str(code)), f"Automatic fail {code}: {text}")
        elif match.group(1) == "comments":
            fields.setdefault((len(order) + 2, ""), f"Comments: {match.group(4)}")
        else:
            rest.append(message)
    return [fields[key] for key in sorted(fields)] + rest

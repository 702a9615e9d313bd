"""``system/`` checked as a whole: every fact agrees with the file that owns it, every class is reachable.

``system/benchmark.yaml`` owns the case-id pattern, the families, the
criteria and their range, and the classification thresholds; the JSON
Schemas repeat some of them because a schema must be complete on its own
(editors and other tools read them). Instead of generating the schemas, the
toolkit checks them against ``benchmark.yaml`` at every run, before any data is
read: an edit to one file that the other does not follow is refused with
``system/<file>: what is wrong (how to fix it)``, never blamed on the data.

The schemas own what ``benchmark.yaml`` does not say: the correctness values
(the ``enum`` of ``correctness``, or any number from 0 to 1), the confidence scale, the file-format
version (the ``const`` of ``schema_version``) and the gold's difficulty range.
They are read from there (see :func:`schema_facts`). They also declare which
optional fields the benchmark records at all (:mod:`.recorded`): the checks of a
field the benchmark does not record are skipped.

Every function here is pure: it takes the parsed values and returns problems.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, NamedTuple

from ..problems import Problem
from .parsing import exact_decimal
from .recorded import Recorded, declaration_problems, recorded
from .scale import SUM, Score, score_text, total_range
from .subject_kinds import kind_problems

SEVERITIES = ("critical", "recoverable")  # what classification knows: critical -> Fail, recoverable -> Conditional
CONFIDENCE_RANGE = (0, 100)  # the toolkit computes on integer percentages (confidence_unit = c / 100)
# A correctness schema without an enum (any number from 0 to 1) is read with at most this many decimals: the
# Brier sums stay exact integers in thousandths (loader: a value with more decimals is a problem of its file).
CORRECTNESS_DECIMALS = 3
ID_KINDS = ("response", "evaluation", "gold")  # the schemas that carry case_id and schema_version


class SchemaFacts(NamedTuple):
    """What the pipeline reads from the schemas themselves (their owner)."""

    correctness_values: tuple[Fraction, ...]  # sorted, distinct, each in [0, 1]; () when any number in [0, 1]
    schema_version: str  # the const of schema_version in the response, evaluation and gold schemas
    criterion_step: Fraction | None = Fraction(1)  # a criterion score's step (criterion_step); None: any decimal
    recorded: Recorded = Recorded()  # the optional fields the schemas require (:mod:`.recorded`)


def _at(schema: Any, *keys: str) -> Any:
    """``schema[k1][k2]...``, or None as soon as a level is missing or not a mapping."""
    node = schema
    for key in keys:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


def family_group(pattern: str) -> tuple[str, str, str] | None:
    """Split ``pattern`` around its ``(?P<family>...)`` group: (before, inner, after); None if absent or unbalanced."""
    start = pattern.find("(?P<family>")
    if start < 0:
        return None
    depth, index, in_class = 0, start, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return pattern[:start], pattern[start + len("(?P<family>"):index], pattern[index + 1:]
        index += 1
    return None


def schema_case_patterns(case_pattern: str) -> tuple[str, ...]:
    """The spellings a schema may use for ``case_id_pattern``: the family group plain, or as an unnamed group.

    JSON Schema regexes (ECMA-262) have no ``(?P<name>...)``, so a schema writes
    ``^RO-[A-Z]{2,8}-[0-9]{3}$`` (or with ``([A-Z]{2,8})``) for the pattern
    ``^RO-(?P<family>[A-Z]{2,8})-[0-9]{3}$``.
    """
    split = family_group(case_pattern)
    if split is None:
        return (case_pattern,)
    before, inner, after = split
    return (before + inner + after, f"{before}({inner}){after}")


# The names the agreement and reviewer reports give a grade's derived values, beside its criterion scores
# (rgbench.stats.agreement_outputs.rating_values): a criterion of one of these names would be read as them.
RESERVED_CRITERIA = ("classification", "correctness", "has_critical_fail", "raw_score")


def benchmark_problems(rel: str, criteria: Sequence[Any], families: dict, case_re: re.Pattern[str],
                       low: Fraction, high: Fraction, pass_t: Score | None, cond_t: Score | None, example: Any, *,
                       higher_is_better: bool = True, total: str = SUM) -> list[Problem]:
    """Inconsistencies inside ``benchmark.yaml``: repeated, reserved or empty criteria, an empty range, unreachable
    thresholds (on the total's scale, in its direction: rgbench.load.scale). ``pass_t`` None: the benchmark has
    no pass rule (no classification); ``cond_t`` None: no Conditional band, which needs a pass_threshold."""
    problems: list[Problem] = []
    if not criteria:
        problems.append(Problem(rel, "$.criteria: empty (list at least one criterion name)"))
    seen: set[Any] = set()
    for index, name in enumerate(criteria):
        if not isinstance(name, str) or not re.fullmatch(r"[a-z][a-z0-9_]*", name):
            problems.append(Problem(rel, f"$.criteria[{index}]: {name!r} is not a criterion name "
                                         "(lowercase letters, digits and '_', starting with a letter)"))
        elif name in RESERVED_CRITERIA:
            problems.append(Problem(rel, f"$.criteria[{index}]: {name!r} names a value derived from each grade "
                                         f"({', '.join(RESERVED_CRITERIA)} are taken; rename the criterion)"))
        elif name in seen:
            problems.append(Problem(rel, f"$.criteria[{index}]: {name!r} is listed twice "
                                         "(each criterion once; the maximum score counts every entry)"))
        if isinstance(name, str):
            seen.add(name)
    if low < 0:
        problems.append(Problem(rel, f"$.criterion_min: {score_text(low)} is negative (scores start at 0 or above)"))
    if high <= low:
        problems.append(Problem(rel, f"$.criterion_max: {score_text(high)} is not above criterion_min "
                                     f"{score_text(low)} (a criterion needs at least two scores)"))
    problems += _threshold_problems(rel, len(criteria), low, high, pass_t, cond_t, higher_is_better, total)
    if not families:
        problems.append(Problem(rel, "$.families: empty (declare at least one family code: name)"))
    split = family_group(case_re.pattern)
    for code, name in families.items():
        if not isinstance(code, str) or (split is not None and not re.fullmatch(split[1], code)):
            problems.append(Problem(rel, f"$.families.{code}: no case id can carry this code "
                                         f"(it does not match the family group of case_id_pattern)"))
        if not isinstance(name, str) or not name.strip():
            problems.append(Problem(rel, f"$.families.{code}: needs a human name (a non-empty string)"))
    if example is not None:
        match = case_re.fullmatch(example) if isinstance(example, str) else None
        if match is None:
            problems.append(Problem(rel, f"$.example_case_id: {example!r} does not match case_id_pattern "
                                         "(use one of the benchmark's case ids)"))
        elif match.group("family") not in families:
            problems.append(Problem(rel, f"$.example_case_id: family {match.group('family')!r} is not in families"))
    return problems


def _threshold_problems(rel: str, n: int, low: Fraction, high: Fraction, pass_t: Score | None,
                        cond_t: Score | None, higher_is_better: bool, total: str) -> list[Problem]:
    """pass_threshold and conditional_threshold on the total's scale (n·min..n·max for a sum, min..max for a
    mean): every class reachable, read in the scale's direction (lower is better: Pass at or below pass_threshold,
    Conditional at or below conditional_threshold)."""
    problems = []
    if pass_t is None:   # no pass rule (no classification): nothing to reach, unless a Conditional band is given alone
        if cond_t is not None:
            problems.append(Problem(rel, f"$.conditional_threshold: {score_text(cond_t)} without a pass_threshold (a "
                                         "run is Conditional between the two thresholds: declare pass_threshold too, "
                                         "or remove conditional_threshold for a benchmark without a pass rule)"))
        return problems
    lowest, highest = total_range(low, high, n, total)
    how = (f"{n} criteria x {score_text(high)}" if total == SUM
           else f"the mean of the criteria, {score_text(low)}-{score_text(high)}")
    pass_text, low_text, high_text = (score_text(v) for v in (pass_t, lowest, highest))
    cond_text = "" if cond_t is None else score_text(cond_t)
    # without a Conditional band, the pass threshold alone must leave room for a Fail
    bottom, which = (pass_t, "pass_threshold") if cond_t is None else (cond_t, "conditional_threshold")
    bottom_text = score_text(bottom)
    integral = total == SUM and low.denominator == high.denominator == 1
    if higher_is_better:
        if pass_t > highest:
            problems.append(Problem(rel, f"$.pass_threshold: {pass_text} is above the maximum score {high_text} "
                                         f"({how}), so no run can pass (set it to at most {high_text})"))
        if cond_t is not None and cond_t >= pass_t:
            problems.append(Problem(rel, f"$.pass_threshold: {pass_text} is not above conditional_threshold "
                                         f"{cond_text}, so no score is Conditional "
                                         "(set pass_threshold > conditional_threshold)"))
        if bottom <= lowest:
            fix = f"at least {score_text(lowest + 1)}" if integral else f"above {low_text}"
            problems.append(Problem(rel, f"$.{which}: {bottom_text} is not above the minimum score "
                                         f"{low_text}, so no score is a Fail (set it to {fix})"))
        return problems
    if pass_t < lowest:
        problems.append(Problem(rel, f"$.pass_threshold: {pass_text} is below the minimum score {low_text}, the best "
                                     "total with score_direction lower_is_better, so no run can pass "
                                     f"(set it to at least {low_text})"))
    if cond_t is not None and cond_t <= pass_t:
        problems.append(Problem(rel, f"$.pass_threshold: {pass_text} is not below conditional_threshold {cond_text}, "
                                     "so no score is Conditional (with score_direction lower_is_better, a run passes "
                                     "at or below pass_threshold: set pass_threshold < conditional_threshold)"))
    if bottom >= highest:
        problems.append(Problem(rel, f"$.{which}: {bottom_text} is not below the maximum score "
                                     f"{high_text} ({how}), the worst total with score_direction lower_is_better, so "
                                     f"no score is a Fail (set it below {high_text})"))
    return problems


def _exact(value: Any) -> Fraction | None:
    """A schema's number exactly (a JSON 0.1 is 1/10), or None when it is not a number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return exact_decimal(value)
    except ValueError:
        return None


def _scale_problems(rel: str, where: str, node: Any, low: Fraction, high: Fraction, why: str) -> list[Problem]:
    """``node`` must be a number schema with minimum ``low`` and maximum ``high`` (exactly): ``"type": "integer"``
    (whole scores; only when both bounds are whole) or ``"number"`` (decimals, with an optional multipleOf that
    divides both bounds)."""
    if not isinstance(node, dict):
        return [Problem(rel, f"{where}: missing ({why})")]
    kind, minimum, maximum = node.get("type"), node.get("minimum"), node.get("maximum")
    integral = low.denominator == 1 and high.denominator == 1
    if kind not in ("integer", "number") or (kind == "integer" and not integral) or _exact(minimum) != low \
            or _exact(maximum) != high:
        want = "type 'integer' or 'number'" if integral else "type 'number'"
        return [Problem(rel, f"{where}: type {kind!r}, minimum {minimum!r}, maximum {maximum!r}; "
                             f"system/benchmark.yaml needs {want}, minimum {score_text(low)}, maximum "
                             f"{score_text(high)} ({why})")]
    if "multipleOf" in node:
        step = _exact(node["multipleOf"])
        if step is None or step <= 0 or (low / step).denominator != 1 or (high / step).denominator != 1:
            return [Problem(rel, f"{where}.multipleOf: {node['multipleOf']!r} does not divide minimum "
                                 f"{score_text(low)} and maximum {score_text(high)} (a positive step such as 0.1 or "
                                 "0.5, or remove it)")]
    return []


def criterion_step(node: Any) -> Fraction | None:
    """The step of a criterion schema (checked by :func:`_scale_problems`): its multipleOf, else 1 for an integer
    and None (any decimal) for a number."""
    step = _exact(node.get("multipleOf")) if isinstance(node, dict) else None
    if step is not None:
        return step
    return Fraction(1) if isinstance(node, dict) and node.get("type") == "integer" else None


def _range_problems(rel: str, where: str, node: Any, low: int, high: int, why: str) -> list[Problem]:
    """``node`` must be an integer schema with minimum ``low`` and maximum ``high``."""
    if not isinstance(node, dict):
        return [Problem(rel, f"{where}: missing ({why})")]
    found = (node.get("type"), node.get("minimum"), node.get("maximum"))
    if found != ("integer", low, high):
        return [Problem(rel, f"{where}: type {found[0]!r}, minimum {found[1]!r}, maximum {found[2]!r}; "
                             f"system/benchmark.yaml needs type 'integer', minimum {low}, maximum {high} ({why})")]
    return []


def schema_problems(schemas: dict[str, Any], version_dir: str, criteria: Sequence[str], case_pattern: str,
                    low: Fraction, high: Fraction, *, total: str = SUM) -> list[Problem]:
    """Facts the schemas repeat from ``benchmark.yaml``, compared with it; and the facts they own, checked usable."""
    base = f"system/schemas/{version_dir}"
    problems: list[Problem] = declaration_problems(schemas, version_dir)
    response, evaluation, gold = (schemas.get(kind) for kind in ID_KINDS)
    n = len(criteria)
    fields = recorded(schemas)
    if evaluation is not None:
        rel = f"{base}/evaluation.schema.json"
        block = _at(evaluation, "properties", "criterion_scores")
        listed = _at(block, "properties")
        fix = "list exactly the criteria of system/benchmark.yaml, in its order"
        if not isinstance(listed, dict) or list(listed) != list(criteria):
            problems.append(Problem(rel, f"$.properties.criterion_scores.properties: {list(listed or {})} "
                                         f"instead of {list(criteria)} ({fix})"))
        if _at(block, "required") != list(criteria):
            problems.append(Problem(rel, f"$.properties.criterion_scores.required: not the criteria of "
                                         f"system/benchmark.yaml ({fix})"))
        if _at(block, "additionalProperties") is not False:
            problems.append(Problem(rel, "$.properties.criterion_scores.additionalProperties: must be false "
                                         "(a score for an unknown criterion would be ignored)"))
        scales = []
        for name in criteria:
            if isinstance(listed, dict) and name in listed:
                where = f"$.properties.criterion_scores.properties.{name}"
                found = _scale_problems(rel, where, listed[name], low, high, "criterion_min and criterion_max")
                problems.extend(found)
                if not found:
                    scales.append((where, listed[name].get("type"), criterion_step(listed[name])))
        for where, kind, step in scales[1:]:
            if (kind, step) != scales[0][1:]:
                problems.append(Problem(rel, f"{where}: type {kind!r} with step {_step_text(step)}, but "
                                             f"{scales[0][0]} has type {scales[0][1]!r} with step "
                                             f"{_step_text(scales[0][2])} (the criteria share one scale: give each "
                                             "the same type and multipleOf)"))
        problems.extend(_severity_problems(rel, _at(evaluation, "properties", "automatic_fails_triggered", "items",
                                                    "properties", "severity"),
                                           "$.properties.automatic_fails_triggered.items.properties.severity"))
        if fields.correctness:
            problems.extend(_correctness_problems(rel, _at(evaluation, "properties", "correctness")))
        problems.extend(_pin_problems(rel, evaluation))
    if response is not None and fields.confidence:
        problems.extend(_range_problems(f"{base}/response.schema.json", "$.properties.confidence",
                                        _at(response, "properties", "confidence"), *CONFIDENCE_RANGE,
                                        "the toolkit reads confidence as an integer percentage"))
    if gold is not None:
        rel = f"{base}/gold.schema.json"
        lowest, highest = total_range(low, high, n, total)
        why = (f"{n} criteria x criterion_min {score_text(low)} .. criterion_max {score_text(high)}" if total == SUM
               else f"score_total mean: criterion_min {score_text(low)} .. criterion_max {score_text(high)}")
        for key in ("rubric_floor", "rubric_ceiling"):
            if getattr(fields, key):
                problems.extend(_scale_problems(rel, f"$.properties.{key}", _at(gold, "properties", key), lowest,
                                                highest, why))
        split = family_group(case_pattern)
        family = _at(gold, "properties", "family", "pattern")
        if split is not None and family != f"^{split[1]}$":
            problems.append(Problem(rel, f"$.properties.family.pattern: {family!r}; the family group of "
                                         f"case_id_pattern needs '^{split[1]}$'"))
    accepted = schema_case_patterns(case_pattern)
    for kind in ID_KINDS:
        pattern = _at(schemas.get(kind), "properties", "case_id", "pattern")
        if kind in schemas and pattern not in accepted:
            problems.append(Problem(f"{base}/{kind}.schema.json",
                                    f"$.properties.case_id.pattern: {pattern!r} is not system/benchmark.yaml's "
                                    f"case_id_pattern (write {accepted[0]!r})"))
    versions = {kind: _at(schemas.get(kind), "properties", "schema_version", "const") for kind in ID_KINDS
                if kind in schemas}
    for kind, value in versions.items():
        if not isinstance(value, str) or not value:
            problems.append(Problem(f"{base}/{kind}.schema.json", "$.properties.schema_version.const: missing "
                                    "(the file-format version, a string such as \"1.0\")"))
    if len({value for value in versions.values() if isinstance(value, str)}) > 1:
        problems.append(Problem(f"{base}/evaluation.schema.json", f"$.properties.schema_version.const: the schemas "
                                f"disagree ({versions}); use one file-format version"))
    catalog = schemas.get("catalog")
    if catalog is not None:
        problems.extend(_severity_problems(f"{base}/catalog.schema.json",
                                           _at(catalog, "properties", "automatic_fails", "items", "properties",
                                               "severity"),
                                           "$.properties.automatic_fails.items.properties.severity"))
    problems.extend(kind_problems(f"{base}/registry.schema.json", schemas.get("registry")))
    return problems


PINS = ("response_sha256", "gold_sha256")  # what a scoring pins: the bytes of the response and gold it graded


def _pin_problems(rel: str, evaluation: Any) -> list[Problem]:
    """The evaluation schema must require both pins: the loader proves with them which texts were graded."""
    required = _at(evaluation, "required")
    missing = [pin for pin in PINS if not isinstance(required, list) or pin not in required
               or _at(evaluation, "properties", pin, "pattern") != "^[0-9a-f]{64}$"]
    if not missing:
        return []
    return [Problem(rel, f"$.required: {', '.join(missing)} must be required, each a property with pattern "
                         "'^[0-9a-f]{64}$' (a scoring pins the sha256 of the response and the gold it graded)")]


def _severity_problems(rel: str, node: Any, where: str) -> list[Problem]:
    enum = _at(node, "enum")
    if not isinstance(enum, list) or sorted(map(str, enum)) != sorted(SEVERITIES) or len(enum) != len(SEVERITIES):
        return [Problem(rel, f"{where}.enum: {enum!r}; the classification knows exactly {list(SEVERITIES)} "
                             "(critical -> Fail, recoverable -> Conditional)")]
    return []


def correctness_values(node: Any) -> tuple[Fraction, ...] | None:
    """The correctness enum as sorted exact values; ``()`` for a schema without an enum that allows numbers
    within [0, 1] (``{"type": "number", "minimum": 0, "maximum": 1}``: any value, at most
    CORRECTNESS_DECIMALS decimals); None when it is neither (not a list of distinct numbers in [0, 1])."""
    if isinstance(node, dict) and "enum" not in node:
        low, high = node.get("minimum"), node.get("maximum")
        if (node.get("type") == "number" and isinstance(low, (int, float)) and isinstance(high, (int, float))
                and not isinstance(low, bool) and not isinstance(high, bool) and 0 <= low < high <= 1):
            return ()
        return None
    enum = _at(node, "enum")
    if not isinstance(enum, list) or any(isinstance(value, bool) or not isinstance(value, (int, float))
                                         for value in enum):
        return None
    values = sorted(exact_decimal(value) for value in enum)
    if len(set(values)) != len(values) or len(values) < 2 or values[0] < 0 or values[-1] > 1:
        return None
    return tuple(values)


def _correctness_problems(rel: str, node: Any) -> list[Problem]:
    if correctness_values(node) is not None:
        return []
    if isinstance(node, dict) and "enum" not in node:
        return [Problem(rel, "$.properties.correctness: neither an enum nor a number range within [0, 1]; write an "
                             "enum of the values (e.g. [0, 0.5, 1]) or {\"type\": \"number\", \"minimum\": 0, "
                             "\"maximum\": 1}")]
    return [Problem(rel, f"$.properties.correctness.enum: {_at(node, 'enum')!r}; needs at least two distinct "
                         "numbers between 0 (wrong) and 1 (right), e.g. [0, 0.5, 1]")]


def _step_text(step: Fraction | None) -> str:
    return "any decimal" if step is None else score_text(step)


def schema_facts(schemas: dict[str, Any]) -> SchemaFacts:
    """The facts the schemas own; call only when :func:`schema_problems` found none."""
    fields = recorded(schemas)
    values = correctness_values(_at(schemas["evaluation"], "properties", "correctness")) if fields.correctness else ()
    assert values is not None
    version = _at(schemas["evaluation"], "properties", "schema_version", "const")
    listed = _at(schemas["evaluation"], "properties", "criterion_scores", "properties")
    first = next(iter(listed.values())) if isinstance(listed, dict) and listed else None
    return SchemaFacts(values, str(version), criterion_step(first), fields)

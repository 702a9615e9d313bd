"""The statistics parameters of ``system/metrics/<version>/config.yaml``, read exactly and validated.

Every key is optional; a missing key takes the default below. A present key
that is invalid is a problem (``$.key: message``), like ``alpha`` and ``ece_bins``: each key's type, range
and message are in the file's schema, rgbench/load/schemas/config.schema.json.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .parsing import exact_decimal
from .validation import keyed_problems, toolkit_schema

DEFAULT_CONFIDENCE = Fraction(95, 100)
DEFAULT_SEED = 0   # config.yaml ``seed`` when left out: enters every random stream (rgbench.stats.seeds)
DEFAULT_RESAMPLES = 2000
DEFAULT_SIGNIFICANCE = Fraction(5, 100)
DEFAULT_WEIGHTS = {1: Fraction(1), 2: Fraction(5, 4), 3: Fraction(3, 2), 4: Fraction(2), 5: Fraction(5, 2)}
DEFAULT_MIN_CASE_COVERAGE = Fraction(9, 10)
# interval half-width (on the 0-1 scale; s_bar divided by max_score) below which a figure is robust, stable,
# reasonable; wider, or over fewer than DEFAULT_RELIABILITY_MIN_CASES cases, it is indicative
RELIABILITY_LABELS = ("robust", "stable", "reasonable")
DEFAULT_HALF_WIDTHS = (Fraction(2, 100), Fraction(5, 100), Fraction(10, 100))
DEFAULT_RELIABILITY_MIN_CASES = 10


@dataclass(frozen=True)
class StatsConfig:
    """confidence_level of every interval, bootstrap_resamples, significance_level of rank ranges,
    difficulty_weights (gold difficulty -> positive weight) of the weighted pass rate, min_case_coverage
    (share of the benchmark's cases a subject needs scored runs on to be ranked, in [0, 1]),
    reliability_half_widths (robust, stable, reasonable: increasing half-widths in (0, 1]) and
    reliability_min_cases (below it every figure is indicative), pairwise_correction (``holm``, the
    family-wise default, or ``benjamini-hochberg``: which adjusted p makes a pair significant),
    consolidation_policy (``median`` or ``mean``: how several grades of a run become one), board_grades
    (``single``: the one grade per run of scoring/; ``consolidated``: the consolidated grade of every run) and
    seed (a non-negative integer that enters every random stream with the parsed data it resamples,
    :mod:`rgbench.stats.seeds`: changing it is the one declared way to re-draw)."""

    confidence_level: Fraction = DEFAULT_CONFIDENCE
    bootstrap_resamples: int = DEFAULT_RESAMPLES
    significance_level: Fraction = DEFAULT_SIGNIFICANCE
    difficulty_weights: dict[int, Fraction] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    min_case_coverage: Fraction = DEFAULT_MIN_CASE_COVERAGE
    reliability_half_widths: tuple[Fraction, ...] = DEFAULT_HALF_WIDTHS
    reliability_min_cases: int = DEFAULT_RELIABILITY_MIN_CASES
    pairwise_correction: str = "holm"
    consolidation_policy: str = "median"   # rgbench.load.consolidate.POLICIES key
    board_grades: str = "single"           # single: scoring/ as it is; consolidated: every grade, consolidated
    seed: int = DEFAULT_SEED               # enters every random stream (rgbench.stats.seeds)


def _weights(raw: dict, difficulties: range | None, messages: list[str]) -> dict[int, Fraction]:
    """The difficulty weights of a mapping (the schema checked it is one, not empty): integer keys, positive
    weights, one for every difficulty the gold schema allows."""
    weights: dict[int, Fraction] = {}
    for key, value in raw.items():
        if isinstance(key, bool) or not isinstance(key, int):
            messages.append(f"$.difficulty_weights: key {key!r} is not an integer difficulty")
            continue
        try:
            weight = exact_decimal(value)
        except ValueError:
            weight = None
        if weight is None or weight <= 0:
            messages.append(f"$.difficulty_weights.{key}: must be a positive number, got {value!r}")
            continue
        weights[key] = weight
    if difficulties is not None:
        missing = [d for d in difficulties if d not in raw]
        if missing:
            messages.append(f"$.difficulty_weights: no weight for difficulty {', '.join(map(str, missing))} "
                            f"(the gold schema allows {difficulties.start}-{difficulties.stop - 1})")
    return dict(sorted(weights.items()))


def parse_stats_config(config: dict, difficulties: range | None = None) -> tuple[StatsConfig, list[str]]:
    """(StatsConfig, messages) from the parsed config.yaml mapping, checked against its schema
    (rgbench/load/schemas/config.schema.json: every key's type and range, each with its message) and for what
    a schema cannot say; messages are ``$.key: what is wrong``, sorted. A key with a problem takes its default.

    ``difficulties`` is the range of gold difficulties the schema allows; each needs a weight.
    """
    found = keyed_problems(toolkit_schema("config"), config)
    messages = [f"{where}: {message}" for where, message in found]
    bad = {where.split(".")[1] for where, _ in found}

    def value(key: str, default: Any, read: Any = lambda v: v) -> Any:
        return default if key in bad or key not in config else read(config[key])

    weights = value("difficulty_weights", dict(DEFAULT_WEIGHTS), lambda raw: _weights(raw, difficulties, messages))
    half_widths = value("reliability_half_widths", DEFAULT_HALF_WIDTHS,
                        lambda raw: tuple(exact_decimal(raw[label]) for label in RELIABILITY_LABELS))
    if not half_widths[0] < half_widths[1] < half_widths[2]:
        messages.append(f"$.reliability_half_widths: must increase from robust to reasonable, got "
                        f"{config['reliability_half_widths']!r}")
        half_widths = DEFAULT_HALF_WIDTHS
    stats = StatsConfig(value("confidence_level", DEFAULT_CONFIDENCE, exact_decimal),
                        value("bootstrap_resamples", DEFAULT_RESAMPLES, int),
                        value("significance_level", DEFAULT_SIGNIFICANCE, exact_decimal), weights,
                        value("min_case_coverage", DEFAULT_MIN_CASE_COVERAGE, exact_decimal), half_widths,
                        value("reliability_min_cases", DEFAULT_RELIABILITY_MIN_CASES, int),
                        value("pairwise_correction", "holm"), value("consolidation_policy", "median"),
                        value("board_grades", "single"), value("seed", DEFAULT_SEED, int))
    return stats, sorted(messages)


JUDGE_ASSISTED = "judge-assisted"   # config.yaml estimation: the judge grades every run, humans a draw of them


def estimation_messages(config: dict) -> list[str]:
    """What is wrong with config.yaml's ``estimation``, ``judge`` and ``llm_judge_in_metrics`` together (their
    types are the schema's): judge-assisted needs a judge, a judge needs judge-assisted, and judge-assisted
    refuses ``llm_judge_in_metrics: true``, which would count the judge's grades a second time as human ones.
    Whether the judge is registered as an llm-judge is the loader's (it knows the reviewers)."""
    assisted = config.get("estimation") == JUDGE_ASSISTED
    if assisted and not config.get("judge"):
        return ["$.judge: missing: estimation judge-assisted needs the id of the llm-judge reviewer that grades "
                "every run (add judge: <id> from subjects/reviewers.yaml)"]
    if "judge" in config and not assisted:
        return [f"$.judge: set to {config['judge']!r}, but estimation is human (remove judge, or set estimation: "
                f"{JUDGE_ASSISTED})"]
    if assisted and config.get("llm_judge_in_metrics") is True:
        return ["$.llm_judge_in_metrics: true with estimation judge-assisted would count the judge's grades twice, "
                "as the judge's and as human ones (set it to false or remove it)"]
    return []


def schema_difficulty_range(gold_schema: Any) -> range | None:
    """The integer range of ``difficulty`` that a gold JSON Schema allows, or None when it states none."""
    try:
        prop = gold_schema["properties"]["difficulty"]
        return range(int(prop["minimum"]), int(prop["maximum"]) + 1)
    except (KeyError, TypeError, ValueError):
        return None

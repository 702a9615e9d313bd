"""The statistics parameters of ``system/metrics/<version>/config.yaml``, read exactly and validated.

Every key is optional; a missing key takes the default below. A present key
that is invalid is a problem (``$.key: message``), like ``alpha`` and ``ece_bins``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .parsing import exact_decimal

DEFAULT_CONFIDENCE = Fraction(95, 100)
DEFAULT_SEED = 0   # config.yaml ``seed`` when left out: enters every random stream (rgbench.stats.seeds)
DEFAULT_RESAMPLES = 2000
DEFAULT_SIGNIFICANCE = Fraction(5, 100)
DEFAULT_WEIGHTS = {1: Fraction(1), 2: Fraction(5, 4), 3: Fraction(3, 2), 4: Fraction(2), 5: Fraction(5, 2)}
MAX_RESAMPLES = 100_000
DEFAULT_MIN_CASE_COVERAGE = Fraction(9, 10)
# interval half-width (on the 0-1 scale; s_bar divided by max_score) below which a figure is robust, stable,
# reasonable; wider, or over fewer than DEFAULT_RELIABILITY_MIN_CASES cases, it is indicative
RELIABILITY_LABELS = ("robust", "stable", "reasonable")
DEFAULT_HALF_WIDTHS = (Fraction(2, 100), Fraction(5, 100), Fraction(10, 100))
DEFAULT_RELIABILITY_MIN_CASES = 10

CORRECTIONS = ("holm", "benjamini-hochberg")   # pairwise_correction: which adjusted p is read (§20)
# Several graders per answer (rgbench.load.consolidate): how the grades of a run are combined, and whether the
# board rests on one grade per run (scoring/) or on the consolidated grade of all of them (+ scoring_multi/).
CONSOLIDATION_POLICIES = ("median", "mean")
BOARD_GRADES = ("single", "consolidated")


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


def _open_unit(config: dict, key: str, default: Fraction, messages: list[str]) -> Fraction:
    if key not in config:
        return default
    try:
        value = exact_decimal(config[key])
    except ValueError:
        value = None
    if value is None or not 0 < value < 1:
        messages.append(f"$.{key}: must be a number strictly between 0 and 1, got {config[key]!r}")
        return default
    return value


def _weights(config: dict, difficulties: range | None, messages: list[str]) -> dict[int, Fraction]:
    if "difficulty_weights" not in config:
        return dict(DEFAULT_WEIGHTS)
    raw = config["difficulty_weights"]
    if not isinstance(raw, dict) or not raw:
        messages.append(f"$.difficulty_weights: must be a mapping from difficulty (integer) to a positive weight, got {raw!r}")
        return dict(DEFAULT_WEIGHTS)
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
    """(StatsConfig, messages) from the parsed config mapping; messages are ``$.key: what is wrong``.

    ``difficulties`` is the range of gold difficulties the schema allows; each needs a weight.
    """
    messages: list[str] = []
    confidence = _open_unit(config, "confidence_level", DEFAULT_CONFIDENCE, messages)
    significance = _open_unit(config, "significance_level", DEFAULT_SIGNIFICANCE, messages)
    resamples = config.get("bootstrap_resamples", DEFAULT_RESAMPLES)
    if isinstance(resamples, bool) or not isinstance(resamples, int) or not 1 <= resamples <= MAX_RESAMPLES:
        messages.append(f"$.bootstrap_resamples: must be an integer from 1 to {MAX_RESAMPLES}, got {resamples!r}")
        resamples = DEFAULT_RESAMPLES
    weights = _weights(config, difficulties, messages)
    coverage = DEFAULT_MIN_CASE_COVERAGE
    if "min_case_coverage" in config:
        try:
            value = exact_decimal(config["min_case_coverage"])
        except ValueError:
            value = None
        if value is None or not 0 <= value <= 1:
            messages.append(f"$.min_case_coverage: must be a number from 0 to 1, got {config['min_case_coverage']!r}")
        else:
            coverage = value
    half_widths = _half_widths(config, messages)
    min_cases = config.get("reliability_min_cases", DEFAULT_RELIABILITY_MIN_CASES)
    if isinstance(min_cases, bool) or not isinstance(min_cases, int) or min_cases < 1:
        messages.append(f"$.reliability_min_cases: must be a positive integer, got {min_cases!r}")
        min_cases = DEFAULT_RELIABILITY_MIN_CASES
    correction = config.get("pairwise_correction", "holm")
    if correction not in CORRECTIONS:
        messages.append(f"$.pairwise_correction: must be holm or benjamini-hochberg, got {correction!r}")
        correction = "holm"
    policy = _choice(config, "consolidation_policy", CONSOLIDATION_POLICIES, messages)
    board = _choice(config, "board_grades", BOARD_GRADES, messages)
    seed = config.get("seed", DEFAULT_SEED)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        messages.append(f"$.seed: must be a non-negative integer (write it without quotes or decimals, e.g. "
                        f"seed: {DEFAULT_SEED}), got {seed!r}")
        seed = DEFAULT_SEED
    return (StatsConfig(confidence, resamples, significance, weights, coverage, half_widths, min_cases, correction,
                        policy, board, seed), messages)


def _choice(config: dict, key: str, allowed: tuple[str, ...], messages: list[str]) -> str:
    """config[key] when it is one of ``allowed`` (the first, the default, when absent); else a message and the
    default."""
    value = config.get(key, allowed[0])
    if not isinstance(value, str) or value not in allowed:
        messages.append(f"$.{key}: must be {' or '.join(allowed)}, got {value!r}")
        return allowed[0]
    return value


def _half_widths(config: dict, messages: list[str]) -> tuple[Fraction, ...]:
    if "reliability_half_widths" not in config:
        return DEFAULT_HALF_WIDTHS
    raw = config["reliability_half_widths"]
    expected = ", ".join(RELIABILITY_LABELS)
    if not isinstance(raw, dict) or set(raw) != set(RELIABILITY_LABELS):
        messages.append(f"$.reliability_half_widths: must map exactly {expected} to half-widths, got {raw!r}")
        return DEFAULT_HALF_WIDTHS
    values = []
    for label in RELIABILITY_LABELS:
        try:
            value = exact_decimal(raw[label])
        except ValueError:
            value = None
        if value is None or not 0 < value <= 1:
            messages.append(f"$.reliability_half_widths.{label}: must be a number in (0, 1], got {raw[label]!r}")
            return DEFAULT_HALF_WIDTHS
        values.append(value)
    if not values[0] < values[1] < values[2]:
        messages.append(f"$.reliability_half_widths: must increase from robust to reasonable, got {raw!r}")
        return DEFAULT_HALF_WIDTHS
    return tuple(values)


def schema_difficulty_range(gold_schema: Any) -> range | None:
    """The integer range of ``difficulty`` that a gold JSON Schema allows, or None when it states none."""
    try:
        prop = gold_schema["properties"]["difficulty"]
        return range(int(prop["minimum"]), int(prop["maximum"]) + 1)
    except (KeyError, TypeError, ValueError):
        return None

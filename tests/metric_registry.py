"""Every single-number metric of one subject (or one family), with what the tests check about it (a test
helper: nothing in the library reads it).

Each :class:`Metric` names the function production calls for it (the one aggregate_metrics.md names),
computes the metric of one subject's scored runs through that function (:attr:`Metric.value`), and states
its exact range, which direction is better, the value when it is undefined (no scored run) and its section
of aggregate_metrics.md. ``tests/test_metric_registry.py`` checks every registered metric against those
claims on random runs, and fails when a public metric function of :data:`COVERED_MODULES` is neither
registered nor listed in :data:`NOT_METRICS` with the reason.

The statistics functions take every subject's runs as columns; :attr:`Metric.value` gives them one
subject (``RunColumns.of({"s": rows})``) and picks that subject's number.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from rgbench.compute.derive import RunRow
from rgbench.compute.metrics import (
    brier_score,
    critical_gate,
    expected_calibration_error,
    family_metrics,
    mean_clipped_score,
    pass_rate,
    q_final,
)
from rgbench.load.config import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, DEFAULT_WEIGHTS
from rgbench.load.scale import ScoreScale, default_scale
from rgbench.stats.brier_decomposition import brier_decompositions
from rgbench.stats.case_summary import case_summaries
from rgbench.stats.difficulty import difficulty_from_columns, weighted_pass_rate
from rgbench.stats.intervals import subject_intervals
from rgbench.stats.pass_at_k import pass_at_k, pass_at_k_from_columns, pass_hat_k
from rgbench.stats.run_columns import RunColumns
from rgbench.stats.seeds import generator

HIGHER, LOWER, NEITHER = "higher", "lower", "neither"   # which values are better; NEITHER: a property of the data

COVERED_MODULES = ("rgbench.compute.metrics", "rgbench.stats.intervals",
                   "rgbench.stats.brier_decomposition", "rgbench.stats.pass_at_k", "rgbench.stats.difficulty")

# Public functions of COVERED_MODULES that are not a metric themselves, and why.
NOT_METRICS = {
    "rgbench.compute.metrics.classified": "whether the runs carry a classification (a pass rule, §11a)",
    "rgbench.compute.metrics.calibrated": "whether the runs carry confidence and correctness (§11a)",
    "rgbench.compute.metrics.confidence_bin": "the bin index of a confidence (§7)",
    "rgbench.compute.metrics.bin_sums": "the integer per-bin sums every calibration figure is made of (§7, §19)",
    "rgbench.compute.metrics.calibration_bins": "the per-bin sums ECE and calibration_bins.csv are made of (§7)",
    "rgbench.compute.metrics.calibration_tables": "calibration_bins of every subject: calibration_bins.csv (§7)",
    "rgbench.compute.metrics.q_numerator": "Q_final as an integer numerator over d · span (§8)",
    "rgbench.compute.metrics.subject_metrics": "P, s_bar, BS, ECE, Q_final and the gate of one subject together",
    "rgbench.stats.intervals.proportion_interval": "the interval of P (inside subject_intervals), of P_family and "
                                                   "of a pass rate per difficulty (§18)",
    "rgbench.stats.intervals.ece_interval": "the interval of ECE and the calibration rule (inside subject_intervals, §18, §19a)",
    "rgbench.stats.intervals.ece_range": "the range of ECE over ece_interval's confidence ball (§18)",
    "rgbench.stats.brier_decomposition.decompose": "the four terms from one subject's per-bin sums (§19)",
    "rgbench.stats.brier_decomposition.bias_corrected": "the bias-corrected terms from one subject's per-bin sums "
                                                        "(§19b); undefined below two runs, so outside this "
                                                        "registry: tests/test_brier_corrected.py checks them",
    "rgbench.stats.brier_decomposition.corrected_decompositions": "bias_corrected of every subject (§19b)",
    "rgbench.stats.pass_at_k.pass_at_k_from_columns": "the pass_at_k.csv table of pass_at_k and pass_hat_k (§22)",
    "rgbench.stats.difficulty.difficulty_from_columns": "metrics_per_difficulty.csv and P_weighted of every "
                                                        "subject, through weighted_pass_rate (§23)",
}


@dataclass(frozen=True)
class Params:
    """What a metric may depend on besides the runs (defaults: the v1.0 configuration)."""

    alpha: Fraction = Fraction(1, 2)
    bins: int = 10
    scale: ScoreScale = field(default_factory=default_scale)                # the total's range and direction
    difficulty_of: Mapping[str, int] = field(default_factory=dict)    # case_id -> gold difficulty
    weights: Mapping[int, Fraction] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    confidence: Fraction = DEFAULT_CONFIDENCE
    resamples: int = DEFAULT_RESAMPLES
    seed: int = 0
    k: int = 1                                                         # of pass@k and pass^k


Bound = Fraction | Callable[[Params, int], Fraction]    # a number, or one of the params and N (the number of runs)


@dataclass(frozen=True)
class Metric:
    """One metric: ``value(rows, params)`` computes it through ``function`` (the production function)."""

    name: str
    function: Callable
    value: Callable[[Sequence[RunRow], Params], object]
    low: Bound
    high: Bound
    direction: str
    undefined: object       # the value when there is no scored run
    section: str
    range_text: str

    def bounds(self, params: Params, n: int) -> tuple[Fraction, Fraction]:
        """(low, high), exact, for these params and N runs."""
        low, high = (b(params, n) if callable(b) else Fraction(b) for b in (self.low, self.high))
        return low, high


def _one(rows: Sequence[RunRow]) -> RunColumns:
    return RunColumns.of({"s": list(rows)})


def _family(rows: Sequence[RunRow], attribute: str):
    """The metric of rows of one subject and one family (family_metrics has no row when there is none)."""
    found = family_metrics(rows)
    if len(found) > 1:
        raise ValueError("rows of one subject and one family expected")
    return getattr(found[0], attribute) if found else None


def _interval(rows: Sequence[RunRow], params: Params, attribute: str, side: int):
    summary = case_summaries(_one(rows), alpha=params.alpha, scale=params.scale, bins=params.bins).get("s")
    if summary is None:
        return None
    interval = getattr(subject_intervals(summary, generator("subject", [str(params.seed)]), params.resamples,
                                         params.confidence), attribute)
    return None if interval is None else Fraction(interval[side])


def _decomposition(rows: Sequence[RunRow], params: Params, attribute: str):
    found = brier_decompositions(_one(rows), params.bins)["s"]
    return None if found is None else getattr(found, attribute)


def _pass_at(rows: Sequence[RunRow], params: Params, attribute: str):
    for r in pass_at_k_from_columns(_one(rows)):
        if r.k == params.k:
            return getattr(r, attribute)
    return None                                    # no case has k scored runs


def _weighted(rows: Sequence[RunRow], params: Params):
    return difficulty_from_columns(_one(rows), params.difficulty_of, params.weights, lambda scope, d: (0.0, 1.0))[1]["s"]


def _score_min(params: Params, n: int) -> Fraction:
    return params.scale.low


def _score_max(params: Params, n: int) -> Fraction:
    return params.scale.high


def _n(params: Params, n: int) -> Fraction:
    return Fraction(n)


def _within_low(params: Params, n: int) -> Fraction:
    return -Fraction(1, 2 * params.bins)                # −2·|cov(f, o)| within a bin of width 1/M, |o − o_k| ≤ 1


def _within_high(params: Params, n: int) -> Fraction:
    return Fraction(1, 2 * params.bins) + Fraction(1, 4 * params.bins ** 2)     # + var(f) ≤ (1/M)²/4


def _registry() -> dict[str, Metric]:
    def metric(name, function, value, low, high, direction, section, range_text, undefined=None):
        return Metric(name, function, value, low, high, direction, undefined, section, range_text)

    out = [
        metric("P", pass_rate, lambda rows, p: pass_rate(rows), 0, 1, HIGHER, "§4", "[0, 1]"),
        metric("s_bar", mean_clipped_score, lambda rows, p: mean_clipped_score(rows), _score_min, _score_max, HIGHER,
               "§5", "[score_min, score_max]"),
        metric("BS", brier_score, lambda rows, p: brier_score(rows), 0, 1, LOWER, "§6", "[0, 1]"),
        metric("ECE", expected_calibration_error, lambda rows, p: expected_calibration_error(rows, p.bins), 0, 1,
               LOWER, "§7", "[0, 1]"),
        metric("Q_final", q_final,
               lambda rows, p: q_final(pass_rate(rows), mean_clipped_score(rows), p.alpha, p.scale), 0, 1,
               HIGHER, "§8", "[0, 1]"),
        metric("n_critical", critical_gate, lambda rows, p: critical_gate(rows)[1], 0, _n, LOWER, "§9", "[0, N]",
               undefined=0),
        metric("disqualified", critical_gate, lambda rows, p: critical_gate(rows)[0], 0, 1, LOWER, "§9",
               "{False, True}", undefined=False),
        metric("P_family", family_metrics, lambda rows, p: _family(rows, "p_family"), 0, 1, HIGHER, "§10",
               "[0, 1]"),
        metric("s_bar_family", family_metrics, lambda rows, p: _family(rows, "s_bar_family"), _score_min,
               _score_max, HIGHER, "§10", "[score_min, score_max]"),
    ]
    for stem, attribute, low, high, direction, text in (
            ("P", "p", 0, 1, HIGHER, "[0, 1]"), ("s_bar", "s_bar", _score_min, _score_max, HIGHER, "[score_min, score_max]"),
            ("BS", "bs", 0, 1, LOWER, "[0, 1]"), ("ECE", "ece", 0, 1, LOWER, "[0, 1]"),
            ("Q_final", "q_final", 0, 1, HIGHER, "[0, 1]")):
        for side, end in ((0, "low"), (1, "high")):
            out.append(metric(f"{stem}_{end}", subject_intervals,
                              lambda rows, p, a=attribute, s=side: _interval(rows, p, a, s), low, high, direction,
                              "§18", text))
    out += [
        metric("BS_reliability", brier_decompositions, lambda rows, p: _decomposition(rows, p, "reliability"), 0, 1,
               LOWER, "§19", "[0, 1]"),
        metric("BS_resolution", brier_decompositions, lambda rows, p: _decomposition(rows, p, "resolution"), 0,
               Fraction(1, 4), HIGHER, "§19", "[0, 1/4]"),
        metric("BS_uncertainty", brier_decompositions, lambda rows, p: _decomposition(rows, p, "uncertainty"), 0,
               Fraction(1, 4), NEITHER, "§19", "[0, 1/4]"),
        metric("BS_within_bin", brier_decompositions, lambda rows, p: _decomposition(rows, p, "within_bin"),
               _within_low, _within_high, NEITHER, "§19", "[−1/(2M), 1/(2M) + 1/(4M²)], M = ece_bins"),
        metric("pass_at_k", pass_at_k, lambda rows, p: _pass_at(rows, p, "pass_at_k"), 0, 1, HIGHER, "§22",
               "[0, 1]"),
        metric("pass_hat_k", pass_hat_k, lambda rows, p: _pass_at(rows, p, "pass_hat_k"), 0, 1, HIGHER, "§22",
               "[0, 1]"),
        metric("P_weighted", weighted_pass_rate, _weighted, 0, 1, HIGHER, "§23", "[0, 1]"),
    ]
    return {m.name: m for m in out}


METRICS: dict[str, Metric] = _registry()

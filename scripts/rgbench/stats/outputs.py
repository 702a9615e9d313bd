"""The statistics compute_metrics adds: computed from the exact tables, rendered to the new columns and files.

``rgbench.compute.tables`` calls :func:`compute_statistics_from_columns` from ``compute_results`` and
:func:`statistics_files` / :func:`subject_stats_cells` / :func:`family_stats_cells`
from its writers; this module holds the column tuples and file names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..compute.metrics import CalibrationBin, FamilyMetrics, SubjectMetrics
from ..compute.numfmt import fmt_fixed
from ..load.spec import Spec
from .alpha_sensitivity import AlphaRow, alpha_sensitivity
from .bootstrap import bootstrap_seed
from .brier_decomposition import BrierDecomposition, CorrectedDecomposition, brier_decompositions, corrected_decompositions
from .calibration_check import CalibrationCheck, calibration_checks
from .case_draws import CaseDraws
from .config import StatsConfig
from .difficulty import DifficultyRow, difficulty_from_columns
from .difficulty_trend import DifficultyTrend, difficulty_trend_from_columns, trend_warnings
from .exact_products import exact_bincount
from .intervals_table import SubjectIntervals, subject_intervals_table
from .pairwise import PairwiseRow, better_of, pairwise_from_columns
from .pass_at_k import PassAtK, pass_at_k_from_columns
from .run_columns import RunColumns
from .wilson import wilson_interval

SUBJECT_STATS_COLUMNS = (
    "P_wilson_low", "P_wilson_high", "s_bar_low", "s_bar_high", "BS_low", "BS_high", "ECE_low", "ECE_high",
    "Q_final_low", "Q_final_high", "BS_reliability", "BS_resolution", "BS_uncertainty", "BS_within_bin",
    "P_weighted", "n_cases",
) + (
    # issue 11 item 5: ECE against perfect calibration, bias-corrected Brier terms (§19a, §19b)
    "ECE_calibrated_mean", "ECE_calibrated_share", "BS_reliability_corrected", "BS_resolution_corrected",
    "BS_uncertainty_corrected",
)
FAMILY_STATS_COLUMNS = ("P_family_wilson_low", "P_family_wilson_high")
CALIBRATION_COLUMNS = ("subject_id", "subject_version", "bin", "bin_low", "bin_high", "count",
                       "mean_confidence", "mean_correctness")
PAIRWISE_COLUMNS = ("subject_a", "subject_b", "n_pairs", "a_pass_b_not", "b_pass_a_not", "mcnemar_p", "q_diff",
                    "q_diff_low", "q_diff_high", "p_holm", "n_cases", "significantly_better")
PASS_AT_K_COLUMNS = ("subject_id", "k", "pass_at_k", "pass_hat_k", "n_cases")
DIFFICULTY_COLUMNS = ("subject_id", "difficulty", "weight", "n_cases", "n_runs", "n_pass", "P_difficulty",
                      "P_difficulty_low", "P_difficulty_high")
DIFFICULTY_TREND_COLUMNS = ("n_cases", "n_levels", "kendall_tau_b", "kendall_p", "easiest", "hardest", "n_easiest",
                            "n_hardest", "separation", "separation_low", "separation_high")
ALPHA_COLUMNS = ("subject_id", "subject_version", "alpha", "Q_final", "rank")

CALIBRATION_FILE = "calibration_bins.csv"
PAIRWISE_FILE = "pairwise.csv"
PASS_AT_K_FILE = "pass_at_k.csv"
DIFFICULTY_FILE = "metrics_per_difficulty.csv"
ALPHA_FILE = "alpha_sensitivity.csv"
DIFFICULTY_TREND_FILE = "difficulty_trend.csv"

# Every (file, columns) this module writes in full; the two core files gain the *_STATS_COLUMNS.
STATS_TABLES = {
    CALIBRATION_FILE: CALIBRATION_COLUMNS,
    PAIRWISE_FILE: PAIRWISE_COLUMNS,
    PASS_AT_K_FILE: PASS_AT_K_COLUMNS,
    DIFFICULTY_FILE: DIFFICULTY_COLUMNS,
    ALPHA_FILE: ALPHA_COLUMNS,
    DIFFICULTY_TREND_FILE: DIFFICULTY_TREND_COLUMNS,
}


@dataclass(frozen=True)
class SubjectStats:
    """The statistics of one registered subject (all None / 0 when it has no scored run)."""

    wilson: tuple[float, float] | None
    intervals: SubjectIntervals
    decomposition: BrierDecomposition | None
    p_weighted: Fraction | None
    n_cases: int
    calibration_check: CalibrationCheck | None = None
    corrected: CorrectedDecomposition | None = None


@dataclass(frozen=True)
class Statistics:
    """Everything the statistics add to one computation, exact except the Wilson bounds."""

    seed: int
    config: StatsConfig
    bins: int
    subjects: dict[str, SubjectStats]
    families: dict[tuple[str, str], tuple[float, float] | None]
    calibration: list[tuple[SubjectMetrics, list]] = field(default_factory=list)
    pairwise: list[PairwiseRow] = field(default_factory=list)
    pass_at_k: list[PassAtK] = field(default_factory=list)
    difficulty: list[DifficultyRow] = field(default_factory=list)
    alpha: list[AlphaRow] = field(default_factory=list)
    difficulty_trend: DifficultyTrend | None = None
    warnings: list[str] = field(default_factory=list)


def compute_statistics_from_columns(columns: RunColumns, difficulty_of: Mapping[str, int], spec: Spec,
                                    subjects: Sequence[SubjectMetrics], families: Sequence[FamilyMetrics],
                                    digest: str, calibration: Mapping[str, Sequence[CalibrationBin]],
                                    inputs: Mapping[str, str]) -> Statistics:
    """All statistics of issue 5 from the scored runs as columns and the core metrics.

    ``columns`` holds the runs of every subject of ``subjects`` (subjects sorted, including those without
    runs); ``difficulty_of`` maps each case id to its gold difficulty; ``digest`` is the manifest's
    input_digest (it seeds the bootstrap); ``calibration`` holds every subject's :func:`.calibration.calibration_tables`
    entry (its calibration bins, computed from its runs); ``inputs`` maps every input file to its sha256 (it
    seeds each subject's calibration check from that subject's own files).
    """
    config: StatsConfig = spec.stats
    seed = bootstrap_seed(digest)
    draws = CaseDraws(seed, columns.cases, config.bootstrap_resamples) if columns.cases else None
    intervals = subject_intervals_table(
        columns, bins=spec.ece_bins, alpha=spec.alpha, max_score=spec.max_score, draws=draws,
        confidence=config.confidence_level,
    ) if draws is not None else {}
    decompositions = brier_decompositions(columns, spec.ece_bins)
    corrected = corrected_decompositions(columns, spec.ece_bins)
    checks = calibration_checks(columns, spec.ece_bins, inputs, config.bootstrap_resamples)
    difficulty, weighted = difficulty_from_columns(columns, difficulty_of, config.difficulty_weights,
                                                   config.confidence_level)
    trend = difficulty_trend_from_columns(columns, difficulty_of, config.bootstrap_resamples, config.confidence_level)
    index = {sid: s for s, sid in enumerate(columns.subjects)}
    n_runs = np.bincount(columns.subject, minlength=len(columns.subjects)).tolist()
    n_passes = exact_bincount(columns.subject, columns.passed, len(columns.subjects)).tolist()
    n_cases = (columns.per_subject_case(np.ones_like(columns.subject)) > 0).sum(axis=1).tolist()
    per_subject = {}
    for m in subjects:
        s = index[m.subject_id]
        per_subject[m.subject_id] = SubjectStats(
            wilson=wilson_interval(n_passes[s], n_runs[s], config.confidence_level),
            intervals=intervals.get(m.subject_id, SubjectIntervals()),
            decomposition=decompositions[m.subject_id],
            p_weighted=weighted[m.subject_id],
            n_cases=n_cases[s],
            calibration_check=checks[m.subject_id],
            corrected=corrected[m.subject_id],
        )
    family_wilson = {}
    for f in families:
        passes = f.p_family.numerator * f.n_family // f.p_family.denominator     # P_family = passes / n_family
        family_wilson[(f.subject_id, f.family)] = wilson_interval(passes, f.n_family, config.confidence_level)
    return Statistics(
        seed=seed,
        config=config,
        bins=spec.ece_bins,
        subjects=per_subject,
        families=family_wilson,
        calibration=[(m, list(calibration[m.subject_id])) for m in subjects],
        pairwise=pairwise_from_columns(columns, alpha=spec.alpha, max_score=spec.max_score,
                                       confidence=config.confidence_level, draws=draws) if draws is not None else [],
        pass_at_k=pass_at_k_from_columns(columns),
        difficulty=difficulty,
        alpha=alpha_sensitivity(subjects, spec.max_score),
        warnings=trend_warnings(trend, config.significance_level),
        difficulty_trend=trend,
    )


# --- rendering ------------------------------------------------------------------------

def fmt_float(value: float | None) -> str:
    """A float (Wilson bound) with 6 decimals, rounded half to even from its exact binary value; None -> ""."""
    return "" if value is None else fmt_fixed(Fraction(value))


def _interval(pair: tuple | None, fmt=fmt_fixed) -> tuple[str, str]:
    return ("", "") if pair is None else (fmt(pair[0]), fmt(pair[1]))


def _int(value: int | None) -> str:
    return "" if value is None else str(value)


def subject_stats_cells(statistics: Statistics, subject_id: str) -> tuple[str, ...]:
    """The SUBJECT_STATS_COLUMNS cells of one subject's row in metrics_per_subject.csv."""
    s = statistics.subjects[subject_id]
    d = s.decomposition
    i = s.intervals
    return (
        *_interval(s.wilson, fmt_float), *_interval(i.s_bar), *_interval(i.bs), *_interval(i.ece), *_interval(i.q_final),
        *(("", "", "", "") if d is None else
          (fmt_fixed(d.reliability), fmt_fixed(d.resolution), fmt_fixed(d.uncertainty), fmt_fixed(d.within_bin))),
        fmt_fixed(s.p_weighted), str(s.n_cases),
        *_calibration_check_cells(s),
    )


def _calibration_check_cells(s: SubjectStats) -> tuple[str, ...]:
    """ECE_calibrated_mean, ECE_calibrated_share and the three bias-corrected Brier terms ("" when undefined)."""
    check, c = s.calibration_check, s.corrected
    return (("", "") if check is None else (fmt_fixed(check.expected), fmt_fixed(check.share_at_or_above))) + (
        ("", "", "") if c is None else (fmt_fixed(c.reliability), fmt_fixed(c.resolution), fmt_fixed(c.uncertainty)))


def family_stats_cells(statistics: Statistics, subject_id: str, family: str) -> tuple[str, ...]:
    """The FAMILY_STATS_COLUMNS cells of one row of metrics_per_family.csv."""
    return _interval(statistics.families[(subject_id, family)], fmt_float)


def _calibration_rows(statistics: Statistics):
    m_bins = statistics.bins
    edges = [fmt_fixed(Fraction(i, m_bins)) for i in range(m_bins + 1)]
    for m, bins in sorted(statistics.calibration, key=lambda item: item[0].subject_id):
        for b in bins:
            yield (m.subject_id, m.subject_version, str(b.index + 1), edges[b.index], edges[b.index + 1],
                   str(b.count), fmt_fixed(b.mean_confidence), fmt_fixed(b.mean_correctness))


def _pairwise_rows(statistics: Statistics):
    level = statistics.config.significance_level
    for r in statistics.pairwise:
        yield (r.subject_a, r.subject_b, str(r.n_pairs), str(r.a_pass_b_not), str(r.b_pass_a_not),
               fmt_fixed(r.mcnemar_p), fmt_fixed(r.q_diff), fmt_fixed(r.q_diff_low), fmt_fixed(r.q_diff_high),
               fmt_fixed(r.p_holm), str(r.n_cases), better_of(r, r.p_holm < level) or "")


def _trend_rows(t: DifficultyTrend | None):
    """The one row of difficulty_trend.csv (none when there is no scored run)."""
    if t is None or t.n_cases == 0:
        return
    yield (str(t.n_cases), str(t.n_levels), fmt_float(t.tau_b), fmt_float(t.p_value), _int(t.easiest),
           _int(t.hardest), str(t.n_easiest), str(t.n_hardest), fmt_fixed(t.separation), fmt_fixed(t.separation_low),
           fmt_fixed(t.separation_high))


def statistics_files(statistics: Statistics, csv_text) -> dict[str, bytes]:
    """File name (inside results/) -> bytes of the new CSV files; ``csv_text`` is the core writer."""
    tables = {
        CALIBRATION_FILE: _calibration_rows(statistics),
        PAIRWISE_FILE: _pairwise_rows(statistics),
        PASS_AT_K_FILE: ((r.subject_id, str(r.k), fmt_fixed(r.pass_at_k), fmt_fixed(r.pass_hat_k), str(r.n_cases))
                         for r in statistics.pass_at_k),
        DIFFICULTY_FILE: ((r.subject_id, str(r.difficulty), fmt_fixed(r.weight), str(r.n_cases), str(r.n_runs),
                           str(r.n_pass), fmt_fixed(r.p), fmt_float(r.p_low), fmt_float(r.p_high))
                          for r in statistics.difficulty),
        ALPHA_FILE: ((r.subject_id, r.subject_version, fmt_fixed(r.alpha), fmt_fixed(r.q_final), _int(r.rank))
                     for r in statistics.alpha),
        DIFFICULTY_TREND_FILE: _trend_rows(statistics.difficulty_trend),
    }
    return {name: csv_text(STATS_TABLES[name], rows).encode("utf-8") for name, rows in tables.items()}


def statistics_manifest(statistics: Statistics) -> dict:
    """The ``statistics`` entry of manifest.json: how to redo every interval bit for bit."""
    c = statistics.config
    return {
        "bootstrap_resamples": c.bootstrap_resamples,
        "bootstrap_seed": str(statistics.seed),
        "bootstrap_streams": "one master stream numpy Generator(PCG64(SeedSequence([bootstrap_seed, "
                             "label_key('cases:' + hex sha256 of the sorted distinct case_id of per_run.csv joined by "
                             "newlines)]))), read in blocks integers(0, K, size=(B, K), dtype=int32); the case set "
                             "S of a subject (its cases) or a pair (its shared cases) keeps, per replicate, the first |S| "
                             "picks that fall in S (aggregate_metrics.md, section 18)",
        "confidence_level": fmt_fixed(c.confidence_level),
        "difficulty_weights": {str(d): fmt_fixed(w) for d, w in sorted(c.difficulty_weights.items())},
        "significance_level": fmt_fixed(c.significance_level),
    }

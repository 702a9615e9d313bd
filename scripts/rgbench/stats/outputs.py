"""The statistics compute_metrics adds: computed from the exact tables, rendered to the new columns and files.

``rgbench.results.tables`` calls :func:`compute_statistics_from_columns` from ``compute_results`` and
:func:`statistics_tables` / :func:`subject_stats_cells` / :func:`family_stats_cells`
from its writers; this module holds the column tuples and file names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import cast

from ..compute.metrics import CalibrationBin, FamilyMetrics, SubjectMetrics
from ..compute.ranking import RANKED, rank_subjects
from ..load.config import StatsConfig
from ..load.spec import Spec
from ..numfmt import fmt_bool, fmt_fixed, fmt_optional
from ..results_csv import Table
from .alpha_sensitivity import AlphaRow, OrderRow, alpha_sensitivity, order_stability
from .bootstrap import Interval, case_counts, case_weights
from .brier_decomposition import BrierDecomposition, CorrectedDecomposition, brier_decompositions, corrected_decompositions
from .case_summary import CaseSummary, pooled_summary
from .difficulty import ALL_SUBJECTS, DifficultyRow, difficulty_from_columns
from .difficulty_trend import DifficultyTrend, difficulty_trend_from_columns, trend_warnings
from .eligibility import is_incomplete, missing_cases
from .intervals import SubjectIntervals, proportion_interval, subject_intervals
from .pairwise import PairwiseRow, pairwise_table, significantly_better, without_pass_rate
from .pass_at_k import PassAtK, pass_at_k_from_columns
from .rank_sets import RankSet, joint_draw, rank_sets, swap_shares
from .run_columns import RunColumns
from .seeds import generator, seed_digest

SUBJECT_STATS_COLUMNS = (
    "P_low", "P_high", "s_bar_low", "s_bar_high", "BS_low", "BS_high", "ECE_low", "ECE_high",
    "Q_final_low", "Q_final_high", "BS_reliability", "BS_resolution", "BS_uncertainty", "BS_within_bin",
    "P_weighted", "n_cases", "n_cases_missing", "missing_cases",
) + (
    # issue 11 item 5: bias-corrected Brier terms (§19b); the calibration rule reads ECE_low (§19a, issue 25)
    "BS_reliability_corrected", "BS_resolution_corrected", "BS_uncertainty_corrected",
)
FAMILY_STATS_COLUMNS = ("P_family_low", "P_family_high")
CALIBRATION_COLUMNS = ("subject_id", "subject_version", "bin", "bin_low", "bin_high", "count",
                       "mean_confidence", "mean_correctness")
PAIRWISE_COLUMNS = ("subject_a", "subject_b", "n_cases", "q_diff", "q_diff_low", "q_diff_high", "p_diff",
                    "p_diff_low", "p_diff_high", "p_value", "test", "p_holm", "significantly_better",
                    "q_diff_sd", "p_diff_sd", "q_mde", "p_mde", "p_bh", "p_min", "family")
RANK_SETS_COLUMNS = ("subject_id", "rank", "rank_low", "rank_high", "rank_low_marginal", "rank_high_marginal")
RANK_STABILITY_COLUMNS = ("subject_a", "subject_b", "rank_a", "rank_b", "adjacent", "alpha_crossing", "swap_share")
PASS_AT_K_COLUMNS = ("subject_id", "k", "pass_at_k", "pass_hat_k", "n_cases")
DIFFICULTY_COLUMNS = ("subject_id", "difficulty", "weight", "n_cases", "n_runs", "n_pass", "P_difficulty",
                      "P_difficulty_low", "P_difficulty_high")
DIFFICULTY_TREND_COLUMNS = ("n_cases", "n_levels", "kendall_tau_b", "kendall_p", "easiest", "hardest", "n_easiest",
                            "n_hardest", "separation", "separation_low", "separation_high")
ALPHA_COLUMNS = ("subject_id", "subject_version", "alpha", "Q_final", "rank")

CALIBRATION_FILE = "calibration_bins.csv"
PAIRWISE_FILE = "pairwise.csv"
RANK_SETS_FILE = "rank_sets.csv"
RANK_STABILITY_FILE = "rank_stability.csv"
PASS_AT_K_FILE = "pass_at_k.csv"
DIFFICULTY_FILE = "metrics_per_difficulty.csv"
ALPHA_FILE = "alpha_sensitivity.csv"
DIFFICULTY_TREND_FILE = "difficulty_trend.csv"

# Every (file, columns) this module writes in full; the two core files gain the *_STATS_COLUMNS.
STATS_TABLES = {
    CALIBRATION_FILE: CALIBRATION_COLUMNS,
    PAIRWISE_FILE: PAIRWISE_COLUMNS,
    RANK_SETS_FILE: RANK_SETS_COLUMNS,
    RANK_STABILITY_FILE: RANK_STABILITY_COLUMNS,
    PASS_AT_K_FILE: PASS_AT_K_COLUMNS,
    DIFFICULTY_FILE: DIFFICULTY_COLUMNS,
    ALPHA_FILE: ALPHA_COLUMNS,
    DIFFICULTY_TREND_FILE: DIFFICULTY_TREND_COLUMNS,
}


@dataclass(frozen=True)
class SubjectStats:
    """The statistics of one registered subject (intervals None / counts 0 when it has no scored run)."""

    intervals: SubjectIntervals
    decomposition: BrierDecomposition | None
    p_weighted: Fraction | None
    n_cases: int
    missing: tuple[str, ...]
    digest: str
    corrected: CorrectedDecomposition | None = None


@dataclass(frozen=True)
class Statistics:
    """Everything the statistics add to one computation."""

    config: StatsConfig
    bins: int
    subjects: dict[str, SubjectStats]
    families: dict[tuple[str, str], Interval | None]
    incomplete: frozenset[str] = frozenset()
    calibration: list[tuple[SubjectMetrics, list]] = field(default_factory=list)
    pairwise: list[PairwiseRow] = field(default_factory=list)
    rank_sets: list[RankSet] = field(default_factory=list)
    order: list[OrderRow] = field(default_factory=list)
    pass_at_k: list[PassAtK] = field(default_factory=list)
    difficulty: list[DifficultyRow] = field(default_factory=list)
    alpha: list[AlphaRow] = field(default_factory=list)
    difficulty_trend: DifficultyTrend | None = None
    warnings: list[str] = field(default_factory=list)


def _level_intervals(summaries: Mapping[str, CaseSummary], digests: Mapping[str, str], difficulty_of: Mapping[str, int],
                     config: StatsConfig):
    """(scope, difficulty) -> the case-bootstrap interval of that pass rate; ``ALL`` pools every subject's runs
    of a case into one cluster, with a stream over every subject's digest."""
    pooled = pooled_summary(list(summaries.values())) if summaries else None

    def interval_of(scope: str, difficulty: int):
        if scope == ALL_SUBJECTS:
            summary, streams = pooled, list(digests.values())
        else:
            summary, streams = summaries[scope], [digests[scope]]
        assert summary is not None
        part = summary.subset([c for c in summary.case_ids if difficulty_of[c] == difficulty])
        rng = generator(f"difficulty:{difficulty}", streams)
        return proportion_interval(part, case_counts(rng, part.k, config.bootstrap_resamples), config.confidence_level)
    return interval_of


def compute_statistics_from_columns(columns: RunColumns, difficulty_of: Mapping[str, int | None],
                                    family_of: Mapping[str, str], spec: Spec,
                                    subjects: Sequence[SubjectMetrics], families: Sequence[FamilyMetrics],
                                    inputs: Mapping[str, str],
                                    calibration: Mapping[str, Sequence[CalibrationBin]], *,
                                    summaries: Mapping[str, CaseSummary], digests: Mapping[str, str]) -> Statistics:
    """All statistics from the scored runs as columns and the core metrics.

    ``columns`` holds the runs of every subject of ``subjects`` (subjects sorted, including those without
    runs); ``difficulty_of`` and ``family_of`` map each case id of the benchmark (every gold) to its
    difficulty and family; ``inputs``
    maps every input path to its sha256 (provenance only: no stream reads it); ``calibration`` holds every subject's
    :func:`rgbench.compute.metrics.calibration_tables` entry; ``summaries`` are :func:`.case_summary.case_summaries` of
    ``columns`` and ``digests`` every subject's :func:`.seeds.subject_digests` (the declared seed and its parsed
    runs: each subject's stream is seeded from its own, :mod:`.seeds`), built once by the caller and shared
    with the lab's breakdowns; the pairs' streams take the declared seed (config.yaml ``seed``) and their
    shared cases.
    """
    config: StatsConfig = spec.stats
    resamples, confidence = config.bootstrap_resamples, config.confidence_level
    # What the benchmark does not record leaves its statistics out (aggregate_metrics.md §0b): each is computed
    # on its own stream, so the others do not move.
    passes, calibrated = spec.has_pass_rule, spec.has_calibration
    nothing: dict = dict.fromkeys(m.subject_id for m in subjects)
    decompositions = brier_decompositions(columns, spec.ece_bins) if calibrated else nothing
    corrected = corrected_decompositions(columns, spec.ece_bins) if calibrated else nothing
    difficulty: list[DifficultyRow] = []
    weighted: Mapping[str, Fraction | None] = nothing
    trend = None
    if passes and spec.has_difficulty:
        levels = cast(Mapping[str, int], difficulty_of)   # every gold has one: the schema requires it
        difficulty, weighted = difficulty_from_columns(columns, levels, config.difficulty_weights,
                                                       _level_intervals(summaries, digests, levels, config))
        trend = difficulty_trend_from_columns(columns, levels, confidence)
    per_subject = {}
    for m in subjects:
        sid = m.subject_id
        summary = summaries.get(sid)
        intervals = (subject_intervals(summary, generator("subject", [digests[sid]]), resamples, confidence,
                                       passes=passes, calibration=calibrated)
                     if summary is not None else SubjectIntervals())
        scored = summary.case_ids if summary is not None else ()
        per_subject[sid] = SubjectStats(intervals, decompositions[sid], weighted[sid], len(scored),
                                        missing_cases(scored, difficulty_of), digests[sid], corrected[sid])
    family_intervals: dict[tuple[str, str], Interval | None] = {}
    for f in families if passes else ():
        summary = summaries[f.subject_id]
        part = summary.subset([c for c in summary.case_ids if family_of[c] == f.family])
        weights = case_weights(part.k, digest=digests[f.subject_id], label=f"family:{f.family}", resamples=resamples)
        family_intervals[(f.subject_id, f.family)] = proportion_interval(part, weights, confidence)
    incomplete = frozenset(sid for sid, st in per_subject.items()
                           if is_incomplete(st.n_cases, len(st.missing), config.min_case_coverage))
    standings = [s for s in rank_subjects(subjects, incomplete, higher_is_better=spec.higher_is_better)
                 if s.status == RANKED]
    ranked_ids = [s.metrics.subject_id for s in standings]
    sets: list[RankSet] = []
    swap = None
    if ranked_ids:
        draw = joint_draw([summaries[sid] for sid in ranked_ids],
                          generator("ranks", [digests[sid] for sid in ranked_ids]), resamples)
        sets = rank_sets(ranked_ids, [s.rank or 0 for s in standings],
                         [float(s.metrics.q_final or 0) for s in standings], draw, confidence)
        swap = swap_shares(draw.replicates).tolist()
    pairwise = pairwise_table(summaries, seed_digest(config.seed), resamples=resamples, confidence=confidence,
                              level=config.significance_level, ranked=ranked_ids)
    return Statistics(
        config=config,
        bins=spec.ece_bins,
        subjects=per_subject,
        families=family_intervals,
        incomplete=incomplete,
        calibration=[(m, list(calibration[m.subject_id])) for m in subjects],
        pairwise=pairwise if passes else without_pass_rate(pairwise),
        rank_sets=sets,
        order=order_stability([(s.rank or 0, s.metrics) for s in standings], spec.scale, swap),
        pass_at_k=pass_at_k_from_columns(columns) if passes else [],
        difficulty=difficulty,
        alpha=alpha_sensitivity(subjects, spec.scale, incomplete=incomplete) if passes else [],
        warnings=[] if trend is None else trend_warnings(trend, config.significance_level),
        difficulty_trend=trend,
    )


# --- rendering ------------------------------------------------------------------------

def fmt_float(value: float | Decimal | None) -> str:
    """A float (a bootstrap bound) or a Decimal (a geometric mean) with 6 decimals, rounded half to even from its
    exact value; None -> ""."""
    return "" if value is None else fmt_fixed(Fraction(value))


def fmt_interval(pair: tuple[float, float] | None) -> tuple[str, str]:
    """The two cells of an interval's bounds (:func:`fmt_float`); empty without an interval."""
    return ("", "") if pair is None else (fmt_float(pair[0]), fmt_float(pair[1]))


def _fixed_cells(record: object | None, *fields: str) -> tuple[str, ...]:
    """The named exact fields of ``record`` (:func:`fmt_fixed`); empty cells when it is None (undefined)."""
    return tuple("" if record is None else fmt_fixed(getattr(record, name)) for name in fields)


def subject_stats_cells(statistics: Statistics, subject_id: str) -> tuple[str, ...]:
    """The SUBJECT_STATS_COLUMNS cells of one subject's row in metrics_per_subject.csv."""
    s = statistics.subjects[subject_id]
    i = s.intervals
    return (
        *fmt_interval(i.p), *fmt_interval(i.s_bar), *fmt_interval(i.bs), *fmt_interval(i.ece), *fmt_interval(i.q_final),
        *_fixed_cells(s.decomposition, "reliability", "resolution", "uncertainty", "within_bin"),
        fmt_fixed(s.p_weighted), str(s.n_cases), str(len(s.missing)), " ".join(s.missing),
        *_fixed_cells(s.corrected, "reliability", "resolution", "uncertainty"),
    )


def family_stats_cells(statistics: Statistics, subject_id: str, family: str) -> tuple[str, ...]:
    """The FAMILY_STATS_COLUMNS cells of one row of metrics_per_family.csv."""
    return fmt_interval(statistics.families.get((subject_id, family)))   # none without a pass rule


def _calibration_rows(statistics: Statistics):
    m_bins = statistics.bins
    edges = [fmt_fixed(Fraction(i, m_bins)) for i in range(m_bins + 1)]
    for m, bins in sorted(statistics.calibration, key=lambda item: item[0].subject_id):
        for b in bins:
            yield (m.subject_id, m.subject_version, str(b.index + 1), edges[b.index], edges[b.index + 1],
                   str(b.count), fmt_fixed(b.mean_confidence), fmt_fixed(b.mean_correctness))


def pairwise_cells(row: PairwiseRow, level: Fraction, correction: str = "holm") -> tuple[str, ...]:
    """One row of pairwise.csv (PAIRWISE_COLUMNS)."""
    return (row.subject_a, row.subject_b, str(row.n_cases), fmt_fixed(row.q_diff), fmt_float(row.q_diff_low),
            fmt_float(row.q_diff_high), fmt_fixed(row.p_diff), fmt_float(row.p_diff_low), fmt_float(row.p_diff_high),
            fmt_fixed(row.p_value), row.test, fmt_fixed(row.p_holm), significantly_better(row, level, correction) or "",
            fmt_float(row.q_diff_sd), fmt_float(row.p_diff_sd), fmt_float(row.q_mde), fmt_float(row.p_mde),
            fmt_fixed(row.p_bh), fmt_fixed(row.p_min), row.family)


def _trend_rows(t: DifficultyTrend | None):
    """The one row of difficulty_trend.csv (none when there is no scored run)."""
    if t is None or t.n_cases == 0:
        return
    yield (str(t.n_cases), str(t.n_levels), fmt_float(t.tau_b), fmt_float(t.p_value), fmt_optional(t.easiest),
           fmt_optional(t.hardest), str(t.n_easiest), str(t.n_hardest), fmt_fixed(t.separation), fmt_float(t.separation_low),
           fmt_float(t.separation_high))


def statistics_tables(statistics: Statistics) -> dict[str, Table]:
    """File name (inside results/) -> the cells of each statistics CSV, as written (header, rows)."""
    level = statistics.config.significance_level
    tables = {
        CALIBRATION_FILE: _calibration_rows(statistics),
        PAIRWISE_FILE: (pairwise_cells(r, level, statistics.config.pairwise_correction) for r in statistics.pairwise),
        RANK_SETS_FILE: ((r.subject_id, str(r.rank), str(r.rank_low), str(r.rank_high), str(r.rank_low_marginal),
                          str(r.rank_high_marginal)) for r in statistics.rank_sets),
        RANK_STABILITY_FILE: ((r.subject_a, r.subject_b, str(r.rank_a), str(r.rank_b), fmt_bool(r.adjacent),
                               fmt_fixed(r.alpha_crossing), fmt_float(r.swap_share)) for r in statistics.order),
        PASS_AT_K_FILE: ((r.subject_id, str(r.k), fmt_fixed(r.pass_at_k), fmt_fixed(r.pass_hat_k), str(r.n_cases))
                         for r in statistics.pass_at_k),
        DIFFICULTY_FILE: ((r.subject_id, str(r.difficulty), fmt_fixed(r.weight), str(r.n_cases), str(r.n_runs),
                           str(r.n_pass), fmt_fixed(r.p), fmt_float(r.p_low), fmt_float(r.p_high))
                          for r in statistics.difficulty),
        ALPHA_FILE: ((r.subject_id, r.subject_version, fmt_fixed(r.alpha), fmt_fixed(r.q_final), fmt_optional(r.rank))
                     for r in statistics.alpha),
        DIFFICULTY_TREND_FILE: _trend_rows(statistics.difficulty_trend),
    }
    return {name: (STATS_TABLES[name], tuple(map(tuple, rows))) for name, rows in tables.items()}


def statistics_manifest(statistics: Statistics) -> dict:
    """The ``statistics`` entry of manifest.json: how to redo every interval bit for bit."""
    c = statistics.config
    return {
        "bootstrap_resamples": c.bootstrap_resamples,
        "bootstrap_streams": "per subject numpy Generator(PCG64(SeedSequence(the 8 big-endian 32-bit words of "
                             "sha256(label + newline + the digests sorted, joined by newlines)))), digests from "
                             "subject_digests (sha256 of the canonical text of the declared seed, the subject id "
                             "and its scored runs' parsed values by case, never file bytes); labels subject, "
                             "family:<code>, difficulty:<d>, pairs, ranks, calibration (aggregate_metrics.md, "
                             "section 18)",
        "seed": c.seed,
        "confidence_level": fmt_fixed(c.confidence_level),
        "difficulty_weights": {str(d): fmt_fixed(w) for d, w in sorted(c.difficulty_weights.items())},
        "min_case_coverage": fmt_fixed(c.min_case_coverage),
        "significance_level": fmt_fixed(c.significance_level),
        "subject_digests": {sid: s.digest for sid, s in sorted(statistics.subjects.items())},
    }

"""From a validated tree to the result tables (exact values), and from tables to file bytes.

:func:`compute_results` is the one computation: derive every scored run
(:func:`rgbench.compute.derive.derive_run`), aggregate per subject and per (subject,
family) (:mod:`rgbench.compute.metrics`), add the statistics (:mod:`rgbench.stats.outputs`).
:func:`publish` turns the exact :class:`Results` into the cells and bytes of every
file compute_metrics writes; it is the only place that rounds.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..compute.derive import RunRow, derive_run
from ..compute.input_groups import grouped_inputs, listing_digest
from ..compute.metrics import FamilyMetrics, SubjectMetrics, calibration_tables, family_metrics, subject_metrics
from ..load.parsing import dumps_json_canonical
from ..load.records import Tree
from ..load.scale import score_text
from ..load.spec import Spec
from ..numfmt import fmt_bool, fmt_exact, fmt_fixed, fmt_optional
from ..results_csv import Cells, Table, csv_line
from ..stats.case_summary import case_summaries
from ..stats.outputs import (
    FAMILY_STATS_COLUMNS,
    SUBJECT_STATS_COLUMNS,
    Statistics,
    compute_statistics_from_columns,
    family_stats_cells,
    statistics_manifest,
    statistics_tables,
    subject_stats_cells,
)
from ..stats.run_columns import RunColumns
from ..stats.seeds import subject_digests
from .breakdowns import ERROR, Breakdowns, breakdown_tables, compute_breakdowns

PER_RUN_COLUMNS = (
    "subject_id", "subject_version", "case_id", "run_id", "reviewer_id", "family",
    "raw_score", "rubric_floor", "rubric_ceiling", "clipped_score", "has_critical_fail",
    "has_recoverable_fail", "classification", "reported_confidence", "confidence_unit", "correctness",
)
SUBJECT_COLUMNS = (
    "subject_id", "subject_version", "N", "n_unscored", "P", "s_bar", "BS", "ECE", "Q_final",
    "alpha", "disqualified", "n_critical",
)
FAMILY_COLUMNS = ("subject_id", "subject_version", "family", "n_family", "P_family", "s_bar_family")

PER_RUN_FILE = "per_run.csv"
SUBJECT_FILE = "metrics_per_subject.csv"
FAMILY_FILE = "metrics_per_family.csv"
MANIFEST_FILE = "manifest.json"


@dataclass(frozen=True)
class Results:
    """Everything compute_metrics produces, still exact."""

    runs: tuple[RunRow, ...]          # every scored run, by (subject_id, case_id, run_id, reviewer_id)
    subjects: tuple[SubjectMetrics, ...]   # every registered subject, by subject_id
    families: tuple[FamilyMetrics, ...]    # by (subject_id, family)
    counts: Mapping[str, int]         # the manifest's counts
    inputs: Mapping[str, str]         # the manifest's record of the inputs (input_groups.grouped_inputs), sorted
    input_digest: str
    statistics: Statistics
    breakdowns: Breakdowns | None = None   # issue 15's tables; None only in hand-built Results
    # what a board of consolidated grades rests on (rgbench.stats.consolidated_board.grades_record); None: one
    # grade per run, as scoring/ holds it
    grades: Mapping[str, object] | None = None
    # judge_assisted.csv and judge_assisted_pairs.csv (estimation: judge-assisted,
    # rgbench.stats.judge_assisted_board); None in human mode
    judge_assisted: Mapping[str, Table] | None = None

    @property
    def n_runs(self) -> int:
        return len(self.runs)


def compute_results(tree: Tree, spec: Spec) -> Results:
    """Derive the per-run rows of a validated tree and aggregate them per registered subject, per
    (subject, family) and across subjects (the statistics)."""
    runs_of: dict[str, list[RunRow]] = {sid: [] for sid in sorted(tree.subjects)}
    scored: set[tuple[str, str, str]] = set()
    scale = spec.scale
    for scoring in tree.scorings:   # sorted by (subject_id, case_id, run_id, reviewer_id)
        runs_of[scoring.subject_id].append(
            derive_run(scoring, tree.responses[scoring.run_key], tree.golds[scoring.case_id], spec, scale))
        scored.add(scoring.run_key)
    unscored = dict.fromkeys(runs_of, 0)
    for key, response in tree.responses.items():
        if key not in scored and response.meta.status != ERROR:   # error runs: n_errors, never graded (loader)
            unscored[key[0]] += 1
    subjects = tuple(
        subject_metrics(sid, tree.subjects[sid].subject_version, rows, unscored[sid],
                        alpha=spec.alpha, bins=spec.ece_bins, scale=scale)
        for sid, rows in runs_of.items())
    families = tuple(f for rows in runs_of.values() for f in family_metrics(rows))
    recorded = grouped_inputs(tree.inputs)   # the manifest's record: a digest per subject folder, per other file
    difficulty_of = {case_id: gold.difficulty for case_id, gold in tree.golds.items()}
    family_of = {case_id: gold.family for case_id, gold in tree.golds.items()}
    columns = RunColumns.of(runs_of)
    summaries = case_summaries(columns, alpha=spec.alpha, scale=scale, bins=spec.ece_bins)
    # one per registered subject (runs_of has them all): the declared seed and its parsed runs, never file bytes
    digests = subject_digests(spec.stats.seed, runs_of, tree.scorings, tree.golds)
    statistics = compute_statistics_from_columns(columns, difficulty_of, family_of, spec, subjects, families,
                                                 tree.inputs, calibration_tables(runs_of, spec.ece_bins),
                                                 summaries=summaries, digests=digests)
    runs = tuple(row for rows in runs_of.values() for row in rows)
    counts = {
        "golds": len(tree.golds),
        "responses": len(tree.responses),
        "scorings": len(tree.scorings),
        "scored_runs": len(runs),
        "subjects": len(tree.subjects),
        "unscored_responses": sum(unscored.values()),
    }
    breakdowns = compute_breakdowns(tree, spec, runs_of, summaries=summaries, digests=digests)
    if any(breakdowns.n_errors.values()):
        counts["error_responses"] = sum(breakdowns.n_errors.values())
    return Results(runs, subjects, families, counts, recorded, listing_digest(recorded), statistics, breakdowns)


def csv_text(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """CSV with a header row and ``\\n`` line endings, each cell written by
    :func:`rgbench.results_csv.csv_line`: a text never starts a spreadsheet formula, a field holding ``,``,
    ``;``, ``"`` or a line break is quoted. The one writer of result CSVs."""
    return "".join(map(csv_line, (header, *rows)))


def per_run_rows(runs: Sequence[RunRow]) -> tuple[Cells, ...]:
    """per_run.csv's rows; the cells of a field the benchmark does not record (floor, ceiling, classification,
    confidence, correctness) are empty."""
    return tuple(
        (r.subject_id, r.subject_version, r.case_id, r.run_id, r.reviewer_id, r.family, score_text(r.raw_score),
         fmt_optional(r.rubric_floor, score_text), fmt_optional(r.rubric_ceiling, score_text), score_text(r.clipped_score),
         fmt_bool(r.has_critical_fail),
         fmt_bool(r.has_recoverable_fail), fmt_optional(r.classification), fmt_optional(r.reported_confidence),
         fmt_fixed(r.confidence_unit), fmt_optional(r.correctness, lambda v: fmt_exact(v, 6)))
        for r in runs
    )


def subject_rows(subjects: Sequence[SubjectMetrics], statistics: Statistics,
                 n_errors: Mapping[str, int] | None = None) -> tuple[Cells, ...]:
    """metrics_per_subject.csv's rows (SUBJECT_ALL_COLUMNS); ``n_errors`` (error runs, out of N) is the last column."""
    errors = n_errors or {}
    return tuple(
        (m.subject_id, m.subject_version, str(m.n), str(m.n_unscored), fmt_fixed(m.p), fmt_fixed(m.s_bar),
         fmt_fixed(m.bs), fmt_fixed(m.ece), fmt_fixed(m.q_final), fmt_fixed(m.alpha),
         fmt_bool(m.disqualified), str(m.n_critical)) + subject_stats_cells(statistics, m.subject_id)
        + (str(errors.get(m.subject_id, 0)),)
        for m in subjects
    )


def family_rows(families: Sequence[FamilyMetrics], statistics: Statistics) -> tuple[Cells, ...]:
    """metrics_per_family.csv's rows (FAMILY_ALL_COLUMNS)."""
    return tuple(
        (f.subject_id, f.subject_version, f.family, str(f.n_family), fmt_fixed(f.p_family), fmt_fixed(f.s_bar_family))
        + family_stats_cells(statistics, f.subject_id, f.family)
        for f in families
    )


SUBJECT_ALL_COLUMNS = SUBJECT_COLUMNS + SUBJECT_STATS_COLUMNS + ("n_errors",)
FAMILY_ALL_COLUMNS = FAMILY_COLUMNS + FAMILY_STATS_COLUMNS


def result_tables(results: Results) -> dict[str, Table]:
    """File name (inside results/) -> the cells of every CSV compute_metrics writes, as written."""
    return {
        PER_RUN_FILE: (PER_RUN_COLUMNS, per_run_rows(results.runs)),
        SUBJECT_FILE: (SUBJECT_ALL_COLUMNS, subject_rows(
            results.subjects, results.statistics, results.breakdowns.n_errors if results.breakdowns else None)),
        FAMILY_FILE: (FAMILY_ALL_COLUMNS, family_rows(results.families, results.statistics)),
        **statistics_tables(results.statistics),
        **(breakdown_tables(results.breakdowns) if results.breakdowns else {}),
        **(results.judge_assisted or {}),
    }


def manifest_document(spec: Spec, results: Results, outputs: Mapping[str, bytes]) -> dict[str, Any]:
    """Provenance of one computation: alpha, version, counts, input digests and output digests; no clock."""
    manifest = {
        "alpha": fmt_fixed(spec.alpha),
        "benchmark_version": spec.benchmark_version,
        "counts": dict(results.counts),
        "generator": "scripts/compute_metrics.py",
        "input_digest": results.input_digest,
        "inputs": dict(results.inputs),
        "outputs": {name: hashlib.sha256(data).hexdigest() for name, data in sorted(outputs.items())},
        "statistics": statistics_manifest(results.statistics),
    }
    if results.grades is not None:
        manifest["grades"] = dict(results.grades)
    return manifest


@dataclass(frozen=True)
class Published:
    """The results as written, in memory: the cells of every result CSV by file name inside results/
    (``tables``), manifest.json's document (``manifest``) and the exact bytes of every file (``files``, the
    manifest's included). What the leaderboard renders from (:mod:`rgbench.leaderboard.inputs`), whether this
    process computed it (:func:`publish`) or read it from results/ (``make leaderboard`` alone)."""

    tables: Mapping[str, Table]
    manifest: Mapping[str, Any]
    files: Mapping[str, bytes]

    def with_tables(self, more: Mapping[str, Table]) -> Published:
        """This set and the tables ``more`` written beside it, outside the manifest (the agreement tables)."""
        return Published({**self.tables, **more}, self.manifest,
                         {**self.files, **{name: csv_text(*table).encode("utf-8") for name, table in more.items()}})


def publish(spec: Spec, results: Results) -> Published:
    """The exact :class:`Results` written: every cell rounded once (:mod:`rgbench.numfmt`), then the bytes."""
    tables = result_tables(results)
    files = {name: csv_text(*table).encode("utf-8") for name, table in tables.items()}
    manifest = manifest_document(spec, results, files)
    files[MANIFEST_FILE] = dumps_json_canonical(manifest).encode("utf-8")
    return Published(tables, manifest, files)
